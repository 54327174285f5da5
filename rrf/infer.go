package rrf

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/marple-mln/marple/infer/mcsat"
)

// Defaults of Gibbs sampling and ICM.
const (
	DefaultSamples   = 1000 // recorded sweeps per chain
	DefaultBurnIn    = 100  // discarded sweeps per chain
	DefaultChains    = 4
	DefaultRestarts  = 10 // ICM starts: the all-false world, then random ones
	DefaultICMSweeps = 1000
)

// GibbsOptions control Gibbs sampling.
type GibbsOptions struct {
	Samples, BurnIn, Chains int // 0: the defaults
	Seed                    int64
	// Progress, if set, receives a line every ProgressEvery (0: 5 s) while
	// the chains run.
	Progress      io.Writer
	ProgressEvery time.Duration
}

// Marginals are the result of Gibbs sampling.
type Marginals struct {
	// P is every variable's probability of being true: the mean over the
	// chains' sweeps of its conditional probability given the rest
	// (Rao-Blackwellised).
	P []float64
	// Diag holds the chains' R-hat and effective sample size per atom.
	Diag *mcsat.Diagnostics
}

// Converged reports whether every atom's R-hat is at most
// mcsat.RhatThreshold.
func (r *Marginals) Converged() bool { return r.Diag.NumAbove == 0 }

// Summary describes the run in one phrase: chains, samples, the largest
// R-hat and the smallest ESS, and whether the chains converged.
func (r *Marginals) Summary() string {
	d := r.Diag
	s := fmt.Sprintf("Gibbs sampling, %d chains of %d samples, max R-hat %.3f, min ESS %.0f", d.Chains, d.Samples, d.MaxRhat, d.MinESS)
	if d.NumAbove > 0 {
		s += fmt.Sprintf(", NOT CONVERGED: %d atoms with R-hat above %g", d.NumAbove, d.Threshold)
	}
	return s
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// Gibbs estimates the marginals of the network's variables under weights w
// by Gibbs sampling: opt.Chains chains from random worlds, each sweep
// resampling every variable in turn from its conditional distribution. The
// result depends on opt.Seed and the number of chains only.
func Gibbs(ctx context.Context, n *Network, w []float64, opt GibbsOptions) (*Marginals, error) {
	if opt.Samples <= 0 {
		opt.Samples = DefaultSamples
	}
	if opt.BurnIn < 0 {
		opt.BurnIn = 0
	} else if opt.BurnIn == 0 {
		opt.BurnIn = DefaultBurnIn
	}
	if opt.Chains <= 0 {
		opt.Chains = DefaultChains
	}
	if opt.ProgressEvery <= 0 {
		opt.ProgressEvery = 5 * time.Second
	}
	nv := len(n.Atoms)
	rec := mcsat.NewTrace(opt.Chains, nv)
	done := make([]int, opt.Chains) // sweeps done, for progress
	var mu sync.Mutex
	stop := make(chan struct{})
	if opt.Progress != nil {
		go func() {
			t := time.NewTicker(opt.ProgressEvery)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					mu.Lock()
					tot := 0
					for _, d := range done {
						tot += d
					}
					mu.Unlock()
					fmt.Fprintf(opt.Progress, "rrf: Gibbs: %d of %d sweeps\n", tot, opt.Chains*(opt.Samples+opt.BurnIn))
				}
			}
		}()
	}
	var wg sync.WaitGroup
	errs := make([]error, opt.Chains)
	sem := make(chan struct{}, 2)
	for c := 0; c < opt.Chains; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			rng := rand.New(rand.NewPCG(uint64(opt.Seed), uint64(c)))
			x := make([]bool, nv)
			for a := range x {
				x[a] = rng.IntN(2) == 1
			}
			p := make([]float64, nv)
			for s := 0; s < opt.BurnIn+opt.Samples; s++ {
				if s%16 == 0 && ctx.Err() != nil {
					errs[c] = ctx.Err()
					return
				}
				for a := range x {
					p[a] = sigmoid(n.Delta(a, x, w))
					x[a] = rng.Float64() < p[a]
				}
				if s >= opt.BurnIn {
					rec.Add(c, p)
				}
				mu.Lock()
				done[c]++
				mu.Unlock()
			}
		}(c)
	}
	wg.Wait()
	close(stop)
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return &Marginals{P: rec.Marginals(), Diag: rec.Diagnostics()}, nil
}

// ICMOptions control iterated conditional modes.
type ICMOptions struct {
	// Restarts is the number of starts (0: DefaultRestarts): the all-false
	// world, then random worlds; the best local optimum is kept.
	Restarts int
	// MaxSweeps bounds the sweeps of one start (0: DefaultICMSweeps).
	MaxSweeps int
	Seed      int64
	// Progress, if set, receives a line about every 5 s while ICM runs.
	Progress io.Writer
}

// MAPResult is the result of ICM.
type MAPResult struct {
	X     []bool
	Score float64 // Σ_t w_t f_t(X)
	// Converged is set when every start reached a local optimum (no single
	// flip improves it) within MaxSweeps. ICM never proves a state optimal.
	Converged bool
	Restarts  int
}

// ICM finds a state of high probability by iterated conditional modes: from
// each start, every variable in turn is set to its more probable value given
// the rest, until a sweep changes nothing (a local optimum: no single flip
// improves the score).
func ICM(ctx context.Context, n *Network, w []float64, opt ICMOptions) (*MAPResult, error) {
	if opt.Restarts <= 0 {
		opt.Restarts = DefaultRestarts
	}
	if opt.MaxSweeps <= 0 {
		opt.MaxSweeps = DefaultICMSweeps
	}
	rng := rand.New(rand.NewPCG(uint64(opt.Seed), 0x1c3))
	best := &MAPResult{Score: math.Inf(-1), Converged: true, Restarts: opt.Restarts}
	nv := len(n.Atoms)
	last := time.Now()
	for r := 0; r < opt.Restarts; r++ {
		x := make([]bool, nv)
		if r > 0 {
			for a := range x {
				x[a] = rng.IntN(2) == 1
			}
		}
		conv := false
		for s := 0; s < opt.MaxSweeps && !conv; s++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if opt.Progress != nil && time.Since(last) >= 5*time.Second {
				last = time.Now()
				fmt.Fprintf(opt.Progress, "rrf: ICM: start %d of %d, sweep %d\n", r+1, opt.Restarts, s+1)
			}
			conv = true
			for a := range x {
				d := n.Delta(a, x, w)
				v := d > 0 || d == 0 && x[a]
				if v != x[a] {
					x[a] = v
					conv = false
				}
			}
		}
		best.Converged = best.Converged && conv
		if s := n.Score(x, w); s > best.Score {
			best.X, best.Score = x, s
		}
	}
	return best, nil
}

// MaxExactAtoms bounds the variables Exact enumerates.
const MaxExactAtoms = 24

// Exact computes the marginals and a most probable world by enumerating
// every world of the variables (at most MaxExactAtoms): the reference for
// tests.
func Exact(n *Network, w []float64) (p []float64, mapX []bool, logZ float64, err error) {
	nv := len(n.Atoms)
	if nv > MaxExactAtoms {
		return nil, nil, 0, fmt.Errorf("rrf: %d variables, more than the %d Exact enumerates", nv, MaxExactAtoms)
	}
	x := make([]bool, nv)
	scores := make([]float64, 1<<nv)
	best := math.Inf(-1)
	for i := range scores {
		for a := range x {
			x[a] = i>>a&1 == 1
		}
		scores[i] = n.Score(x, w)
		if scores[i] > best {
			best = scores[i]
			mapX = append(mapX[:0], x...)
		}
	}
	z := 0.0
	p = make([]float64, nv)
	for i, s := range scores {
		e := math.Exp(s - best)
		z += e
		for a := range p {
			if i>>a&1 == 1 {
				p[a] += e
			}
		}
	}
	for a := range p {
		p[a] /= z
	}
	return p, mapX, best + math.Log(z), nil
}
