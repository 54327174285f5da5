package mcsat

import (
	"context"
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
// for the distribution (see layout.model). Weights keep their sign; ±Inf marks a
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

func newModel(ctx context.Context, net *ground.Network, bias []float64) (*model, error) {
	ws := net.Weights(nil)
	l, err := newLayout(ctx, net, bias, ws)
	if err != nil {
		return nil, err
	}
	return l.model(ws, bias), nil
}

// layout is the part of a model that does not depend on the soft clauses'
// weights: the network's clauses (and bias units) with duplicate literals
// removed, tautologies and empty clauses dropped, and the soft clauses with
// the same literals given one slot, in the form the model writes them (a long
// clause's literals sorted, a unit clause as its positive literal). A model
// is the slots whose summed weight is nonzero, in the order of their first
// clause of nonzero weight: exactly what merging the clauses of those
// weights gives, without building the merging maps again when only the
// weights change (a learner's persistent chain).
type layout struct {
	numClauses int // the network's clauses; bias unit a is clause numClauses+a
	n          int
	slot       []int32 // each clause's slot, or -1 (tautology or empty)
	flip       []bool  // soft unit clause ¬a, whose weight counts as −w for a
	hard       []bool  // each slot: one hard clause (built at +-Inf weight)
	lits       []ground.Lit
	start      []int32

	// Scratch and the last model's clause list, reused by model.
	sum      []float64
	seen     []bool
	order    []int32
	kept     []int32
	last     *model
	lastKept []int32
}

// newLayout builds the layout of net's clauses at weights ws (one per
// clause: which clauses are hard) and the bias units. It stops with ctx's
// error when ctx is cancelled (a network of millions of clauses takes
// seconds).
func newLayout(ctx context.Context, net *ground.Network, bias []float64, ws []float64) (*layout, error) {
	n := net.NumAtoms()
	nc := net.NumClauses()
	nb := 0
	if len(bias) > 0 {
		nb = min(len(bias), n)
	}
	l := &layout{numClauses: nc, n: n, start: []int32{0},
		slot: make([]int32, nc+nb), flip: make([]bool, nc+nb)}
	mark := make([]int32, n)
	unit := make(map[int32]int32) // atom -> slot of its soft units
	long := make(map[string]int32)
	var buf []ground.Lit
	var key []byte
	addSlot := func(lits []ground.Lit, hard bool) int32 {
		l.lits = append(l.lits, lits...)
		l.start = append(l.start, int32(len(l.lits)))
		l.hard = append(l.hard, hard)
		return int32(len(l.hard) - 1)
	}
	for c := range nc + nb {
		if c&(1<<16-1) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		buf = buf[:0]
		taut := false
		hard := false
		if c < nc {
			hard = math.IsInf(ws[c], 0)
			for _, lt := range net.Clause(c) {
				a := lt.Atom()
				if k := mark[a]; k != 0 {
					if buf[k-1] != lt {
						taut = true
					}
					continue
				}
				buf = append(buf, lt)
				mark[a] = int32(len(buf))
			}
			for _, lt := range buf {
				mark[lt.Atom()] = 0
			}
		} else {
			hard = math.IsInf(bias[c-nc], 0)
			buf = append(buf, ground.MakeLit(int32(c-nc), false))
		}
		switch {
		case taut || len(buf) == 0:
			l.slot[c] = -1
		case hard:
			l.slot[c] = addSlot(buf, true)
		case len(buf) == 1:
			lt := buf[0]
			if lt.Neg() {
				lt, l.flip[c] = lt.Not(), true
			}
			k, ok := unit[lt.Atom()]
			if !ok {
				k = addSlot([]ground.Lit{lt}, false)
				unit[lt.Atom()] = k
			}
			l.slot[c] = k
		default:
			slices.Sort(buf)
			key = key[:0]
			for _, lt := range buf {
				key = binary.LittleEndian.AppendUint32(key, uint32(lt))
			}
			k, ok := long[string(key)]
			if !ok {
				k = addSlot(buf, false)
				long[string(key)] = k
			}
			l.slot[c] = k
		}
	}
	ns := len(l.hard)
	l.sum = make([]float64, ns)
	l.seen = make([]bool, ns)
	return l, nil
}

// fits reports whether the layout was built with the same hard clauses as
// weights ws and bias give.
func (l *layout) fits(ws, bias []float64) bool {
	for c, k := range l.slot {
		w := 0.0
		if c < l.numClauses {
			w = ws[c]
		} else {
			w = bias[c-l.numClauses]
		}
		if k >= 0 && math.IsInf(w, 0) != l.hard[k] {
			return false
		}
	}
	return true
}

// model returns the model of the layout's network at clause weights ws
// (the layout must fit them) and its bias: the same as newModel at those
// weights. Merging duplicates is exact for the distribution (w·[¬a] =
// −w·[a] + w, the constant does not matter), and MC-SAT needs it: where an
// atom has many duplicate clauses pulling both ways (structure learning's
// clauses with free variables give an atom hundreds of copies of a and of
// ¬a), in either state some copy holding there is selected almost surely,
// and the chain would keep its initial value whatever the weights say.
// The returned model may share its clause lists and occurrence
// index with the previous one.
func (l *layout) model(ws []float64, bias []float64) *model {
	l.order = l.order[:0]
	for c := range l.slot {
		var w float64
		if c < l.numClauses {
			w = ws[c]
		} else {
			w = bias[c-l.numClauses]
		}
		k := l.slot[c]
		if w == 0 || math.IsNaN(w) || k < 0 {
			continue
		}
		if l.flip[c] {
			w = -w
		}
		if !l.seen[k] {
			l.seen[k] = true
			l.order = append(l.order, k)
			l.sum[k] = w
			continue
		}
		l.sum[k] += w
	}
	l.kept = l.kept[:0]
	for _, k := range l.order {
		l.seen[k] = false
		if l.sum[k] != 0 {
			l.kept = append(l.kept, k)
		}
	}
	m := &model{n: l.n}
	if l.last != nil && slices.Equal(l.kept, l.lastKept) {
		m.lits, m.start, m.occStart, m.occ = l.last.lits, l.last.start, l.last.occStart, l.last.occ
	} else {
		m.lits = make([]ground.Lit, 0, len(l.lits))
		m.start = make([]int32, 1, len(l.kept)+1)
		for _, k := range l.kept {
			m.lits = append(m.lits, l.lits[l.start[k]:l.start[k+1]]...)
			m.start = append(m.start, int32(len(m.lits)))
		}
		m.index()
		l.lastKept = append(l.lastKept[:0], l.kept...)
	}
	m.w = make([]float64, len(l.kept))
	m.sel = make([]float64, len(l.kept))
	for i, k := range l.kept {
		m.w[i] = l.sum[k]
		m.sel[i] = -math.Expm1(-math.Abs(l.sum[k]))
	}
	m.group()
	l.last = m
	return m
}

// index builds the occurrence lists of the model's atoms.
func (m *model) index() {
	n := m.n
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
