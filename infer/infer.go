// Package infer holds what the inference engines share: the MAP and
// Marginal interfaces every engine implements, the result of a MAP (most
// probable explanation) computation and the options every engine accepts
// on each call. The engines live in subpackages, one per engine:
//
//   - exact: the default MAP portfolio (exact MPE, proved optimal when it
//     can be);
//   - lp: the LP relaxation with ROUNDUP;
//   - mws: MaxWalkSAT;
//   - cpi: cutting-plane inference around any MAP engine;
//   - mcsat: MC-SAT and Gibbs marginals, parallel chains with R-hat;
//   - bp: belief propagation (ground, lifted, expanding frontier);
//   - wmc: exact marginals and log Z by weighted model counting;
//   - lazy: lazy MaxWalkSAT and MC-SAT, grounding on demand from the
//     first-order model;
//   - decision: the actions of maximum expected utility in a decision
//     network;
//   - hybrid: hybrid MaxWalkSAT, hybrid MC-SAT and learning for models
//     with numeric terms over real-valued atoms.
//
// Package infer/engines builds the engines of ground networks by name
// (engines.NewMAP, engines.NewMarginal) from one set of settings; that is
// the call a program makes after ground.Ground.
package infer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/marple-mln/marple/ground"
)

// Result is a MAP assignment with what is known about its quality.
type Result struct {
	// Assign is the assignment to the network's atoms.
	Assign []bool
	// Cost is the MaxWalkSAT cost of Assign (ground.Network.Cost) minus
	// the bias terms: lower is better.
	Cost float64
	// HardViolated counts the hard clauses Assign violates.
	HardViolated int
	// Optimal is set when Assign is proved to be a MAP state.
	Optimal bool
	// Bound is a lower bound on the cost of any assignment that satisfies
	// the hard clauses (-Inf when none is known). Optimal implies
	// Bound == Cost up to rounding.
	Bound float64
}

// Options are the settings every MAP engine takes.
type Options struct {
	// Bias adds Bias[a] to the score (subtracts it from the cost) of any
	// assignment in which atom a is true: the linear terms of
	// loss-augmented inference. Nil means none.
	Bias []float64
	// Seed seeds any randomness; the same seed gives the same result.
	Seed int64
}

// MAP is a MAP inference engine with its settings fixed: Solve computes an
// assignment of net minimising infer.BiasedCost(net, opt.Bias, ·) subject
// to the hard clauses, as well as the engine can. Name returns the
// engine's name (as package infer/engines knows it, e.g. "exact").
// Implementations are safe for concurrent calls on different networks
// and, unless their documentation says otherwise, on the same network.
type MAP interface {
	Name() string
	Solve(ctx context.Context, net *ground.Network, opt Options) (*Result, error)
}

// Marginal is a marginal inference engine with its settings fixed:
// Marginals returns the probability of each atom of net being true under
// the network's distribution (with the linear terms opt.Bias, as weights of
// unit clauses). Name returns the engine's name (e.g. "mcsat").
type Marginal interface {
	Name() string
	Marginals(ctx context.Context, net *ground.Network, opt Options) ([]float64, error)
}

// ErrNotProved is the error of an engine made by Proved when its result is
// not proved optimal.
var ErrNotProved = errors.New("the MAP state was not proved optimal")

// Proved returns m as an engine that fails (with an error wrapping
// ErrNotProved) when m's result is not proved optimal: for uses, such as
// measuring a learner, that must not go on with an approximate state.
func Proved(m MAP) MAP { return proved{m} }

type proved struct{ m MAP }

func (p proved) Name() string { return p.m.Name() }

func (p proved) Solve(ctx context.Context, net *ground.Network, opt Options) (*Result, error) {
	r, err := p.m.Solve(ctx, net, opt)
	if err == nil && !r.Optimal {
		err = fmt.Errorf("%s: %w", p.m.Name(), ErrNotProved)
	}
	return r, err
}

// BiasedCost returns the cost of y under net with the linear terms of bias
// (may be nil): net.Cost(y) minus the sum of bias over true atoms.
func BiasedCost(net *ground.Network, bias []float64, y []bool) (float64, int) {
	cost, hard := net.Cost(y)
	for a, b := range bias {
		if y[a] {
			cost -= b
		}
	}
	return cost, hard
}

// FormatCost formats a cost (or bound) x with six significant digits, as 0
// when it is float noise next to ref (|x| below 1e-9 of max(1, |ref|)).
func FormatCost(x, ref float64) string {
	if math.Abs(x) < 1e-9*math.Max(1, math.Abs(ref)) {
		x = 0
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

// NoBound is the Bound of a result about which nothing is proved.
var NoBound = math.Inf(-1)

// CheckWeights refuses a network (with the linear terms of bias, may be
// nil) whose soft weights or bias terms are NaN, or whose absolute values
// sum beyond the largest float64: costs and bounds would then be infinite
// or NaN, and an engine could report a wrong assignment as optimal. Hard
// clauses (weight +Inf) are not summed.
func CheckWeights(net *ground.Network, bias []float64) error {
	sum := 0.0
	for c := 0; c < net.NumClauses(); c++ {
		w := net.Weight(c)
		switch {
		case math.IsNaN(w) || math.IsInf(w, -1):
			return fmt.Errorf("clause %d has weight %v", c, w)
		case math.IsInf(w, 1):
			continue
		}
		sum += math.Abs(w)
	}
	for a, b := range bias {
		if math.IsNaN(b) || math.IsInf(b, 0) {
			return fmt.Errorf("the linear term of atom %d is %v", a, b)
		}
		sum += math.Abs(b)
	}
	if math.IsInf(sum, 1) {
		return errors.New("the weights' absolute values sum beyond the largest float64 (1.8e308): costs would overflow; scale the weights down")
	}
	return nil
}
