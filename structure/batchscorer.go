package structure

import (
	"context"

	"github.com/marple-mln/marple/internal/brute"
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
// TODO(i9count): the counting scorer; brute force meanwhile.
func newBatchScorer(_ context.Context, m *mln.Model, dbs []*mln.Database, nonEv []mln.PredID, sc Scoring) (Scorer, error) {
	b := &brute.WPLL{Model: m, Query: nonEv, PriorStdDev: sc.PriorStdDev}
	if b.Query == nil {
		for p := range m.Preds {
			b.Query = append(b.Query, mln.PredID(p))
		}
	}
	for _, db := range dbs {
		dom := DatabaseDomains(m, db)
		b.Worlds = append(b.Worlds, brute.World{
			True: func(p mln.PredID, args []mln.ConstID) bool {
				v, ok := db.Get(p, args)
				return ok && v == mln.True
			},
			Domain: func(t mln.TypeID) []mln.ConstID { return dom[t] },
		})
	}
	return b, nil
}
