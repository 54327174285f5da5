package structure

import (
	"context"

	"github.com/marple-mln/marple/mln"
)

// newBatchScorer builds the scorer of LearnBatch.
func newBatchScorer(_ context.Context, m *mln.Model, dbs []*mln.Database, nonEv []mln.PredID, sc Scoring) (Scorer, error) {
	return newCountScorer(m, dbs, nonEv, sc, sc.MaxGroundings)
}
