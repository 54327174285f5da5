package mcsat

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/marple-mln/marple/ground"
)

// model is the clause set the samplers run on: the network's clauses with
// duplicate literals removed, and tautologies, empty clauses and clauses of
// weight zero dropped (their truth value does not depend on the world, so
// they do not change the distribution), plus one unit clause per nonzero
// bias term; then the soft clauses with the same literals merged into one
// whose weight is the sum of theirs, and each soft unit clause ¬a of weight
// w written as a of weight −w (merged with a's other units), both exact
// for the distribution (see merge). Weights keep their sign; ±Inf marks a
// hard clause (-Inf: the clause must be false).
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

	// The clauses by the role their selection plays in an MC-SAT step:
	// units of positive weight and clauses of negative weight fix atoms
	// when selected (fixing); longer clauses of positive weight constrain
	// the others (multi). Each role's clauses selected with probability at
	// least skipAbove are visited one by one, in index order (dense*);
	// the rarer ones are grouped so that they can be drawn by geometric
	// skipping (sparse*).
	denseFixing, denseMulti   []int32
	sparseFixing, sparseMulti []selGroup
	// multiVisits is the expected number of longer positive clauses a step
	// visits when it draws them role by role.
	multiVisits float64
	// multi marks the longer clauses of positive weight.
	multi []bool
}

// selGroup is a set of rarely selected clauses of one role whose
// selection probabilities lie in [p/2, p), p a power of two: the visited
// ones are drawn by skipping geometric gaps with probability p, and each
// visited clause is kept with probability sel/p (thinning), which selects
// every clause with its own probability, independently of the others.
type selGroup struct {
	p, logq float64 // logq = log(1-p)
	clauses []int32
}

// skipAbove is the selection probability from which clauses are visited
// one by one: a geometric gap costs a logarithm, about as much as eight
// uniform draws, so skipping pays only when selections are rare.
const skipAbove = 0.125

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
		w := net.Weight(c)
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
	m.merge()
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
	m.group()
	return m
}

// merge merges the soft clauses that have the same literals (in any
// order) into one whose weight is the sum of theirs, after writing each
// soft unit clause ¬a of weight w as a of weight −w (w·[¬a] = −w·[a] + w:
// the constant does not change the distribution); clauses whose weights
// cancel are dropped. Hard clauses stay as they are.
//
// Without it MC-SAT cannot mix on networks where an atom has many
// duplicate clauses pulling both ways (structure learning's clauses with
// free variables give an atom hundreds of copies of a and of ¬a): in
// either state, some copy holding there is selected almost surely, so the
// chain keeps its initial value whatever the weights say. Merged, the
// atom's units are one clause of the net weight, and MC-SAT samples it
// with its right probability.
func (m *model) merge() {
	nc := m.numClauses()
	unit := make(map[int32]int32) // atom -> merged unit clause
	long := make(map[string]int32)
	out := make([]int32, 0, nc) // clauses kept, in order
	w := make([]float64, 0, nc)
	var key []byte
	for c := range nc {
		lits := m.clause(c)
		wc := m.w[c]
		if math.IsInf(wc, 0) {
			out, w = append(out, int32(c)), append(w, wc)
			continue
		}
		if len(lits) == 1 {
			if lits[0].Neg() {
				lits[0], wc = lits[0].Not(), -wc
			}
			if k, ok := unit[lits[0].Atom()]; ok {
				w[k] += wc
				continue
			}
			unit[lits[0].Atom()] = int32(len(out))
			out, w = append(out, int32(c)), append(w, wc)
			continue
		}
		slices.Sort(lits)
		key = key[:0]
		for _, l := range lits {
			key = binary.LittleEndian.AppendUint32(key, uint32(l))
		}
		if k, ok := long[string(key)]; ok {
			w[k] += wc
			continue
		}
		long[string(key)] = int32(len(out))
		out, w = append(out, int32(c)), append(w, wc)
	}
	if len(out) == nc {
		copy(m.w, w)
		return
	}
	lits := make([]ground.Lit, 0, len(m.lits))
	start := []int32{0}
	m.w, m.sel = m.w[:0], m.sel[:0]
	for i, c := range out {
		if w[i] == 0 {
			continue
		}
		lits = append(lits, m.clause(int(c))...)
		start = append(start, int32(len(lits)))
		m.w = append(m.w, w[i])
		m.sel = append(m.sel, -math.Expm1(-math.Abs(w[i])))
	}
	m.lits, m.start = lits, start
}

// group sorts the clauses into the selection roles and groups.
func (m *model) group() {
	const buckets = 64
	var sparse [2][buckets + 1][]int32 // [fixing, multi][k]: p in [2^-(k+1), 2^-k)
	m.multi = make([]bool, m.numClauses())
	for c := range m.numClauses() {
		isMulti := m.w[c] > 0 && m.start[c+1]-m.start[c] > 1
		m.multi[c] = isMulti
		p := m.sel[c]
		if p >= skipAbove {
			if isMulti {
				m.denseMulti = append(m.denseMulti, int32(c))
				m.multiVisits++
			} else {
				m.denseFixing = append(m.denseFixing, int32(c))
			}
			continue
		}
		_, e := math.Frexp(p) // p = f * 2^e, f in [0.5, 1)
		role := 0
		if isMulti {
			role = 1
		}
		k := min(-e, buckets)
		sparse[role][k] = append(sparse[role][k], int32(c))
	}
	for role := range sparse {
		for k, cs := range sparse[role] {
			if len(cs) == 0 {
				continue
			}
			g := selGroup{p: math.Ldexp(1, -k), clauses: cs}
			g.logq = math.Log1p(-g.p)
			if role == 1 {
				m.multiVisits += g.p * float64(len(cs))
				m.sparseMulti = append(m.sparseMulti, g)
			} else {
				m.sparseFixing = append(m.sparseFixing, g)
			}
		}
	}
}

func (m *model) numClauses() int { return len(m.start) - 1 }

func (m *model) clause(c int) []ground.Lit { return m.lits[m.start[c]:m.start[c+1]] }

func (m *model) occurrences(a int32) []int32 { return m.occ[m.occStart[a]:m.occStart[a+1]] }
