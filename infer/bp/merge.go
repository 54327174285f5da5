package bp

import (
	"math"
	"slices"

	"github.com/marple-mln/marple/ground"
)

// mergeClauses returns net with the ground clauses that have the same
// literals merged into one clause whose weight is the sum of theirs (hard
// when one of them is hard), a literal repeated within a clause written
// once and the clauses that always hold (an atom and its negation)
// dropped: the same distribution. BP treats two factors over the same
// atoms as independent evidence, so merging them removes loops of
// length two and the overcounting they cause (k copies of a hard clause
// would otherwise push its atoms k times). It returns net itself when
// nothing merges.
func mergeClauses(net *ground.Network) *ground.Network {
	nc := net.NumClauses()
	type entry struct {
		lits []ground.Lit
		w    float64
	}
	index := make(map[string]int, nc)
	var out []entry
	changed := false
	var key []byte
	for c := 0; c < nc; c++ {
		lits := slices.Clone(net.Clause(c))
		slices.Sort(lits)
		lits = slices.Compact(lits)
		taut := false
		for i := 1; i < len(lits); i++ {
			if lits[i].Atom() == lits[i-1].Atom() {
				taut = true
			}
		}
		if len(lits) != len(net.Clause(c)) || taut {
			changed = true
		}
		w := net.Weight(c)
		if taut || w == 0 {
			changed = changed || w == 0
			continue
		}
		key = key[:0]
		for _, l := range lits {
			v := uint32(l)
			key = append(key, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
		}
		if i, ok := index[string(key)]; ok {
			changed = true
			switch {
			case math.IsInf(out[i].w, 1) || math.IsInf(w, 1):
				out[i].w = math.Inf(1)
			default:
				out[i].w += w
			}
			continue
		}
		index[string(key)] = len(out)
		out = append(out, entry{lits, w})
	}
	if !changed {
		return net
	}
	m := ground.NewNetwork(net.NumAtoms())
	for _, e := range out {
		m.AddClause(e.lits, e.w, -1, -1, 1)
	}
	return m
}
