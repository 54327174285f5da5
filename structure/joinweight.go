package structure

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/marple-mln/marple/mln"
)

// JoinCaps are the caps on the weight of the learned joins that
// LearnValidated compares on held-out data, smallest first: 0 drops the
// joins, +Inf keeps the weights the search fit.
var JoinCaps = []float64{0, 0.01, 0.03, 0.1, 0.3, 1, math.Inf(1)}

// JoinChoice is the cap on the joins' weights that LearnValidated chose
// and the held-out scores behind it.
type JoinChoice struct {
	// Joins is the number of joins the search made (those the settings
	// gave are never capped).
	Joins int
	// Cap is the chosen cap: each learned join's weight w becomes
	// sign(w)·min(|w|, Cap), and a cap of 0 drops the joins.
	Cap float64
	// CLL and AUCPR hold, for each of JoinCaps, the held-out conditional
	// log-likelihood and area under the precision-recall curve (each the
	// mean over the scored predicates), averaged over the held-out
	// databases.
	CLL, AUCPR []float64
	// Best is the cap of the best held-out CLL, and SE the standard error
	// of the chosen cap's CLL difference from it (0 when they are the
	// same).
	Best, SE float64
}

// chooseJoinCap chooses the cap on the weights of the joins of r that the
// search made, on held-out data, and applies it to r: r becomes its other
// clauses with their weights refit on every database of dbs without the
// joins, and the joins at their capped weights; its Score is then the
// objective of the refit clauses without the joins. A cap of 0 is applied
// so (the joins dropped) only with keepDropped: otherwise r is left as it
// is, for the caller to search again without joins.
// Each database of dbs is held out in turn: the weights of r's other
// clauses are refit on the rest (FitWeights), the joins added at each cap
// of JoinCaps, and every scored predicate of the held-out database
// inferred given the others (InferHeldOut). The held-out CLL decides; among the caps whose mean CLL
// is within one standard error (over the held-out databases) of the best
// one's, the cap with the best mean AUC-PR is chosen, the smaller cap on a
// tie. A join holds on every grounding of the data it was learned from,
// so no likelihood of that data bounds its weight, while a small weight
// already ranks its conclusion's atoms: the CLL guards the query
// predicates the join couples, the AUC-PR the ranking it gives.
func chooseJoinCap(ctx context.Context, r *Result, dbs []*mln.Database, s Settings, sc Scoring, v Validation, preds []mln.PredID, keepDropped bool) (*JoinChoice, error) {
	joins := learnedJoins(r, s)
	var rest []int
	for i := range r.Clauses {
		if !slices.Contains(joins, i) {
			rest = append(rest, i)
		}
	}
	if len(joins) == 0 {
		return nil, nil
	}
	jc := &JoinChoice{Joins: len(joins), CLL: make([]float64, len(JoinCaps)), AUCPR: make([]float64, len(JoinCaps))}
	n := len(dbs)
	cll := make([][]float64, len(JoinCaps)) // [cap][held-out database]
	auc := make([][]float64, len(JoinCaps))
	for k := range cll {
		cll[k], auc[k] = make([]float64, n), make([]float64, n)
	}
	fit := refitSettings(s)
	for _, i := range rest {
		fit.Start = append(fit.Start, r.Clauses[i])
	}
	err := eachFold(n, func(f int) error {
		train := without(dbs, f)
		base, err := LearnBatch(ctx, MethodWeights, train, fit, sc)
		if err != nil {
			return err
		}
		for k, cp := range JoinCaps {
			m := &Result{Clauses: base.Clauses, Weights: base.Weights}
			if cp > 0 {
				m = &Result{Clauses: append([]*mln.Clause(nil), base.Clauses...), Weights: append([]float64(nil), base.Weights...)}
				for _, i := range joins {
					m.Clauses = append(m.Clauses, r.Clauses[i])
					m.Weights = append(m.Weights, capWeight(r.Weights[i], cp))
				}
			}
			learned, err := m.Model(s.Model)
			if err != nil {
				return err
			}
			cll[k][f], auc[k][f], err = heldOutScores(ctx, learned, dbs[f], preds, v)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k := range JoinCaps {
		jc.CLL[k], _ = meanSE(cll[k])
		jc.AUCPR[k], _ = meanSE(auc[k])
	}
	chosen, best, se := pickCap(cll, auc)
	jc.Cap, jc.Best, jc.SE = JoinCaps[chosen], JoinCaps[best], se
	if v.Log != nil {
		fmt.Fprintf(v.Log, "marple: validation capped the weights of %d learned joins at %g (held-out CLL %.4f, AUC-PR %.4f; best CLL %.4f at cap %g)\n",
			jc.Joins, jc.Cap, jc.CLL[chosen], jc.AUCPR[chosen], jc.CLL[best], jc.Best)
	}
	if jc.Cap == 0 && !keepDropped {
		return jc, nil
	}
	// The final model is built as the held-out ones were: the other
	// clauses' weights refit on every database without the joins (the
	// search fit them around the joins' own weights), the joins added at
	// the cap.
	all, err := LearnBatch(ctx, MethodWeights, dbs, fit, sc)
	if err != nil {
		return nil, err
	}
	final := &Result{Clauses: all.Clauses, Weights: all.Weights, Score: all.Score, Scored: r.Scored, Steps: r.Steps, Stopped: r.Stopped, Elapsed: r.Elapsed}
	if jc.Cap > 0 {
		for _, i := range joins {
			final.Clauses = append(final.Clauses, r.Clauses[i])
			final.Weights = append(final.Weights, capWeight(r.Weights[i], jc.Cap))
		}
	}
	*r = *final
	return jc, nil
}

// refitSettings returns s for refitting the weights of given clauses
// (MethodWeights with them as s.Start): no start, no joins, no checkpoint,
// progress or time limit.
func refitSettings(s Settings) Settings {
	s.Start, s.StartFromEmpty, s.Joins = nil, false, false
	s.Checkpoint, s.Resume, s.Progress, s.TimeLimit = nil, nil, nil, 0
	return s
}

// learnedJoins returns the indices of r's joins that the search made (not
// given in s.Start).
func learnedJoins(r *Result, s Settings) []int {
	given := map[string]bool{}
	for _, c := range s.Start {
		given[CanonicalKey(c)] = true
	}
	var joins []int
	for i, c := range r.Clauses {
		if !c.Hard && Join(c) && !given[CanonicalKey(c)] {
			joins = append(joins, i)
		}
	}
	return joins
}

// pickCap applies the rule of chooseJoinCap to the held-out scores
// cll[k][f] and auc[k][f] of candidate k on held-out database f: best is
// the candidate of the best mean CLL (the first on a tie), chosen the one
// of the best mean AUC-PR (the first on a tie) among those whose mean CLL
// difference from best is within its standard error, and se that
// standard error for chosen. Means and standard errors do not depend on
// the order of the databases.
func pickCap(cll, auc [][]float64) (chosen, best int, se float64) {
	mean := func(xs []float64) float64 { m, _ := meanSE(xs); return m }
	for k := range cll {
		if mean(cll[k]) > mean(cll[best]) {
			best = k
		}
	}
	chosen = -1
	for k := range cll {
		if math.IsInf(mean(cll[k]), -1) {
			continue // too large to ground on some held-out database
		}
		d := make([]float64, len(cll[k]))
		for f := range d {
			d[f] = cll[k][f] - cll[best][f]
		}
		m, e := meanSE(d)
		if k != best && m < -e {
			continue
		}
		if chosen < 0 || mean(auc[k]) > mean(auc[chosen]) {
			chosen, se = k, e
		}
	}
	if chosen < 0 {
		chosen = 0
	}
	return chosen, best, se
}

// capWeight returns sign(w)·min(|w|, cp).
func capWeight(w, cp float64) float64 {
	return math.Copysign(math.Min(math.Abs(w), cp), w)
}
