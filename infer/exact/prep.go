package exact

import (
	"context"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/marple-mln/marple/ground"
)

// A problem is one independent component: local atoms 0..len(atoms)-1,
// clauses of two or more literals over them and a linear term per atom. Its
// residual objective is the sum of w[c] over the clauses c whose literals
// are all false plus the sum of unary[a] over the true atoms; w[c] may be
// negative, and +Inf for a hard clause.
type problem struct {
	atoms []int32      // global atom IDs, ascending
	lits  []ground.Lit // local literals
	start []int32      // clause c is lits[start[c]:start[c+1]]
	w     []float64
	unary []float64
	// orig is the original component (root atom) the problem belongs to.
	orig int32
	// relaxed is set when the hard clauses were turned into soft ones of
	// weight hardW, to minimise the number violated.
	relaxed bool
	hardW   float64
	// pr is the simplified network the problem comes from (nil for a
	// relaxed problem): the warm start takes the soft unit clauses
	// behind the linear terms from it.
	pr *prep
}

// outcome is the result of solving one problem.
type outcome struct {
	stats      ComponentStats
	infeasible bool // hard clauses proved unsatisfiable
}

// prep holds the simplified network.
type prep struct {
	net  *ground.Network
	bias []float64
	n    int

	// Normalised clauses: duplicate literals removed; taut marks clauses
	// with complementary literals. When no clause changes, nstart is nil
	// and the clauses are the network's.
	nlits  []ground.Lit
	nstart []int32
	taut   []bool

	root     []int32 // original component of each atom (union-find root)
	conflict []bool  // by root: unit propagation met a conflict
	val      []int8  // forced value: 0 free, 1 true, -1 false
	u        []float64

	// The residual clauses by chunk of the network's clauses.
	res []resChunk

	uf    []int32 // union-find over the residual clauses
	inRes bitset  // atom occurs in a residual clause

	workers     int  // goroutines for the preparation
	anyConflict bool // some component has a conflict

	assign    []bool
	constant  float64 // constant part of the cost (see SolveStats' Bound)
	forced    int
	hardEmpty int
	// singletons counts free atoms in no residual clause.
	singletons int

	// The soft clauses left with one free literal, by atom (compressed
	// rows), built on demand by units.
	unitOnce  sync.Once
	unitStart []int32
	unitLits  []ground.Lit
	unitW     []float64
}

// units returns the soft clauses that unit propagation left with a single
// free literal (original unit clauses included) in the components without
// conflict, as compressed rows by atom: atom a has the literals
// unitLits[unitStart[a]:unitStart[a+1]] with weights unitW. Their sum, with
// the bias, makes the linear terms of the residual problems.
func (pr *prep) units() ([]int32, []ground.Lit, []float64) {
	pr.unitOnce.Do(func() {
		net, val := pr.net, pr.val
		m := net.NumClauses()
		lit := make([]ground.Lit, m)
		ok := make([]bool, m)
		cnt := make([]int32, pr.n+1)
		for c := 0; c < m; c++ {
			w := net.Weight(c)
			if pr.taut[c] || math.IsInf(w, 1) || w == 0 {
				continue
			}
			ls := pr.clause(c)
			if len(ls) == 0 || pr.conflict[pr.root[ls[0].Atom()]] {
				continue
			}
			free, sat := 0, false
			for _, l := range ls {
				switch v := val[l.Atom()]; {
				case v == 0:
					free++
					lit[c] = l
				case (v > 0) != l.Neg():
					sat = true
				}
			}
			if !sat && free == 1 {
				ok[c] = true
				cnt[lit[c].Atom()+1]++
			}
		}
		for a := 0; a < pr.n; a++ {
			cnt[a+1] += cnt[a]
		}
		pr.unitLits = make([]ground.Lit, cnt[pr.n])
		pr.unitW = make([]float64, cnt[pr.n])
		fill := append([]int32(nil), cnt[:pr.n]...)
		for c := 0; c < m; c++ {
			if ok[c] {
				a := lit[c].Atom()
				pr.unitLits[fill[a]] = lit[c]
				pr.unitW[fill[a]] = net.Weight(c)
				fill[a]++
			}
		}
		pr.unitStart = cnt
	})
	return pr.unitStart, pr.unitLits, pr.unitW
}

func find(p []int32, a int32) int32 {
	for p[a] != a {
		p[a] = p[p[a]]
		a = p[a]
	}
	return a
}

func union(p []int32, a, b int32) {
	a, b = find(p, a), find(p, b)
	if a == b {
		return
	}
	if a < b {
		p[b] = a
	} else {
		p[a] = b
	}
}

// prepare normalises the clauses, finds the original components, propagates
// hard unit clauses and simplifies, on up to workers goroutines (the result
// does not depend on their number). It returns nil when ctx is cancelled.
func prepare(ctx context.Context, net *ground.Network, bias []float64, workers int) *prep {
	n := net.NumAtoms()
	m := net.NumClauses()
	pr := &prep{net: net, bias: bias, n: n, workers: workers}
	nch := numChunks(m)
	var stopped atomic.Bool
	// each runs fn on every clause chunk, stopping when ctx is cancelled.
	each := func(fn func(k, lo, hi int)) bool {
		forChunks(workers, nch, func(k int) {
			if stopped.Load() || ctx.Err() != nil {
				stopped.Store(true)
				return
			}
			lo, hi := chunkRange(k, m)
			fn(k, lo, hi)
		})
		return !stopped.Load()
	}

	// Normalise: count the literals each clause keeps, then write them
	// (unless no clause changes).
	pr.nstart = make([]int32, m+1)
	pr.taut = make([]bool, m)
	total := make([]int, nch+1)
	var changed atomic.Bool
	if !each(func(k, lo, hi int) {
		var buf []ground.Lit
		t := 0
		for c := lo; c < hi; c++ {
			ls := net.Clause(c)
			buf, pr.taut[c] = normalise(buf[:0], ls)
			if len(buf) != len(ls) {
				changed.Store(true)
			}
			t += len(buf)
			pr.nstart[c+1] = int32(len(buf))
		}
		total[k+1] = t
	}) {
		return nil
	}
	if !changed.Load() {
		pr.nstart = nil // pr.clause reads the network's clauses
	} else {
		for k := 0; k < nch; k++ {
			total[k+1] += total[k]
		}
		pr.nlits = make([]ground.Lit, total[nch])
		if !each(func(k, lo, hi int) {
			off := int32(total[k])
			var buf []ground.Lit
			for c := lo; c < hi; c++ {
				ls := net.Clause(c)
				if int(pr.nstart[c+1]) != len(ls) {
					buf, _ = normalise(buf[:0], ls)
					ls = buf
				}
				copy(pr.nlits[off:], ls)
				off += int32(len(ls))
				pr.nstart[c+1] = off
			}
		}) {
			return nil
		}
	}

	// Original components.
	root := newForest(workers, n)
	if !each(func(k, lo, hi int) {
		for c := lo; c < hi; c++ {
			ls := pr.clause(c)
			for i := 1; i < len(ls); i++ {
				cunion(root, ls[0].Atom(), ls[i].Atom())
			}
		}
	}) {
		return nil
	}
	flatten(workers, root)
	pr.root = root
	pr.conflict = make([]bool, n)

	pr.propagate()
	pr.anyConflict = slices.Contains(pr.conflict, true)

	// Residual clauses, constant part and linear terms.
	val := pr.val
	pr.uf = newForest(workers, n)
	pr.inRes = newBitset(n)
	pr.res = make([]resChunk, nch)
	pr.u = make([]float64, n)
	for a, b := range bias {
		pr.u[a] = -b
	}
	forChunksInOrder(workers, nch, func(k int) {
		if stopped.Load() || ctx.Err() != nil {
			stopped.Store(true)
			return
		}
		lo, hi := chunkRange(k, m)
		scratch := scratchPool.Get().(*resChunk)
		// The residual clauses go to buffers of the chunk's size, kept
		// unless the residual is much smaller; the terms wait in the
		// scratch buffers for their merge.
		nl := 0
		for c := lo; c < hi; c++ {
			nl += len(pr.clause(c))
		}
		lits, start, w := scratch.lits, scratch.start, scratch.w
		scratch.lits, scratch.start, scratch.w = make([]ground.Lit, 0, nl), make([]int32, 0, hi-lo+1), make([]float64, 0, hi-lo)
		pr.residual(scratch, lo, hi)
		r := &pr.res[k]
		r.lits, r.start, r.w = scratch.lits, scratch.start, scratch.w
		if 2*len(r.lits) < nl {
			r.lits, r.start, r.w = slices.Clone(r.lits), slices.Clone(r.start), slices.Clone(r.w)
		}
		scratch.lits, scratch.start, scratch.w = lits, start, w
		r.constant, r.unitAtom, r.unitW, r.hardEmpty = scratch.constant, scratch.unitAtom, scratch.unitW, scratch.hardEmpty
		r.scratch = scratch
	}, func(k int) {
		// The sums in clause order, as a serial pass makes them.
		r := &pr.res[k]
		for _, x := range r.constant {
			pr.constant += x
		}
		for i, a := range r.unitAtom {
			pr.u[a] += r.unitW[i]
		}
		pr.hardEmpty += r.hardEmpty
		r.constant, r.unitAtom, r.unitW = nil, nil, nil
		if r.scratch != nil { // nil when the chunk was skipped on a stop
			scratchPool.Put(r.scratch)
			r.scratch = nil
		}
	})
	if stopped.Load() {
		return nil
	}

	// Forced atoms and singletons.
	pr.assign = make([]bool, n)
	for a := 0; a < n; a++ {
		if pr.conflict[root[a]] {
			continue
		}
		switch {
		case val[a] != 0:
			pr.forced++
			if val[a] > 0 {
				pr.assign[a] = true
				pr.constant += pr.u[a]
			}
		case !pr.inRes.has(int32(a)):
			pr.singletons++
			if pr.u[a] < 0 {
				pr.assign[a] = true
				pr.constant += pr.u[a]
			}
		}
	}
	return pr
}

// normalise appends to buf the literals of ls without repeated atoms (the
// first occurrence kept) and reports whether ls has complementary
// literals; it then appends none.
func normalise(buf, ls []ground.Lit) ([]ground.Lit, bool) {
	s := len(buf)
	var seen map[int32]bool // sign by atom, for long clauses
	if len(ls) > 32 {
		seen = make(map[int32]bool, len(ls))
	}
	taut := false
	for _, l := range ls {
		a := l.Atom()
		dup := false
		if seen != nil {
			if neg, ok := seen[a]; ok {
				dup, taut = true, taut || neg != l.Neg()
			} else {
				seen[a] = l.Neg()
			}
		} else {
			for _, k := range buf[s:] {
				if k.Atom() == a {
					dup, taut = true, taut || k.Neg() != l.Neg()
					break
				}
			}
		}
		if !dup {
			buf = append(buf, l)
		}
	}
	if taut {
		buf = buf[:s]
	}
	return buf, taut
}

// A resChunk holds what the clauses of one chunk leave after propagation.
type resChunk struct {
	// The residual clauses (two or more free literals) of the
	// components without conflict, with global literals: clause i has
	// lits[start[i]:start[i+1]] and weight w[i].
	lits  []ground.Lit
	start []int32
	w     []float64
	// The chunk's terms of the constant and of the linear terms, in
	// clause order.
	constant  []float64
	unitAtom  []int32
	unitW     []float64
	hardEmpty int
	scratch   *resChunk // the buffers behind the terms, for reuse
}

// scratchPool holds buffers for residual, reused from chunk to chunk.
var scratchPool = sync.Pool{New: func() any { return new(resChunk) }}

// residual simplifies clauses lo..hi-1 under the propagated values into r
// (emptied first, its buffers reused), joining the atoms of each residual
// clause in pr.uf.
func (pr *prep) residual(r *resChunk, lo, hi int) {
	net, val := pr.net, pr.val
	r.lits, r.start, r.w = r.lits[:0], append(r.start[:0], 0), r.w[:0]
	r.constant, r.unitAtom, r.unitW, r.hardEmpty = r.constant[:0], r.unitAtom[:0], r.unitW[:0], 0
	for c := lo; c < hi; c++ {
		w := clauseWeight(net, c)
		hard := math.IsInf(w, 1)
		if !hard && w < 0 {
			r.constant = append(r.constant, -w)
		}
		if pr.taut[c] {
			continue
		}
		ls := pr.clause(c)
		if len(ls) == 0 {
			if hard {
				r.hardEmpty++
			} else {
				r.constant = append(r.constant, w)
			}
			continue
		}
		if pr.anyConflict && pr.conflict[pr.root[ls[0].Atom()]] {
			continue
		}
		s := len(r.lits)
		sat := false
		for _, l := range ls {
			switch v := val[l.Atom()]; {
			case v == 0:
				r.lits = append(r.lits, l)
			case (v > 0) != l.Neg():
				sat = true
			}
		}
		free := r.lits[s:]
		if sat || hard && len(free) < 2 {
			// Hard clauses with fewer than two free literals are
			// satisfied after propagation without conflict.
			r.lits = r.lits[:s]
			continue
		}
		switch len(free) {
		case 0:
			r.constant = append(r.constant, w)
		case 1:
			if l := free[0]; l.Neg() {
				r.unitAtom, r.unitW = append(r.unitAtom, l.Atom()), append(r.unitW, w)
			} else {
				r.constant = append(r.constant, w)
				r.unitAtom, r.unitW = append(r.unitAtom, l.Atom()), append(r.unitW, -w)
			}
		}
		if len(free) < 2 {
			r.lits = r.lits[:s]
			continue
		}
		r0 := cfind(pr.uf, free[0].Atom())
		for _, l := range free {
			pr.inRes.add(l.Atom())
			r0 = clink(pr.uf, r0, l.Atom())
		}
		r.start = append(r.start, int32(len(r.lits)))
		r.w = append(r.w, w)
	}
}

// clauseWeight returns the weight of clause c of net.
func clauseWeight(net *ground.Network, c int) float64 { return net.Weight(c) }

// clause returns the literals of clause c, normalised.
func (pr *prep) clause(c int) []ground.Lit {
	if pr.nstart == nil {
		return pr.net.Clause(c)
	}
	return pr.nlits[pr.nstart[c]:pr.nstart[c+1]]
}

// propagate fixes the atoms forced by hard unit clauses, marking the
// original components where a hard clause becomes false.
func (pr *prep) propagate() {
	net, n, m := pr.net, pr.n, pr.net.NumClauses()
	pr.val = make([]int8, n)
	val := pr.val
	units := false
	for c := 0; c < m && !units; c++ {
		units = net.IsHard(c) && !pr.taut[c] && len(pr.clause(c)) == 1
	}
	if !units {
		return // nothing to propagate
	}
	// Occurrences in hard clauses of two or more literals.
	cnt := make([]int32, n+1)
	for c := 0; c < m; c++ {
		if net.IsHard(c) && !pr.taut[c] && len(pr.clause(c)) >= 2 {
			for _, l := range pr.clause(c) {
				cnt[l.Atom()+1]++
			}
		}
	}
	for a := 0; a < n; a++ {
		cnt[a+1] += cnt[a]
	}
	occ := make([]int32, cnt[n])
	fill := append([]int32(nil), cnt[:n]...)
	for c := 0; c < m; c++ {
		if net.IsHard(c) && !pr.taut[c] && len(pr.clause(c)) >= 2 {
			for _, l := range pr.clause(c) {
				occ[fill[l.Atom()]] = int32(c)
				fill[l.Atom()]++
			}
		}
	}
	var queue []int32
	set := func(l ground.Lit) {
		a := l.Atom()
		want := int8(1)
		if l.Neg() {
			want = -1
		}
		switch val[a] {
		case 0:
			val[a] = want
			queue = append(queue, a)
		case -want:
			pr.conflict[pr.root[a]] = true
		}
	}
	for c := 0; c < m; c++ {
		if net.IsHard(c) && !pr.taut[c] && len(pr.clause(c)) == 1 {
			set(pr.clause(c)[0])
		}
	}
	for len(queue) > 0 {
		a := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if pr.conflict[pr.root[a]] {
			continue
		}
		for _, c := range occ[cnt[a]:cnt[a+1]] {
			var last ground.Lit
			free, sat := 0, false
			for _, l := range pr.clause(int(c)) {
				v := val[l.Atom()]
				if v == 0 {
					free++
					last = l
				} else if (v > 0) != l.Neg() {
					sat = true
					break
				}
			}
			if sat {
				continue
			}
			switch free {
			case 0:
				pr.conflict[pr.root[a]] = true
			case 1:
				set(last)
			}
		}
	}
	for a := 0; a < n; a++ {
		if pr.conflict[pr.root[a]] {
			val[a] = 0
		}
	}
}

// conflictRoots returns the original components where propagation met a
// conflict.
func (pr *prep) conflictRoots() []int32 {
	var rs []int32
	for a := 0; a < pr.n; a++ {
		if pr.root[a] == int32(a) && pr.conflict[a] {
			rs = append(rs, int32(a))
		}
	}
	return rs
}

// components returns the components of the residual clauses, ordered by
// smallest atom. The atoms and clauses of a component keep their order
// (atoms ascending, clauses in network order); the work is split into
// blocks of consecutive atoms and clauses counted, then placed, in
// parallel.
func (pr *prep) components() []*problem {
	n, workers := pr.n, pr.workers
	flatten(workers, pr.uf)
	uf, in := pr.uf, pr.inRes
	// Number the components by their root, their smallest atom.
	nach := numChunks(n)
	roots := make([]int32, nach+1)
	forChunks(workers, nach, func(k int) {
		lo, hi := chunkRange(k, n)
		for a := lo; a < hi; a++ {
			if in.has(int32(a)) && uf[a] == int32(a) {
				roots[k+1]++
			}
		}
	})
	for k := 0; k < nach; k++ {
		roots[k+1] += roots[k]
	}
	nc := int(roots[nach])
	if nc == 0 {
		pr.res = nil
		return nil
	}
	if p := pr.whole(nc); p != nil {
		return []*problem{p}
	}
	comp := make([]int32, n) // root -> component index
	first := make([]int32, nc)
	forChunks(workers, nach, func(k int) {
		lo, hi := chunkRange(k, n)
		id := roots[k]
		for a := lo; a < hi; a++ {
			if in.has(int32(a)) && uf[a] == int32(a) {
				comp[a], first[id] = id, int32(a)
				id++
			}
		}
	})
	compOf := func(a int32) int32 { return comp[uf[a]] }

	// Blocks: as many as workers (at most 8), each with a count per
	// component.
	blocks := max(1, min(workers, 8, n/chunkSize))
	ablock := func(b int) (lo, hi int) { return b * n / blocks, (b + 1) * n / blocks }

	// Atoms: counts per block and component, then offsets.
	acnt := make([][]int32, blocks)
	forChunks(workers, blocks, func(b int) {
		cnt := make([]int32, nc)
		lo, hi := ablock(b)
		for a := lo; a < hi; a++ {
			if in.has(int32(a)) {
				cnt[compOf(int32(a))]++
			}
		}
		acnt[b] = cnt
	})
	aoff := offsets(acnt, nc)
	atoms := make([]int32, aoff[nc])
	unary := make([]float64, aoff[nc])
	local := make([]int32, n)
	forChunks(workers, blocks, func(b int) {
		next := acnt[b] // now the next position per component
		lo, hi := ablock(b)
		for a := lo; a < hi; a++ {
			if in.has(int32(a)) {
				k := compOf(int32(a))
				i := next[k]
				next[k]++
				atoms[i], unary[i] = int32(a), pr.u[a]
				local[a] = i - aoff[k]
			}
		}
	})

	// Clauses: the residual chunks in blocks of consecutive chunks.
	res := pr.res
	cblocks := max(1, min(blocks, len(res)))
	cblock := func(b int) (lo, hi int) { return b * len(res) / cblocks, (b + 1) * len(res) / cblocks }
	ccnt := make([][]int32, cblocks)
	lcnt := make([][]int32, cblocks)
	forChunks(workers, cblocks, func(b int) {
		cc, lc := make([]int32, nc), make([]int32, nc)
		lo, hi := cblock(b)
		for _, r := range res[lo:hi] {
			for i := range r.w {
				k := compOf(r.lits[r.start[i]].Atom())
				cc[k]++
				lc[k] += r.start[i+1] - r.start[i]
			}
		}
		ccnt[b], lcnt[b] = cc, lc
	})
	ncl := offsets(ccnt, nc)
	nlit := offsets(lcnt, nc)
	lits := make([]ground.Lit, nlit[nc])
	w := make([]float64, ncl[nc])
	// start arrays: one per component, each of length ncl+1; component
	// k's is starts[ncl[k]+k : ncl[k+1]+k+1].
	starts := make([]int32, int(ncl[nc])+nc)
	forChunks(workers, cblocks, func(b int) {
		cfill, lfill := ccnt[b], lcnt[b]
		lo, hi := cblock(b)
		for _, r := range res[lo:hi] {
			for i := range r.w {
				ls := r.lits[r.start[i]:r.start[i+1]]
				k := compOf(ls[0].Atom())
				ci := cfill[k]
				cfill[k]++
				w[ci] = r.w[i]
				p := lfill[k]
				for _, l := range ls {
					lits[p] = ground.MakeLit(local[l.Atom()], l.Neg())
					p++
				}
				lfill[k] = p
				starts[int(ci)+int(k)+1] = p - nlit[k]
			}
		}
	})
	pr.res = nil // the problems hold the residual clauses now
	probs := make([]*problem, nc)
	for k := 0; k < nc; k++ {
		st := starts[int(ncl[k])+k : int(ncl[k+1])+k+1]
		st[0] = 0
		probs[k] = &problem{
			atoms: atoms[aoff[k]:aoff[k+1]],
			lits:  lits[nlit[k]:nlit[k+1]],
			start: st,
			w:     w[ncl[k]:ncl[k+1]],
			unary: unary[aoff[k]:aoff[k+1]],
			orig:  pr.root[first[k]],
			pr:    pr,
		}
	}
	return probs
}

// whole returns, when the residual clauses form one component (nc is the
// number of components) over every atom and come from one chunk, the
// problem of that component holding the chunk's clauses as they are (its
// local atoms are the network's); otherwise nil.
func (pr *prep) whole(nc int) *problem {
	if nc != 1 || len(pr.res) != 1 {
		return nil
	}
	for a := 0; a < pr.n; a++ {
		if !pr.inRes.has(int32(a)) {
			return nil
		}
	}
	r := &pr.res[0]
	atoms := make([]int32, pr.n)
	for a := range atoms {
		atoms[a] = int32(a)
	}
	p := &problem{atoms: atoms, lits: r.lits, start: r.start, w: r.w, unary: pr.u, orig: pr.root[0], pr: pr}
	pr.res = nil
	return p
}

// offsets turns counts per block and component into the position where
// each block's items of each component start (in place) and returns the
// start of each component's items, with the total at the end: the items
// of component k come before those of k+1, those of block b before those
// of b+1.
func offsets(cnt [][]int32, nc int) []int32 {
	off := make([]int32, nc+1)
	var t int32
	for k := 0; k < nc; k++ {
		off[k] = t
		for _, c := range cnt {
			c[k], t = t, t+c[k]
		}
	}
	off[nc] = t
	return off
}

// relaxed returns, for each original component in roots, the problem over
// all its atoms and clauses (no propagation) with hard clauses made soft
// with a weight exceeding the total soft weight.
func (pr *prep) relaxed(roots []int32) []*problem {
	if len(roots) == 0 {
		return nil
	}
	net := pr.net
	idx := make([]int32, pr.n) // root -> problem index + 1
	probs := make([]*problem, len(roots))
	for i, r := range roots {
		idx[r] = int32(i + 1)
		probs[i] = &problem{orig: r, relaxed: true, start: []int32{0}}
	}
	local := make([]int32, pr.n)
	for a := 0; a < pr.n; a++ {
		if i := idx[pr.root[a]] - 1; i >= 0 {
			p := probs[i]
			local[a] = int32(len(p.atoms))
			p.atoms = append(p.atoms, int32(a))
			b := 0.0
			if pr.bias != nil {
				b = pr.bias[a]
			}
			p.unary = append(p.unary, -b)
			p.hardW += math.Abs(b)
		}
	}
	// Total soft weight, then the hard weight.
	for c := 0; c < net.NumClauses(); c++ {
		ls := pr.clause(c)
		if pr.taut[c] || len(ls) == 0 || net.IsHard(c) {
			continue
		}
		if i := idx[pr.root[ls[0].Atom()]] - 1; i >= 0 {
			probs[i].hardW += math.Abs(net.Weight(c))
		}
	}
	for _, p := range probs {
		p.hardW = math.Ldexp(1, math.Ilogb(p.hardW+1)+2)
	}
	for c := 0; c < net.NumClauses(); c++ {
		ls := pr.clause(c)
		if pr.taut[c] || len(ls) == 0 {
			continue
		}
		i := idx[pr.root[ls[0].Atom()]] - 1
		if i < 0 {
			continue
		}
		p := probs[i]
		w := net.Weight(c)
		if math.IsInf(w, 1) {
			w = p.hardW
		}
		if len(ls) == 1 {
			l := ls[0]
			if l.Neg() {
				p.unary[local[l.Atom()]] += w
			} else {
				p.unary[local[l.Atom()]] -= w
			}
			continue
		}
		for _, l := range ls {
			p.lits = append(p.lits, ground.MakeLit(local[l.Atom()], l.Neg()))
		}
		p.start = append(p.start, int32(len(p.lits)))
		p.w = append(p.w, w)
	}
	return probs
}
