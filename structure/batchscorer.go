package structure

import (
	"context"

	"github.com/marple-mln/marple/mln"
)

// DatabaseDomains returns the domain of each type in db: the constants
// the model files declare, then those db's atoms use, in the type's order.
// With several training databases each is its own domain (Alchemy's
// -multipleDatabases).
func DatabaseDomains(m *mln.Model, db *mln.Database) [][]mln.ConstID {
	in := make([]map[mln.ConstID]bool, len(m.Types))
	for t, ty := range m.Types {
		in[t] = map[mln.ConstID]bool{}
		for _, c := range ty.Consts[:ty.Declared] {
			in[t][c] = true
		}
	}
	for p, pr := range m.Preds {
		db.Atoms(mln.PredID(p), func(args []mln.ConstID, _ mln.Truth) {
			for j, c := range args {
				in[pr.Args[j]][c] = true
			}
		})
	}
	out := make([][]mln.ConstID, len(m.Types))
	for t, ty := range m.Types {
		for _, c := range ty.Consts {
			if in[t][c] {
				out[t] = append(out[t], c)
			}
		}
	}
	return out
}

// newBatchScorer builds the scorer of LearnBatch.
func newBatchScorer(_ context.Context, m *mln.Model, dbs []*mln.Database, nonEv []mln.PredID, sc Scoring) (Scorer, error) {
	return newCountScorer(m, dbs, nonEv, sc, sc.MaxGroundings)
}
