package score

import (
	"math"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// TestScreenBound checks Screen.Bound: over every predicate it is the
// removals' change plus minus the WPLL without the removed clauses (each
// atom's loss, the identity it is built from), and over a candidate's
// predicates it is never below Screen.Gain, for candidates of the planted
// worlds (one and two predicates, some that touch only evidence atoms),
// with and without a clause removed, every atom scored or a sample, and
// some predicates not scored.
func TestScreenBound(t *testing.T) {
	for _, opt := range []CountOptions{{}, {FractAtoms: 0.5, Seed: 3}, {OwnDomains: true}} {
		for _, scoredAll := range []bool{true, false} {
			m, s0, planted := plantedScorer(t, 5, 20, 3, opt)
			if !scoredAll {
				// Cancer is evidence: its atoms are not scored.
				d, err := NewPLLData(m, dbsOf(s0), []mln.PredID{0, 2}, opt)
				if err != nil {
					t.Fatal(err)
				}
				if s0, err = d.NewScorer(s0.Clauses()); err != nil {
					t.Fatal(err)
				}
			}
			s, err := s0.Add(planted[0])
			if err != nil {
				t.Fatal(err)
			}
			fit, sc := screenAtFit(t, s)
			all := []mln.PredID{0, 1, 2}
			prec := 1 / float64(DefaultPLLPriorStdDev*DefaultPLLPriorStdDev)
			for _, remove := range [][]int{nil, {len(s.Clauses()) - 1}, {0}} {
				w := fit.Weights
				obj := objectiveAt(t, s, remove, nil, w)
				prior := 0.0
				for i, x := range w {
					if !containsInt(remove, i) {
						prior += prec * x * x / 2
					}
				}
				g, _, err := sc.Gain(t.Context(), remove, nil)
				if err != nil {
					t.Fatal(err)
				}
				b, err := sc.Bound(remove, all)
				if err != nil {
					t.Fatal(err)
				}
				if want := g - (obj + prior); math.Abs(b-want) > 1e-9 {
					t.Fatalf("remove %v: bound over every predicate %.12g, want the removal's gain minus the WPLL %.12g", remove, b, want)
				}
				for _, src := range []string{"Smokes(x) v Cancer(x)", "!Friends(x, y) v Smokes(y)", "Friends(x, y) v !Friends(y, x) v Smokes(x)",
					"!Cancer(x) v !Smokes(x)", "Cancer(x) v !Friends(x,y) v !Cancer(y)", "!Smokes(x) v !Smokes(y) v Friends(x,y)"} {
					c := parseClause(t, m, src)
					var preds []mln.PredID
					for _, l := range c.Lits {
						preds = append(preds, l.Pred)
					}
					gain, _, err := sc.Gain(t.Context(), remove, c)
					if err != nil {
						t.Fatal(err)
					}
					ub, err := sc.Bound(remove, preds)
					if err != nil {
						t.Fatal(err)
					}
					if gain > ub+1e-12 {
						t.Fatalf("options %+v, remove %v, %s: gain %.12g above the bound %.12g", opt, remove, src, gain, ub)
					}
				}
			}
		}
	}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// dbsOf returns the databases of s's data.
func dbsOf(s *Scorer) []*mln.Database { return s.d.dbs }
