package exact

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/marple-mln/marple/ground"
)

// cheapVE is the number of table entries below which variable elimination
// runs to the end even after the time limit: it is faster than anything
// that could replace it.
const cheapVE = 1 << 22

// searchBudget bounds the table entries the mini-buckets of one search
// keep; beyond it the i-bound is lowered.
const searchBudget = 1 << 24

// arena hands out slices from large chunks, reused across problems.
type arena[T any] struct{ buf []T }

func (a *arena[T]) alloc(n int) []T {
	if n > 4096 {
		return make([]T, n)
	}
	if len(a.buf)+n > cap(a.buf) {
		a.buf = make([]T, 0, 1<<16)
	}
	l := len(a.buf)
	a.buf = a.buf[:l+n]
	return a.buf[l : l+n : l+n]
}

func (a *arena[T]) reset() { a.buf = a.buf[:0] }

// factor is a function in a bucket: a table over vars (bit t of the index
// is the value of vars[t]) or, when lits is set, a clause costing w when all
// its literals are false. Variables are depths.
type factor struct {
	vars []int32
	tab  []float64
	lits []ground.Lit
	w    float64
	next int32 // next factor in the same bucket, -1 at the end
}

// workspace is the scratch memory of one worker.
type workspace struct {
	// ordering
	occStart, occ, fill []int32
	adj                 [][]int32
	adjBuf              []int32
	deg, ver, mark      []int32
	elim                []bool
	heap                []hent
	nb, nb2             []int32
	order, dep          []int32

	// buckets
	dlits   []ground.Lit
	du      []float64
	factors []factor
	head    []int32
	head0   []int32 // head after initBuckets
	nf0     int     // len(factors) after initBuckets
	pos     []int32
	umark   []int32
	ustamp  int32
	U, fs   []int32
	T       []float64
	stride  []int
	cum     []int
	fa      arena[float64]
	ia      arena[int32]
	la      arena[ground.Lit]

	// variable elimination traceback
	chVars [][]int32
	chOff  []int32
	bits   []uint64

	// search
	mbs        []mbucket
	mbLo, mbHi []int32
	groups     []group
	x, best    []bool
	stack      []snode
	// search caching
	ctxLen, ctxOff, ctxVars []int32
	inS                     []bool
	cache                   [][]float64
	cacheUsed, cacheCap     int

	// cancelled is raised when the caller's context is cancelled (not
	// when the time limit expires).
	cancelled *atomic.Bool
}

func newWorkspace() *workspace { return &workspace{} }

// initBuckets relabels the problem's atoms by depth and puts its clauses
// in their buckets.
func (ws *workspace) initBuckets(p *problem) {
	n := len(p.atoms)
	ws.fa.reset()
	ws.ia.reset()
	ws.la.reset()
	if cap(ws.dlits) < len(p.lits) {
		ws.dlits = make([]ground.Lit, 0, len(p.lits))
	}
	ws.dlits = ws.dlits[:0]
	ws.du = growF(ws.du, n)
	for v := 0; v < n; v++ {
		ws.du[ws.dep[v]] = p.unary[v]
	}
	ws.head = grow32(ws.head, n)
	for d := range ws.head {
		ws.head[d] = -1
	}
	ws.pos = grow32(ws.pos, n)
	ws.umark = grow32(ws.umark, n)
	clear(ws.umark)
	ws.ustamp = 0
	if need := len(p.w) + n; cap(ws.factors) < need {
		ws.factors = make([]factor, 0, need)
	}
	ws.factors = ws.factors[:0]
	for c := range p.w {
		s := len(ws.dlits)
		maxd := int32(-1)
		for _, l := range p.lits[p.start[c]:p.start[c+1]] {
			d := ws.dep[l.Atom()]
			ws.dlits = append(ws.dlits, ground.MakeLit(d, l.Neg()))
			maxd = max(maxd, d)
		}
		ws.addFactor(factor{lits: ws.dlits[s:len(ws.dlits):len(ws.dlits)], w: p.w[c]}, maxd)
	}
	ws.x = growBool(ws.x, n)
	ws.best = growBool(ws.best, n)
	ws.head0 = append(ws.head0[:0], ws.head...)
	ws.nf0 = len(ws.factors)
}

// rewindBuckets returns the buckets to their state after initBuckets,
// dropping the factors (and their tables) mbe added.
func (ws *workspace) rewindBuckets() {
	copy(ws.head, ws.head0)
	ws.factors = ws.factors[:ws.nf0]
	ws.fa.reset()
	ws.ia.reset()
	ws.la.reset()
}

func (ws *workspace) addFactor(f factor, bucket int32) {
	f.next = ws.head[bucket]
	ws.head[bucket] = int32(len(ws.factors))
	ws.factors = append(ws.factors, f)
}

// scope collects into ws.U the variables of the given factors, d first,
// setting ws.pos; it returns the largest variable other than d (-1 if
// none).
func (ws *workspace) scope(d int32, fs []int32) int32 {
	ws.ustamp++
	st := ws.ustamp
	U := append(ws.U[:0], d)
	ws.umark[d] = st
	ws.pos[d] = 0
	maxo := int32(-1)
	add := func(v int32) {
		if ws.umark[v] != st {
			ws.umark[v] = st
			ws.pos[v] = int32(len(U))
			U = append(U, v)
			maxo = max(maxo, v)
		}
	}
	for _, fi := range fs {
		f := &ws.factors[fi]
		if f.lits == nil {
			for _, v := range f.vars {
				add(v)
			}
		} else {
			for _, l := range f.lits {
				add(l.Atom())
			}
		}
	}
	ws.U = U
	return maxo
}

// combine sets T (of size 2^len(U)) to u times the value of U[0] plus the
// sum of the factors fs over the scope U; ws.pos must map U[t] to t. It
// gives up (false) when stop is not nil and raised.
func (ws *workspace) combine(U []int32, fs []int32, u float64, T []float64, stop *atomic.Bool) bool {
	size := len(T)
	for i := 0; i < size; i += 2 {
		T[i] = 0
		T[i+1] = u
	}
	k := len(U)
	if cap(ws.stride) < k+1 {
		ws.stride = make([]int, k+1, 2*k+2)
		ws.cum = make([]int, k+1, 2*k+2)
	}
	stride, cum := ws.stride[:k+1], ws.cum[:k+1]
	for i, fi := range fs {
		if stop != nil && i&63 == 63 && stop.Load() {
			return false
		}
		f := &ws.factors[fi]
		if f.lits != nil {
			mask, val := 0, 0
			for _, l := range f.lits {
				b := 1 << ws.pos[l.Atom()]
				mask |= b
				if l.Neg() {
					val |= b
				}
			}
			free := (size - 1) &^ mask
			w := f.w
			for s := free; ; s = (s - 1) & free {
				T[s|val] += w
				if s == 0 {
					break
				}
			}
			continue
		}
		tab := f.tab
		if len(f.vars) == k {
			same := true
			for t, v := range f.vars {
				if U[t] != v {
					same = false
					break
				}
			}
			if same {
				for i, x := range tab {
					T[i] += x
				}
				continue
			}
		}
		clear(stride)
		for j, v := range f.vars {
			stride[ws.pos[v]] = 1 << j
		}
		cum[0] = 0
		for t := 0; t < k; t++ {
			cum[t+1] = cum[t] + stride[t]
		}
		j := 0
		for idx := 0; idx < size; idx++ {
			T[idx] += tab[j]
			t := bits.TrailingZeros(uint(idx + 1))
			j += stride[t] - cum[t]
		}
	}
	return true
}

// solve solves problem p into assign and out.
func (ws *workspace) solve(ctx context.Context, p *problem, opt *Options, stop *atomic.Bool, deadline time.Time, assign []bool, out *outcome) error {
	start := time.Now()
	if opt.Method == Auto && !opt.NoWarmStart && !p.relaxed && len(p.lits) >= portfolioMinLits {
		ws.portfolio(ctx, p, opt, stop, deadline, assign, out)
		out.stats.Elapsed = time.Since(start)
		return nil
	}
	n := len(p.atoms)
	width, veCost := ws.orderVars(p, opt.Order, opt.MaxWidth)
	cs := &out.stats
	cs.Width = width
	useVE := false
	switch opt.Method {
	case VE:
		if width > opt.MaxWidth {
			return fmt.Errorf("exact: component of atom %d has induced width %d > MaxWidth %d", p.atoms[0], width, opt.MaxWidth)
		}
		useVE = true
	case Auto:
		useVE = width <= opt.MaxWidth && (veCost <= cheapVE || !stop.Load())
	}
	var x []bool
	done := false
	if useVE {
		ws.initBuckets(p)
		if v, ok := ws.ve(n, stop, veCost > cheapVE); ok {
			cs.Method, cs.Optimal, cs.Bound = VE, true, v
			x = ws.x
			done = true
		}
	}
	if !done {
		x = ws.searchPath(ctx, p, opt, stop, deadline, width, cs, searchBudget, nil)
	}
	for v, a := range p.atoms {
		assign[a] = x[ws.dep[v]]
	}
	cs.Cost = ws.eval(p, x)
	if math.IsInf(cs.Bound, 1) && cs.Optimal && !p.relaxed {
		out.infeasible = true
		cs.Optimal = false
	}
	if p.relaxed {
		cs.Infeasible = true
		cs.HardMinimal = cs.Optimal
	}
	cs.Elapsed = time.Since(start)
	return nil
}

// eval returns the residual cost of x (indexed by depth) for p.
func (ws *workspace) eval(p *problem, x []bool) float64 {
	cost := 0.0
	for v, u := range p.unary {
		if x[ws.dep[v]] {
			cost += u
		}
	}
	for c, w := range p.w {
		sat := false
		for _, l := range p.lits[p.start[c]:p.start[c+1]] {
			if x[ws.dep[l.Atom()]] != l.Neg() {
				sat = true
				break
			}
		}
		if !sat {
			cost += w
		}
	}
	return cost
}

// searchPath solves p by branch and bound, filling cs, with a warm start
// taken first on a large component and otherwise only when the search does
// not finish quickly. Its mini-bucket tables and its cache take at most
// budget entries each. With pre not nil, pre is the warm start, taken at
// once. It returns the assignment, indexed by depth.
func (ws *workspace) searchPath(ctx context.Context, p *problem, opt *Options, stop *atomic.Bool, deadline time.Time, width int, cs *ComponentStats, budget int, pre *warm) []bool {
	n := len(p.atoms)
	cs.Method = Search
	ws.cacheCap = min(budget, cacheBudget)
	var warmFn func() *warm
	probe := warmProbe(n)
	if pre != nil {
		probe = 0
		warmFn = func() *warm { return pre }
	} else if !opt.NoWarmStart {
		var w *warm
		warmFn = func() *warm {
			if w == nil {
				r := warmStart(ctx, p, opt, stop, deadline)
				w = &r
				cs.Warm, cs.WarmCost, cs.LPBound = true, w.cost, w.bound
			}
			return w
		}
		if len(p.lits) >= warmFirstLits {
			probe = 0
			if w := warmFn(); warmOptimal(w.cost, w.bound) {
				return ws.takeWarm(p, w, cs)
			}
		}
	}
	ib := min(opt.IBound, max(width, 1))
	if pre != nil {
		// A small table budget: start near the i-bound it allows, not
		// at the width (every try costs a pass over the clauses).
		ib = min(ib, max(2, bits.Len(uint(budget/max(n, 1)))))
	}
	if stop.Load() {
		ib = min(ib, 8)
	}
	// Building the bounds stops when the time is up: the warm start (or,
	// without one, a short greedy descent) gives the assignment.
	mstop := stop
	aborted := mstop != nil && mstop.Load()
	ws.initBuckets(p)
	for ib > 1 && !aborted {
		if _, ok := ws.mbe(n, int32(ib), budget, true, mstop); ok {
			break
		}
		if mstop != nil && stop.Load() {
			aborted = true
			break
		}
		ib--
		ws.rewindBuckets()
	}
	cs.IBound = ib
	var c float64
	if !aborted {
		ws.rewindBuckets()
		var ok bool
		c, ok = ws.mbe(n, int32(ib), math.MaxInt, false, mstop)
		aborted = !ok
	}
	if aborted && warmFn == nil {
		if ws.cancelled != nil && ws.cancelled.Load() {
			// Cancelled (not timed out): any assignment will do, the
			// caller gets the context's error.
			ws.best = growBool(ws.best, n)
			clear(ws.best[:n])
			cs.Bound = math.Inf(-1)
			return ws.best
		}
		// Timed out: the short greedy descent (stop is raised).
		w := warmStart(ctx, p, opt, stop, deadline)
		return ws.takeWarm(p, &w, cs)
	}
	if aborted {
		return ws.takeWarm(p, warmFn(), cs)
	}
	_, lb, optimal, nodes := ws.search(n, c, stop, deadline, warmFn, probe)
	cs.Nodes, cs.Optimal, cs.Bound = nodes, optimal, lb
	return ws.best
}

// takeWarm makes the warm start the component's answer, its bound the
// best of the LP's and the trivial one.
func (ws *workspace) takeWarm(p *problem, w *warm, cs *ComponentStats) []bool {
	ws.best = growBool(ws.best, len(p.atoms))
	for v, b := range w.x {
		ws.best[ws.dep[v]] = b
	}
	cs.Optimal = warmOptimal(w.cost, w.bound)
	if cs.Optimal {
		cs.Bound = w.cost
	} else {
		cs.Bound = math.Min(math.Max(trivialBound(p), w.bound), w.cost)
	}
	return ws.best
}

// When the warm start is taken: first, on a component of at least
// warmFirstLits literals (it then costs little next to building the
// bounds); otherwise once the search has expanded
// warmProbePerAtom·atoms + warmProbeMin nodes, so that searches that
// finish quickly (most of those the mini-bucket bounds make nearly
// backtrack-free) never pay for it, or, under a time limit, once the search
// has used a quarter of the time left. Variables, for tests.
var (
	warmFirstLits                  = 1 << 16
	warmProbePerAtom, warmProbeMin = int64(200), int64(10000)
)

func warmProbe(n int) int64 { return warmProbePerAtom*int64(n) + warmProbeMin }
