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
// atom), and an empty hard clause is dropped (no assignment meets it; the
// bound stays valid). When every clause has at most two literals the LP
// has a half-integral optimum (y ∈ {0, ½, 1}).
//
// # The solver
//
// The LP is solved by consensus ADMM as in PSL (Bach et al. 2017): every
// clause keeps a local copy of its atoms and takes a closed-form proximal
// step on its hinge (a projection for hard clauses), then every atom
// averages its copies and clips to its box; the penalty ρ is adapted by
// residual balancing early on. Clauses and atoms are processed in fixed
// blocks spread over Options.Workers goroutines; reductions are summed
// per block in order, so the result does not depend on the worker count.
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
// The solver stops (Converged) when the consensus point z violates no hard
// clause by more than Tol (in literal-sum units) and its LP cost F(z) is
// within a relative gap of the bound: F(z) − D ≤ Tol·max(1, |D|). Then the
// LP optimum lies in [D, D + Tol·max(1,|D|)] up to that small violation.
//
// # Rounding
//
// ROUNDUP (Boros & Hammer 2002) fixes one fractional atom at a time. The
// LP objective with z at its best value given y is concave in each y_a
// (score terms), so rounding one coordinate of it can lose; the rounded
// function here is instead the multilinear extension (the expected cost
// when every atom is true with probability y_a independently, with the
// expected number of violated hard clauses compared first), which is
// linear in each y_a, so each step never makes it worse (the method of
// conditional expectations). Atoms closest to integral are rounded first.
// A greedy single-flip local search (hard violations first, then cost)
// follows unless Options.NoLocalSearch is set.
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
	// Tol is the relative duality gap (and hard-clause violation) at which
	// the LP solver stops; 0 means 1e-3.
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
}

// Stats describes an LP solve.
type Stats struct {
	// LPValue is the bound in score units: no assignment that satisfies
	// the hard clauses has net.Score plus bias above it.
	LPValue float64
	// LPBound is the bound in cost units (= infer.Result.Bound).
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
	// 1e-3 of 0 or 1.
	FracIntegral float64
	// Y is the fractional LP solution (the ADMM consensus point).
	Y []float64
	// Iterations is the number of ADMM iterations, Flips the number of
	// local-search flips.
	Iterations int
	Flips      int
	// Converged reports that the tolerance was met.
	Converged bool
	// Rho is the final ADMM penalty.
	Rho float64
}

// checkEvery is the number of iterations between convergence checks.
const checkEvery = 10

// Solve relaxes the MAP problem of net (with the linear terms of
// opt.Bias) to an LP, solves it to tolerance opt.Tol and rounds the
// solution. Result.Bound is a valid lower bound on the biased cost of any
// assignment satisfying the hard clauses; Result.Optimal is set when the
// rounded assignment satisfies the hard clauses and its cost meets the
// bound up to 1e-9 relative. It returns ctx.Err() if ctx is cancelled.
func Solve(ctx context.Context, net *ground.Network, opt Options) (*infer.Result, *Stats, error) {
	n := net.NumAtoms()
	if opt.Bias != nil && len(opt.Bias) != n {
		return nil, nil, fmt.Errorf("lp: bias has %d entries for %d atoms", len(opt.Bias), n)
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
	p := newProblem(net, opt.Bias)
	s := newADMM(p, opt.Workers)
	st := &Stats{LPBound: math.Inf(-1)}
	adaptUntil := maxIter / 2
	var res residuals
	for it := 1; it <= maxIter; it++ {
		res = s.iterate()
		st.Iterations = it
		if it%checkEvery != 0 && it != 1 && it != maxIter {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		f, hv, hv2, d := s.check()
		if d > st.LPBound {
			st.LPBound = d
		}
		st.PrimalCost, st.HardViolation = f, hv
		if dbgCheck != nil {
			dbgCheck(it, f, hv, d)
		}
		if hv2 <= tol*(1+math.Sqrt(float64(p.nHard))) && f-st.LPBound <= tol*math.Max(1, math.Abs(st.LPBound)) {
			st.Converged = true
			break
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			break
		}
		if dbgAdapt && it < adaptUntil && it > 1 {
			s.adapt(res)
		}
	}
	st.Rho = s.rho
	if math.IsNaN(st.LPBound) {
		return nil, nil, errors.New("lp: numerical failure (NaN bound)")
	}
	st.LPValue = p.scoreOffset - st.LPBound
	st.Y = append([]float64(nil), s.z...)
	integral := 0
	for _, v := range s.z {
		if math.Min(v, 1-v) <= 1e-3 {
			integral++
		}
	}
	if n > 0 {
		st.FracIntegral = float64(integral) / float64(n)
	} else {
		st.FracIntegral = 1
	}

	y := s.z // rounded in place
	roundup(p, y)
	assign := make([]bool, n)
	for a, v := range y {
		assign[a] = v == 1
	}
	st.RoundupCost, _ = infer.BiasedCost(net, opt.Bias, assign)
	if !opt.NoLocalSearch {
		st.Flips = localSearch(p, y)
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
	r.Optimal = hard == 0 && cost-st.LPBound <= 1e-9*math.Max(1, math.Abs(cost))
	return r, st, nil
}

// adapt balances the relative primal and dual residuals by scaling ρ.
var dbgCheck func(it int, f, hv, d float64)
var dbgTrace func(rp, rd, rho float64)
var dbgMu = 10.0

func (s *admm) adapt(res residuals) {
	mu, tau := dbgMu, 2.0
	rp := math.Sqrt(res.r2) / math.Max(math.Sqrt(res.xn2), 1e-12)
	rd := math.Sqrt(res.d2) / math.Max(math.Sqrt(res.an2), 1e-12)
	if dbgTrace != nil {
		dbgTrace(rp, rd, s.rho)
	}
	switch {
	case rp > mu*rd:
		s.setRho(s.rho * tau)
	case rd > mu*rp:
		s.setRho(s.rho / tau)
	}
}
