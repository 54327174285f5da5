// Package probfit gives pracmln's and ProbCog's probability constraints
// their meaning. "P(F) = p": the weight of formula F is fitted so that the
// prior probability (without evidence) of one grounding of F, its free
// variables bound to the first constants of their types, is p. Soft
// evidence ("R(F) = p" in a model, "p A" in a .db file): the weight of
// the ground formula F (or atom A) is fitted so that its probability
// given the evidence is p, the meaning of pracmln's IPFP-M (which its
// MC-SAT-PC approximates). As ProbCog does, the constraints are fitted
// in turn (each by a root search on its weight) until every probability
// is within Options.Threshold of its target; the probabilities are exact
// (weighted model counting over every ground atom of the model's
// domains, the evidence's constants included, every predicate open
// world as in pracmln).
package probfit

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/wmc"
	"github.com/marple-mln/marple/mln"
)

// Options controls Fit.
type Options struct {
	// Threshold is the largest deviation of a constrained probability
	// from its target at convergence (0: ProbCog's 1e-3).
	Threshold float64
	// MaxRounds bounds the rounds, each fitting every constraint once
	// (0: 100; ProbCog's 20 steps of plain fitting converge less).
	MaxRounds int
	// WMC configures the exact counts.
	WMC wmc.Options
}

// Result reports a fit.
type Result struct {
	Rounds  int       // rounds done
	Steps   int       // weight updates
	MaxDiff float64   // largest |probability - target| at the end
	Probs   []float64 // each constraint's probability at the end
	Weights []float64 // each constrained formula's fitted weight
}

// Fit fits the weights of m's probability constraints (m compiled, its
// types holding the constants of the evidence; evidence, which may be
// nil, conditions the soft evidence). It changes the weights of
// the constrained formulas (Formula.Weight and Model.Weights). It fails
// when the constraints are not met within Options.MaxRounds rounds,
// naming the deviation, and when exact counting is out of reach.
func Fit(ctx context.Context, m *mln.Model, evidence *mln.Database, opt Options) (*Result, error) {
	if err := m.ResolveProbConstraints(); err != nil {
		return nil, err
	}
	if opt.Threshold <= 0 {
		opt.Threshold = 1e-3
	}
	if opt.MaxRounds <= 0 {
		opt.MaxRounds = 100
	}
	pcs := m.ProbConstraints
	res := &Result{Probs: make([]float64, len(pcs)), Weights: make([]float64, len(pcs))}
	if len(pcs) == 0 {
		return res, nil
	}
	var all []mln.PredID
	for i := range m.Preds {
		all = append(all, mln.PredID(i))
	}
	empty := mln.NewDatabase(m)
	if evidence == nil {
		evidence = empty
	}
	logZ := func(db *mln.Database) (float64, error) {
		net, err := ground.Ground(ctx, m, db, ground.Options{Query: all})
		if err != nil {
			return 0, err
		}
		r, err := wmc.Solve(ctx, net, withNoMarginals(opt.WMC))
		if err != nil {
			return 0, err
		}
		return r.ModelLogZ(), nil
	}
	dbOf := func(pc *mln.ProbConstraint) *mln.Database {
		if pc.Posterior {
			return evidence
		}
		return empty
	}
	// prob is the probability of constraint i: Z with its grounding
	// hard over Z (z0, if known, is log Z for its database).
	prob := func(i int, z0 *float64) (float64, error) {
		pc := pcs[i]
		if z0 == nil {
			z, err := logZ(dbOf(pc))
			if err != nil {
				return 0, err
			}
			z0 = &z
		}
		undo, err := m.AddProbInstance(pc)
		if err != nil {
			return 0, err
		}
		z1, err := logZ(dbOf(pc))
		undo()
		switch {
		case errors.Is(err, infer.ErrInfeasible):
			return 0, nil // no world satisfies the grounding
		case err != nil:
			return 0, err
		}
		return math.Exp(z1 - *z0), nil
	}
	probs := func() ([]float64, error) {
		z0 := map[*mln.Database]float64{}
		out := make([]float64, len(pcs))
		for i, pc := range pcs {
			db := dbOf(pc)
			if _, ok := z0[db]; !ok {
				z, err := logZ(db)
				if err != nil {
					return nil, err
				}
				z0[db] = z
			}
			z := z0[db]
			q, err := prob(i, &z)
			if err != nil {
				return nil, err
			}
			out[i] = q
		}
		return out, nil
	}
	param := func(pc *mln.ProbConstraint) int { return m.Param(pc.Formula, nil) }
	for round := 0; ; round++ {
		ps, err := probs()
		if err != nil {
			return nil, fmt.Errorf("probability constraints: %w", err)
		}
		copy(res.Probs, ps)
		res.MaxDiff = 0
		for i, pc := range pcs {
			res.MaxDiff = math.Max(res.MaxDiff, math.Abs(ps[i]-pc.P))
			res.Weights[i] = m.Weights[param(pc)]
		}
		res.Rounds = round
		if res.MaxDiff <= opt.Threshold {
			return res, nil
		}
		if round >= opt.MaxRounds {
			return res, fmt.Errorf("%s: probability constraints not met after %d rounds of fitting: a probability is %.4g off its target (threshold %g; are they contradictory?)", pcs[0].Pos, res.Rounds, res.MaxDiff, opt.Threshold)
		}
		// One round: each constraint in turn, its weight set so that its
		// probability is its target given the others' weights.
		for i, pc := range pcs {
			q := ps[i]
			if i > 0 {
				if q, err = prob(i, nil); err != nil {
					return nil, fmt.Errorf("probability constraints: %w", err)
				}
			}
			if math.Abs(q-pc.P) <= opt.Threshold/4 {
				continue
			}
			k := param(pc)
			w, err := solve1(m.Weights[k], q, pc.P, opt.Threshold/4, func(w float64) (float64, error) {
				m.Weights[k] = w
				return prob(i, nil)
			})
			if err != nil {
				return nil, fmt.Errorf("%s: probability constraints: %w", pc.Pos, err)
			}
			m.Weights[k] = w
			m.Formulas[pc.Formula].Weight = w
			res.Steps++
		}
	}
}

// solve1 finds the weight w at which prob(w) = target within tol, from
// w0 where prob is q0: a step of iterative proportional fitting (in the
// log-odds), then, as the probability of a formula grows with its
// weight, a bracket and the Illinois variant of regula falsi on the
// log-odds (a plain fitting step can overshoot where formulas couple).
func solve1(w0, q0, target, tol float64, prob func(float64) (float64, error)) (float64, error) {
	logit := func(q float64) float64 {
		q = math.Min(math.Max(q, 1e-12), 1-1e-12)
		return math.Log(q / (1 - q))
	}
	g := func(q float64) float64 { return logit(q) - logit(target) }
	a, ga := w0, g(q0)
	b := w0 - ga
	qb, err := prob(b)
	if err != nil {
		return 0, err
	}
	if math.Abs(qb-target) <= tol {
		return b, nil
	}
	gb := g(qb)
	// Bracket the root.
	for step := math.Max(math.Abs(b-a), 1); ga*gb > 0; step *= 2 {
		if step > 1e4 {
			return 0, fmt.Errorf("no weight gives probability %g (reached %.6g)", target, qb)
		}
		a, ga = b, gb
		if gb > 0 {
			b -= step
		} else {
			b += step
		}
		if qb, err = prob(b); err != nil {
			return 0, err
		}
		if math.Abs(qb-target) <= tol {
			return b, nil
		}
		gb = g(qb)
	}
	side := 0
	for it := 0; it < 100; it++ {
		c := (a*gb - b*ga) / (gb - ga)
		if !(c > math.Min(a, b) && c < math.Max(a, b)) {
			c = (a + b) / 2
		}
		qc, err := prob(c)
		if err != nil {
			return 0, err
		}
		if math.Abs(qc-target) <= tol || math.Abs(b-a) < 1e-12 {
			return c, nil
		}
		gc := g(qc)
		if gc*gb > 0 {
			b, gb = c, gc
			if side == -1 {
				ga /= 2
			}
			side = -1
		} else {
			a, ga = c, gc
			if side == 1 {
				gb /= 2
			}
			side = 1
		}
	}
	return 0, fmt.Errorf("the weight giving probability %g was not found in 100 steps", target)
}

func withNoMarginals(o wmc.Options) wmc.Options {
	o.NoMarginals = true
	return o
}
