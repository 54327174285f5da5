package score

import (
	"context"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// objectiveAt evaluates s's objective (WPLL minus the default prior) at
// fixed weights w (base clauses, then cands) with the base clauses at
// remove taken out, as ScoreReplace builds it.
func objectiveAt(t *testing.T, s *Scorer, remove []int, cands []*mln.Clause, w []float64) float64 {
	t.Helper()
	removed := make([]bool, len(s.clauses))
	for _, i := range remove {
		removed[i] = true
	}
	var cc []*ClauseCounts
	for _, c := range cands {
		x, err := s.d.Counts(c)
		if err != nil {
			t.Fatal(err)
		}
		cc = append(cc, x)
	}
	w = slices.Clone(w)
	for _, i := range remove {
		w[i] = 0
	}
	prec := 1 / float64(DefaultPLLPriorStdDev*DefaultPLLPriorStdDev)
	f := 0.0
	for db, b := range s.base {
		base, extra := s.overlay(db, b, removed, cc, len(w))
		f += base.Eval(w, nil)
		if extra != nil {
			f += extra.Eval(w, nil)
		}
	}
	for _, x := range w {
		f -= prec * x * x / 2
	}
	return f
}

// screenAtFit fits s's weights (tight) and returns the fit and the screen
// at those weights.
func screenAtFit(t *testing.T, s *Scorer) (*Fit, *Screen) {
	t.Helper()
	fit0, err := s.Fit(context.Background(), TightFit(nil))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := s.Screen(fit0.Weights, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return fit0, sc
}

// TestScreenGain checks Screen.Gain against the objective evaluated at
// fixed weights (a candidate added, a clause removed, both), that its
// weight maximises that objective, and that its gain never exceeds a
// full refit's.
func TestScreenGain(t *testing.T) {
	ctx := context.Background()
	m, s0, planted := plantedScorer(t, 7, 30, 3, CountOptions{PLLOptions: PLLOptions{Workers: 1}})
	s, err := s0.Add(planted[0])
	if err != nil {
		t.Fatal(err)
	}
	fit0, sc := screenAtFit(t, s)
	if got := objectiveAt(t, s, nil, nil, fit0.Weights); math.Abs(got-sc.Objective()) > 1e-9 || math.Abs(got-fit0.Objective) > 1e-9 {
		t.Fatalf("base objective %g, screen %g, fit %g", got, sc.Objective(), fit0.Objective)
	}
	last := len(s.Clauses()) - 1
	for _, tc := range []struct {
		remove []int
		cand   string
	}{
		{nil, "!Friends(x, y) v !Smokes(x) v Smokes(y)"},
		{nil, "!Friends(x, y) v Cancer(y)"},
		{nil, "Smokes(x) v Friends(x, x)"},
		{[]int{last}, ""},
		{[]int{last}, "!Smokes(x) v Cancer(x) v Friends(x, x)"},
	} {
		var cands []*mln.Clause
		var cand *mln.Clause
		if tc.cand != "" {
			cand = parseClause(t, m, tc.cand)
			cands = []*mln.Clause{cand}
		}
		gain, wt, err := sc.Gain(ctx, tc.remove, cand)
		if err != nil {
			t.Fatal(err)
		}
		at := func(x float64) float64 {
			w := slices.Clone(fit0.Weights)
			if cand != nil {
				w = append(w, x)
			}
			return objectiveAt(t, s, tc.remove, cands, w) - fit0.Objective
		}
		if got := at(wt); math.Abs(got-gain) > 1e-9 {
			t.Errorf("%v %q: screen gain %g at weight %g, objective says %g", tc.remove, tc.cand, gain, wt, got)
		}
		if cand != nil && (at(wt+1e-3) > gain+1e-12 || at(wt-1e-3) > gain+1e-12) {
			t.Errorf("%v %q: weight %g is not the maximiser", tc.remove, tc.cand, wt)
		}
		full, err := s.ScoreReplace(ctx, tc.remove, cands, TightFit(fit0.Weights))
		if err != nil {
			t.Fatal(err)
		}
		if gain > full.Objective-fit0.Objective+1e-5*math.Abs(fit0.Objective) {
			t.Errorf("%v %q: screen gain %g above the refit's %g", tc.remove, tc.cand, gain, full.Objective-fit0.Objective)
		}
	}
}

// TestScreenRanksLikeRefits checks on planted data that ranking candidates
// by the screen's gain puts the planted clauses first, as full refits do.
func TestScreenRanksLikeRefits(t *testing.T) {
	ctx := context.Background()
	m, s, planted := plantedScorer(t, 7, 30, 3, CountOptions{PLLOptions: PLLOptions{Workers: 1}})
	fit0, sc := screenAtFit(t, s)
	cands := slices.Clone(planted)
	for _, src := range []string{
		"!Cancer(x) v Friends(x, x)", "Smokes(x) v Friends(x, x)", "!Friends(x, y) v Cancer(y)",
		"!Friends(x, y) v Smokes(y)", "!Smokes(x) v Smokes(y) v Friends(x, y)", "Cancer(x) v Friends(x, x)",
		"!Friends(x, y) v !Cancer(x) v Cancer(y)", "!Friends(x, y) v Friends(y, x)",
	} {
		cands = append(cands, parseClause(t, m, src))
	}
	screen := make([]float64, len(cands))
	refit := make([]float64, len(cands))
	for i, c := range cands {
		g, _, err := sc.Gain(ctx, nil, c)
		if err != nil {
			t.Fatal(err)
		}
		f, err := s.Score(ctx, []*mln.Clause{c}, TightFit(fit0.Weights))
		if err != nil {
			t.Fatal(err)
		}
		screen[i], refit[i] = g, f.Objective-fit0.Objective
		// (The refit stops at a relative change of 1e-5.)
		if g > refit[i]+1e-5*math.Abs(fit0.Objective) {
			t.Errorf("candidate %d: screen gain %g above the refit's %g", i, g, refit[i])
		}
	}
	top := func(g []float64) []int {
		idx := []int{}
		for i := range g {
			idx = append(idx, i)
		}
		sort.SliceStable(idx, func(a, b int) bool { return g[idx[a]] > g[idx[b]] })
		r := idx[:len(planted)]
		slices.Sort(r)
		return r
	}
	want := []int{0, 1}
	if got := top(screen); !slices.Equal(got, want) {
		t.Errorf("screen ranks %v first (gains %v), want the planted %v", got, screen, want)
	}
	if got := top(refit); !slices.Equal(got, want) {
		t.Errorf("refits rank %v first (gains %v), want the planted %v", got, refit, want)
	}
}

// TestSeek checks the galloping search against a linear scan.
func TestSeek(t *testing.T) {
	xs := []int32{1, 3, 3, 4, 8, 9, 15, 20, 21, 22, 30}
	for from := 0; from <= len(xs); from++ {
		for x := int32(0); x < 33; x++ {
			want := from
			for want < len(xs) && xs[want] < x {
				want++
			}
			if got := seek(xs, from, x); got != want {
				t.Fatalf("seek(from %d, %d) = %d, want %d", from, x, got, want)
			}
		}
	}
}
