// Package lp computes MAP (MPE) states of a ground network by linear
// programming relaxation and rounding, after Huynh & Mooney (2009).
//
// # The relaxation
//
// Each unknown atom a gets a variable y_a and each ground clause j with two
// or more literals a variable z_j. With u(l) = y_a for a positive literal
// and 1 − y_a for a negated one, a positive-weight clause gives
// Σ_l u(l) ≥ z_j, a negative-weight clause gives 1 − u(l) ≥ z_j for each of
// its literals, a hard clause gives Σ_l u(l) ≥ 1, and the objective is
// max Σ_j |w_j| z_j plus the unit clauses and the bias (infer.Options.Bias)
// as linear terms in y; the box 0 ≤ y, z ≤ 1 replaces integrality.
// Eliminating z gives the equivalent cost form solved here:
//
//	minimise  K + Σ_a c_a y_a + Σ_{w_j>0} w_j·max(0, 1 − Σ_l u(l))
//	                          + Σ_{w_j<0} |w_j|·max_l u(l)
//	subject to Σ_l u(l) ≥ 1 for hard clauses, 0 ≤ y ≤ 1,
//
// whose value at a 0/1 point is exactly infer.BiasedCost. Before solving,
// repeated literals are merged, tautologies and empty clauses become
// constants, unit clauses become linear terms (hard unit clauses fix the
// atom), and an empty hard clause or a pair of contradictory hard unit
// clauses is dropped (no assignment meets them: Stats.Infeasible; the bound
// stays valid). When every clause has at most two literals the LP
// has a half-integral optimum (y ∈ {0, ½, 1}).
//
// # The solver
//
// The LP is solved by consensus ADMM as in PSL (Bach et al. 2017): every
// clause keeps a local copy of its atoms and takes a closed-form proximal
// step on its hinge (a projection for hard clauses), then every atom
// averages its copies and clips to its box (over-relaxation 1.3, penalty
// ρ = the mean absolute soft weight; residual balancing was tried and
// made things worse). Clauses and atoms are processed in fixed blocks
// spread over Options.Workers goroutines; reductions are summed per block
// in order, so the result does not depend on the worker count.
//
// # The bound and the tolerance
//
// The reported LP value is never read off the primal iterate. At every
// check the ADMM multipliers λ give the Lagrangian dual function of the
// consensus problem with every local copy restricted to [0,1],
//
//	D(λ) = K + Σ_j min_{x∈[0,1]^k} (φ_j(x) + λ_j·x) + Σ_a min_{y_a∈box} (c_a − Σ_j λ_{j,a}) y_a,
//
// whose small inner minimisations have closed forms. By weak duality D(λ)
// is a lower bound on the LP optimum, hence on the cost of every assignment
// that satisfies the hard clauses, for any λ and at any iteration (up to
// floating-point rounding); the best D seen is kept. Stats.LPBound and
// infer.Result.Bound are this bound; Stats.LPValue is the same bound in
// score units (an upper bound on net.Score plus the bias of any
// assignment satisfying the hard clauses).
//
// The solver stops (Converged) when, at the consensus point z, the hard
// clauses' violations max(0, 1 − Σ_l u(l)) have Euclidean norm at most
// Tol·(1 + √(number of hard clauses)) (PDLP's relative primal residual)
// and the LP cost F(z) is within a relative gap of the bound:
// F(z) − D ≤ Tol·max(1, |D|). The LP optimum then lies in
// [D, D + Tol·max(1,|D|)] up to that small violation; D itself is valid
// whether or not the solver converged.
//
// # Rounding
//
// First, every connected component of fractional atoms (atoms strictly
// between 0 and 1, connected through shared clauses) of at most
// Options.ExactComponent atoms is solved exactly given the integral atoms
// around it, by enumeration. The rest goes to ROUNDUP (Boros & Hammer
// 2002, as Huynh & Mooney adapt it), which fixes one fractional atom at a
// time. Note that the LP objective with z at its best value given y is
// concave in each y_a (score terms), so rounding a coordinate of it can
// lose; ROUNDUP here instead rounds the multilinear extension of the soft
// cost (its expectation when each atom is true with probability y_a
// independently), which is linear in each y_a: fixing an atom to the
// better of 0 and 1 never raises it (the method of conditional
// expectations). The atom fixed next is the one whose choice matters most
// (largest |slope|). Hard clauses are kept by unit propagation rather than
// expectation. A greedy single-flip local search (fewer violated hard
// clauses first, then lower cost) follows unless Options.NoLocalSearch is
// set. Atoms the LP leaves integral (within 1e-3) keep their value until
// the local search. The solver is deterministic; Options.Seed is unused.
package lp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// Options are the settings of Solve.
type Options struct {
	infer.Options
	// Tol is the tolerance at which the LP solver stops: relative duality
	// gap and relative hard-clause residual (see the package comment);
	// 0 means 1e-3.
	Tol float64
	// MaxIter caps the ADMM iterations; 0 means 20000.
	MaxIter int
	// Workers is the number of goroutines; 0 means GOMAXPROCS. Small
	// networks use one.
	Workers int
	// TimeLimit stops the LP solver after this long (0: none); the result
	// is then rounded from the current point and the bound stays valid.
	TimeLimit time.Duration
	// NoLocalSearch skips the single-flip local search after ROUNDUP.
	NoLocalSearch bool
	// ExactComponent is the size (in atoms) up to which a connected
	// component of fractional atoms is solved exactly by enumeration,
	// given the integral atoms around it, before ROUNDUP handles the
	// rest; 0 means 16, negative disables. Components are never
	// enumerated beyond 24 atoms or 2^24 clause visits.
	ExactComponent int
}

// Stats describes an LP solve.
type Stats struct {
	// LPValue is the bound in score units: no assignment that satisfies
	// the hard clauses has net.Score plus bias above it.
	LPValue float64
	// LPBound is the bound in cost units (= infer.Result.Bound unless
	// Infeasible).
	LPBound float64
	// PrimalCost is the LP objective (cost units) at the final fractional
	// point, which violates hard clauses by at most HardViolation.
	PrimalCost    float64
	HardViolation float64
	// RoundupCost is the biased cost of the ROUNDUP assignment before
	// local search; RoundedCost that of the final assignment
	// (= infer.Result.Cost).
	RoundupCost float64
	RoundedCost float64
	// FracIntegral is the fraction of atoms whose LP value is within
	// 1e-3 of 0 or 1; rounding treats those as integral.
	FracIntegral float64
	// Y is the fractional LP solution (the ADMM consensus point).
	Y []float64
	// Iterations is the number of ADMM iterations, Flips the number of
	// local-search flips, ExactAtoms the number of fractional atoms set by
	// exact enumeration of their component.
	Iterations int
	Flips      int
	ExactAtoms int
	// Converged reports that the tolerance was met.
	Converged bool
	// Infeasible reports a proof that no assignment satisfies the hard
	// clauses: the network has an empty or two contradictory hard unit
	// clauses, or the bound exceeded the largest cost any assignment can
	// have (the LP is infeasible). infer.Result.Bound is then +Inf.
	Infeasible bool
}

// Engine is the LP relaxation with ROUNDUP as an infer.MAP: Solve runs
// Solve with Options, whose infer.Options part each call replaces, and
// passes the statistics of each successful solve to Stats when it is set.
type Engine struct {
	Options Options
	// Stats, when not nil, receives the statistics of every successful
	// solve (called from the goroutine that called Solve).
	Stats func(*Stats)
}

// Name returns "lp".
func (Engine) Name() string { return "lp" }

// Solve solves net with the engine's options and the call's bias (see the
// package function Solve).
func (e Engine) Solve(ctx context.Context, net *ground.Network, opt infer.Options) (*infer.Result, error) {
	o := e.Options
	o.Options = opt
	res, st, err := Solve(ctx, net, o)
	if err == nil && e.Stats != nil {
		e.Stats(st)
	}
	return res, err
}

// checkEvery is the number of iterations between convergence checks.
const checkEvery = 10

// intTol is the distance from 0 or 1 within which an LP value counts as
// integral (and is snapped before rounding).
const intTol = 1e-3

// Solve relaxes the MAP problem of net (with the linear terms of
// opt.Bias) to an LP, solves it to tolerance opt.Tol and rounds the
// solution. Result.Bound is a valid lower bound on the biased cost of any
// assignment satisfying the hard clauses (+Inf when Stats.Infeasible
// proves there is none); Result.Optimal is set when the
// rounded assignment satisfies the hard clauses and its cost meets the
// bound up to 1e-9 relative. It returns ctx.Err() if ctx is cancelled.
func Solve(ctx context.Context, net *ground.Network, opt Options) (*infer.Result, *Stats, error) {
	n := net.NumAtoms()
	if opt.Bias != nil && len(opt.Bias) != n {
		return nil, nil, fmt.Errorf("lp: bias has %d entries for %d atoms", len(opt.Bias), n)
	}
	if err := infer.CheckWeights(net, opt.Bias); err != nil {
		return nil, nil, fmt.Errorf("lp: %w", err)
	}
	tol := opt.Tol
	if tol <= 0 {
		tol = 1e-3
	}
	maxIter := opt.MaxIter
	if maxIter <= 0 {
		maxIter = 20000
	}
	var deadline time.Time
	if opt.TimeLimit > 0 {
		deadline = time.Now().Add(opt.TimeLimit)
	}
	p, err := newProblemCtx(ctx, net, opt.Bias)
	if err != nil {
		return nil, nil, err
	}
	s := newADMM(p, opt.Workers)
	st := &Stats{LPBound: math.Inf(-1), Infeasible: p.droppedHard > 0}
	ub := p.maxCost()
	ub += 1e-9 * math.Max(1, math.Abs(ub))
	for it := 1; it <= maxIter; it++ {
		s.iterate()
		st.Iterations = it
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if it%checkEvery != 0 && it != 1 && it != maxIter {
			continue
		}
		f, hv, hv2, d := s.check()
		if d > st.LPBound {
			st.LPBound = d
		}
		st.PrimalCost, st.HardViolation = f, hv
		if st.LPBound > ub {
			// No assignment costs more than ub: the LP (and every
			// assignment) violates the hard clauses.
			st.Infeasible = true
			break
		}
		if hv2 <= tol*(1+math.Sqrt(float64(p.nHard))) && f-st.LPBound <= tol*math.Max(1, math.Abs(st.LPBound)) {
			st.Converged = true
			break
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			break
		}
	}
	if math.IsNaN(st.LPBound) {
		return nil, nil, errors.New("lp: numerical failure (NaN bound)")
	}
	st.LPValue = p.scoreOffset - st.LPBound
	st.Y = append([]float64(nil), s.z...)
	integral := 0
	for a, v := range s.z {
		if math.Min(v, 1-v) <= intTol {
			integral++
			s.z[a] = math.Round(v) // snapped for rounding; st.Y keeps v
		}
	}
	if n > 0 {
		st.FracIntegral = float64(integral) / float64(n)
	} else {
		st.FracIntegral = 1
	}

	y := s.z // rounded in place
	ec := opt.ExactComponent
	if ec == 0 {
		ec = 16
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	st.ExactAtoms = completeSmall(p, y, ec)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if err := roundup(ctx, p, y); err != nil {
		return nil, nil, err
	}
	assign := make([]bool, n)
	for a, v := range y {
		assign[a] = v == 1
	}
	st.RoundupCost, _ = infer.BiasedCost(net, opt.Bias, assign)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if !opt.NoLocalSearch {
		st.Flips = localSearch(ctx, p, y)
		for a, v := range y {
			assign[a] = v == 1
		}
	}
	cost, hard := infer.BiasedCost(net, opt.Bias, assign)
	st.RoundedCost = cost
	r := &infer.Result{
		Assign:       assign,
		Cost:         cost,
		HardViolated: hard,
		Bound:        st.LPBound,
	}
	if st.Infeasible {
		r.Bound = math.Inf(1)
	}
	r.Optimal = hard == 0 && cost-r.Bound <= 1e-9*math.Max(1, math.Abs(cost))
	return r, st, nil
}

// Memory is what Solve takes on top of the network (ground.Options.Engine),
// fitted to the peak live heap on real groundings (infer/memory_test.go).
var Memory = ground.EngineCost{PerAtom: 80, PerClause: 40, PerLit: 24}
