package exact

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/lp"
	"github.com/marple-mln/marple/infer/mws"
)

// Warm start. Before the branch and bound of a component, MaxWalkSAT (and,
// when there is time, the LP relaxation with ROUNDUP) give an assignment
// whose cost is the search's first upper bound, and the LP a lower bound.
// The search then only looks for strictly better assignments: when it
// finishes, the warm assignment (or the better one found) is proved
// optimal, and when the time limit stops it, the best of them is returned.
const (
	// warmStepsPerAtom is MaxWalkSAT's step budget per atom of the
	// component (its greedy descent needs a few flips per atom; a step
	// costs time proportional to the atom's occurrences, so the walk's
	// time is proportional to the component's literals).
	warmStepsPerAtom = 200
	// warmMinSteps is the least step budget.
	warmMinSteps = 1000
	// warmShortStepsPerAtom is the step budget per atom of the short
	// greedy descent that runs first under a time limit, and alone once
	// it has expired.
	warmShortStepsPerAtom = 2
	// lpMaxIter caps the iterations of the LP relaxation, and lpTol is its
	// tolerance (tighter than the LP engine's default: the bound matters).
	lpMaxIter = 2000
	lpTol     = 1e-5
)

// warm is the result of a warm start, indexed by local atom.
type warm struct {
	x    []bool
	cost float64 // residual cost (+Inf when hard clauses are violated)
	// bound is a lower bound on the residual cost of any assignment
	// satisfying the hard clauses (-Inf when none).
	bound float64
}

// subNetwork returns the network of problem p over its local atoms: the
// residual clauses, and for the linear terms the soft clauses left with
// one free literal, each a unit clause of its own, and the bias (as
// MaxWalkSAT walks better with the unit clauses apart than summed); for a
// relaxed problem or without withUnits, the linear terms as bias. It also returns the bias and
// the constant K such that the residual cost of any assignment is its
// infer.BiasedCost minus K.
func subNetwork(p *problem, withUnits bool) (*ground.Network, []float64, float64) {
	n := len(p.atoms)
	net := ground.NewNetwork(n)
	for c, w := range p.w {
		net.AddClause(p.lits[p.start[c]:p.start[c+1]], w, -1, -1, 1)
	}
	bias := make([]float64, n)
	if p.pr == nil || !withUnits {
		for v, u := range p.unary {
			bias[v] = -u
		}
	} else {
		ustart, ulits, uw := p.pr.units()
		var unit [1]ground.Lit
		for v, a := range p.atoms {
			for i := ustart[a]; i < ustart[a+1]; i++ {
				unit[0] = ground.MakeLit(int32(v), ulits[i].Neg())
				net.AddClause(unit[:], uw[i], -1, -1, 1)
			}
			if p.pr.bias != nil {
				bias[v] = p.pr.bias[a]
			}
		}
	}
	// Both objectives are sums of the same terms: their difference does
	// not depend on the assignment. Take it at all atoms false, leaving
	// the hard clauses out.
	zero := make([]bool, n)
	bc, _ := infer.BiasedCost(net, bias, zero)
	rc := 0.0
	for c, w := range p.w {
		allPos := true
		for _, l := range p.lits[p.start[c]:p.start[c+1]] {
			if l.Neg() {
				allPos = false
				break
			}
		}
		if allPos && !math.IsInf(w, 1) {
			rc += w
		}
	}
	return net, bias, bc - rc
}

// evalLocal returns the residual cost of y (indexed by local atom).
func evalLocal(p *problem, y []bool) float64 { return residual(p, y, true) }

// evalSoft is evalLocal without the hard clauses.
func evalSoft(p *problem, y []bool) float64 { return residual(p, y, false) }

// residual returns the residual cost of y, the hard clauses included when
// hard is set.
func residual(p *problem, y []bool, hard bool) float64 {
	cost := 0.0
	for v, u := range p.unary {
		if y[v] {
			cost += u
		}
	}
	for c, w := range p.w {
		if !hard && math.IsInf(w, 1) {
			continue
		}
		sat := false
		for _, l := range p.lits[p.start[c]:p.start[c+1]] {
			if l.True(y) {
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

// wholeNetwork reports whether p spans every atom of the network it comes
// from (so that its local atoms are the network's, in order, and none was
// forced): the network itself then relaxes it, without a copy.
func wholeNetwork(p *problem) bool {
	return p.pr != nil && len(p.atoms) == p.pr.n
}

// ownNetwork returns, for p spanning its network (see wholeNetwork), that
// network, its bias and the constant K of subNetwork.
func ownNetwork(p *problem) (*ground.Network, []float64, float64) {
	net, bias := p.pr.net, p.pr.bias
	zero := make([]bool, len(p.atoms))
	c, _ := infer.BiasedCost(net, bias, zero)
	return net, bias, c - evalSoft(p, zero)
}

// trivialBound returns a lower bound on the residual cost of p: every
// negative term at its least.
func trivialBound(p *problem) float64 {
	b := 0.0
	for _, u := range p.unary {
		b += math.Min(u, 0)
	}
	for _, w := range p.w {
		b += math.Min(w, 0)
	}
	return b
}

// walker returns a function that runs MaxWalkSAT on p from init (nil:
// all false) with a step budget and keeps its assignment in w unless it
// costs more (a walk from init never ends worse than init). The network is
// indexed for the walks once, at the first.
func (w *warm) walker(p *problem, seed int64, net *ground.Network, bias []float64) func(ctx context.Context, steps int, init []bool) {
	var wk *mws.Walker
	return func(ctx context.Context, steps int, init []bool) {
		if wk == nil {
			mopt := mws.Options{}
			mopt.Bias, mopt.Seed = bias, seed
			var err error
			if wk, err = mws.NewWalker(ctx, net, mopt); err != nil {
				wk = nil
				return
			}
		}
		if res, _ := wk.Run(ctx, steps, init); res != nil {
			if c := evalLocal(p, res.Assign); w.x == nil || c <= w.cost || math.IsInf(w.cost, 1) {
				w.x, w.cost = res.Assign, c
			}
		}
	}
}

// warmStart computes the warm start of p. MaxWalkSAT runs a step budget
// proportional to the component's atoms; under a time limit (deadline not
// zero) a short greedy descent runs first whatever the time left, and the
// rest of the budget within a quarter of the time left. The LP relaxation
// then runs within a fifth of what is left (its iterations capped), giving
// the lower bound; its rounded assignment replaces the walk's when it
// costs less. Once stop is raised, only the short descent runs.
func warmStart(ctx context.Context, p *problem, opt *Options, stop *atomic.Bool, deadline time.Time) warm {
	n := len(p.atoms)
	w := warm{cost: math.Inf(1), bound: math.Inf(-1)}
	net, bias, _ := subNetwork(p, true)
	walk := w.walker(p, opt.Seed, net, bias)
	full := warmStepsPerAtom*n + warmMinSteps
	short := warmShortStepsPerAtom*n + warmMinSteps
	switch {
	case stop.Load():
		// The time is up: a short descent that ignores it (its work is
		// bounded), so that the component still gets a sensible
		// assignment.
		bctx, cancel := boundedCtx(ctx)
		walk(bctx, short, nil)
		cancel()
		return w
	case deadline.IsZero():
		walk(ctx, full, nil)
	default:
		// The short descent whatever the time left, then the rest of the
		// budget within a quarter of it.
		bctx, cancel := boundedCtx(ctx)
		walk(bctx, short, nil)
		cancel()
		if !stop.Load() && ctx.Err() == nil {
			mctx, cancel := context.WithDeadline(ctx, time.Now().Add(time.Until(deadline)/4))
			walk(mctx, full-short, w.x)
			cancel()
		}
	}
	if stop.Load() || ctx.Err() != nil {
		return w
	}
	lopt := lp.Options{Workers: 1, MaxIter: lpMaxIter, Tol: lpTol}
	if !deadline.IsZero() {
		lopt.TimeLimit = time.Until(deadline) / 5
		if lopt.TimeLimit <= 0 {
			return w
		}
	}
	net, bias, k := subNetwork(p, false)
	w.addLP(ctx, p, lopt, net, bias, k)
	return w
}

// addLP runs the LP relaxation of p with ROUNDUP under lopt, on net and
// bias from subNetwork (k its constant), or with net nil on the network p
// comes from, when p spans all its atoms (see wholeNetwork): the LP's
// bound becomes w's when finite and larger, and its rounded assignment w's
// when it costs less (or w has none). It reports whether the LP gave an
// assignment.
func (w *warm) addLP(ctx context.Context, p *problem, lopt lp.Options, net *ground.Network, bias []float64, k float64) bool {
	if net == nil {
		net, bias, k = ownNetwork(p)
	}
	lopt.Bias = bias
	res, st, err := lp.Solve(ctx, net, lopt)
	if err != nil || res == nil {
		return false
	}
	if !st.Infeasible && !math.IsInf(res.Bound, 0) && !math.IsNaN(res.Bound) {
		w.bound = math.Max(w.bound, res.Bound-k)
	}
	if res.HardViolated == 0 || w.x == nil {
		if c := evalLocal(p, res.Assign); w.x == nil || c < w.cost {
			w.x, w.cost = res.Assign, c
		}
	}
	return true
}

// boundedCtx returns the context of bounded work that must run even after
// the time limit (ctx's deadline) has expired: it is cancelled only when
// ctx is cancelled otherwise (context.Canceled: Ctrl-C, SIGTERM), and by
// the returned function.
func boundedCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	b, cancel := context.WithCancel(context.WithoutCancel(ctx))
	check := func() {
		if errors.Is(ctx.Err(), context.Canceled) {
			cancel()
		}
	}
	check()
	stop := context.AfterFunc(ctx, check)
	return b, func() {
		stop()
		cancel()
	}
}

// warmOptimal reports whether a lower bound proves an assignment of the
// given cost optimal, with the tolerance of the search.
func warmOptimal(cost, bound float64) bool {
	return !math.IsInf(cost, 1) && bound >= cost-1e-9*math.Max(1, math.Abs(cost))
}
