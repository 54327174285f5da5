package infer

import (
	"bufio"
	"io"
	"strconv"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

func queryMask(m *mln.Model, query []mln.PredID) []bool {
	is := make([]bool, len(m.Preds))
	for _, p := range query {
		is[p] = true
	}
	return is
}

// WriteMAP writes the result of MAP inference as Alchemy's infer -m does:
// the true atoms of the query predicates, one per line, first those the
// evidence db makes true, then those true in the assignment y of net's
// atoms.
func WriteMAP(w io.Writer, db *mln.Database, net *ground.Network, y []bool, query []mln.PredID) error {
	m := net.Model
	bw := bufio.NewWriter(w)
	for _, p := range query {
		db.Atoms(p, func(args []mln.ConstID, v mln.Truth) {
			if v == mln.True {
				bw.WriteString(m.AtomString(p, args))
				bw.WriteByte('\n')
			}
		})
	}
	is := queryMask(m, query)
	for a := 0; a < net.NumAtoms(); a++ {
		if y[a] && is[net.AtomPred[a]] {
			bw.WriteString(m.AtomString(net.AtomPred[a], net.AtomArgs[a]))
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// WriteMarginals writes the result of marginal inference as Alchemy's
// infer -ms does: every unknown atom of the query predicates with its
// probability, "Smokes(Anna) 0.731", one per line.
func WriteMarginals(w io.Writer, net *ground.Network, probs []float64, query []mln.PredID) error {
	m := net.Model
	is := queryMask(m, query)
	bw := bufio.NewWriter(w)
	for a := 0; a < net.NumAtoms(); a++ {
		if p := net.AtomPred[a]; is[p] {
			bw.WriteString(m.AtomString(p, net.AtomArgs[a]))
			bw.WriteByte(' ')
			bw.WriteString(strconv.FormatFloat(probs[a], 'g', 6, 64))
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}
