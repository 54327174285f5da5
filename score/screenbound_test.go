package score

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// TestScreenBound checks Screen.Bound: over every predicate (in both
// signs) it is the removals' change plus minus the WPLL without the
// removed clauses (each atom's loss, the identity it is built from), and
// over a candidate's predicates and signs it is never below Screen.Gain
// nor above the bound that ignores the signs, for candidates of the
// planted worlds (one to three predicates, repeated predicates of one
// sign and of both, some that touch only evidence atoms), with and
// without a clause removed, every atom scored or a sample, and some
// predicates not scored.
func TestScreenBound(t *testing.T) {
	for _, opt := range []CountOptions{{}, {FractAtoms: 0.5, Seed: 3}, {OwnDomains: true}} {
		for _, scoredAll := range []bool{true, false} {
			m, s := boundScorer(t, 5, 20, opt, scoredAll)
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
				_, ups, err := sc.signedBound(remove, all, all)
				if err != nil {
					t.Fatal(err)
				}
				up := sumSides(ups)
				if want := g - (obj + prior); math.Abs(g+up[0]-want) > 1e-9 || math.Abs(g+up[1]-want) > 1e-9 {
					t.Fatalf("remove %v: bounds over every predicate %.12g and %.12g, want the removal's gain minus the WPLL %.12g", remove, g+up[0], g+up[1], want)
				}
				for _, src := range []string{"Smokes(x) v Cancer(x)", "!Friends(x, y) v Smokes(y)", "Friends(x, y) v !Friends(y, x) v Smokes(x)",
					"!Cancer(x) v !Smokes(x)", "Cancer(x) v !Friends(x,y) v !Cancer(y)", "!Smokes(x) v !Smokes(y) v Friends(x,y)",
					"Smokes(x)", "!Smokes(x)", "Friends(x,y) v !Friends(x,z) v Smokes(z)", "Smokes(x) v !Smokes(y) v !Friends(x,y)",
					"!Friends(x,y) v !Friends(y,z) v Friends(x,z)", "Smokes(x) v Smokes(y) v Friends(x,y)", "!Cancer(x) v Cancer(y) v !Friends(x,y)",
					"Friends(x,y) v Friends(y,x)", "!Friends(x,x) v Smokes(x)"} {
					c := parseClause(t, m, src)
					var preds, pos, neg []mln.PredID
					for _, l := range c.Lits {
						preds = append(preds, l.Pred)
						if l.Neg {
							neg = append(neg, l.Pred)
						} else {
							pos = append(pos, l.Pred)
						}
					}
					gain, _, err := sc.Gain(t.Context(), remove, c)
					if err != nil {
						t.Fatal(err)
					}
					ub, err := sc.Bound(remove, c)
					if err != nil {
						t.Fatal(err)
					}
					if gain > ub+1e-12 {
						t.Fatalf("options %+v, remove %v, %s: gain %.12g above the bound %.12g", opt, remove, src, gain, ub)
					}
					// The signs and arguments only tighten the bound over
					// the clause's predicates.
					rg, ups, err := sc.signedBound(remove, preds, preds)
					if err != nil {
						t.Fatal(err)
					}
					up := sumSides(ups)
					loose := rg + max(up[0], up[1])
					if ub > loose+1e-12 {
						t.Fatalf("options %+v, remove %v, %s: bound %.12g above the bound without signs %.12g", opt, remove, src, ub, loose)
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

// TestScreenBoundExact checks each side of Screen.Bound against the
// tightest bound of its kind, the loss summed over the atoms where the
// candidate's counted Δ has that side's sign (at the log-odds without the
// removed clauses): random candidates of one to four literals over the
// planted predicates (both signs, repeated predicates, shared and
// constant arguments), with and without a clause removed, every atom
// scored or a sample, own domains, and an evidence predicate.
func TestScreenBoundExact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	preds := []struct {
		name  string
		arity int
	}{{"Smokes", 1}, {"Cancer", 1}, {"Friends", 2}}
	for _, opt := range []CountOptions{{}, {FractAtoms: 0.5, Seed: 3}, {OwnDomains: true}} {
		for _, scoredAll := range []bool{true, false} {
			m, s := boundScorer(t, 11, 12, opt, scoredAll)
			_, sc := screenAtFit(t, s)
			for trial := 0; trial < 60; trial++ {
				var lits []string
				for range 1 + r.IntN(4) {
					p := preds[r.IntN(len(preds))]
					var args []string
					for range p.arity {
						if r.IntN(6) == 0 {
							args = append(args, fmt.Sprintf("P%d", 1+r.IntN(12)))
						} else {
							args = append(args, string(rune('a'+r.IntN(3))))
						}
					}
					neg := ""
					if r.IntN(2) == 0 {
						neg = "!"
					}
					lits = append(lits, neg+p.name+"("+strings.Join(args, ",")+")")
				}
				f, err := m.ParseFormula(strings.Join(lits, " v "))
				if err != nil {
					t.Fatal(err)
				}
				cls, err := m.AddFormula(f)
				if err != nil {
					t.Fatal(err)
				}
				if len(cls) == 0 {
					continue // a tautology
				}
				c := m.Clauses[cls[0]]
				cc, err := s.d.Counts(c)
				if err != nil {
					t.Fatal(err)
				}
				for _, remove := range [][]int{nil, {len(s.Clauses()) - 1}, {0}} {
					rm := sc.removal(remove)
					exact := make([][2]float64, len(s.base))
					for db := range s.base {
						rr := &rm.dbs[db]
						lk := sc.lookup(db)
						for i, row := range cc.cols[db].idx {
							cA, y := lk.at(row)
							if k, ok := slices.BinarySearch(rr.rows, row); ok {
								cA, y = rr.c[k], rr.y[k]
							}
							switch v := cc.cols[db].val[i]; {
							case v > 0:
								exact[db][0] -= cA * logSigmoid(y)
							case v < 0:
								exact[db][1] -= cA * logSigmoid(y)
							}
						}
					}
					arg := sc.argBound(rm, c)
					_, both, err := sc.dbBounds(remove, c)
					if err != nil {
						t.Fatal(err)
					}
					for db := range exact {
						for k := range 2 {
							e := exact[db][k]
							if arg[db][k] < e-1e-9*(1+e) || both[db][k] < e-1e-9*(1+e) {
								t.Fatalf("options %+v, scored all %v, remove %v, %s: database %d, side %d: argument bound %.12g, bound %.12g, below the loss where Δ has its sign %.12g",
									opt, scoredAll, remove, clauseString(m, c), db, k, arg[db][k], both[db][k], e)
							}
						}
					}
					b, err := sc.Bound(remove, c)
					if err != nil {
						t.Fatal(err)
					}
					tot := sumSides(exact)
					if want := rm.gain + max(tot[0], tot[1]); b < want-1e-9*(1+math.Abs(want)) {
						t.Fatalf("options %+v, remove %v, %s: bound %.12g below %.12g", opt, remove, clauseString(m, c), b, want)
					}
				}
			}
		}
	}
}

// sumSides sums per-database bounds of each side.
func sumSides(up [][2]float64) (s [2]float64) {
	for _, u := range up {
		s[0] += u[0]
		s[1] += u[1]
	}
	return s
}

// boundScorer returns the planted worlds' model and their scorer of the
// unit clauses and the first planted clause; without scoredAll, Cancer is
// evidence (its atoms are not scored).
func boundScorer(t *testing.T, seed uint64, people int, opt CountOptions, scoredAll bool) (*mln.Model, *Scorer) {
	t.Helper()
	m, s0, planted := plantedScorer(t, seed, people, 3, opt)
	if !scoredAll {
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
	return m, s
}
