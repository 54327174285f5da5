// Package cpi is cutting-plane inference (Riedel 2008): MAP inference that
// starts from a partial ground network, solves it, adds the ground clauses
// the current state violates, and repeats until the state violates none.
// It wraps any MAP engine (an infer.MAP: Wrap, or Solve); when the engine
// is exact, the answer is a MAP state of the full network, found by
// solving networks with fewer clauses.
package cpi

import (
	"context"
	"math"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// Engine is cutting-plane inference around the engine Inner as an
// infer.MAP: Solve runs Solve with Inner, MaxRounds and the call's bias and
// seed, and passes the statistics of each successful run to Stats when it
// is set.
type Engine struct {
	Inner infer.MAP
	// MaxRounds bounds the number of rounds (0: until no clause is
	// violated).
	MaxRounds int
	// Stats, when not nil, receives the statistics of every successful
	// run (called from the goroutine that called Solve).
	Stats func(*Stats)
}

// Wrap returns cutting-plane inference around inner, without a bound on
// the rounds.
func Wrap(inner infer.MAP) Engine { return Engine{Inner: inner} }

// Name returns "cpi(" + the inner engine's name + ")".
func (e Engine) Name() string { return "cpi(" + e.Inner.Name() + ")" }

// Solve runs cutting-plane inference on net (see the package function
// Solve).
func (e Engine) Solve(ctx context.Context, net *ground.Network, opt infer.Options) (*infer.Result, error) {
	res, st, err := Solve(ctx, net, e.Inner, Options{Options: opt, MaxRounds: e.MaxRounds})
	if err == nil && e.Stats != nil {
		e.Stats(st)
	}
	return res, err
}

// Options are the settings of Solve.
type Options struct {
	infer.Options
	// Init is the starting state (nil: every atom false).
	Init []bool
	// MaxRounds bounds the number of rounds (0: until no clause is
	// violated).
	MaxRounds int
}

// Stats describe a run of Solve.
type Stats struct {
	Rounds  int // solves of the partial network
	Clauses int // ground clauses in the final partial network
	Total   int // ground clauses in the full network
}

// violated reports whether clause c of net is not in its preferred state
// under y: a hard or positive-weight clause that is false, or a
// negative-weight clause that is true. Zero-weight clauses never are.
func violated(net *ground.Network, c int, y []bool) bool {
	w := net.Weight(c)
	sat := net.Satisfied(c, y)
	switch {
	case math.IsInf(w, 1) || w > 0:
		return !sat
	case w < 0:
		return sat
	}
	return false
}

// Solve runs cutting-plane inference on net with engine, which solves each
// partial network with the options' bias and seed. Every clause left
// out of the partial network is in its preferred state under the returned
// assignment, so its cost on the full network equals its cost on the
// partial one; with an exact engine it is optimal for the full network.
func Solve(ctx context.Context, net *ground.Network, engine infer.MAP, opt Options) (*infer.Result, *Stats, error) {
	n := net.NumAtoms()
	y := make([]bool, n)
	if opt.Init != nil {
		copy(y, opt.Init)
	}
	in := make([]bool, net.NumClauses())
	part := ground.NewNetwork(n)
	st := &Stats{Total: net.NumClauses()}
	var res *infer.Result
	for {
		added := 0
		for c := 0; c < net.NumClauses(); c++ {
			if !in[c] && violated(net, c, y) {
				in[c] = true
				part.AddClause(net.Clause(c), net.Weight(c), net.Source(c), net.Param(c), net.Coef(c))
				added++
			}
		}
		if added == 0 && res != nil {
			break
		}
		if err := ctx.Err(); err != nil {
			return res, st, err
		}
		if opt.MaxRounds > 0 && st.Rounds >= opt.MaxRounds {
			break
		}
		r, err := engine.Solve(ctx, part, opt.Options)
		if err != nil {
			return nil, st, err
		}
		st.Rounds++
		res = r
		copy(y, r.Assign)
	}
	st.Clauses = part.NumClauses()
	// Report the cost on the full network.
	out := *res
	out.Assign = y
	out.Cost, out.HardViolated = infer.BiasedCost(net, opt.Bias, y)
	if out.Cost > res.Cost+1e-9*math.Max(1, math.Abs(res.Cost)) {
		// Some clause outside the partial network is violated (MaxRounds
		// stopped early): the partial network's bound is still a bound.
		out.Optimal = false
	}
	return &out, st, nil
}
