package mcsat

import (
	"math"
	"slices"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/unionfind"
)

// Defaults of the block moves of Run and Sampling.
const (
	// DefaultBlockWeight is the clause weight (absolute) from which a
	// clause ties its atoms into a block: MC-SAT selects such a clause
	// with probability at least 1-exp(-5) > 0.993, so the atoms it ties
	// rarely change apart.
	DefaultBlockWeight = 5
	// DefaultMaxBlock is the largest block: a block move enumerates the
	// 2^k states of a block of k atoms.
	DefaultMaxBlock = 10
)

// blocks returns the blocks of atoms tied by heavy clauses: the clauses
// of at least two atoms with |w| >= minW (hard ones included) are taken
// heaviest first, and each joins the blocks of its atoms unless the union
// would have more than maxSize atoms (Kruskal's order, so the strongest
// ties are kept). Blocks of one atom are left out; the result does not
// depend on anything but the model.
func (m *model) blocks(minW float64, maxSize int) [][]int32 {
	type edge struct {
		w float64
		c int32
	}
	var edges []edge
	for c := range m.numClauses() {
		if w := math.Abs(m.w[c]); w >= minW && len(m.clause(c)) >= 2 && len(m.clause(c)) <= maxSize {
			edges = append(edges, edge{w, int32(c)})
		}
	}
	if len(edges) == 0 {
		return nil
	}
	slices.SortStableFunc(edges, func(a, b edge) int {
		switch {
		case a.w > b.w:
			return -1
		case a.w < b.w:
			return 1
		}
		return 0
	})
	parent := unionfind.New[int32](m.n)
	size := make([]int32, m.n)
	for a := range size {
		size[a] = 1
	}
	find := parent.Find
	var roots []int32
	for _, e := range edges {
		roots = roots[:0]
		total := int32(0)
		for _, l := range m.clause(int(e.c)) {
			r := find(l.Atom())
			if !slices.Contains(roots, r) {
				roots = append(roots, r)
				total += size[r]
			}
		}
		if len(roots) < 2 || int(total) > maxSize {
			continue
		}
		for _, r := range roots[1:] {
			parent[r] = roots[0]
		}
		size[roots[0]] = total
	}
	byRoot := make(map[int32]int)
	var out [][]int32
	for a := range parent {
		r := find(int32(a))
		if size[r] < 2 {
			continue
		}
		i, ok := byRoot[r]
		if !ok {
			i = len(out)
			byRoot[r] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], int32(a))
	}
	return out
}

// flipDelta flips atom a (no clause active) and returns the change of the
// world's log-potential under s.m's weights and of its number of false
// hard clauses; hard clauses weigh hardWeight when it is positive.
func (s *state) flipDelta(a int32, hardWeight float64) (dScore float64, dHard int) {
	m := s.m
	s.y[a] = !s.y[a]
	ya := s.y[a]
	for _, o := range m.occurrences(a) {
		c := o >> 1
		var d int // +1: the clause became true, -1: false
		if ya != (o&1 == 1) {
			s.numTrue[c]++
			if s.numTrue[c] == 1 {
				d = 1
			}
		} else {
			s.numTrue[c]--
			if s.numTrue[c] == 0 {
				d = -1
			}
		}
		if d == 0 {
			continue
		}
		if s.scoreW != nil {
			s.score += float64(d) * s.scoreW[c]
		}
		w := m.w[c]
		switch {
		case !math.IsInf(w, 0):
			dScore += float64(d) * w
		case hardWeight > 0:
			dScore += float64(d) * math.Copysign(hardWeight, w)
		case w > 0:
			dHard -= d // a must-be-true clause became false: +1
		default:
			dHard += d // a must-be-false clause became true: +1
		}
	}
	return dScore, dHard
}

// blockMove resamples the atoms of block b jointly from their
// distribution given the rest of the world (a block Gibbs, or heat-bath,
// move): it visits the 2^k states of the block in Gray-code order,
// scoring each, and moves to one drawn in proportion to exp(score) among
// those violating no more hard clauses than the current one (none, when
// the world satisfies them). The move leaves the distribution invariant
// and can jump between the modes of a tightly tied block in one step.
// No clause may be active (call begin first).
// score and hards are scratch space of at least 2^k entries.
func (s *state) blockMove(b []int32, hardWeight float64, score []float64, hards []int32) {
	k := len(b)
	n := 1 << k
	score, hards = score[:n], hards[:n]
	hard := 0
	minHard := 0
	cur := 0.0
	score[0], hards[0] = 0, 0
	for g := 1; g < n; g++ {
		bit := trailingZeros(g)
		ds, dh := s.flipDelta(b[bit], hardWeight)
		cur += ds
		hard += dh
		gray := g ^ g>>1
		score[gray] = cur
		hards[gray] = int32(hard)
		if hard < minHard {
			minHard = hard
		}
	}
	// The walk ends at gray(n-1) = 1<<(k-1): only the last atom differs.
	maxS := math.Inf(-1)
	for x := range n {
		if int(hards[x]) == minHard && score[x] > maxS {
			maxS = score[x]
		}
	}
	total := 0.0
	for x := range n {
		if int(hards[x]) == minHard {
			score[x] = math.Exp(score[x] - maxS)
			total += score[x]
		} else {
			score[x] = 0
		}
	}
	u := s.rng.Float64() * total
	pick := n - 1
	for x := range n {
		if u < score[x] {
			pick = x
			break
		}
		u -= score[x]
	}
	for score[pick] == 0 { // float rounding at the end of the scan
		pick--
	}
	at := 1 << (k - 1)
	for i := range k {
		if (at^pick)>>i&1 == 1 {
			s.flipDelta(b[i], hardWeight)
		}
	}
}

func trailingZeros(x int) int {
	n := 0
	for x&1 == 0 {
		x >>= 1
		n++
	}
	return n
}

// tiedClasses returns the classes of atoms that pairs of hard binary
// clauses tie together: {a, ¬b} with {¬a, b} make a and b equal, {a, b}
// with {¬a, ¬b} opposite. Every world satisfying the hard clauses keeps
// satisfying these pairs when all the atoms of a class flip together, and
// the class of a long run of atoms tied by hard clauses (a fluent kept by
// inertia from one time to the next in an event-calculus model) can be
// left by no local move: every single flip in it breaks a hard clause.
// Classes of one atom are left out; the result depends only on the model.
func (m *model) tiedClasses() [][]int32 {
	type pair struct{ a, b ground.Lit }
	key := func(l1, l2 ground.Lit) pair {
		if l2 < l1 {
			l1, l2 = l2, l1
		}
		return pair{l1, l2}
	}
	binary := map[pair]bool{}
	for c := range m.numClauses() {
		if cl := m.clause(c); math.IsInf(m.w[c], 1) && len(cl) == 2 && cl[0].Atom() != cl[1].Atom() {
			binary[key(cl[0], cl[1])] = true
		}
	}
	if len(binary) == 0 {
		return nil
	}
	parent := unionfind.New[int32](m.n)
	find := parent.Find
	tied := false
	for p := range binary {
		if !binary[key(p.a.Not(), p.b.Not())] {
			continue
		}
		if ra, rb := find(p.a.Atom()), find(p.b.Atom()); ra != rb {
			parent[max(ra, rb)] = min(ra, rb)
			tied = true
		}
	}
	if !tied {
		return nil
	}
	byRoot := make(map[int32]int)
	var out [][]int32
	for a := range parent {
		r := find(int32(a))
		if r == int32(a) {
			continue
		}
		i, ok := byRoot[r]
		if !ok {
			i = len(out)
			byRoot[r] = i
			out = append(out, []int32{r})
		}
		out[i] = append(out[i], int32(a))
	}
	return out
}

// classMove proposes to flip every atom of the class b (tiedClasses)
// together and accepts by Metropolis-Hastings on the world's
// distribution: always when the log-potential does not fall, with
// probability exp(change) when it does, never when a hard clause would
// break. The proposal is its own inverse, so the move leaves the
// distribution invariant; it moves a run of atoms tied by hard clauses
// between its two states in one step.
func (s *state) classMove(b []int32, hardWeight float64) {
	ds, dh := 0.0, 0
	for _, a := range b {
		d, h := s.flipDelta(a, hardWeight)
		ds += d
		dh += h
	}
	if dh < 0 || dh == 0 && (ds >= 0 || s.rng.Float64() < math.Exp(ds)) {
		return
	}
	for _, a := range b {
		s.flipDelta(a, hardWeight)
	}
}
