package main

import (
	"flag"
	"io"
	"math"
	"time"

	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
)

// engineFlags are the inference flags of a command: the MAP engine and the
// settings of every engine the command runs, with their defaults from
// engines.DefaultSettings. The sampling flags are registered only by the
// commands that sample (samples and burnIn are nil otherwise).
type engineFlags struct {
	solver          *string
	timeLimit       *time.Duration
	maxSteps, tries *int
	prove, cpi      *bool
	tabu            *int
	breakHard       *bool
	targetWt        *float64
	samples, burnIn *int
}

// registerMAP declares the MAP engine's flags on fs; what says where the
// engine runs (e.g. "MAP engine inside training").
func (f *engineFlags) registerMAP(fs *flag.FlagSet, what string) {
	d := engines.DefaultSettings()
	f.solver = fs.String("solver", engines.DefaultMAP, what+": "+engines.List(engines.MAPNames()))
	f.timeLimit = fs.Duration("timeLimit", d.TimeLimit, "exact, lp, mws: stop each solve after this long with the best answer so far and its lower bound (0: no limit)")
	f.maxSteps = fs.Int("mwsMaxSteps", d.MaxSteps, "MaxWalkSAT: maximum flips per try")
	f.tries = fs.Int("tries", d.Tries, "MaxWalkSAT: number of tries (restarts)")
	f.prove = fs.Bool("prove", d.Prove, "exact: search every component until it is proved optimal or -timeLimit expires (by default a large component gets the LP relaxation and a short search only)")
	f.cpi = fs.Bool("cpi", d.CPI, "cutting-plane inference around the MAP engine: solve with only the clauses the current state violates")
	f.tabu = fs.Int("tabuLength", d.Tabu, "MaxWalkSAT: steps during which a flipped atom may not be flipped back unless that beats the try's best cost (-1: no tabu)")
	f.breakHard = fs.Bool("breakHardClauses", d.BreakHard, "MaxWalkSAT: the original moves, which may break a satisfied hard clause to satisfy a soft one (by default the walk spares hard clauses)")
	f.targetWt = fs.Float64("targetWt", d.Target, "MaxWalkSAT: stop as soon as no hard clause is violated and the cost of the violated clauses is at most this (0: only when every clause is in its preferred state)")
}

// registerSampling declares the samplers' flags on fs.
func (f *engineFlags) registerSampling(fs *flag.FlagSet) {
	d := engines.DefaultSettings()
	f.samples = fs.Int("numSamples", d.Samples, "MC-SAT/Gibbs: number of samples")
	f.burnIn = fs.Int("burnIn", d.BurnIn, "MC-SAT/Gibbs: burn-in steps")
}

// check validates the flags after parsing.
func (f *engineFlags) check() error {
	if _, err := engines.NewMAP(*f.solver, engines.Settings{}); err != nil {
		return usagef("-solver must be %s, not %q", engines.List(engines.MAPNames()), *f.solver)
	}
	counts := map[string]int{"mwsMaxSteps": *f.maxSteps, "tries": *f.tries}
	if f.samples != nil {
		counts["numSamples"] = *f.samples
	}
	if err := firstErr(checkDuration("timeLimit", *f.timeLimit), atLeast(1, counts), atLeast(-1, map[string]int{"tabuLength": *f.tabu})); err != nil {
		return err
	}
	if t := *f.targetWt; !(t >= 0) || math.IsInf(t, 1) {
		return usagef("-targetWt must be a non-negative number, not %v", t)
	}
	if f.burnIn != nil {
		return atLeast(0, map[string]int{"burnIn": *f.burnIn})
	}
	return nil
}

// settings returns the engines' settings the flags give, with workers
// goroutines (-workers) and the engines' reports to report (may be nil).
func (f *engineFlags) settings(workers int, report io.Writer) engines.Settings {
	s := engines.DefaultSettings()
	s.Workers = workers
	s.TimeLimit = *f.timeLimit
	s.MaxSteps, s.Tries = *f.maxSteps, *f.tries
	s.Prove, s.CPI = *f.prove, *f.cpi
	s.Tabu, s.BreakHard = *f.tabu, *f.breakHard
	s.Target = *f.targetWt
	if f.samples != nil {
		s.Samples, s.BurnIn = *f.samples, *f.burnIn
	}
	s.Report = report
	return s
}

// engineBuilt, when set (by tests), sees every engine a command builds
// from its flags, with the settings it was built from, and may wrap it.
var engineBuilt func(m infer.MAP, s engines.Settings) infer.MAP

// mapEngine returns the -solver engine with the flags' settings.
func (f *engineFlags) mapEngine(workers int, report io.Writer) (infer.MAP, error) {
	s := f.settings(workers, report)
	m, err := engines.NewMAP(*f.solver, s)
	if err != nil {
		return nil, usagef("-solver: %v", err)
	}
	if engineBuilt != nil {
		m = engineBuilt(m, s)
	}
	return m, nil
}

// prefixed writes every write to w after prefix (each write is a line).
type prefixed struct {
	w      io.Writer
	prefix string
}

func (p prefixed) Write(b []byte) (int, error) {
	if _, err := p.w.Write(append([]byte(p.prefix), b...)); err != nil {
		return 0, err
	}
	return len(b), nil
}
