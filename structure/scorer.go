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

// Screener is a Scorer that also ranks candidates cheaply. BeamSearch and
// ShortestFirst screen every candidate with it and refit only the best
// with Score (Settings.Refits).
type Screener interface {
	Scorer
	// Screen returns, for the model clauses at weights w (their last
	// fit), the screening function and the objective of the clauses at w
	// on the data loose scores use (the reference of their gains).
	Screen(ctx context.Context, clauses []*mln.Clause, w []float64) (ScreenFunc, float64, error)
	// Replace scores clauses without the one at index remove (-1: none)
	// and with cand (nil: none) appended, as Score does, starting from w
	// (one weight per clause; cand's starts at 0); the weights returned
	// are one per clause (remove's 0), then cand's. Unlike Score with
	// the changed list, it reuses what it keeps for clauses.
	Replace(ctx context.Context, clauses []*mln.Clause, w []float64, remove int, cand *mln.Clause, tight bool) (float64, []float64, error)
}

// ScreenFunc returns the change of the score when the model clause at
// index remove (-1: none) is dropped and cand (nil: none) added with its
// weight optimised alone, every other weight fixed (a lower bound on the
// gain of refitting them all), and that weight. It must be safe for
// concurrent use and deterministic. A candidate that cannot be scored
// within the scorer's bounds gains -Inf.
type ScreenFunc func(ctx context.Context, remove int, cand *mln.Clause) (gain, weight float64, err error)
