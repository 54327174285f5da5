// Package lbg is lifted blocked Gibbs sampling (Venugopal and Gogate,
// "On Lifting the Gibbs Sampling Algorithm", NIPS 2012; Alchemy 2.0's
// liftedinfer -lvg, -cls, -lvgc): Gibbs sampling whose blocks are the
// ground atoms of clusters of first-order atoms, each block sampled
// jointly and exactly from its distribution given the rest of the world.
//
// The clusters start as one per predicate and are merged pair by pair
// (sequentially, the most coupled pair first, or in a random order) as
// long as a sweep over the blocks costs at most a factor (Alchemy's
// -bmf, 1.25) times a sweep of propositional Gibbs sampling; a clustering
// is written and read as Alchemy's cluster files (ReadClusterFile,
// WriteClusterFile). A block is sampled by splitting it on a small cutset
// and enumerating each of the components it leaves (see block.go), so
// that a block of one atom and the n atoms only it ties together costs
// O(n); a block of interchangeable atoms (every pair tied alike) is
// sampled by counting (symmetric.go). The sampler runs on the ground
// network: its cost grows with the blocks' atoms.
//
// Several chains run from different worlds; the marginals are the
// Rao-Blackwellised averages (each block's exact conditional marginals),
// with split R-hat, ESS and standard errors computed as MC-SAT's
// (mcsat.Trace).
package lbg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/mcsat"
)

// Defaults, as Alchemy's liftedinfer (MCMC: 1000 samples after 100
// burn-in sweeps, as Marple's other samplers).
const (
	DefaultSamples = mcsat.DefaultSamples
	DefaultBurnIn  = mcsat.DefaultBurnIn
)

// Options configure Run. Zero values select the defaults.
type Options struct {
	infer.Options
	// Samples is the number of sweeps each chain records, after BurnIn
	// sweeps it discards (negative BurnIn: none).
	Samples, BurnIn int
	// Chains is the number of chains (0: mcsat.DefaultChains()), run
	// Workers at a time (0: GOMAXPROCS); the marginals for a seed do not
	// depend on Workers.
	Chains, Workers int
	// MaxTime stops the chains when it has passed, with the samples they
	// drew (the same number for each), and Result.Stopped says so.
	MaxTime time.Duration
	// Merges, when not nil, is the clustering to sample with (Alchemy's
	// -ic cluster file). Otherwise Cluster builds one (Alchemy's -lvgc)
	// by Mode within BMF (0: DefaultBMF), or, when Cluster is false, the
	// initial clusters are used (one per predicate).
	Merges  []Merge
	Cluster bool
	Mode    Mode
	BMF     float64
	// Progress, when not nil, receives a line every ProgressEvery while
	// the chains run, and one per merge while clustering.
	Progress io.Writer
}

// ProgressEvery is how often Run reports on Options.Progress.
const ProgressEvery = 5 * time.Second

// Result is what Run computed.
type Result struct {
	// Marginals are the atoms' estimated probabilities of being true.
	Marginals []float64
	// Diagnostics are the chains' convergence figures (R-hat, ESS,
	// standard errors) per atom, summarized over all atoms.
	Diagnostics *mcsat.Diagnostics
	// Plan is the clustering sampled with and its blocks.
	Plan *Plan
	// Stopped is set when MaxTime ended the run before Samples sweeps.
	Stopped bool
}

// Cluster builds a clustering of net by mode within bmf (0: DefaultBMF),
// its randomness from seed; progress, when not nil, receives a line per
// merge.
func Cluster(ctx context.Context, net *ground.Network, mode Mode, bmf float64, seed int64, progress io.Writer) (*Plan, error) {
	if bmf <= 0 {
		bmf = DefaultBMF
	}
	var say func(string)
	if progress != nil {
		say = func(s string) { fmt.Fprintln(progress, "clustering: "+s) }
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6c6267))
	return newPlanner(net).cluster(ctx, mode, bmf, rng, say)
}

// Apply returns the plan of the clustering made by merges on net.
func Apply(ctx context.Context, net *ground.Network, merges []Merge) (*Plan, error) {
	p := newPlanner(net)
	c := initial(p.names)
	for i, m := range merges {
		if err := c.apply(m); err != nil {
			return nil, fmt.Errorf("cluster merge %d (level %d): %v", i+1, m.Level, err)
		}
	}
	return p.plan(ctx, c, 0)
}

// Run runs lifted blocked Gibbs sampling on net.
func Run(ctx context.Context, net *ground.Network, opt Options) (*Result, error) {
	if err := infer.CheckWeights(net, opt.Bias); err != nil {
		return nil, err
	}
	if opt.Samples < 0 || opt.Chains < 0 || opt.Workers < 0 || opt.MaxTime < 0 || opt.BMF < 0 {
		return nil, fmt.Errorf("lbg: Samples %d, Chains %d, Workers %d, MaxTime %v, BMF %v", opt.Samples, opt.Chains, opt.Workers, opt.MaxTime, opt.BMF)
	}
	samples, burn, chains, workers := opt.Samples, opt.BurnIn, opt.Chains, opt.Workers
	if samples == 0 {
		samples = DefaultSamples
	}
	switch {
	case burn == 0:
		burn = DefaultBurnIn
	case burn < 0:
		burn = 0
	}
	if chains == 0 {
		chains = mcsat.DefaultChains()
	}
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	n := net.NumAtoms()
	if n > 0 {
		net.Occurrences(0) // builds the index before the goroutines read it
	}
	var plan *Plan
	var err error
	switch {
	case opt.Merges != nil:
		plan, err = Apply(ctx, net, opt.Merges)
	case opt.Cluster:
		plan, err = Cluster(ctx, net, opt.Mode, opt.BMF, opt.Seed, opt.Progress)
	default:
		plan, err = Apply(ctx, net, nil)
	}
	if err != nil {
		return nil, err
	}
	// Chains start from worlds satisfying the hard clauses: random ones
	// when there are none, else the one the exact check finds.
	var start []bool
	for c := range net.NumClauses() {
		if net.IsHard(c) {
			hc, err := infer.CheckHard(ctx, net)
			if err != nil {
				return nil, err
			}
			start = hc.World
			break
		}
	}
	tr := mcsat.NewTrace(chains, n)
	var (
		mu       sync.Mutex
		limit    = samples
		reserved = make([]int, chains)
		sweeps   = make([]atomic.Int64, chains)
		deadline time.Time
	)
	if opt.MaxTime > 0 {
		deadline = time.Now().Add(opt.MaxTime)
	}
	// next reserves chain's next recorded sample, or reports that the
	// chain is done; at the deadline every chain stops at the number of
	// samples the furthest has reserved.
	next := func(chain int) bool {
		mu.Lock()
		defer mu.Unlock()
		if !deadline.IsZero() && limit == samples && time.Now().After(deadline) {
			limit = 0
			for _, r := range reserved {
				limit = max(limit, r)
			}
		}
		if reserved[chain] >= limit {
			return false
		}
		reserved[chain]++
		return true
	}
	stop := make(chan struct{})
	if opt.Progress != nil {
		go func() {
			t := time.NewTicker(ProgressEvery)
			defer t.Stop()
			begin := time.Now()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					done := int64(0)
					for i := range sweeps {
						done += sweeps[i].Load()
					}
					fmt.Fprintf(opt.Progress, "lifted blocked Gibbs: %d of %d sweeps (%d chains x %d burn-in + %d samples), %s elapsed\n",
						done, int64(chains*(burn+samples)), chains, burn, samples, time.Since(begin).Round(time.Second))
				}
			}
		}()
	}
	defer close(stop)
	errs := make([]error, chains)
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for ch := range chains {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[ch] = runChain(ctx, plan, n, start, opt, ch, burn, tr, &sweeps[ch], next, deadline)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if tr.Samples(0) == 0 {
		return nil, fmt.Errorf("lifted blocked Gibbs: no sample drawn within the time limit %v (burn-in %d sweeps)", opt.MaxTime, burn)
	}
	return &Result{Marginals: tr.Marginals(), Diagnostics: tr.Diagnostics(), Plan: plan, Stopped: tr.Samples(0) < samples}, nil
}

// runChain runs chain ch: burn sweeps, then one recorded sweep per
// sample next grants.
func runChain(ctx context.Context, plan *Plan, n int, start []bool, opt Options, ch, burn int, tr *mcsat.Trace, sweeps *atomic.Int64, next func(int) bool, deadline time.Time) error {
	rng := rand.New(rand.NewPCG(uint64(opt.Seed), uint64(ch)+1))
	y := make([]bool, n)
	if start != nil {
		copy(y, start)
	} else {
		for a := range y {
			y[a] = rng.IntN(2) == 1
		}
	}
	rb := make([]float64, n)
	s := &sampler{bias: opt.Bias}
	sweep := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, b := range plan.blocks {
			if !b.sample(y, rng, s, rb) {
				return fmt.Errorf("lifted blocked Gibbs: a block has no possible assignment (the hard clauses)")
			}
		}
		sweeps.Add(1)
		return nil
	}
	for range burn {
		if !deadline.IsZero() && time.Now().After(deadline) {
			break
		}
		if err := sweep(); err != nil {
			return err
		}
	}
	for next(ch) {
		if err := sweep(); err != nil {
			return err
		}
		tr.Add(ch, rb)
	}
	return nil
}

// Engine is Run as an infer.Marginal. Each call replaces the
// infer.Options part of Options (bias and seed). Report, when set,
// receives each call's result.
type Engine struct {
	Options Options
	Report  func(*Result)
}

// Name returns "lbg".
func (e Engine) Name() string { return "lbg" }

// Marginals returns the marginal probability of each atom of net being
// true.
func (e Engine) Marginals(ctx context.Context, net *ground.Network, opt infer.Options) ([]float64, error) {
	o := e.Options
	o.Options = opt
	r, err := Run(ctx, net, o)
	if err != nil {
		return nil, err
	}
	if e.Report != nil {
		e.Report(r)
	}
	return r.Marginals, nil
}

// Memory is the memory Run takes on top of the network: per atom, each
// chain's world, Rao-Blackwellised values and batch sums (mcsat.Trace);
// per literal, the blocks' copies of the clauses.
func Memory(chains int) ground.EngineCost {
	if chains <= 0 {
		chains = mcsat.DefaultChains()
	}
	return ground.EngineCost{PerAtom: float64(chains) * (1 + 8 + 2*17*8 + 8), PerLit: 3 * 4, PerClause: 3 * 64}
}
