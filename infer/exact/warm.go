package exact

import (
	"context"
	"math"
	"sync/atomic"
	"time"

	"github.com/marple-mln/marple/ground"
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
	warmStepsPerAtom = 100
	// warmMinSteps is the least step budget.
	warmMinSteps = 1000
	// warmLateStepsPerAtom is the step budget per atom after the time
	// limit expired: a short greedy descent.
	warmLateStepsPerAtom = 2
	// lpMaxIter caps the iterations of the LP relaxation.
	lpMaxIter = 2000
)

// warm is the result of a warm start, indexed by local atom.
type warm struct {
	x    []bool
	cost float64 // residual cost (+Inf when hard clauses are violated)
	// bound is a lower bound on the residual cost of any assignment
	// satisfying the hard clauses (-Inf when none).
	bound float64
}

// subNetwork returns the network of problem p (local atoms, residual
// clauses) with the linear terms as bias, and the constant K such that
// the residual cost is infer.BiasedCost minus K.
func subNetwork(p *problem) (*ground.Network, []float64, float64) {
	net := ground.NewNetwork(len(p.atoms))
	net.Lits = make([]ground.Lit, 0, len(p.lits))
	net.Start = make([]int32, 1, len(p.w)+1)
	net.Weight = make([]float64, 0, len(p.w))
	net.Source = make([]int32, 0, len(p.w))
	net.Param = make([]int32, 0, len(p.w))
	net.Coef = make([]float64, 0, len(p.w))
	k := 0.0
	for c, w := range p.w {
		net.AddClause(p.lits[p.start[c]:p.start[c+1]], w, -1, -1, 1)
		if w < 0 {
			k -= w
		}
	}
	bias := make([]float64, len(p.unary))
	for v, u := range p.unary {
		bias[v] = -u
	}
	return net, bias, k
}

// evalLocal returns the residual cost of y (indexed by local atom).
func evalLocal(p *problem, y []bool) float64 {
	cost := 0.0
	for v, u := range p.unary {
		if y[v] {
			cost += u
		}
	}
	for c, w := range p.w {
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

// warmStart computes the warm start of p. MaxWalkSAT runs a step budget
// proportional to the component's atoms, within a quarter of the time
// left before deadline (zero: none); the LP relaxation then runs within a
// fifth of what is left, and its rounded assignment replaces the walk's
// when it costs less. Once stop is raised, only a short greedy walk runs.
func warmStart(ctx context.Context, p *problem, opt *Options, stop *atomic.Bool, deadline time.Time) warm {
	n := len(p.atoms)
	net, bias, k := subNetwork(p)
	late := stop.Load()
	steps := warmStepsPerAtom*n + warmMinSteps
	mctx := ctx
	if late {
		// A short descent that ignores the expired limit, so that the
		// component gets a sensible assignment; its work is bounded.
		steps = warmLateStepsPerAtom*n + warmMinSteps
		mctx = context.WithoutCancel(ctx)
	} else if !deadline.IsZero() {
		var cancel context.CancelFunc
		mctx, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(deadline)/4))
		defer cancel()
	}
	w := warm{cost: math.Inf(1), bound: math.Inf(-1)}
	mopt := mws.Options{MaxSteps: steps}
	mopt.Bias, mopt.Seed = bias, opt.Seed
	if res, _ := mws.Solve(mctx, net, mopt); res != nil {
		w.x = res.Assign
		w.cost = evalLocal(p, w.x)
	}
	if late || stop.Load() || ctx.Err() != nil {
		return w
	}
	lopt := lp.Options{Workers: 1, MaxIter: lpMaxIter}
	lopt.Bias = bias
	if !deadline.IsZero() {
		lopt.TimeLimit = time.Until(deadline) / 5
		if lopt.TimeLimit <= 0 {
			return w
		}
	}
	res, st, err := lp.Solve(ctx, net, lopt)
	if err != nil || res == nil {
		return w
	}
	if !st.Infeasible && !math.IsInf(res.Bound, 0) && !math.IsNaN(res.Bound) {
		w.bound = res.Bound - k
	}
	if res.HardViolated == 0 || w.x == nil {
		if c := evalLocal(p, res.Assign); w.x == nil || c < w.cost {
			w.x, w.cost = res.Assign, c
		}
	}
	return w
}

// warmOptimal reports whether a lower bound proves an assignment of the
// given cost optimal, with the tolerance of the search.
func warmOptimal(cost, bound float64) bool {
	return !math.IsInf(cost, 1) && bound >= cost-1e-9*math.Max(1, math.Abs(cost))
}
