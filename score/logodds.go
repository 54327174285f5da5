package score

import (
	"context"
	"errors"
	"fmt"

	"github.com/marple-mln/marple/mln"
)

// LogOdds returns, for each atom pred(args[i]) of database db, the log-odds
// of the atom being true given every other atom of the database (closed
// world) under the clauses with their weights:
// Σ_c w_c (n_c(x with the atom true) − n_c(x with it false)), the
// Markov-blanket conditional whose logarithm the pseudo-likelihood sums.
// The clauses are counted (and cached) as Counts does; the atoms must be
// of scored predicates.
func (d *PLLData) LogOdds(ctx context.Context, clauses []*mln.Clause, weights []float64, db int, pred mln.PredID, args [][]mln.ConstID) ([]float64, error) {
	if len(clauses) != len(weights) {
		return nil, errors.New("score: LogOdds: one weight per clause")
	}
	if db < 0 || db >= len(d.worlds) {
		return nil, fmt.Errorf("score: LogOdds: no database %d", db)
	}
	if pred < 0 || int(pred) >= len(d.m.Preds) || !d.scored[pred] {
		return nil, fmt.Errorf("score: LogOdds: predicate %d is not scored", pred)
	}
	counts, err := d.countAll(ctx, clauses)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(args))
	wp := &d.worlds[db].preds[pred]
	for i, a := range args {
		id := d.sp.id(pred, a)
		if id < 0 {
			return nil, fmt.Errorf("score: LogOdds: atom %s(%v) is outside the domains", d.m.Preds[pred].Name, a)
		}
		sign := -1.0 // Δ = n(x) − n(x flipped): for a false atom, n(false) − n(true)
		if wp.has(id) {
			sign = 1
		}
		var s float64
		for c, cc := range counts {
			if weights[c] != 0 {
				s += weights[c] * float64(cc.Delta(d, db, pred, a)) * cc.Scale(db)
			}
		}
		out[i] = sign * s
	}
	return out, nil
}
