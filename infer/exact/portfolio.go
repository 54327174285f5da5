package exact

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/lp"
)

// Portfolio. A component of at least portfolioMinLits literals (with
// Method Auto and the warm start on) is solved cheapest first, stopping as
// soon as an assignment's cost meets a lower bound, or comes within half
// the cost quantum of the weights when they have one (costQuantum): it is
// then proved optimal. First, on every component, each atom at the value
// its linear term prefers gives an incumbent, and every negative term at
// its least a bound (so that a component whose terms can all be at their
// least costs one pass over its clauses). Then, on a component of fewer
// than portfolioLargeLits literals:
//
//  1. the LP relaxation (the LP engine's settings) with ROUNDUP gives a
//     better bound, and its rounded assignment replaces the incumbent
//     when it costs less; unless that proves it, a short greedy
//     MaxWalkSAT descent from all atoms false (bounded work, run whatever
//     the time limit, and on a larger component too when the LP gave no
//     assignment) replaces it when it costs less;
//  2. when variable elimination over the component's elimination order is
//     cheap (tables of at most portfolioVEPerLit entries per literal), it
//     solves the component exactly; the graph's degeneracy, a lower
//     bound on the width of every order, is tested first, and the
//     min-fill order computed only when it does not rule VE out;
//  3. a MaxWalkSAT walk from the incumbent, within a quarter of the LP's
//     time (portfolioShare; at least portfolioMinSearch);
//  4. branch and bound searches the remaining gap from the incumbent, its
//     mini-bucket tables and cache within portfolioTablePerLit entries per
//     literal, within another quarter of the LP's time, when that is
//     more than its bucket setup should take (portfolioSetupPasses times
//     a pass over the graph, timed in step 2): otherwise it would be
//     stopped before searching.
//
// After the time limit a component gets a short greedy MaxWalkSAT descent
// alone. On a larger component the LP relaxation with ROUNDUP alone gives
// the incumbent and the bound: at that size the walk and the search rarely
// close the gap in the time the LP took, and each would cost as much as the
// LP again. With Options.Prove, or when no incumbent satisfies the hard
// clauses, the branch and bound of step 4 runs on every component until
// the time limit instead, with the tables of the plain search.
//
// So the default engine costs about what the LP engine costs when the gap
// cannot be closed quickly, and returns the best of the assignments found
// with the best of the bounds. Variables, for tests.
var (
	portfolioMinLits     = 1024
	portfolioLargeLits   = 1 << 16
	portfolioVEPerLit    = 8
	portfolioTablePerLit = 1
	portfolioMinTable    = 1 << 16
	portfolioShare       = time.Duration(4)
	portfolioMinSearch   = 10 * time.Millisecond
	portfolioSetupPasses = time.Duration(4)
	portfolioLPTol       = 0.0 // the LP engine's default
)

// portfolio solves p as described above into assign and out.
func (ws *workspace) portfolio(ctx context.Context, p *problem, opt *Options, stop *atomic.Bool, deadline time.Time, assign []bool, out *outcome) {
	n := len(p.atoms)
	large := len(p.lits) >= portfolioLargeLits
	cs := &out.stats
	cs.Method, cs.Warm = Search, true
	w := &warm{cost: math.Inf(1), bound: trivialBound(p)}
	q := costQuantum(p)
	proved := func(cost, bound float64) bool {
		return warmOptimal(cost, bound) || q > 0 && !math.IsInf(cost, 1) && bound > cost-q/2
	}
	finish := func() {
		for v, a := range p.atoms {
			assign[a] = w.x[v]
		}
		cs.Cost, cs.WarmCost, cs.LPBound = w.cost, w.cost, w.bound
		cs.Optimal = proved(w.cost, w.bound)
		if cs.Optimal {
			cs.Bound = w.cost
		} else {
			cs.Bound = math.Min(w.bound, w.cost)
		}
	}
	done := func() bool { return proved(w.cost, w.bound) || stop.Load() || ctx.Err() != nil }
	var net *ground.Network
	var bias []float64
	var k float64
	var walk func(context.Context, int, []bool)
	// Built on first use: a component spanning the whole network is
	// walked and relaxed as is.
	network := func() {
		if net == nil {
			if wholeNetwork(p) {
				net, bias, k = ownNetwork(p)
			} else {
				net, bias, k = subNetwork(p, false)
			}
		}
	}
	walker := func() func(context.Context, int, []bool) {
		if walk == nil {
			network()
			walk = w.walker(p, opt.Seed, net, bias)
		}
		return walk
	}

	cancelled := func() bool { return errors.Is(ctx.Err(), context.Canceled) }
	defer func() {
		if w.x == nil { // cancelled: any assignment will do
			w.x = make([]bool, n)
			w.cost = evalLocal(p, w.x)
			finish()
		}
	}()

	// After the time limit: the short greedy descent alone (bounded
	// work, so that the component gets a sensible assignment).
	if stop.Load() {
		if !cancelled() {
			bctx, cancel := boundedCtx(ctx)
			walker()(bctx, warmShortStepsPerAtom*n+warmMinSteps, nil)
			cancel()
			finish()
		}
		return
	}

	// First, each atom at the value its linear term prefers (false when
	// it has none), against the trivial bound.
	w.x = make([]bool, n)
	for v, u := range p.unary {
		w.x[v] = u < 0
	}
	w.cost = evalLocal(p, w.x)
	if proved(w.cost, w.bound) {
		finish()
		return
	}

	// 1. LP relaxation with ROUNDUP.
	lopt := lp.Options{Workers: opt.Workers, Tol: portfolioLPTol}
	if !deadline.IsZero() {
		lopt.TimeLimit = time.Until(deadline)
	}
	t0 := time.Now()
	lpRan := false
	if lopt.TimeLimit >= 0 && !cancelled() {
		network()
		lpRan = w.addLP(ctx, p, lopt, net, bias, k)
	}
	extra := max(time.Since(t0)/portfolioShare, portfolioMinSearch)
	// Unless proved, a short greedy MaxWalkSAT descent from all atoms
	// false (bounded work, so that the answer is never worse than it,
	// whatever the time limit); on a large component only when the LP
	// gave no assignment (no time was left for it).
	if (!large || !lpRan) && !proved(w.cost, w.bound) && !cancelled() {
		bctx, cancel := boundedCtx(ctx)
		walker()(bctx, warmShortStepsPerAtom*n+warmMinSteps, nil)
		cancel()
	}
	prove := opt.Prove || math.IsInf(w.cost, 1)

	// 2. Cheap variable elimination.
	width := -1
	var pass time.Duration // one pass over the component's graph
	if !done() && !large {
		veMax := float64(max(portfolioMinTable, portfolioVEPerLit*len(p.lits)))
		// A table of 2^(w+1) entries for the widest bucket: when the
		// graph's degeneracy (a lower bound on the width of any order)
		// rules variable elimination out, its order is the search's and
		// the min-fill order is not computed.
		t := time.Now()
		lb, _ := ws.orderVars(p, degeneracy, opt.MaxWidth)
		pass = time.Since(t)
		width = lb
		var veCost float64
		if lb <= opt.MaxWidth && math.Ldexp(1, lb+1) <= veMax {
			width, veCost = ws.orderVars(p, opt.Order, opt.MaxWidth)
		} else {
			veCost = math.Inf(1)
		}
		cs.Width = width
		if width <= opt.MaxWidth && veCost <= veMax {
			ws.initBuckets(p)
			if v, ok := ws.ve(n, stop, true); ok {
				cs.Method, cs.Warm, cs.Optimal, cs.Bound = VE, false, true, v
				for v, a := range p.atoms {
					assign[a] = ws.x[ws.dep[v]]
				}
				cs.Cost = ws.eval(p, ws.x)
				w.x = ws.x // not nil: the deferred fallback is not needed
				return
			}
		}
	}

	// 3. A walk from the incumbent.
	if !done() && !large {
		wctx, cancel := context.WithTimeout(ctx, extra)
		walker()(wctx, warmStepsPerAtom*n, w.x)
		cancel()
	}
	// The search's bucket setup costs a few passes over the graph: when
	// that would take its time share, it would be stopped before
	// searching.
	short := !prove && extra < portfolioSetupPasses*pass
	if done() || large && !prove || short {
		finish()
		return
	}
	net, bias, walk = nil, nil, nil
	if cancelled() {
		return
	}

	// 4. Branch and bound on the remaining gap.
	sctx := ctx
	tables := searchBudget
	if !prove {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, extra)
		defer cancel()
		tables = min(searchBudget, max(portfolioMinTable, portfolioTablePerLit*len(p.lits)))
	}
	var ls atomic.Bool
	ls.Store(stop.Load())
	defer context.AfterFunc(sctx, func() { ls.Store(true) })()
	if width < 0 {
		width, _ = ws.orderVars(p, opt.Order, opt.MaxWidth)
		cs.Width = width
	}
	sdl, _ := sctx.Deadline()
	x := ws.searchPath(sctx, p, opt, &ls, sdl, width, cs, tables, w)
	for v, a := range p.atoms {
		assign[a] = x[ws.dep[v]]
	}
	cs.Cost = ws.eval(p, x)
	cs.WarmCost, cs.LPBound = w.cost, w.bound
	if math.IsInf(cs.Bound, 1) && cs.Optimal {
		out.infeasible = true
		cs.Optimal = false
	}
}

// pow10 holds the powers of ten costQuantum tries.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6}

// costQuantum returns the largest q = 10^-k (k ≤ 6) of which every finite
// weight and linear term of p is an integer multiple, up to the rounding of
// decimal weights, with their absolute values summing to at most 10^9 q;
// 0 when there is none. The residual costs of p's assignments then differ
// by integer multiples of q (far beyond the rounding of their sums), so
// that a lower bound above cost − q/2 proves an assignment of that cost
// optimal: hand-written weights (0.5, 1.2, -0.3) make the LP's bound prove
// what its tolerance alone would leave open.
func costQuantum(p *problem) float64 {
	k, sum := 0, 0.0
	fits := func(v float64) bool {
		if math.IsInf(v, 1) || v == 0 {
			return true
		}
		sum += math.Abs(v)
		for ; k < len(pow10); k++ {
			x := v * pow10[k]
			if math.Abs(x-math.Round(x)) <= 1e-12*math.Max(1, math.Abs(x)) {
				return true // and at every larger k
			}
		}
		return false
	}
	for _, v := range p.w {
		if !fits(v) {
			return 0
		}
	}
	for _, v := range p.unary {
		if !fits(v) {
			return 0
		}
	}
	q := 1 / pow10[k]
	if sum > 1e9*q {
		return 0
	}
	return q
}

// Memory is what Solve takes on top of the network (ground.Options.Engine):
// its own state per atom (about 40 bytes on real groundings), and per
// clause and literal the LP relaxation's, which it runs on large
// components (infer/memory_test.go).
var Memory = ground.EngineCost{PerAtom: 45, PerClause: lp.Memory.PerClause, PerLit: lp.Memory.PerLit}
