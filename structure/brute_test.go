package structure

import (
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/mln"
)

// bruteScorer is the search's test scorer: brute.WPLL over worlds.
func bruteScorer(m *mln.Model, query []mln.PredID, ws ...*World) Scorer {
	b := &brute.WPLL{Model: m, Query: query}
	for _, w := range ws {
		b.Worlds = append(b.Worlds, brute.World{True: w.True, Domain: func(t mln.TypeID) []mln.ConstID { return m.Types[t].Consts }})
	}
	return b
}
