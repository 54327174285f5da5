package pipeline

import (
	"context"
	"fmt"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/exact"
	"github.com/marple-mln/marple/infer/lp"
	"github.com/marple-mln/marple/infer/mws"
	"github.com/marple-mln/marple/learn"
)

// Learner names an online update rule and its settings, as marple learn's
// flags do.
type Learner struct {
	// Method is cda-pl, cda-ml, mira, subgradient or adagrad.
	Method string
	// Sigma is CDA's and subgradient's σ (0: 1); C clips MIRA's step (0:
	// unclipped); Lambda, Eta, Delta are AdaGrad-FB's (0: 0.001, 1, 1).
	Sigma, C, Lambda, Eta, Delta float64
	// Loss is hamming (default) or f1.
	Loss string
	// Solver is the MAP engine: exact (default), lp or mws.
	Solver string
	// Seed seeds the MAP engines that take one.
	Seed int64
}

// method builds the update rule.
func (l Learner) method() (learn.Method, error) {
	sigma := l.Sigma
	if sigma == 0 {
		sigma = 1
	}
	name := l.Method
	if name == "" {
		name = "cda-ml"
	}
	lambda, eta, delta := l.Lambda, l.Eta, l.Delta
	def := learn.DefaultAdaGradFB()
	if lambda == 0 {
		lambda = def.Lambda
	}
	if eta == 0 {
		eta = def.Eta
	}
	if delta == 0 {
		delta = def.Delta
	}
	return learn.NewMethod(name, sigma, l.C, lambda, eta, delta)
}

// loss returns the label loss.
func (l Learner) loss() (learn.LabelLoss, error) {
	switch l.Loss {
	case "", "hamming", "hm":
		return learn.Hamming, nil
	case "f1":
		return learn.F1, nil
	}
	return learn.Hamming, fmt.Errorf("pipeline: unknown loss %q (hamming or f1)", l.Loss)
}

// solve runs the MAP engine named by l.Solver.
func (l Learner) solve(ctx context.Context, net *ground.Network, bias []float64) (*infer.Result, error) {
	opt := infer.Options{Bias: bias, Seed: l.Seed}
	switch l.Solver {
	case "mws":
		return mws.Solve(ctx, net, mws.Options{Options: opt})
	case "lp":
		res, _, err := lp.Solve(ctx, net, lp.Options{Options: opt, Workers: 1})
		return res, err
	case "", "exact":
		return exact.Solve(ctx, net, exact.Options{Options: opt, Workers: 1})
	}
	return nil, fmt.Errorf("pipeline: unknown solver %q (exact, lp or mws)", l.Solver)
}

// mapSolver adapts solve to the learners.
func (l Learner) mapSolver() learn.MAPSolver {
	return func(ctx context.Context, net *ground.Network, bias []float64) ([]bool, error) {
		res, err := l.solve(ctx, net, bias)
		if err != nil {
			return nil, err
		}
		return res.Assign, nil
	}
}

// check validates the learner's names.
func (l Learner) check() error {
	if _, err := l.method(); err != nil {
		return err
	}
	if _, err := l.loss(); err != nil {
		return err
	}
	switch l.Solver {
	case "", "exact", "lp", "mws":
		return nil
	}
	return fmt.Errorf("pipeline: unknown solver %q (exact, lp or mws)", l.Solver)
}
