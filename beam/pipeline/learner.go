package pipeline

import (
	"fmt"

	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/learn"
)

// Learner names an online update rule and its settings, as marple learn's
// flags do.
type Learner struct {
	// Method is one of learn.MethodNames (default cda-ml).
	Method string
	// Sigma is CDA's and subgradient's σ (0: learn.DefaultSigma); C clips
	// MIRA's step (0: unclipped); Lambda, Eta, Delta are AdaGrad-FB's (0:
	// learn.DefaultAdaGradFB's).
	Sigma, C, Lambda, Eta, Delta float64
	// Loss is hamming (default) or f1.
	Loss string
	// Solver is the MAP engine, one of engines.MAPNames (default
	// engines.DefaultMAP), run with engines.DefaultSettings on one worker
	// (a pipeline solves many examples at once) and without a time limit
	// (so that a run is reproducible).
	Solver string
	// Seed seeds the MAP engines that take one.
	Seed int64
}

// method builds the update rule.
func (l Learner) method() (learn.Method, error) {
	name := l.Method
	if name == "" {
		name = "cda-ml"
	}
	m, err := learn.ParseMethod(name)
	if err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	set := func(dst *float64, v float64) {
		if v != 0 {
			*dst = v
		}
	}
	switch m := m.(type) {
	case *learn.CDA:
		set(&m.Sigma, l.Sigma)
	case *learn.Subgradient:
		set(&m.Sigma, l.Sigma)
	case *learn.MIRA:
		m.C = l.C
	case *learn.AdaGradFB:
		set(&m.Lambda, l.Lambda)
		set(&m.Eta, l.Eta)
		set(&m.Delta, l.Delta)
	}
	return m, nil
}

// engineSettings are the settings of the pipelines' engines.
func engineSettings() engines.Settings {
	s := engines.DefaultSettings()
	s.Workers, s.TimeLimit = 1, 0
	return s
}

// engine returns the MAP engine named by l.Solver.
func (l Learner) engine() (infer.MAP, error) {
	name := l.Solver
	if name == "" {
		name = engines.DefaultMAP
	}
	m, err := engines.NewMAP(name, engineSettings())
	if err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	return m, nil
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

// check validates the learner's names.
func (l Learner) check() error {
	if _, err := l.method(); err != nil {
		return err
	}
	if _, err := l.loss(); err != nil {
		return err
	}
	_, err := l.engine()
	return err
}
