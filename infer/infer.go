// Package infer holds what the inference engines share: the result of a MAP
// (most probable explanation) computation and the options every MAP engine
// accepts. The engines live in subpackages, one per engine: mws
// (MaxWalkSAT), exact (exact MPE), lp (LP relaxation with ROUNDUP) and
// mcsat (MC-SAT and Gibbs marginals).
package infer

import (
	"errors"
	"fmt"
	"math"

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
