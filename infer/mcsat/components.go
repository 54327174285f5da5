package mcsat

import (
	"context"
	"math"
	"runtime"
	"sync"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// Sampler is MCSAT or Gibbs.
type Sampler func(ctx context.Context, net *ground.Network, opt Options) ([]float64, error)

// Components runs sampler on each connected component of net on its own,
// workers at a time (0: GOMAXPROCS), and returns the marginals of all of
// net's atoms. Components share no clause, so their atoms are independent
// and the marginals are those of the whole network; each chain only has to
// mix over its own component. Component k is sampled with seed
// opt.Seed+k, so the result does not depend on workers. An atom in no
// clause gets its probability in closed form from its bias (0.5 without),
// and a component of at most Options.ExactAtoms atoms its exact marginals
// by enumeration.
func Components(ctx context.Context, net *ground.Network, workers int, opt Options, sampler Sampler) ([]float64, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	probs := make([]float64, net.NumAtoms())
	comps := net.Components()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     = make(chan int)
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				c := comps[k]
				if len(c.Clauses) == 0 {
					for _, a := range c.Atoms {
						b := 0.0
						if opt.Bias != nil {
							b = opt.Bias[a]
						}
						probs[a] = 1 / (1 + math.Exp(-b))
					}
					continue
				}
				if p, ok := enumerateMarginals(net, c, opt.Bias, exactLimit(opt)); ok {
					for i, a := range c.Atoms {
						probs[a] = p[i]
					}
					continue
				}
				sub := net.Sub(c)
				o := opt
				o.Seed = opt.Seed + int64(k)
				if opt.Bias != nil {
					o.Bias = make([]float64, len(c.Atoms))
					for i, a := range c.Atoms {
						o.Bias[i] = opt.Bias[a]
					}
				}
				p, err := sampler(ctx, sub, o)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					continue
				}
				for i, a := range c.Atoms {
					probs[a] = p[i]
				}
			}
		}()
	}
	for k := range comps {
		if ctx.Err() != nil {
			break
		}
		next <- k
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return probs, nil
}

// Engine is MC-SAT, or Gibbs sampling, as an infer.Marginal: Marginals
// samples each connected component of the network apart, Workers at a
// time (0: GOMAXPROCS), with Options, whose infer.Options part each call
// replaces (see Components).
type Engine struct {
	// Gibbs selects Gibbs sampling instead of MC-SAT.
	Gibbs   bool
	Options Options
	Workers int
}

// Name returns "mcsat" or "gibbs".
func (e Engine) Name() string {
	if e.Gibbs {
		return "gibbs"
	}
	return "mcsat"
}

// Marginals returns the marginal probability of each atom of net being
// true, with the engine's options and the call's bias and seed.
func (e Engine) Marginals(ctx context.Context, net *ground.Network, opt infer.Options) ([]float64, error) {
	o := e.Options
	o.Options = opt
	sampler := MCSAT
	if e.Gibbs {
		sampler = Gibbs
	}
	return Components(ctx, net, e.Workers, o, sampler)
}

// exactLimit is the largest component whose marginals are enumerated
// (Options.ExactAtoms with its default; 0 for none).
func exactLimit(opt Options) int {
	switch {
	case opt.ExactAtoms == 0:
		return DefaultExactAtoms
	case opt.ExactAtoms < 0:
		return 0
	}
	return opt.ExactAtoms
}
