// Package engines builds Marple's inference engines by name from one set
// of settings: the MAP engines exact, lp and mws (each optionally inside
// cutting-plane inference), the marginal engines mcsat, gibbs, bp,
// lifted-bp and wmc (exact), and the lazy engines lazy-mws and lazy-mcsat, which ground
// on demand from the first-order model (NewLazy). The
// commands, the learners and the pipelines all choose their engines here,
// so that a setting reaches every inference they run, and the defaults
// live in one place (DefaultSettings).
//
// An engine is one entry of a table: its name, what it is, how Settings
// configure it and the memory it takes per atom, clause and literal.
// Adding an engine is adding an entry.
package engines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/bp"
	"github.com/marple-mln/marple/infer/cpi"
	"github.com/marple-mln/marple/infer/exact"
	"github.com/marple-mln/marple/infer/lazy"
	"github.com/marple-mln/marple/infer/lbg"
	"github.com/marple-mln/marple/infer/lp"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/infer/mws"
	"github.com/marple-mln/marple/infer/wmc"
)

// DefaultMAP is the MAP engine used when none is named: exact MPE.
const DefaultMAP = "exact"

// DefaultMarginal is the marginal engine used when none is named: MC-SAT.
const DefaultMarginal = "mcsat"

// Settings are the inference settings the engines share. Each engine takes
// the ones that apply to it and ignores the others. Zero values of
// Workers, MaxSteps, Tries and Samples select the engine's own default;
// TimeLimit 0 means no limit and BurnIn is taken as given (0: none).
// The seed and the linear terms (bias) of a solve are not settings: they
// are given with each call (infer.Options).
type Settings struct {
	// Workers is the number of goroutines of an engine (exact: components
	// solved in parallel; lp: ADMM blocks; mcsat, gibbs: components
	// sampled in parallel). mws walks on one.
	Workers int
	// TimeLimit bounds each solve (exact, lp, mws): the engine returns
	// the best assignment found when it expires, with its lower bound
	// where it has one.
	TimeLimit time.Duration
	// MaxSteps is MaxWalkSAT's number of flips per try (mws).
	MaxSteps int
	// Tries is MaxWalkSAT's number of tries (mws).
	Tries int
	// Tabu is MaxWalkSAT's tabu length (mws; -1: none).
	Tabu int
	// BreakHard gives MaxWalkSAT the original moves, which may break a
	// satisfied hard clause (mws; mws.Options.BreakHard).
	BreakHard bool
	// Target stops MaxWalkSAT as soon as its best state violates no hard
	// clause and costs at most Target (mws, lazy-mws; Alchemy's
	// -targetWt; 0: only when every clause is in its preferred state).
	Target float64
	// SASteps is lazy MC-SAT's number of annealing moves per sample
	// (lazy-mcsat; 0: lazy.DefaultSASteps).
	SASteps int
	// Prove lets exact MPE search a large component until it is proved
	// optimal or TimeLimit expires (exact).
	Prove bool
	// CPI runs every MAP engine inside cutting-plane inference: it solves
	// only the ground clauses the current state violates, adding the
	// violated ones until none is (package cpi).
	CPI bool
	// Samples is the number of samples of each chain (mcsat, gibbs).
	Samples int
	// Chains is the number of chains (mcsat, gibbs; 0:
	// mcsat.DefaultChains(), one per core), each started from its own world, run
	// in parallel on Workers and pooled; the marginals for a seed do not
	// depend on Workers. Replicas and MinBeta set parallel tempering
	// (mcsat.Options: 0 selects the defaults, one replica: none), and
	// BlockWeight and MaxBlock the block moves over atoms tied by heavy
	// clauses (0: the defaults, a negative BlockWeight none). They are
	// the sampler and the defaults of marple infer -ms and -p.
	Chains, Replicas     int
	MinBeta, BlockWeight float64
	MaxBlock             int
	// BurnIn is the number of steps each chain discards first (mcsat,
	// gibbs).
	BurnIn int
	// WalkProb and Temp are SampleSAT's probability of a WalkSAT move and
	// its temperature inside MC-SAT (mcsat.Options: 0 selects the
	// default, a negative WalkProb none).
	WalkProb, Temp float64
	// MaxIterations and Tolerance bound belief propagation (bp,
	// lifted-bp): at most MaxIterations iterations, converged when no
	// marginal changes by more than Tolerance (0: the package defaults).
	MaxIterations int
	Tolerance     float64
	// BPDamping is BP's damping (bp; lifted-bp takes none): 0 starts
	// undamped and raises the damping every DefaultBPDampAfter iterations
	// without convergence (bp.Options.DampAfter), a positive value is a
	// fixed damping, a negative one none. BP always merges the ground
	// clauses with the same literals (bp.Options.Merge).
	BPDamping float64
	// BPCheck is the number of MC-SAT samples per chain of the check that
	// confirms BP's marginals (bp.Options.Check; 0: DefaultBPCheck,
	// negative: no check).
	BPCheck int
	// BPStats, when not nil, receives the statistics of every BP run (bp,
	// lifted-bp): the atoms still changing and those the check did not
	// confirm, for a caller that names them.
	BPStats func(*bp.Stats)
	// LiftRounds > 0 makes lifted-bp approximate: colour passing stops
	// after that many rounds (bp.LiftedApprox). 0: exact lifting.
	LiftRounds int
	// Report, when not nil, receives one line after every solve of the
	// engines that describe their run: the LP relaxation's bound and
	// rounding (lp), the rounds of cutting-plane inference (CPI),
	// whether belief propagation converged (bp, lifted-bp), and the
	// chains' convergence diagnostics (mcsat, gibbs: max R-hat, atoms above
	// mcsat.RhatThreshold, min ESS).
	// Writes come from the goroutine that called Solve.
	Report io.Writer
	// WMCMaxNodes bounds the search nodes of exact model counting (wmc;
	// 0: wmc.DefaultMaxNodes, negative: no bound): past it the engine
	// fails with an error wrapping wmc.ErrOutOfReach.
	WMCMaxNodes int64
	// WMCMaxWork bounds the search work of exact model counting (wmc;
	// wmc.Options.MaxWork: 0 the default, negative no bound).
	WMCMaxWork int64
	// LogZ, when not nil, receives the natural log of the model's
	// partition function (over every unknown atom of the grounding, those
	// the network leaves out included: wmc.Result.ModelLogZ) after every
	// solve of an engine that computes it exactly (wmc).
	LogZ func(float64)
	// Warn, when not nil, receives a line when an engine gives up its
	// method for another or approximates it: lifted-bp running ground BP
	// on a network that lifting does not compress, or lifting
	// approximately (LiftRounds).
	Warn io.Writer
	// Progress, when not nil, receives a line about a long run every
	// ProgressEvery (bp, lifted-bp: the iterations and the rounds of the
	// check; lbg: the sweeps, and each merge of the clustering).
	Progress io.Writer
	// LBG are the settings of lifted blocked Gibbs sampling (lbg) beyond
	// Samples, BurnIn, Chains and Workers: the clustering (lbg.Options
	// Merges, Cluster, Mode, BMF) and a time limit (MaxTime).
	LBG lbg.Options
	// LBGResult, when not nil, receives the result of every lbg run (its
	// clustering and diagnostics).
	LBGResult func(*lbg.Result)
	// LiftedMaxWork bounds the work of the lifted engines of the
	// first-order model (fomc, lis; lifted.Options.MaxWork: 0 the
	// default, negative none), and LIS sets lifted importance sampling.
	LiftedMaxWork int64
	LIS           LISSettings
}

// DefaultSettings returns the default settings: every core as a worker, a
// time limit of one minute, Alchemy's MaxWalkSAT (a million flips, one
// try) and the sampler of marple infer: one chain per core (Chains 0:
// mcsat.DefaultChains()) of 1,000 samples each after 100 burn-in steps,
// with block moves over atoms tied by clauses of weight at least
// mcsat.DefaultBlockWeight.
func DefaultSettings() Settings {
	return Settings{
		Workers:     runtime.GOMAXPROCS(0),
		TimeLimit:   time.Minute,
		MaxSteps:    mws.DefaultMaxSteps,
		Tries:       mws.DefaultTries,
		Tabu:        mws.DefaultTabu,
		Samples:     mcsat.DefaultSamples,
		BurnIn:      mcsat.DefaultBurnIn,
		Replicas:    mcsat.DefaultReplicas,
		MinBeta:     mcsat.DefaultMinBeta,
		BlockWeight: mcsat.DefaultBlockWeight,
		MaxBlock:    mcsat.DefaultMaxBlock,
	}
}

// SplitSamples returns s for a sampler inside a learner: mcsat.LearnChains
// chains (a fixed number, so that learned weights do not depend on the
// machine's cores) sharing the budget of Samples (0: the default), each
// taking Samples/LearnChains samples, rounded up. A learner that samples
// in its inner loop keeps the cost of one chain of Samples samples (plus
// each chain's BurnIn) and still gets the chains' different starts and the
// block moves.
func (s Settings) SplitSamples() Settings {
	n := s.Samples
	if n <= 0 {
		n = mcsat.DefaultSamples
	}
	s.Chains = mcsat.LearnChains
	s.Samples = (n + s.Chains - 1) / s.Chains
	return s
}

// check refuses settings out of range.
func (s Settings) check() error {
	switch {
	case s.Workers < 0:
		return fmt.Errorf("engines: Workers is %d", s.Workers)
	case s.TimeLimit < 0:
		return fmt.Errorf("engines: TimeLimit is %v", s.TimeLimit)
	case s.MaxSteps < 0 || s.Tries < 0 || s.Tabu < -1 || !(s.Target >= 0) || s.SASteps < 0:
		return fmt.Errorf("engines: MaxSteps %d, Tries %d", s.MaxSteps, s.Tries)
	case s.Samples < 0 || s.BurnIn < 0:
		return fmt.Errorf("engines: Samples %d, BurnIn %d", s.Samples, s.BurnIn)
	case s.Chains < 0 || s.Replicas < 0 || s.MaxBlock < 0 || s.MaxBlock > 20 || !(s.MinBeta >= 0 && s.MinBeta < 1) || math.IsNaN(s.BlockWeight) || math.IsInf(s.BlockWeight, 0):
		return fmt.Errorf("engines: Chains %d, Replicas %d, MinBeta %v, BlockWeight %v, MaxBlock %d", s.Chains, s.Replicas, s.MinBeta, s.BlockWeight, s.MaxBlock)
	case !(s.BPDamping < 1):
		return fmt.Errorf("engines: BPDamping %v not below 1", s.BPDamping)
	case s.MaxIterations < 0 || !(s.Tolerance >= 0) || !(s.Temp >= 0) || !(s.WalkProb <= 1):
		return fmt.Errorf("engines: MaxIterations %d, Tolerance %v, Temp %v, WalkProb %v", s.MaxIterations, s.Tolerance, s.Temp, s.WalkProb)
	}
	return nil
}

// mapEngine is an entry of the MAP engines' table.
type mapEngine struct {
	name, doc string
	memory    ground.EngineCost
	build     func(s Settings) infer.MAP
}

// marginalEngine is an entry of the marginal engines' table.
type marginalEngine struct {
	name, doc string
	memory    ground.EngineCost
	build     func(s Settings) infer.Marginal
}

// mapEngines lists the MAP engines, DefaultMAP first.
var mapEngines = []mapEngine{
	{
		name: "exact", doc: "exact MPE: variable elimination or branch and bound per component, warm-started by MaxWalkSAT and the LP relaxation",
		memory: exact.Memory,
		build: func(s Settings) infer.MAP {
			return exact.Engine{Options: exact.Options{Workers: s.Workers, TimeLimit: s.TimeLimit, Prove: s.Prove}}
		},
	},
	{
		name: "lp", doc: "LP relaxation solved by ADMM, rounded by ROUNDUP",
		memory: lp.Memory,
		build: func(s Settings) infer.MAP {
			e := lp.Engine{Options: lp.Options{Workers: s.Workers, TimeLimit: s.TimeLimit}}
			if w := s.Report; w != nil {
				e.Stats = func(st *lp.Stats) { reportLP(w, st) }
			}
			return e
		},
	},
	{
		name: "mws", doc: "MaxWalkSAT",
		memory: mws.Memory,
		build: func(s Settings) infer.MAP {
			return limited{mws.Engine{Options: mws.Options{MaxSteps: s.MaxSteps, Tries: s.Tries, Tabu: s.Tabu, BreakHard: s.BreakHard, Target: s.Target}}, s.TimeLimit}
		},
	},
}

// marginalEngines lists the marginal engines, DefaultMarginal first.
var marginalEngines = []marginalEngine{
	{
		name: "mcsat", doc: "MC-SAT (slice sampling with SampleSAT), several chains with block moves, pooled",
		memory: mcsat.RunMemory(0, 0, mcsat.MethodMCSAT),
		build:  func(s Settings) infer.Marginal { return sampler(false, s) },
	},
	{
		name: "gibbs", doc: "Gibbs sampling, several chains with block moves, pooled",
		memory: mcsat.RunMemory(0, 0, mcsat.MethodGibbs),
		build:  func(s Settings) infer.Marginal { return sampler(true, s) },
	},
	{
		name: "bp", doc: "loopy belief propagation",
		memory: bp.CheckedMemory,
		build: func(s Settings) infer.Marginal {
			e := bp.Engine{Options: bpOptions(s)}
			if w, f := s.Report, s.BPStats; w != nil || f != nil {
				e.Stats = func(st *bp.Stats) {
					if w != nil {
						fmt.Fprintln(w, bpReport(st, e.Options.Tolerance))
					}
					if f != nil {
						f(st)
					}
				}
			}
			return e
		},
	},
	{
		name: "lifted-bp", doc: "lifted belief propagation: BP on the clusters of atoms and clauses that exchange identical messages",
		memory: bp.CheckedMemory,
		build: func(s Settings) infer.Marginal {
			e := bp.LiftedEngine{Options: bpOptions(s), Rounds: s.LiftRounds}
			// Lifted BP takes no damping; its fall-back to ground BP
			// raises it after DampAfter iterations as ground BP does.
			e.Damping = 0
			if w, f, warn := s.Report, s.BPStats, s.Warn; w != nil || f != nil || warn != nil {
				e.Stats = func(st *bp.LiftedStats) {
					if warn != nil && (st.Ground || st.Approximate) {
						fmt.Fprintln(warn, st.Compression())
					}
					if w != nil {
						fmt.Fprintf(w, "%s; %s\n", st.Compression(), bpReport(&st.Stats, e.Options.Tolerance))
					}
					if f != nil {
						f(&st.Stats)
					}
				}
			}
			return e
		},
	},
	{
		name: "wmc", doc: "exact marginals and log Z by weighted model counting: DPLL search with component decomposition and caching",
		memory: wmc.Memory,
		build: func(s Settings) infer.Marginal {
			e := wmc.Engine{Options: wmc.Options{Workers: s.Workers, MaxNodes: s.WMCMaxNodes, MaxWork: s.WMCMaxWork}}
			if w, f := s.Report, s.LogZ; w != nil || f != nil {
				e.Stats = func(r *wmc.Result) {
					if w != nil {
						fmt.Fprintln(w, r.Summary())
					}
					if f != nil {
						f(r.ModelLogZ())
					}
				}
			}
			return e
		},
	},
	{
		name: "lbg", doc: "lifted blocked Gibbs sampling: blocks of the ground atoms of clusters of predicates, each sampled exactly given the rest, several chains",
		memory: lbg.Memory(0),
		build: func(s Settings) infer.Marginal {
			o := s.LBG
			o.Samples, o.Chains, o.Workers = s.Samples, s.Chains, s.Workers
			o.BurnIn = s.BurnIn
			if o.BurnIn == 0 {
				o.BurnIn = -1 // lbg: none (its 0 is the default)
			}
			if o.Progress == nil {
				o.Progress = s.Progress
			}
			e := lbg.Engine{Options: o}
			if w, f := s.Report, s.LBGResult; w != nil || f != nil {
				e.Report = func(r *lbg.Result) {
					if w != nil {
						fmt.Fprintln(w, LBGReport(r))
					}
					if f != nil {
						f(r)
					}
				}
			}
			return e
		},
	},
}

// LBGReport says how a run of lifted blocked Gibbs sampling went: the
// clusters and blocks, the chains' diagnostics and the largest standard
// error of a marginal.
func LBGReport(r *lbg.Result) string {
	d := r.Diagnostics
	se := 0.0
	for _, x := range d.StdErr {
		if !math.IsNaN(x) {
			se = max(se, x)
		}
	}
	stopped := ""
	if r.Stopped {
		stopped = " (STOPPED by the time limit)"
	}
	split := ""
	if r.Plan.Split > 0 {
		split = fmt.Sprintf(", %d atoms of blocks too large sampled one at a time", r.Plan.Split)
	}
	return fmt.Sprintf("lifted blocked Gibbs: clusters %s, %d blocks (largest %d atoms)%s, sweep cost %.3g (propositional Gibbs %.3g); %s%s, largest standard error %.3g",
		r.Plan.Clustering, r.Plan.Blocks(), r.Plan.Largest, split, r.Plan.Cost, r.Plan.GibbsCost, samplerReport("lbg", d), stopped, se)
}

// DefaultBPDampAfter is the number of iterations without convergence
// after which BP raises its damping (bp.Options.DampAfter: to 0.5, then
// half way to 1 each time) unless Settings say otherwise. BP that
// converges undamped is untouched; damping makes BP converge where
// undamped messages oscillate (UW-CSE) and leaves the fixed points as
// they are.
const DefaultBPDampAfter = 50

// DefaultBPCheck is the number of MC-SAT samples per chain of the check
// of BP's marginals (bp.Options.Check) unless Settings say otherwise.
const DefaultBPCheck = 1000

// bpOptions returns BP's options of s.
func bpOptions(s Settings) bp.Options {
	tol := s.Tolerance
	if tol <= 0 {
		tol = bp.DefaultTolerance
	}
	damping, after := s.BPDamping, 0
	switch {
	case damping == 0:
		after = DefaultBPDampAfter
	case damping < 0:
		damping = 0
	}
	check := s.BPCheck
	switch {
	case check == 0:
		check = DefaultBPCheck
	case check < 0:
		check = 0
	}
	o := bp.Options{MaxIterations: s.MaxIterations, Tolerance: tol, Workers: s.Workers, Damping: damping, DampAfter: after, Merge: true, Check: check}
	if w := s.Progress; w != nil {
		o.Progress = bpProgress(w)
	}
	return o
}

// ProgressEvery is how often the engines write to Settings.Progress.
const ProgressEvery = 5 * time.Second

// bpProgress returns BP's progress function writing to w: the iterations
// at most every ProgressEvery, each round of the check once the run has
// lasted a second (BP may run on several components at once).
func bpProgress(w io.Writer) func(int, float64) {
	var mu sync.Mutex
	start := time.Now()
	last := start
	return func(it int, change float64) {
		mu.Lock()
		defer mu.Unlock()
		if it == 0 {
			if time.Since(start) >= time.Second {
				fmt.Fprintf(w, "belief propagation: checking the marginals against MC-SAT, %.0f samples per chain, %s elapsed\n", change, time.Since(start).Round(time.Second))
			}
			return
		}
		if time.Since(last) >= ProgressEvery {
			last = time.Now()
			fmt.Fprintf(w, "belief propagation: iteration %d, largest change %.3g, %s elapsed\n", it, change, time.Since(start).Round(time.Second))
		}
	}
}

// bpReport says how a BP run went: iterations, whether it converged (the
// largest change and how many atoms still changed if not) and what the
// check found.
func bpReport(st *bp.Stats, tol float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "belief propagation: %d iterations", st.Iterations)
	if st.Damping > 0 {
		fmt.Fprintf(&b, " (damping %g)", st.Damping)
	}
	if st.Converged {
		b.WriteString(", converged")
	} else {
		fmt.Fprintf(&b, ", NOT CONVERGED (largest change %.3g > tolerance %g)", st.MaxChange, tol)
	}
	switch {
	case !st.Checked:
		b.WriteString(", not checked against MC-SAT")
	case math.IsNaN(st.CheckDiff):
		fmt.Fprintf(&b, ", UNRELIABLE: MC-SAT found no world satisfying the hard clauses to check against")
	case len(st.Unreliable) > 0:
		fmt.Fprintf(&b, ", UNRELIABLE: %d atoms not confirmed by MC-SAT (largest difference %.3g)", len(st.Unreliable), st.CheckDiff)
	default:
		fmt.Fprintf(&b, ", confirmed by MC-SAT (largest difference %.3g)", st.CheckDiff)
	}
	return b.String()
}

// sampler returns the MC-SAT or Gibbs engine of s: the chains of
// mcsat.Run, as marple infer runs them.
func sampler(gibbs bool, s Settings) mcsat.RunEngine {
	burnIn := s.BurnIn
	if burnIn == 0 {
		burnIn = -1 // mcsat: none (its 0 is the default)
	}
	e := mcsat.RunEngine{Workers: s.Workers, Options: mcsat.Options{Samples: s.Samples, BurnIn: burnIn, WalkProb: s.WalkProb, Temp: s.Temp,
		Chains: s.Chains, Replicas: s.Replicas, MinBeta: s.MinBeta, BlockWeight: s.BlockWeight, MaxBlock: s.MaxBlock}}
	if gibbs {
		e.Method = mcsat.MethodGibbs
	}
	if w := s.Report; w != nil {
		e.Report = func(d *mcsat.Diagnostics) { fmt.Fprintln(w, samplerReport(e.Name(), d)) }
	}
	return e
}

// samplerReport says how a run of chains went.
func samplerReport(name string, d *mcsat.Diagnostics) string {
	ess := fmt.Sprintf("%.0f", d.MinESS)
	if math.IsInf(d.MinESS, 1) {
		ess = "n/a (every marginal computed exactly)"
	}
	return fmt.Sprintf("%s: %d chains x %d samples, max R-hat %.3f (%d atoms above %g), min ESS %s",
		name, d.Chains, d.Samples, d.MaxRhat, d.NumAbove, d.Threshold, ess)
}

// NewMAP returns the MAP engine called name (one of MAPNames) configured by
// s, inside cutting-plane inference when s.CPI is set.
func NewMAP(name string, s Settings) (infer.MAP, error) {
	e, err := findMAP(name)
	if err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	m := e.build(s)
	if s.CPI {
		c := cpi.Wrap(m)
		if w := s.Report; w != nil {
			c.Stats = func(st *cpi.Stats) {
				fmt.Fprintf(w, "cutting-plane inference: %d rounds, %d of %d ground clauses\n", st.Rounds, st.Clauses, st.Total)
			}
		}
		m = c
	}
	return m, nil
}

// NewMarginal returns the marginal engine called name (one of
// MarginalNames) configured by s. Before it samples or propagates on a
// network, the engine decides whether the hard clauses can all hold
// (CheckHard) and fails with an error wrapping infer.ErrInfeasible when
// they cannot; Unwrap returns the engine proper.
func NewMarginal(name string, s Settings) (infer.Marginal, error) {
	e, err := findMarginal(name)
	if err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	return &checked{Marginal: e.build(s), report: s.Report}, nil
}

// Default returns the default MAP engine (DefaultMAP) with DefaultSettings.
func Default() infer.MAP {
	m, err := NewMAP(DefaultMAP, DefaultSettings())
	if err != nil {
		panic(err) // the table and the defaults are fixed
	}
	return m
}

// MAPNames returns the names of the MAP engines, DefaultMAP first.
func MAPNames() []string {
	names := make([]string, len(mapEngines))
	for i, e := range mapEngines {
		names[i] = e.name
	}
	return names
}

// MarginalNames returns the names of the marginal engines,
// DefaultMarginal first.
func MarginalNames() []string {
	names := make([]string, len(marginalEngines))
	for i, e := range marginalEngines {
		names[i] = e.name
	}
	return names
}

// Doc returns a one-line description of the engine called name (MAP or
// marginal), or "" when there is none.
func Doc(name string) string {
	if e, err := findMAP(name); err == nil {
		return e.doc
	}
	if e, err := findMarginal(name); err == nil {
		return e.doc
	}
	for _, e := range lazyEngines {
		if e.name == name {
			return e.doc
		}
	}
	for _, e := range firstOrderEngines {
		if e.name == name {
			return e.doc
		}
	}
	return ""
}

// Memory returns the memory the engine called name (MAP or marginal) takes
// on top of the ground network, for the grounder's estimate
// (ground.Options.Engine).
func Memory(name string) (ground.EngineCost, error) {
	if e, err := findMAP(name); err == nil {
		return e.memory, nil
	}
	if e, err := findMarginal(name); err == nil {
		return e.memory, nil
	}
	return ground.EngineCost{}, fmt.Errorf("unknown inference engine %q: the engines are %s", name, List(append(MAPNames(), MarginalNames()...)))
}

func findMAP(name string) (*mapEngine, error) {
	for i := range mapEngines {
		if mapEngines[i].name == name {
			return &mapEngines[i], nil
		}
	}
	return nil, fmt.Errorf("unknown MAP engine %q: the MAP engines are %s", name, List(MAPNames()))
}

func findMarginal(name string) (*marginalEngine, error) {
	for i := range marginalEngines {
		if marginalEngines[i].name == name {
			return &marginalEngines[i], nil
		}
	}
	return nil, fmt.Errorf("unknown marginal engine %q: the marginal engines are %s", name, List(MarginalNames()))
}

// List joins names as prose: "a", "a or b", "a, b or c".
func List(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// reportLP writes the LP relaxation's line.
func reportLP(w io.Writer, st *lp.Stats) {
	fmt.Fprintf(w, "LP relaxation: lower bound on the cost %s (the LP optimum, an upper bound on the score: %s), ROUNDUP cost %s, final cost %s, %.1f%% of atoms integral, %d iterations, converged %v\n",
		infer.FormatCost(st.LPBound, st.RoundedCost), infer.FormatCost(st.LPValue, st.LPValue), infer.FormatCost(st.RoundupCost, st.RoundupCost),
		infer.FormatCost(st.RoundedCost, st.RoundedCost), 100*st.FracIntegral, st.Iterations, st.Converged)
}

// limited is an engine without a time limit of its own run under one: the
// solve's context expires after d (0: never), and the best assignment
// found by then is returned without an error.
type limited struct {
	infer.MAP
	d time.Duration
}

func (l limited) Solve(ctx context.Context, net *ground.Network, opt infer.Options) (*infer.Result, error) {
	if l.d <= 0 {
		return l.MAP.Solve(ctx, net, opt)
	}
	tctx, cancel := context.WithTimeout(ctx, l.d)
	defer cancel()
	res, err := l.MAP.Solve(tctx, net, opt)
	if res != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		err = nil
	}
	return res, err
}

// Lazy is a lazy inference engine (package lazy) with its settings fixed:
// it runs on the first-order model and its evidence rather than on a
// ground network, building only the ground clauses its walk makes active.
type Lazy struct {
	name  string
	doc   string
	isMAP bool
	mws   lazy.MWSOptions
	mcsat lazy.MCSATOptions
}

// Name returns the engine's name (lazy-mws or lazy-mcsat).
func (e Lazy) Name() string { return e.name }

// IsMAP reports whether the engine computes a MAP state (lazy-mws) rather
// than marginals (lazy-mcsat).
func (e Lazy) IsMAP() bool { return e.isMAP }

// Run runs the engine on pr with the seed: lazy.MAP for lazy-mws (whose
// walk TimeLimit bounds), lazy.Marginals for lazy-mcsat.
func (e Lazy) Run(ctx context.Context, pr lazy.Problem, seed int64) (*lazy.Result, error) {
	if !e.isMAP {
		opt := e.mcsat
		opt.Seed = seed
		return lazy.Marginals(ctx, pr, opt)
	}
	opt := e.mws
	opt.Seed = seed
	return lazy.MAP(ctx, pr, opt)
}

// lazyEngines lists the lazy engines.
var lazyEngines = []struct {
	name, doc string
	build     func(s Settings) Lazy
}{
	{
		name: "lazy-mws", doc: "lazy MaxWalkSAT (LazySAT): grounds on demand the clauses the walk makes active",
		build: func(s Settings) Lazy {
			return Lazy{isMAP: true, mws: lazy.MWSOptions{MaxSteps: s.MaxSteps, Tries: s.Tries, Tabu: s.Tabu, Target: s.Target, TimeLimit: s.TimeLimit}}
		},
	},
	{
		name: "lazy-mcsat", doc: "lazy MC-SAT: grounds on demand the clauses of the atoms SampleSAT touches",
		build: func(s Settings) Lazy {
			burnIn := s.BurnIn
			if burnIn == 0 {
				burnIn = -1 // lazy: none (its 0 is the default)
			}
			return Lazy{mcsat: lazy.MCSATOptions{Samples: s.Samples, BurnIn: burnIn, SASteps: s.SASteps, WalkProb: s.WalkProb, Temp: s.Temp}}
		},
	},
}

// NewLazy returns the lazy engine called name (one of LazyNames)
// configured by s.
func NewLazy(name string, s Settings) (Lazy, error) {
	for _, e := range lazyEngines {
		if e.name == name {
			if err := s.check(); err != nil {
				return Lazy{}, err
			}
			l := e.build(s)
			l.name, l.doc = e.name, e.doc
			return l, nil
		}
	}
	return Lazy{}, fmt.Errorf("unknown lazy engine %q: the lazy engines are %s", name, List(LazyNames()))
}

// LazyNames returns the names of the lazy engines, MAP first.
func LazyNames() []string {
	names := make([]string, len(lazyEngines))
	for i, e := range lazyEngines {
		names[i] = e.name
	}
	return names
}
