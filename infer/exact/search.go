package exact

import (
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/marple-mln/marple/ground"
)

// mbucket is a mini-bucket kept for the search: the table of the sum of
// its functions over vars (vars[0] is the bucket's variable) or, when vars
// is nil, a single clause too long for a table.
type mbucket struct {
	vars []int32
	tab  []float64
	lits []ground.Lit
	w    float64
}

// group is a mini-bucket being formed: its scope and its factors.
type group struct {
	vars []int32
	fs   []int32
}

// snode is a search node: variable d (a depth) set to v, with lower bound
// f on the cost of any completion.
type snode struct {
	f     float64
	d     int32
	key   int32 // context index, for close
	v     bool
	close bool // marks the end of the subtree below depth d (f: its prefix cost)
}

func (ws *workspace) factorSize(fi int32) int {
	f := &ws.factors[fi]
	if f.lits == nil {
		return len(f.vars)
	}
	return len(f.lits)
}

// mbe runs mini-bucket elimination with i-bound ib over the buckets set up
// by initBuckets, keeping each mini-bucket's table for the search. It
// returns the constant of the bound (the bound before any variable is set)
// and false when the tables would exceed budget entries.
//
// Along the search order (depth 0 first), the bound after setting depths
// 0..d is the constant plus, for each depth e <= d and each mini-bucket of
// e, its table at the assignment minus the minimum of the table over the
// value of e (that minimum is the message the mini-bucket sent to a
// shallower bucket, where it is counted). It is exact at the leaves, and
// exact everywhere when every bucket is a single mini-bucket.
//
// With dry set, only the scopes are worked out (no table is filled), to
// find whether the tables fit in budget. When stop is not nil and is
// raised, mbe gives up (false).
func (ws *workspace) mbe(n int, ib int32, budget int, dry bool, stop *atomic.Bool) (float64, bool) {
	c := 0.0
	total := 0
	ws.mbs = ws.mbs[:0]
	ws.mbLo = grow32(ws.mbLo, n)
	ws.mbHi = grow32(ws.mbHi, n)
	limit := int(ib) + 1
	for d := int32(n - 1); d >= 0; d-- {
		if stop != nil && stop.Load() {
			return 0, false
		}
		fs := ws.fs[:0]
		for f := ws.head[d]; f >= 0; f = ws.factors[f].next {
			fs = append(fs, f)
		}
		ws.fs = fs
		// Largest first (stable).
		if len(fs) <= 32 {
			for i := 1; i < len(fs); i++ {
				for j := i; j > 0 && ws.factorSize(fs[j]) > ws.factorSize(fs[j-1]); j-- {
					fs[j], fs[j-1] = fs[j-1], fs[j]
				}
			}
		} else {
			slices.SortStableFunc(fs, func(a, b int32) int { return ws.factorSize(b) - ws.factorSize(a) })
		}
		lo := len(ws.mbs)
		groups := ws.groups[:0]
		for i, fi := range fs {
			if stop != nil && i&255 == 255 && stop.Load() {
				return 0, false
			}
			f := ws.factors[fi]
			if f.lits != nil && len(f.lits) > limit {
				// A long clause alone: its message drops it when its
				// weight is positive (the variable can satisfy it) and is
				// the clause without the variable otherwise.
				ws.mbs = append(ws.mbs, mbucket{lits: f.lits, w: f.w})
				if f.w < 0 {
					rest := ws.la.alloc(len(f.lits) - 1)[:0]
					maxd := int32(-1)
					for _, l := range f.lits {
						if l.Atom() != d {
							rest = append(rest, l)
							maxd = max(maxd, l.Atom())
						}
					}
					ws.addFactor(factor{lits: rest, w: f.w}, maxd)
				}
				continue
			}
			vars := f.vars
			if f.lits != nil {
				vars = ws.nb2[:0]
				for _, l := range f.lits {
					vars = append(vars, l.Atom())
				}
				ws.nb2 = vars
			}
			placed := false
			for g := range groups {
				extra := 0
				for _, v := range vars {
					if !contains(groups[g].vars, v) {
						extra++
					}
				}
				if len(groups[g].vars)+extra <= limit {
					for _, v := range vars {
						if !contains(groups[g].vars, v) {
							groups[g].vars = append(groups[g].vars, v)
						}
					}
					groups[g].fs = append(groups[g].fs, fi)
					placed = true
					break
				}
			}
			if !placed {
				if len(groups) < cap(groups) {
					groups = groups[:len(groups)+1]
				} else {
					groups = append(groups, group{})
				}
				g := &groups[len(groups)-1]
				g.vars = append(g.vars[:0], d)
				for _, v := range vars {
					if v != d {
						g.vars = append(g.vars, v)
					}
				}
				g.fs = append(g.fs[:0], fi)
			}
		}
		if len(groups) == 0 {
			if len(groups) < cap(groups) {
				groups = groups[:1]
			} else {
				groups = append(groups, group{})
			}
			groups[0].vars = append(groups[0].vars[:0], d)
			groups[0].fs = groups[0].fs[:0]
		}
		ws.groups = groups
		first := len(ws.mbs)
		for g := range groups {
			ws.scope(d, groups[g].fs)
			U := ws.U
			k := len(U)
			size := 1 << k
			total += size
			if total > budget {
				return 0, false
			}
			vars := ws.ia.alloc(k)
			copy(vars, U)
			if dry {
				if k > 1 {
					maxo := int32(-1)
					for _, v := range vars[1:] {
						maxo = max(maxo, v)
					}
					ws.addFactor(factor{vars: vars[1:]}, maxo)
				}
				continue
			}
			T := ws.fa.alloc(size)
			u := 0.0
			if g == 0 {
				u = ws.du[d]
			}
			if !ws.combine(U, groups[g].fs, u, T, stop) {
				return 0, false
			}
			ws.mbs = append(ws.mbs, mbucket{vars: vars, tab: T})
		}
		for i := first; i < len(ws.mbs); i++ {
			vars, T := ws.mbs[i].vars, ws.mbs[i].tab
			if len(vars) == 1 {
				c += math.Min(T[0], T[1])
				continue
			}
			half := len(T) >> 1
			msg := ws.fa.alloc(half)
			maxo := int32(-1)
			for _, v := range vars[1:] {
				maxo = max(maxo, v)
			}
			for j := 0; j < half; j++ {
				msg[j] = math.Min(T[2*j], T[2*j+1])
			}
			ws.addFactor(factor{vars: vars[1:], tab: msg}, maxo)
		}
		ws.mbLo[d], ws.mbHi[d] = int32(lo), int32(len(ws.mbs))
	}
	return c, true
}

func contains(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// delta returns the increase of the bound when depth d is set to false
// and to true, given the values of the shallower depths in ws.x.
func (ws *workspace) delta(d int32) (d0, d1 float64) {
	x := ws.x
	for i := ws.mbLo[d]; i < ws.mbHi[d]; i++ {
		m := &ws.mbs[i]
		if m.vars != nil {
			base := 0
			for t := 1; t < len(m.vars); t++ {
				if x[m.vars[t]] {
					base |= 1 << t
				}
			}
			a, b := m.tab[base], m.tab[base|1]
			mn := math.Min(a, b)
			if math.IsInf(mn, 1) {
				continue // only on a path already known infeasible
			}
			d0 += a - mn
			d1 += b - mn
			continue
		}
		var ld ground.Lit
		sat := false
		for _, l := range m.lits {
			if l.Atom() == d {
				ld = l
				continue
			}
			if l.True(x) {
				sat = true
				break
			}
		}
		if sat {
			continue
		}
		mn := math.Min(m.w, 0)
		if ld.Neg() {
			d1 += m.w - mn
			d0 -= mn
		} else {
			d0 += m.w - mn
			d1 -= mn
		}
	}
	return d0, d1
}

// Caching: the cost still to come below depth d depends on the shallower
// depths only through its context, the shallower variables in the scopes
// of the mini-buckets of depths >= d. When the search has finished the
// subtree below a node, every completion of the node costs at least the
// pruning limit at that time, which gives a lower bound on the cost to
// come for the node's context; it is kept in a table per depth (for
// contexts of at most maxCtx variables, within cacheBudget entries) and
// prunes later nodes with the same context.
const (
	maxCtx      = 20
	cacheBudget = 1 << 22
)

// contexts computes the context of every depth.
func (ws *workspace) contexts(n int) {
	ws.ctxLen = grow32(ws.ctxLen, n)
	ws.ctxOff = grow32(ws.ctxOff, n)
	ws.ctxVars = ws.ctxVars[:0]
	ws.inS = growBool(ws.inS, n)
	inS := ws.inS
	clear(inS)
	list := ws.nb[:0]
	add := func(v, d int32) {
		if v != d && !inS[v] {
			inS[v] = true
			list = append(list, v)
		}
	}
	for d := int32(n - 1); d >= 0; d-- {
		for i := ws.mbLo[d]; i < ws.mbHi[d]; i++ {
			m := &ws.mbs[i]
			for _, v := range m.vars {
				add(v, d)
			}
			for _, l := range m.lits {
				add(l.Atom(), d)
			}
		}
		inS[d] = false
		k := 0
		for _, v := range list {
			if inS[v] {
				list[k] = v
				k++
			}
		}
		list = list[:k]
		if k <= maxCtx {
			ws.ctxOff[d], ws.ctxLen[d] = int32(len(ws.ctxVars)), int32(k)
			ws.ctxVars = append(ws.ctxVars, list...)
		} else {
			ws.ctxLen[d] = -1
		}
	}
	ws.nb = list[:0]
	for len(ws.cache) < n {
		ws.cache = append(ws.cache, nil)
	}
	clear(ws.cache[:n])
	ws.cacheUsed = 0
}

// cacheSlot returns the cache table of depth d and the index of the
// current context in it, or nil.
func (ws *workspace) cacheSlot(d int32) ([]float64, int32) {
	k := ws.ctxLen[d]
	if k < 0 {
		return nil, 0
	}
	tab := ws.cache[d]
	if tab == nil {
		if ws.cacheUsed+1<<k > ws.cacheCap {
			ws.ctxLen[d] = -1
			return nil, 0
		}
		ws.cacheUsed += 1 << k
		tab = ws.fa.alloc(1 << k)
		for i := range tab {
			tab[i] = math.Inf(-1)
		}
		ws.cache[d] = tab
	}
	key := int32(0)
	for t, v := range ws.ctxVars[ws.ctxOff[d] : ws.ctxOff[d]+k] {
		if ws.x[v] {
			key |= 1 << t
		}
	}
	return tab, key
}

// search runs depth-first branch and bound over depths 0..n-1 with the
// mini-bucket bounds, starting from bound c. The best assignment found is
// left in ws.best. It returns its cost (+Inf if none satisfies the hard
// clauses), a lower bound on the optimum, whether the search finished
// (the cost is then optimal, or the problem infeasible when it is +Inf),
// and the number of nodes expanded.
//
// When warmFn is not nil and the search has not finished after probe
// nodes, or has used a quarter of the time left before deadline (zero:
// none), or is stopped before, warmFn is called once: its assignment
// (indexed by local atom) becomes the incumbent when it costs less than
// the best found, and its lower bound joins the search's (it finishes the
// search when it proves the incumbent optimal). When stop is raised
// before any assignment was known, ws.best is the greedy assignment
// along the bounds.
func (ws *workspace) search(n int, c float64, stop *atomic.Bool, deadline time.Time, warmFn func() *warm, probe int64) (ub, lb float64, finished bool, nodes int64) {
	x, best := ws.x, ws.best
	ub = math.Inf(1)
	lim := ub
	have := false         // best holds an assignment
	extra := math.Inf(-1) // the warm start's lower bound
	// applyWarm takes the warm start; it reports whether its bound proves
	// the incumbent optimal.
	applyWarm := func() bool {
		w := warmFn()
		warmFn = nil
		extra = w.bound
		if w.x != nil && (!have || w.cost < ub) {
			for v, b := range w.x {
				best[ws.dep[v]] = b
			}
			have = true
			if !math.IsInf(w.cost, 1) {
				ub = w.cost
				lim = ub - 1e-9*math.Max(1, math.Abs(ub))
			}
		}
		return warmOptimal(ub, extra)
	}
	stack := ws.stack[:0]
	push := func(d int32, f, d0, d1 float64) {
		f0, f1 := f+d0, f+d1
		if d1 < d0 {
			if f0 < lim {
				stack = append(stack, snode{f: f0, d: d})
			}
			if f1 < lim {
				stack = append(stack, snode{f: f1, d: d, v: true})
			}
		} else {
			if f1 < lim {
				stack = append(stack, snode{f: f1, d: d, v: true})
			}
			if f0 < lim {
				stack = append(stack, snode{f: f0, d: d})
			}
		}
	}
	if c < lim {
		d0, d1 := ws.delta(0)
		push(0, c, d0, d1)
	}
	ws.contexts(n)
	interrupted := false
	last := int32(n - 1)
	var warmAt time.Time
	if !deadline.IsZero() {
		warmAt = time.Now().Add(time.Until(deadline) / 4)
	}
	for len(stack) > 0 {
		nodes++
		if nodes&1023 == 0 && stop.Load() {
			interrupted = true
			break
		}
		if warmFn != nil && (nodes > probe || nodes&1023 == 0 && !warmAt.IsZero() && time.Now().After(warmAt)) && applyWarm() {
			stack = stack[:0]
			break
		}
		nd := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if nd.close {
			// The subtree below depth nd.d is done: every completion
			// costs at least lim (which only decreases).
			if tab := ws.cache[nd.d]; tab != nil && lim-nd.f > tab[nd.key] {
				tab[nd.key] = lim - nd.f
			}
			continue
		}
		if !(nd.f < lim) {
			continue
		}
		x[nd.d] = nd.v
		if nd.d == last {
			ub = nd.f
			lim = ub - 1e-9*math.Max(1, math.Abs(ub))
			copy(best, x[:n])
			have = true
			continue
		}
		next := nd.d + 1
		if tab, key := ws.cacheSlot(next); tab != nil {
			if !(nd.f+tab[key] < lim) {
				continue
			}
			stack = append(stack, snode{f: nd.f, d: next, key: key, close: true})
		}
		d0, d1 := ws.delta(next)
		push(next, nd.f, d0, d1)
	}
	lb = ub
	if interrupted {
		if warmFn != nil && applyWarm() {
			interrupted = false
		}
	}
	if interrupted {
		for _, nd := range stack {
			if !nd.close {
				lb = math.Min(lb, nd.f)
			}
		}
		lb = math.Min(math.Max(lb, extra), ub)
		if !have {
			for d := int32(0); d < int32(n); d++ {
				d0, d1 := ws.delta(d)
				x[d] = d1 < d0
			}
			copy(best, x[:n])
		}
	}
	ws.stack = stack[:0]
	return ub, lb, !interrupted, nodes
}
