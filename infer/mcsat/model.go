package mcsat

import (
	"math"

	"github.com/marple-mln/marple/ground"
)

// model is the clause set the samplers run on: the network's clauses with
// duplicate literals removed, and tautologies, empty clauses and clauses of
// weight zero dropped (their truth value does not depend on the world, so
// they do not change the distribution), plus one unit clause per nonzero
// bias term. Weights keep their sign; ±Inf marks a hard clause (-Inf: the
// clause must be false).
type model struct {
	n     int
	lits  []ground.Lit
	start []int32
	w     []float64
	// sel is the probability 1-exp(-|w|) with which MC-SAT selects the
	// clause when it is in its preferred state (1 for hard clauses).
	sel []float64

	// occ lists, for each atom, its occurrences as clause<<1 | negated.
	occStart []int32
	occ      []int32
}

func newModel(net *ground.Network, bias []float64) *model {
	n := net.NumAtoms()
	m := &model{n: n, start: []int32{0}}
	mark := make([]int32, n)
	add := func(w float64) {
		m.start = append(m.start, int32(len(m.lits)))
		m.w = append(m.w, w)
		m.sel = append(m.sel, -math.Expm1(-math.Abs(w)))
	}
	for c := 0; c < net.NumClauses(); c++ {
		w := net.Weight[c]
		if w == 0 || math.IsNaN(w) {
			continue
		}
		base := len(m.lits)
		taut := false
		for _, l := range net.Clause(c) {
			a := l.Atom()
			if k := mark[a]; k != 0 {
				if m.lits[base+int(k)-1] != l {
					taut = true
				}
				continue
			}
			m.lits = append(m.lits, l)
			mark[a] = int32(len(m.lits) - base)
		}
		for _, l := range m.lits[base:] {
			mark[l.Atom()] = 0
		}
		if taut || len(m.lits) == base {
			m.lits = m.lits[:base]
			continue
		}
		add(w)
	}
	for a, b := range bias {
		if b == 0 || math.IsNaN(b) || a >= n {
			continue
		}
		m.lits = append(m.lits, ground.MakeLit(int32(a), false))
		add(b)
	}
	cnt := make([]int32, n+1)
	for _, l := range m.lits {
		cnt[l.Atom()+1]++
	}
	for i := 1; i <= n; i++ {
		cnt[i] += cnt[i-1]
	}
	m.occ = make([]int32, len(m.lits))
	fill := append([]int32(nil), cnt[:n]...)
	for c := 0; c < m.numClauses(); c++ {
		for _, l := range m.clause(c) {
			a := l.Atom()
			m.occ[fill[a]] = int32(c)<<1 | int32(l&1)
			fill[a]++
		}
	}
	m.occStart = cnt
	return m
}

func (m *model) numClauses() int { return len(m.start) - 1 }

func (m *model) clause(c int) []ground.Lit { return m.lits[m.start[c]:m.start[c+1]] }

func (m *model) occurrences(a int32) []int32 { return m.occ[m.occStart[a]:m.occStart[a+1]] }
