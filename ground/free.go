package ground

import "github.com/marple-mln/marple/mln"

// FreeAtoms returns the number of unknown atoms of the grounding that the
// network leaves out because no clause grounding keeps them (an open-world
// atom whose every grounding is a tautology, or in no formula). Each is
// true or false independently with probability 1/2, so each doubles the
// model's partition function: the model's log Z is the network's plus
// FreeAtoms·ln 2. A network not made by Ground has none.
func (n *Network) FreeAtoms() float64 {
	g := n.g
	if g == nil {
		return 0
	}
	unknown := 0.0
	for p, pr := range g.m.Preds {
		inDomain := func(args []mln.ConstID) bool {
			for i, c := range args {
				if _, ok := g.index(pr.Args[i], c); !ok {
					return false
				}
			}
			return true
		}
		if g.open[p] {
			tuples := 1.0
			for _, t := range pr.Args {
				tuples *= float64(g.size(t))
			}
			unknown += tuples
		}
		if g.db == nil {
			continue
		}
		g.db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
			switch {
			case g.open[p] && v != mln.Unknown && inDomain(args):
				unknown--
			case !g.open[p] && v == mln.Unknown && inDomain(args):
				unknown++
			}
		})
	}
	return max(0, unknown-float64(n.NumAtoms()))
}
