package structure

import (
	"context"

	"github.com/marple-mln/marple/mln"
)

// Scorer scores a set of first-order clauses on the training data: it
// learns their weights by maximising the weighted pseudo-log-likelihood
// plus the log of a Gaussian prior on the weights, and returns that
// maximum. The structure prior (Settings.Penalty) is not part of it: the
// search adds it.
//
// Score must be safe for concurrent use and deterministic: the same
// clauses and starting weights give the same result whatever else runs.
type Scorer interface {
	// Score learns the weights of clauses starting from init (the first
	// len(init) clauses start at those weights, the others at 0) with
	// the tight tolerances (tight, for a model the search keeps) or the
	// loose ones (for a candidate), and returns the objective and the
	// weights.
	Score(ctx context.Context, clauses []*mln.Clause, init []float64, tight bool) (score float64, w []float64, err error)
}
