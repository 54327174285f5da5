package ground

import (
	"math"
	"slices"
	"sync"

	"github.com/marple-mln/marple/mln"
)

// occMu guards the lazy construction of occurrence lists by the methods of
// this file, so that CountDiff may run concurrently on one network.
var occMu sync.Mutex

func (n *Network) ensureOcc() {
	if n.numAtoms == 0 {
		return
	}
	occMu.Lock()
	n.Occurrences(0)
	occMu.Unlock()
}

// AtomID returns the network atom p(args), if the atom is one.
func (n *Network) AtomID(p mln.PredID, args []mln.ConstID) (int32, bool) {
	if g := n.g; g != nil {
		if p < 0 || int(p) >= len(g.tables) || g.tables[p] == nil {
			return 0, false
		}
		pt := g.tables[p]
		if len(args) != pt.arity() {
			return 0, false
		}
		var key uint64
		for j, c := range args {
			i, ok := g.index(pt.types[j], c)
			if !ok {
				return 0, false
			}
			key += uint64(i) * pt.strides[j]
		}
		ai := &g.atoms[p]
		if ai.dense != nil {
			a := ai.dense[key]
			return a, a >= 0
		}
		return ai.ids.get(key)
	}
	// A network built by hand or by Sub: search the descriptions.
	for a := range n.AtomPred {
		if n.AtomPred[a] == p && len(n.AtomArgs[a]) == len(args) {
			same := true
			for j, c := range args {
				if n.AtomArgs[a][j] != c {
					same = false
					break
				}
			}
			if same {
				return int32(a), true
			}
		}
	}
	return 0, false
}

// Assignment returns the values of the network's atoms in a database of
// true values (such as a .db file of gold query atoms): true for the atoms
// listed true, false for the others.
func (n *Network) Assignment(truth *mln.Database) []bool {
	y := make([]bool, n.numAtoms)
	for a := range n.AtomPred {
		if a < len(y) && n.AtomPred[a] >= 0 {
			v, ok := truth.Get(n.AtomPred[a], n.AtomArgs[a])
			y[a] = ok && v == mln.True
		}
	}
	return y
}

// SetWeights recomputes the clause weights from Model.Weights (the
// parameter's weight times Coef; +Inf for hard clauses) and ConstScore from
// EvidenceCount, after the weights have changed.
func (n *Network) SetWeights() {
	m := n.Model
	if m == nil {
		return
	}
	if n.weight == nil {
		n.pw = slices.Clone(m.Weights)
	}
	for c := range n.weight {
		p, src := n.Param(c), n.Source(c)
		switch {
		case p >= 0 && int(p) < len(m.Weights):
			n.weight[c] = m.Weights[p] * n.Coef(c)
		case p < 0 && src >= 0 && int(src) < len(m.Clauses) && m.Clauses[src].Hard:
			n.weight[c] = math.Inf(1)
		}
	}
	n.ConstScore = n.constScore()
}

// constScore is Σ_p Weights[p]·EvidenceCount[p] plus, for each formula,
// its weight times the evidence-satisfied groundings of its bindings that
// have no parameter.
func (n *Network) constScore() float64 {
	m := n.Model
	if m == nil {
		return n.ConstScore
	}
	s := 0.0
	for p, c := range n.EvidenceCount {
		if c != 0 && p < len(m.Weights) {
			s += m.Weights[p] * c
		}
	}
	for f, c := range n.unalloc {
		if c != 0 && f < len(m.Formulas) {
			s += m.Formulas[f].Weight * c
		}
	}
	return s
}

// numParams is the length of the count vectors.
func (n *Network) numParams() int {
	k := len(n.EvidenceCount)
	if n.Model != nil {
		k = max(k, len(n.Model.Weights))
	}
	for _, p := range n.param {
		k = max(k, int(p)+1)
	}
	if n.param == nil {
		for _, r := range n.runs {
			k = max(k, int(r.param)+1)
		}
	}
	return k
}

// Counts returns, for every model parameter, its count in the world made
// of the evidence and assignment y: Σ Coef over the satisfied clauses
// carrying it, plus EvidenceCount. Score(y) is ConstScore plus the satisfied
// soft weights, which equals Σ_p Weights[p]·Counts(y)[p] when every binding
// has a parameter.
func (n *Network) Counts(y []bool) []float64 {
	cnt := make([]float64, n.numParams())
	copy(cnt, n.EvidenceCount)
	for i, r := range n.runs {
		end := n.NumClauses()
		if i+1 < len(n.runs) {
			end = int(n.runs[i+1].first)
		}
		for c := int(r.first); c < end; c++ {
			p := r.param
			if n.param != nil {
				p = n.param[c]
			}
			if p >= 0 && n.Satisfied(c, y) {
				cnt[p] += r.coef
			}
		}
	}
	return cnt
}

// CountDiff adds Counts(y) − Counts(y2) to acc (indexed by parameter), in
// time proportional to the occurrences of the changed atoms. changed must
// list every atom on which y and y2 differ, once; atoms listed that do not
// differ are harmless. A clause is counted at the first of its atoms that
// differs, so CountDiff keeps no state and may run concurrently.
func (n *Network) CountDiff(y, y2 []bool, changed []int32, acc []float64) {
	n.ensureOcc()
	for _, a := range changed {
		if y[a] == y2[a] {
			continue
		}
		prev := int32(-1)
		for _, c := range n.occ[n.occStart[a]:n.occStart[a+1]] {
			if c == prev { // an atom twice in a hand-built clause
				continue
			}
			var r *run
			p := int32(-1)
			if n.param != nil {
				p = n.param[c]
			} else {
				r = n.runOf(int(c))
				p = r.param
			}
			if p < 0 {
				continue
			}
			prev = c
			lits := n.Clause(int(c))
			first := int32(-1)
			s1, s2 := false, false
			for _, l := range lits {
				b := l.Atom()
				if first < 0 && y[b] != y2[b] {
					first = b
					if b != a {
						break
					}
				}
				s1 = s1 || l.True(y)
				s2 = s2 || l.True(y2)
			}
			if first != a || s1 == s2 {
				continue
			}
			if r == nil {
				r = n.runOf(int(c))
			}
			if s1 {
				acc[p] += r.coef
			} else {
				acc[p] -= r.coef
			}
		}
	}
}
