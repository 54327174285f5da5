package score

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// scoredAtSrc has a join whose repeated predicate is Movie and whose
// conclusion is Under.
const scoredAtSrc = `film = {F1, F2}
person = {A, B, C}
Movie(film, person)
Dir(person)
Under(person, person)
0 Movie(f, p)
0 Dir(p)
0 Under(a, d)
0 !Movie(f, a) v !Movie(f, d) v !Dir(d) v Under(a, d)
`

// TestScoredAtBruteForce checks CountOptions.ScoredAt against the
// pseudo-log-likelihood enumerated by hand: the join (clause 3) enters
// only the conditionals of Under's atoms (or Under's and Dir's), every
// other atom's conditional is scored without it, and each predicate's atoms weigh 1/its groundings. It
// checks the scorer's rows with the join as a base clause and as a
// candidate (the overlay structure search scores), the gradient against
// finite differences, and that without ScoredAt the join enters every
// conditional.
func TestScoredAtBruteForce(t *testing.T) {
	films, persons := []string{"F1", "F2"}, []string{"A", "B", "C"}
	for seed := uint64(1); seed <= 6; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		movie := map[[2]string]bool{}
		dir := map[string]bool{}
		under := map[[2]string]bool{}
		var db strings.Builder
		for _, f := range films {
			for _, p := range persons {
				if r.IntN(2) == 0 {
					movie[[2]string{f, p}] = true
					fmt.Fprintf(&db, "Movie(%s, %s)\n", f, p)
				}
			}
		}
		for _, p := range persons {
			if r.IntN(2) == 0 {
				dir[p] = true
				fmt.Fprintf(&db, "Dir(%s)\n", p)
			}
			for _, q := range persons {
				if r.IntN(3) == 0 {
					under[[2]string{p, q}] = true
					fmt.Fprintf(&db, "Under(%s, %s)\n", p, q)
				}
			}
		}
		// counts returns the true groundings of the four clauses.
		counts := func(mv map[[2]string]bool, dr map[string]bool, un map[[2]string]bool) [4]float64 {
			var n [4]float64
			for _, f := range films {
				for _, p := range persons {
					if mv[[2]string{f, p}] {
						n[0]++
					}
				}
			}
			for _, p := range persons {
				if dr[p] {
					n[1]++
				}
				for _, q := range persons {
					if un[[2]string{p, q}] {
						n[2]++
					}
				}
			}
			for _, f := range films {
				for _, a := range persons {
					for _, d := range persons {
						if !mv[[2]string{f, a}] || !mv[[2]string{f, d}] || !dr[d] || un[[2]string{a, d}] {
							n[3]++
						}
					}
				}
			}
			return n
		}
		// pll is the pseudo-log-likelihood with the join in the
		// conditionals of Under's atoms, of Dir's with mode 1, of every
		// atom with mode 2.
		pll := func(w []float64, mode int) float64 {
			score := func(n [4]float64, joinIn bool) float64 {
				s := w[0]*n[0] + w[1]*n[1] + w[2]*n[2]
				if joinIn {
					s += w[3] * n[3]
				}
				return s
			}
			base := counts(movie, dir, under)
			logCond := func(flipped [4]float64, joinIn bool) float64 {
				s, sf := score(base, joinIn), score(flipped, joinIn)
				return s - math.Log(math.Exp(s)+math.Exp(sf))
			}
			var lm, ld, lu float64
			for _, f := range films {
				for _, p := range persons {
					k := [2]string{f, p}
					mv := copyMap(movie)
					mv[k] = !mv[k]
					lm += logCond(counts(mv, dir, under), mode == 2)
				}
			}
			for _, p := range persons {
				dr := copyMap(dir)
				dr[p] = !dr[p]
				ld += logCond(counts(movie, dr, under), mode >= 1)
				for _, q := range persons {
					k := [2]string{p, q}
					un := copyMap(under)
					un[k] = !un[k]
					lu += logCond(counts(movie, dir, un), true)
				}
			}
			return lm/float64(len(films)*len(persons)) + ld/float64(len(persons)) + lu/float64(len(persons)*len(persons))
		}
		m, err := mln.ParseModel("join.mln", scoredAtSrc)
		if err != nil {
			t.Fatal(err)
		}
		d0, err := mln.ParseDatabase(m, "join.db", db.String())
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(); err != nil {
			t.Fatal(err)
		}
		under0, _ := m.Pred("Under")
		join := m.Clauses[3]
		w := []float64{-0.3 + r.Float64(), 0.2 - r.Float64(), -0.5 + r.Float64(), 0.5 + 2*r.Float64()}
		dir0, _ := m.Pred("Dir")
		for mode := 0; mode <= 2; mode++ {
			opt := CountOptions{}
			if mode < 2 {
				at := []mln.PredID{under0.ID}
				if mode == 1 {
					at = append(at, dir0.ID)
				}
				opt.ScoredAt = func(c *mln.Clause) []mln.PredID {
					if c == join {
						return at
					}
					return nil
				}
			}
			d, err := NewPLLData(m, []*mln.Database{d0}, nil, opt)
			if err != nil {
				t.Fatal(err)
			}
			want := pll(w, mode)
			var wantGrad [4]float64
			for i := range w {
				const h = 1e-6
				wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
				wp[i] += h
				wm[i] -= h
				wantGrad[i] = (pll(wp, mode) - pll(wm, mode)) / (2 * h)
			}
			check := func(name string, ps ...*WPLL) {
				t.Helper()
				got := 0.0
				grad := make([]float64, len(w))
				for _, p := range ps {
					g := make([]float64, len(w))
					got += p.Eval(w, g)
					for i := range g {
						grad[i] += g[i]
					}
				}
				if math.Abs(got-want) > 1e-9 {
					t.Errorf("seed %d, mode %d, %s: WPLL %.12f, want %.12f", seed, mode, name, got, want)
				}
				for i := range wantGrad {
					if math.Abs(grad[i]-wantGrad[i]) > 1e-6 {
						t.Errorf("seed %d, mode %d, %s: gradient[%d] %.9f, want %.9f", seed, mode, name, i, grad[i], wantGrad[i])
					}
				}
			}
			s, err := d.NewScorer(m.Clauses)
			if err != nil {
				t.Fatal(err)
			}
			check("base", s.base[0])
			units, err := d.NewScorer(m.Clauses[:3])
			if err != nil {
				t.Fatal(err)
			}
			cc, err := d.Counts(join)
			if err != nil {
				t.Fatal(err)
			}
			view, extra := units.overlay(0, units.base[0], make([]bool, 3), []*ClauseCounts{cc}, 4)
			if extra == nil {
				check("candidate", view)
			} else {
				check("candidate", view, extra)
			}
			// The fit from the candidate path reaches the objective the
			// base path gives at the same weights.
			fit, err := units.Score(context.Background(), []*mln.Clause{join}, TightFit(nil))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.base[0].Eval(fit.Weights, nil) - priorOf(fit.Weights); math.Abs(got-fit.Objective) > 1e-9 {
				t.Errorf("seed %d, mode %d: fit objective %.12f, base rows at its weights %.12f", seed, mode, fit.Objective, got)
			}
		}
	}
}

func copyMap[K comparable](m map[K]bool) map[K]bool {
	out := make(map[K]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// priorOf is the default Gaussian prior's penalty at w.
func priorOf(w []float64) float64 {
	s := 0.0
	for _, x := range w {
		s += x * x / (2 * DefaultPLLPriorStdDev * DefaultPLLPriorStdDev)
	}
	return s
}
