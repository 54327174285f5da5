// Package exact computes exact MPE (MAP) assignments of ground Markov
// networks.
//
// The network is first simplified: hard unit clauses are propagated, the
// clauses they decide are dropped and soft unit clauses become linear terms.
// What is left splits into independent components, which are solved in
// parallel. A component whose induced width (under a min-fill or
// min-degree elimination order) is at most Options.MaxWidth is solved by
// max-sum bucket elimination (variable elimination) with argmax traceback;
// any other component by depth-first branch and bound over the reverse
// elimination order, with lower bounds from mini-bucket elimination
// (i-bound Options.IBound) and caching of proved lower bounds per context.
// Both are exact for real, negative and infinite (hard) weights.
//
// The search starts warm: MaxWalkSAT (seeded with Options.Seed, a step
// budget proportional to the component's atoms) gives its first incumbent,
// so that it prunes from the start and, when it cannot finish, returns an
// assignment at least as good as the walk's; the LP relaxation (package
// lp) gives a lower bound, which proves the incumbent optimal when it
// meets its cost, and otherwise joins the search's bound in
// Result.Bound, and a rounded assignment, kept when it costs less. The
// warm start is taken first on a component of 65,536 literals or more,
// and otherwise only when the search has not finished after a number of
// nodes proportional to the component's atoms (or has used a quarter of
// the time left), so that components the search solves at once never pay
// for it. Result.Optimal is set only when the search finished or the LP
// bound met the cost.
//
// With Method Auto and the warm start on, a network where all atoms false
// leaves every clause and linear term in its preferred state gets that
// assignment at once, and a component of 1,024 literals or more is solved
// by a portfolio instead (portfolio.go), cheapest first: each atom at the
// value its linear term prefers, the LP relaxation with ROUNDUP, a
// MaxWalkSAT descent and walk, variable elimination when cheap and a
// bounded branch and bound, stopping once an assignment's cost meets a
// lower bound, or comes within half the weights' decimal quantum of it.
//
// When the hard clauses of a component cannot all be satisfied, the
// component is solved again with every hard clause turned into a soft
// clause whose weight exceeds the total of the soft weights, so that the
// assignment returned violates as few hard clauses as possible (and, among
// those, has the least soft cost). Such a result is never Optimal and has
// Bound +Inf: no assignment satisfies the hard clauses.
//
// Under a time limit (Options.TimeLimit) or a cancelled context, each
// component keeps the best assignment found and a lower bound on its cost;
// Result.Optimal is then false unless every component was still proved
// optimal. The clock is checked every 1,024 search nodes and while the
// bounds are built; a component that reaches the search after the limit
// still gets a short greedy MaxWalkSAT descent (a few steps per atom).
package exact

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// Method selects the algorithm used on each component.
type Method int

const (
	// Auto uses variable elimination when the component's induced width
	// is at most MaxWidth and branch and bound otherwise.
	Auto Method = iota
	// VE forces variable elimination; Solve fails when a component's
	// induced width exceeds MaxWidth. (When the time limit interrupts it,
	// the component gets the search's first assignment instead.)
	VE
	// Search forces branch and bound with mini-bucket bounds of i-bound
	// IBound on every component.
	Search
)

// String returns the method's name.
func (m Method) String() string {
	switch m {
	case Auto:
		return "auto"
	case VE:
		return "ve"
	case Search:
		return "search"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Order selects the elimination-order heuristic.
type Order int

const (
	// MinFill eliminates next the variable whose elimination adds the
	// fewest fill edges (ties: fewest neighbours).
	MinFill Order = iota
	// MinDegree eliminates next the variable with the fewest neighbours.
	MinDegree
)

// Default and limit values of the options.
const (
	DefaultMaxWidth = 20
	// MaxMaxWidth caps MaxWidth: a bucket table has 2^(width+1) entries.
	MaxMaxWidth = 25
)

// Options are the settings of Solve.
type Options struct {
	infer.Options
	// MaxWidth is the largest induced width solved by variable
	// elimination (default DefaultMaxWidth, at most MaxMaxWidth).
	MaxWidth int
	// IBound is the i-bound of the mini-bucket lower bounds used by the
	// search: mini-bucket tables have at most IBound+1 variables. The
	// default (0) is MaxWidth; either way it is lowered while the tables
	// of a component would exceed 2^24 entries.
	IBound int
	// TimeLimit bounds the run time (0: none). When it expires, Solve
	// returns the best assignment found with its lower bound.
	TimeLimit time.Duration
	// Workers is the number of components solved in parallel (default
	// GOMAXPROCS).
	Workers int
	// Method selects the algorithm (default Auto).
	Method Method
	// Order selects the elimination-order heuristic (default MinFill).
	Order Order
	// NoWarmStart turns off the warm start of the search: by default,
	// before the branch and bound of a component, MaxWalkSAT (seeded
	// with Seed, a step budget proportional to the component's atoms)
	// and the LP relaxation with ROUNDUP give the search its first
	// incumbent and a lower bound (see the package comment).
	NoWarmStart bool
	// Prove lets the branch and bound of a large component search the
	// gap between its incumbent and its bound until the time limit; by
	// default it stops after as long as the cheap engines took on the
	// component (see portfolio.go), leaving the component unproved.
	Prove bool
}

// ComponentStats describes the solution of one component. Cost and Bound
// are in the component's residual objective, which differs from its share
// of Result.Cost by a constant that does not depend on the assignment.
type ComponentStats struct {
	// First is the smallest atom of the component.
	First int
	// Atoms and Clauses count the component's free atoms and residual
	// clauses of two or more literals.
	Atoms, Clauses int
	// Method is VE or Search.
	Method Method
	// Width is the induced width of the elimination order (a lower
	// estimate when it exceeds the range where fill edges are tracked,
	// or, in Auto's portfolio, when the graph's degeneracy, a lower
	// bound, already rules variable elimination out).
	Width int
	// IBound is the mini-bucket i-bound of the search (0 for VE).
	IBound int
	// Nodes counts search nodes expanded.
	Nodes int64
	// Optimal is set when the component's assignment is proved optimal.
	Optimal bool
	// Infeasible is set when the component's hard clauses cannot all
	// hold; the component was then solved minimising violated hard
	// clauses (proved minimal when HardMinimal is set).
	Infeasible, HardMinimal bool
	// Cost is the residual cost of the assignment, Bound a lower bound on
	// the residual cost of any assignment satisfying the hard clauses.
	Cost, Bound float64
	// Warm is set when the search started from a warm start, of
	// residual cost WarmCost (+Inf when it violates hard clauses); LPBound
	// is the LP relaxation's lower bound on the residual cost (-Inf when
	// the LP did not run).
	Warm              bool
	WarmCost, LPBound float64
	// Elapsed is the time spent on the component.
	Elapsed time.Duration
}

// Stats describes a run of Solve.
type Stats struct {
	// Atoms is the number of atoms of the network; Forced of them were
	// fixed by unit propagation of hard clauses and Singletons were free
	// atoms in no residual clause (set by their linear term alone).
	Atoms, Forced, Singletons int
	// Components lists the components of two or more atoms, ordered by
	// their smallest atom (none, and Forced and Singletons zero, when
	// all atoms false was proved optimal before the network was
	// simplified: see SolveStats).
	Components []ComponentStats
	// Width is the largest induced width over the components.
	Width int
	// Bound is the lower bound computed from the components: the
	// constant part of the cost plus the sum of their bounds (+Inf when
	// the hard clauses are unsatisfiable). When every component is proved
	// optimal it equals Result.Cost up to rounding.
	Bound float64
	// TimedOut is set when the time limit expired or the context was
	// cancelled before every component was proved optimal.
	TimedOut bool
	// Infeasible is set when no assignment satisfies the hard clauses;
	// the assignment returned then minimises the number of violated hard
	// clauses, proved so when HardMinimal is set.
	Infeasible, HardMinimal bool
	// Elapsed is the wall time of the run.
	Elapsed time.Duration
}

// Engine is exact MPE as an infer.MAP: Solve runs Solve with Options,
// whose infer.Options part each call replaces.
type Engine struct {
	Options Options
}

// Name returns "exact".
func (Engine) Name() string { return "exact" }

// Solve computes an MPE assignment of net with the engine's options and
// the call's bias and seed (see SolveStats).
func (e Engine) Solve(ctx context.Context, net *ground.Network, opt infer.Options) (*infer.Result, error) {
	o := e.Options
	o.Options = opt
	return Solve(ctx, net, o)
}

// Solve computes an MPE assignment of net: one minimising
// infer.BiasedCost(net, opt.Bias, ·) subject to the hard clauses. See
// SolveStats.
func Solve(ctx context.Context, net *ground.Network, opt Options) (*infer.Result, error) {
	res, _, err := SolveStats(ctx, net, opt)
	return res, err
}

// SolveStats is Solve that also returns statistics per component.
//
// Result.Cost and HardViolated are those infer.BiasedCost gives for the
// assignment. Result.Optimal is set when every component was proved
// optimal, and Result.Bound is then equal to Cost; otherwise Bound is the
// sum of the components' lower bounds (+Inf when the hard clauses are
// unsatisfiable). When the time limit expires the result is returned with
// a nil error; when ctx is cancelled it is returned with ctx.Err().
//
// With Method Auto and the warm start on, a network where all atoms false
// leaves every clause and linear term in its preferred state (the first
// state of MaxWalkSAT, and every term at its least) gets that assignment,
// proved optimal, before any simplification.
func SolveStats(ctx context.Context, net *ground.Network, opt Options) (*infer.Result, *Stats, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if err := validate(net, &opt); err != nil {
		return nil, nil, err
	}

	if opt.Method == Auto && !opt.NoWarmStart && allFalsePreferred(net, opt.Bias) {
		// The portfolio's cheapest incumbent (all atoms false, where
		// MaxWalkSAT starts) meets its cheapest bound (every term at its
		// least): it is optimal, without simplifying the network.
		assign := make([]bool, net.NumAtoms())
		res := &infer.Result{Assign: assign, Optimal: true}
		res.Cost, res.HardViolated = infer.BiasedCost(net, opt.Bias, assign)
		res.Bound = res.Cost
		return res, &Stats{Atoms: net.NumAtoms(), Bound: res.Cost, Elapsed: time.Since(start)}, nil
	}

	var stop atomic.Bool
	tctx := ctx
	cancel := func() {}
	if opt.TimeLimit > 0 {
		tctx, cancel = context.WithTimeout(ctx, opt.TimeLimit)
	}
	defer cancel()
	done := make(chan struct{})
	var watcher sync.WaitGroup
	if tctx.Done() != nil {
		watcher.Add(1)
		go func() {
			defer watcher.Done()
			select {
			case <-tctx.Done():
				stop.Store(true)
			case <-done:
			}
		}()
	}
	defer func() {
		close(done)
		watcher.Wait()
	}()

	var cancelled atomic.Bool
	defer context.AfterFunc(ctx, func() { cancelled.Store(true) })()

	pr := prepare(ctx, net, opt.Bias, opt.Workers)
	if pr == nil {
		return nil, nil, ctx.Err()
	}
	st := &Stats{Atoms: net.NumAtoms(), Forced: pr.forced, Singletons: pr.singletons}
	assign := pr.assign

	// Round 1: the components left by unit propagation, and the
	// components where propagation met a conflict (solved minimising
	// violated hard clauses).
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	tasks := pr.components()
	tasks = append(tasks, pr.relaxed(pr.conflictRoots())...)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	deadline, _ := tctx.Deadline()
	outs, err := run(tctx, deadline, tasks, &opt, &stop, &cancelled, assign)
	if err != nil {
		return nil, nil, err
	}
	// Round 2: components found infeasible in round 1.
	var again []int32
	seen := map[int32]bool{}
	for i, t := range tasks {
		if !t.relaxed && outs[i].infeasible && !seen[t.orig] {
			seen[t.orig] = true
			again = append(again, t.orig)
		}
	}
	if len(again) > 0 {
		t2 := pr.relaxed(again)
		o2, err := run(tctx, deadline, t2, &opt, &stop, &cancelled, assign)
		if err != nil {
			return nil, nil, err
		}
		keepT, keepO := tasks[:0:0], outs[:0:0]
		for i, t := range tasks {
			if !seen[t.orig] {
				keepT, keepO = append(keepT, t), append(keepO, outs[i])
			}
		}
		tasks, outs = append(keepT, t2...), append(keepO, o2...)
	}

	// Merge deterministically.
	optimal := true
	infeasible := pr.hardEmpty > 0
	hardMinimal := true
	bound := pr.constant
	for i, t := range tasks {
		o := &outs[i]
		cs := o.stats
		cs.First = int(t.atoms[0])
		cs.Atoms = len(t.atoms)
		cs.Clauses = len(t.w)
		st.Components = append(st.Components, cs)
		if cs.Width > st.Width {
			st.Width = cs.Width
		}
		if t.relaxed {
			infeasible = true
			if !cs.HardMinimal {
				hardMinimal = false
			}
			continue
		}
		if !cs.Optimal {
			optimal = false
		}
		bound += cs.Bound
	}
	sortStats(st.Components)
	if stop.Load() && (!optimal || infeasible && !hardMinimal) {
		st.TimedOut = true
	}
	res := &infer.Result{Assign: assign}
	res.Cost, res.HardViolated = infer.BiasedCost(net, opt.Bias, assign)
	st.Bound = bound
	switch {
	case infeasible:
		st.Bound = math.Inf(1)
		st.Infeasible = true
		st.HardMinimal = hardMinimal
		res.Bound = math.Inf(1)
	case optimal:
		res.Optimal = true
		res.Bound = res.Cost
	default:
		res.Bound = math.Min(bound, res.Cost)
	}
	st.Elapsed = time.Since(start)
	if err := ctx.Err(); err != nil {
		return res, st, err
	}
	return res, st, nil
}

// allFalsePreferred reports whether the assignment of every atom to false
// leaves each clause and linear term in its preferred state (a clause of
// positive weight, hard ones included, satisfied, one of negative weight
// false, a term of bias b ≤ 0 off): its cost is then the least possible.
func allFalsePreferred(net *ground.Network, bias []float64) bool {
	for _, b := range bias {
		if b > 0 {
			return false
		}
	}
	for c := 0; c < net.NumClauses(); c++ {
		w := net.Weight(c)
		if w == 0 {
			continue
		}
		sat := false
		for _, l := range net.Clause(c) {
			if l.Neg() {
				sat = true
				break
			}
		}
		if sat != (w > 0) {
			return false
		}
	}
	return true
}

func validate(net *ground.Network, opt *Options) error {
	if net == nil {
		return errors.New("exact: nil network")
	}
	if opt.Bias != nil && len(opt.Bias) != net.NumAtoms() {
		return fmt.Errorf("exact: bias has %d entries for %d atoms", len(opt.Bias), net.NumAtoms())
	}
	if err := infer.CheckWeights(net, opt.Bias); err != nil {
		return fmt.Errorf("exact: %w", err)
	}
	for c := 0; c < net.NumClauses(); c++ {
		for _, l := range net.Clause(c) {
			if a := l.Atom(); a < 0 || int(a) >= net.NumAtoms() {
				return fmt.Errorf("exact: literal of unknown atom %d", a)
			}
		}
	}
	if opt.MaxWidth <= 0 {
		opt.MaxWidth = DefaultMaxWidth
	}
	if opt.MaxWidth > MaxMaxWidth {
		opt.MaxWidth = MaxMaxWidth
	}
	if opt.IBound <= 0 {
		opt.IBound = opt.MaxWidth
	}
	if opt.IBound > MaxMaxWidth {
		opt.IBound = MaxMaxWidth
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	switch opt.Method {
	case Auto, VE, Search:
	default:
		return fmt.Errorf("exact: unknown method %d", int(opt.Method))
	}
	switch opt.Order {
	case MinFill, MinDegree:
	default:
		return fmt.Errorf("exact: unknown order %d", int(opt.Order))
	}
	return nil
}

func sortStats(cs []ComponentStats) {
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].First < cs[j].First })
}

func sortBySize(idx []int, tasks []*problem) {
	size := func(t *problem) int { return len(t.atoms) + len(t.lits) }
	sort.SliceStable(idx, func(i, j int) bool { return size(tasks[idx[i]]) > size(tasks[idx[j]]) })
}

// run solves tasks on opt.Workers goroutines, writing each task's
// assignment into assign. The warm starts run under ctx, within deadline
// (zero: none); stop is raised when ctx is done, cancelled only when the
// caller's context is.
func run(ctx context.Context, deadline time.Time, tasks []*problem, opt *Options, stop, cancelled *atomic.Bool, assign []bool) ([]outcome, error) {
	outs := make([]outcome, len(tasks))
	if len(tasks) == 0 {
		return outs, nil
	}
	// Largest first, for load balance.
	idx := make([]int, len(tasks))
	for i := range idx {
		idx[i] = i
	}
	sortBySize(idx, tasks)
	workers := opt.Workers
	if workers > len(tasks) {
		workers = len(tasks)
	}
	var next atomic.Int64
	errs := make([]error, len(tasks))
	work := func(w int) {
		ws := newWorkspace()
		ws.cancelled = cancelled
		for {
			k := int(next.Add(1)) - 1
			if k >= len(idx) {
				return
			}
			i := idx[k]
			errs[i] = ws.solve(ctx, tasks[i], opt, stop, deadline, assign, &outs[i])
		}
	}
	if workers == 1 {
		work(0)
	} else {
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				work(w)
			}(w)
		}
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return outs, nil
}
