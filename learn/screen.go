package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/marple-mln/marple/mln"
)

// Screen ranks candidate clauses cheaply against a scorer's clauses at
// fixed weights: for a candidate it maximises the objective over the
// candidate's own weight alone, every base weight staying where it is (a
// one-dimensional concave problem over the atoms the candidate touches,
// solved by Newton's method from the base's cached log-odds). The gain
// it returns is a lower bound on the gain of refitting every weight, and
// costs a pass over the candidate's counts instead of an L-BFGS fit over
// every row of every database. Structure search ranks all candidates by
// it and refits only the best (Alchemy's -numClausesReEval idea; Kok &
// Domingos 2005 rank candidates by their gain with the other weights
// fixed for the same reason). A Screen is safe for concurrent use.
type Screen struct {
	s    *Scorer
	w    []float64
	prec float64     // 1/σ² (0: no prior)
	odds [][]float64 // per database, per base atom (base.aGlobal order): s_a
	obj  float64
}

// Screen returns the screen of s's clauses at weights w (one per clause;
// hard clauses' are ignored), with opt's prior (PriorStdDev, NoPrior).
func (s *Scorer) Screen(w []float64, opt FitOptions) (*Screen, error) {
	if len(w) != len(s.clauses) {
		return nil, fmt.Errorf("learn: Scorer.Screen: %d weights for %d clauses", len(w), len(s.clauses))
	}
	set := GenerativeSettings{PriorStdDev: opt.PriorStdDev, NoPrior: opt.NoPrior}
	if err := checkGenerative(&set); err != nil {
		return nil, err
	}
	sc := &Screen{s: s, w: slices.Clone(w)}
	for i, c := range s.clauses {
		if c.Hard {
			sc.w[i] = 0
		}
	}
	if !set.NoPrior {
		sc.prec = 1 / (set.PriorStdDev * set.PriorStdDev)
	}
	for _, b := range s.base {
		odds := make([]float64, len(b.aGlobal))
		for a := range odds {
			x := b.aOff[a]
			for q := b.aStart[a]; q < b.aStart[a+1]; q++ {
				x += sc.w[b.aIdx[q]] * b.aVal[q]
			}
			odds[a] = x
		}
		sc.odds = append(sc.odds, odds)
		sc.obj += b.Eval(sc.w, nil)
	}
	for _, x := range sc.w {
		sc.obj -= sc.prec * x * x / 2
	}
	return sc, nil
}

// Objective returns the base's objective (WPLL minus the prior) at the
// screen's weights.
func (sc *Screen) Objective() float64 { return sc.obj }

// ScreenMaxIter bounds the Newton iterations of Screen.Gain.
const ScreenMaxIter = 50

// Gain returns the change of the objective when the base clauses at the
// indices remove are dropped (their weights set to 0) and cand (nil:
// none) is added with its weight optimised alone, every other weight
// fixed, and that weight. Candidates' counts come from (and go to) the
// data's cache; one whose counting would examine too many groundings
// returns an error wrapping ErrTooManyGroundings.
func (sc *Screen) Gain(ctx context.Context, remove []int, cand *mln.Clause) (gain, weight float64, err error) {
	s := sc.s
	for _, i := range remove {
		if i < 0 || i >= len(s.clauses) {
			return 0, 0, fmt.Errorf("learn: Screen.Gain: no clause %d", i)
		}
	}
	var cc *ClauseCounts
	if cand != nil {
		if cand.Hard || len(cand.Plus) > 0 {
			return 0, 0, errors.New("learn: Screen.Gain: hard candidate or \"+\" variables")
		}
		if cc, err = s.d.Counts(cand); err != nil {
			return 0, 0, err
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	// The affected atoms: each one's weight c_a, its log-odds without the
	// removed clauses r_a, its old log-odds s_a, and the candidate's Δ.
	var mul, r, old, delta []float64
	for db, b := range s.base {
		rows := sc.affected(db, remove, cc)
		odds := sc.odds[db]
		gpos := make([]int, len(remove))
		cpos, a, pr := 0, 0, mln.PredID(-1)
		for _, row := range rows {
			for a < len(b.aGlobal) && b.aGlobal[a] < row {
				a++
			}
			var c, x float64
			if a < len(b.aGlobal) && b.aGlobal[a] == row {
				c, x = b.aMul[a], odds[a]
			} else {
				if pr < 0 || !s.d.inPred(row, pr) {
					pr = s.d.predOfRow(row)
				}
				c = s.d.mul[db][pr]
			}
			y := x
			for k, g := range remove {
				col := s.counts[g].cols[db]
				for gpos[k] < len(col.idx) && col.idx[gpos[k]] < row {
					gpos[k]++
				}
				if gpos[k] < len(col.idx) && col.idx[gpos[k]] == row {
					wt := sc.w[g]
					if s.clauses[g].Hard {
						wt = s.d.opt.HardWeight
					}
					y -= wt * float64(col.val[gpos[k]])
				}
			}
			dv := 0.0
			if cc != nil {
				col := cc.cols[db]
				for cpos < len(col.idx) && col.idx[cpos] < row {
					cpos++
				}
				if cpos < len(col.idx) && col.idx[cpos] == row {
					dv = float64(col.val[cpos])
				}
			}
			if c == 0 {
				continue
			}
			mul, r, old, delta = append(mul, c), append(r, y), append(old, x), append(delta, dv)
		}
	}
	base := 0.0 // objective change from the removals alone, at w = 0
	for i := range mul {
		base += mul[i] * (logSigmoid(r[i]) - logSigmoid(old[i]))
	}
	for _, g := range remove {
		base += sc.prec * sc.w[g] * sc.w[g] / 2
	}
	if cc == nil {
		return base, 0, nil
	}
	w, f := newton1D(mul, r, delta, sc.prec)
	return base + f, w, nil
}

// affected returns the sorted rows of database db that the candidate or
// the removed clauses touch.
func (sc *Screen) affected(db int, remove []int, cc *ClauseCounts) []int32 {
	var rows []int32
	for _, g := range remove {
		rows = append(rows, sc.s.counts[g].cols[db].idx...)
	}
	if cc != nil {
		if len(remove) == 0 {
			return cc.cols[db].idx
		}
		rows = append(rows, cc.cols[db].idx...)
	}
	slices.Sort(rows)
	return slices.Compact(rows)
}

// newton1D maximises f(w) = Σ_i c_i (log σ(r_i + w·δ_i) − log σ(r_i)) −
// prec·w²/2 (concave) by Newton's method with step halving, from w = 0,
// and returns the maximiser and f there.
func newton1D(c, r, delta []float64, prec float64) (w, f float64) {
	eval := func(w float64) (f, g, h float64) {
		for i, d := range delta {
			if d == 0 {
				continue
			}
			z := r[i] + w*d
			f += c[i] * (logSigmoid(z) - logSigmoid(r[i]))
			p := sigmoid(-z) // ∂ log σ(z)/∂z
			g += c[i] * d * p
			h -= c[i] * d * d * p * (1 - p)
		}
		return f - prec*w*w/2, g - prec*w, h - prec
	}
	f, g, h := eval(0)
	for it := 0; it < ScreenMaxIter; it++ {
		if math.Abs(g) < 1e-10 {
			break
		}
		step := -g / h
		if h >= 0 || math.IsInf(step, 0) || math.IsNaN(step) {
			step = math.Copysign(1, g) // flat: move uphill by a unit
		}
		step = math.Max(-10, math.Min(10, step))
		var nf, ng, nh float64
		ok := false
		for k := 0; k < 30; k++ {
			nf, ng, nh = eval(w + step)
			if nf >= f {
				ok = true
				break
			}
			step /= 2
		}
		if !ok {
			break
		}
		w += step
		done := math.Abs(step) < 1e-6 || nf-f <= 1e-12*math.Max(1, math.Abs(nf))
		f, g, h = nf, ng, nh
		if done {
			break
		}
	}
	return w, f
}

// sigmoid is 1/(1+e^-x).
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
