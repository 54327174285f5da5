package lbg

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/unionfind"
)

// Sampling a block exactly. The atoms of a block are sampled jointly from
// their distribution given every other atom. The clauses that touch the
// block fall in two kinds: those with one atom in the block act on it as a
// unit potential (computed once per sweep), those with several tie the
// block's atoms together. The block is split by a cutset: a few atoms
// whose removal leaves the others in small connected components (an atom
// shared by many clauses first, as probabilistic theorem proving splits on
// an atom). For every assignment of the cutset each component's partition
// function is summed by enumeration, so a block costs
// 2^|cut| · Σ 2^|component| clause evaluations, however many atoms it has:
// a cluster of one atom with many others that only it ties together (an
// atom and its n relations) costs O(n), not 2^n.

// maxCut and maxComp bound a block's cutset and its components: a block
// that needs more is not sampled jointly (its atoms are sampled one at a
// time instead).
const (
	maxCut  = 10
	maxComp = 8
)

// bclause is a clause that ties several atoms of a block.
type bclause struct {
	w   float64      // weight (+Inf: hard)
	in  []ground.Lit // literals over the block's local atoms
	out []ground.Lit // literals over atoms outside the block (global)
}

// unitRef is a clause in which one atom of the block appears.
type unitRef struct {
	w   float64
	neg bool         // the atom's literal is negated
	out []ground.Lit // the clause's literals outside the block (global)
}

// block is a set of atoms sampled jointly.
type block struct {
	atoms []int32 // global atoms; local atom i is atoms[i]
	units [][]unitRef
	cut   []int32   // local atoms of the cutset
	comps [][]int32 // local atoms of each component
	// cl[0] holds the clauses over cutset atoms only; cl[1+k] those of
	// component k.
	cl   [][]bclause
	cost float64 // clause evaluations per sample
	// sym, when not nil, makes the block symmetric (symmetric.go): its
	// atoms are sampled by counting, cut and comps unused.
	sym []symGroup
}

// newBlock builds the block of global atoms atoms; ok is false when the
// block needs a cutset or a component above the bounds.
func newBlock(net *ground.Network, atoms []int32, local map[int32]int32) (*block, bool) {
	b := &block{atoms: atoms, units: make([][]unitRef, len(atoms))}
	for i, a := range atoms {
		local[a] = int32(i)
	}
	defer func() {
		for _, a := range atoms {
			delete(local, a)
		}
	}()
	seen := map[int32]bool{}
	var multi []bclause
	cost := 0.0
	for _, a := range atoms {
		for _, c := range net.Occurrences(a) {
			if seen[c] {
				continue
			}
			seen[c] = true
			lits := net.Clause(int(c))
			var in, out []ground.Lit
			distinct := map[int32]bool{}
			for _, l := range lits {
				if j, ok := local[l.Atom()]; ok {
					in = append(in, ground.MakeLit(j, l.Neg()))
					distinct[j] = true
				} else {
					out = append(out, l)
				}
			}
			w := net.Weight(int(c))
			if len(distinct) == 1 && len(in) == 1 {
				j := in[0].Atom()
				b.units[j] = append(b.units[j], unitRef{w: w, neg: in[0].Neg(), out: out})
				cost += 2
				continue
			}
			multi = append(multi, bclause{w: w, in: in, out: out})
		}
	}
	n := len(atoms)
	if n > maxComp {
		if g := symmetric(n, multi); g != nil {
			b.sym = g
			b.cost = cost + float64(n+1)*float64(3*n+len(g))
			return b, true
		}
	}
	// Cutset: the atom in most multi-atom clauses joins it until every
	// component is small.
	inCut := make([]bool, n)
	var comps [][]int32
	for {
		comps = components(n, multi, inCut)
		big := -1
		for k, c := range comps {
			if len(c) > maxComp && (big < 0 || len(c) > len(comps[big])) {
				big = k
			}
		}
		if big < 0 {
			break
		}
		if len(b.cut) >= maxCut {
			return nil, false
		}
		deg := map[int32]int{}
		member := map[int32]bool{}
		for _, a := range comps[big] {
			member[a] = true
		}
		for _, c := range multi {
			for _, l := range c.in {
				if member[l.Atom()] {
					deg[l.Atom()]++
				}
			}
		}
		best, bd := int32(-1), -1
		for _, a := range comps[big] {
			if deg[a] > bd {
				best, bd = a, deg[a]
			}
		}
		inCut[best] = true
		b.cut = append(b.cut, best)
	}
	b.comps = comps
	compOf := make([]int32, n)
	for i := range compOf {
		compOf[i] = -1
	}
	for k, c := range comps {
		for _, a := range c {
			compOf[a] = int32(k)
		}
	}
	b.cl = make([][]bclause, 1+len(comps))
	for _, c := range multi {
		k := int32(-1)
		for _, l := range c.in {
			if compOf[l.Atom()] >= 0 {
				k = compOf[l.Atom()]
				break
			}
		}
		b.cl[1+k] = append(b.cl[1+k], c)
	}
	ncut := math.Ldexp(1, len(b.cut))
	inner := float64(len(b.cl[0]) + len(b.cut))
	for k, c := range comps {
		inner += math.Ldexp(1, len(c)) * float64(len(b.cl[1+k])+len(c))
	}
	b.cost = cost + ncut*inner
	return b, true
}

// components returns the connected components of the atoms 0..n-1 not in
// the cut, linked by the clauses' literals, each sorted.
func components(n int, cls []bclause, inCut []bool) [][]int32 {
	parent := unionfind.New[int32](n)
	find := parent.Find
	for _, c := range cls {
		first := int32(-1)
		for _, l := range c.in {
			a := l.Atom()
			if inCut[a] {
				continue
			}
			if first < 0 {
				first = a
				continue
			}
			if x, y := find(first), find(a); x != y {
				parent[x] = y
			}
		}
	}
	idx := map[int32]int{}
	var out [][]int32
	for a := int32(0); a < int32(n); a++ {
		if inCut[a] {
			continue
		}
		r := find(a)
		k, ok := idx[r]
		if !ok {
			k = len(out)
			idx[r] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], a)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// sampler is the scratch space of one chain.
type sampler struct {
	u0, u1 []float64 // unit log-potentials of each local atom false, true
	x      []bool    // local assignment
	tot    []float64 // per cutset assignment: its log-weight
	marg   []float64 // per cutset assignment × non-cut atom: conditional marginal
	lw     []float64 // per component assignment: its log-weight
	active [][]bool  // per clause group: the clauses the outside leaves undecided
	pre    []float64 // symmetric blocks: counting tables
	suf    []float64
	bias   []float64 // linear terms per global atom (nil: none)
}

// outSat reports whether a literal outside the block is true.
func outSat(out []ground.Lit, y []bool) bool {
	for _, l := range out {
		if l.True(y) {
			return true
		}
	}
	return false
}

// logPot is the log-potential of a clause of weight w, satisfied or not:
// a satisfied clause scores w, a violated hard clause -Inf.
func logPot(w float64, sat bool) float64 {
	switch {
	case sat && math.IsInf(w, 1):
		return 0
	case sat:
		return w
	case math.IsInf(w, 1):
		return math.Inf(-1)
	}
	return 0
}

// score is the log-weight of the active clauses cls under the local
// assignment x.
func score(cls []bclause, active []bool, x []bool) float64 {
	s := 0.0
	for i, c := range cls {
		if !active[i] {
			continue
		}
		sat := false
		for _, l := range c.in {
			if x[l.Atom()] != l.Neg() {
				sat = true
				break
			}
		}
		s += logPot(c.w, sat)
	}
	return s
}

// sample draws the block's atoms from their distribution given the other
// atoms of y, writes them to y, and writes to rb (indexed by global atom)
// each atom's conditional probability of being true. It returns false,
// leaving y as it is, when no assignment of the block is possible (the
// other atoms falsify a hard clause whatever the block does).
func (b *block) sample(y []bool, rng *rand.Rand, s *sampler, rb []float64) bool {
	n := len(b.atoms)
	s.u0, s.u1, s.x = grow(s.u0, n), grow(s.u1, n), growB(s.x, n)
	for i := range b.atoms {
		u0, u1 := 0.0, 0.0
		for _, r := range b.units[i] {
			if outSat(r.out, y) {
				// Satisfied whatever the atom: a constant.
				continue
			}
			u1 += logPot(r.w, !r.neg)
			u0 += logPot(r.w, r.neg)
		}
		if s.bias != nil {
			u1 += s.bias[b.atoms[i]]
		}
		s.u0[i], s.u1[i] = u0, u1
	}
	if b.sym != nil {
		if !b.sampleSym(rng, s, rb) {
			return false
		}
		for i, a := range b.atoms {
			y[a] = s.x[i]
		}
		return true
	}
	for len(s.active) < len(b.cl) {
		s.active = append(s.active, nil)
	}
	active := s.active[:len(b.cl)]
	for k, cls := range b.cl {
		if cap(active[k]) < len(cls) {
			active[k] = make([]bool, len(cls))
		}
		active[k] = active[k][:len(cls)]
		for i, c := range cls {
			active[k][i] = !outSat(c.out, y)
		}
	}
	nc := len(b.cut)
	ncut := 1 << nc
	s.tot = grow(s.tot, ncut)
	s.marg = grow(s.marg, ncut*n)
	for ca := 0; ca < ncut; ca++ {
		for j, a := range b.cut {
			s.x[a] = ca>>j&1 == 1
		}
		t := score(b.cl[0], active[0], s.x)
		for _, a := range b.cut {
			t += pick(s.x[a], s.u0[a], s.u1[a])
		}
		for k, comp := range b.comps {
			if math.IsInf(t, -1) {
				break
			}
			t += b.compLogZ(k, comp, active[1+k], s, s.marg[ca*n:(ca+1)*n])
		}
		s.tot[ca] = t
	}
	ca, ok := draw(s.tot[:ncut], rng)
	if !ok {
		return false
	}
	// Conditional marginals: of the cutset atoms from the cutset's
	// distribution, of the others averaged over it.
	mx := math.Inf(-1)
	for _, t := range s.tot[:ncut] {
		mx = max(mx, t)
	}
	z := 0.0
	for c := 0; c < ncut; c++ {
		z += math.Exp(s.tot[c] - mx)
	}
	for i := range b.atoms {
		rb[b.atoms[i]] = 0
	}
	for c := 0; c < ncut; c++ {
		p := math.Exp(s.tot[c]-mx) / z
		if p == 0 {
			continue
		}
		for j, a := range b.cut {
			if c>>j&1 == 1 {
				rb[b.atoms[a]] += p
			}
		}
		m := s.marg[c*n : (c+1)*n]
		for _, comp := range b.comps {
			for _, a := range comp {
				rb[b.atoms[a]] += p * m[a]
			}
		}
	}
	// The drawn cutset, then each component given it.
	for j, a := range b.cut {
		s.x[a] = ca>>j&1 == 1
	}
	for k, comp := range b.comps {
		b.compLogZ(k, comp, active[1+k], s, nil)
		v, _ := draw(s.lw[:1<<len(comp)], rng)
		for j, a := range comp {
			s.x[a] = v>>j&1 == 1
		}
	}
	for i, a := range b.atoms {
		y[a] = s.x[i]
	}
	return true
}

// compLogZ returns the log partition function of component k given the
// cutset's values in s.x, leaving each of its assignments' log-weights in
// s.lw and, when marg is not nil, writing its atoms' conditional marginals
// there (at their local indices).
func (b *block) compLogZ(k int, comp []int32, active []bool, s *sampler, marg []float64) float64 {
	m := 1 << len(comp)
	s.lw = grow(s.lw, m)
	cls := b.cl[1+k]
	for v := 0; v < m; v++ {
		t := 0.0
		for j, a := range comp {
			on := v>>j&1 == 1
			s.x[a] = on
			t += pick(on, s.u0[a], s.u1[a])
		}
		if !math.IsInf(t, -1) {
			t += score(cls, active, s.x)
		}
		s.lw[v] = t
	}
	mx := math.Inf(-1)
	for _, t := range s.lw[:m] {
		mx = max(mx, t)
	}
	if math.IsInf(mx, -1) {
		return mx
	}
	z := 0.0
	for _, t := range s.lw[:m] {
		z += math.Exp(t - mx)
	}
	if marg != nil {
		for j, a := range comp {
			p := 0.0
			for v := 0; v < m; v++ {
				if v>>j&1 == 1 {
					p += math.Exp(s.lw[v] - mx)
				}
			}
			marg[a] = p / z
		}
	}
	return mx + math.Log(z)
}

func pick(on bool, u0, u1 float64) float64 {
	if on {
		return u1
	}
	return u0
}

// draw returns an index drawn with probability proportional to exp(lw[i]);
// ok is false when every lw[i] is -Inf.
func draw(lw []float64, rng *rand.Rand) (int, bool) {
	mx := math.Inf(-1)
	for _, t := range lw {
		mx = max(mx, t)
	}
	if math.IsInf(mx, -1) || math.IsNaN(mx) {
		return 0, false
	}
	z := 0.0
	for _, t := range lw {
		z += math.Exp(t - mx)
	}
	r := rng.Float64() * z
	last := 0
	for i, t := range lw {
		e := math.Exp(t - mx)
		if e == 0 {
			continue
		}
		last = i
		if r < e {
			return i, true
		}
		r -= e
	}
	return last, true
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

func growB(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n)
	}
	return s[:n]
}
