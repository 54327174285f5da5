// Package suggest finds, for a name that was not recognised, the known name
// it most likely meant, for "did you mean" hints in error messages.
package suggest

import "strings"

// Closest returns the candidate nearest to word: the one at the smallest
// edit distance (insertions, deletions, substitutions and swaps of two
// neighbouring letters, ignoring case), if that distance is small for the
// word's length (at most 1 for words of up to 4 letters, 2 up to 8, 3
// beyond), or else the one candidate word is a prefix of. It returns ""
// when none is close; ties go to the earlier candidate.
func Closest(word string, candidates []string) string {
	if word == "" {
		return ""
	}
	lw := strings.ToLower(word)
	limit := 1
	switch n := len([]rune(word)); {
	case n > 8:
		limit = 3
	case n > 4:
		limit = 2
	}
	best, bestD := "", limit+1
	prefix, prefixes := "", 0
	for _, c := range candidates {
		if c == word {
			continue
		}
		lc := strings.ToLower(c)
		if d := distance(lw, lc); d < bestD {
			best, bestD = c, d
		}
		if strings.HasPrefix(lc, lw) {
			prefix = c
			prefixes++
		}
	}
	if best != "" {
		return best
	}
	if prefixes == 1 {
		return prefix
	}
	return ""
}

// Hint returns " (did you mean X?)" for the candidate closest to word, or
// "" when none is close.
func Hint(word string, candidates []string) string {
	if c := Closest(word, candidates); c != "" {
		return " (did you mean " + c + "?)"
	}
	return ""
}

// distance is the optimal string alignment distance between a and b.
func distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	prev2 := make([]int, len(y)+1)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}
