package hybrid

import (
	"context"
	"math"
	"math/rand/v2"
)

// SampleOptions configures hybrid MC-SAT.
type SampleOptions struct {
	Seed    uint64
	Burn    int     // iterations discarded first (default 100)
	Samples int     // iterations recorded (default 1000)
	Width   float64 // initial width of the slice-sampling step-out (default 1)
	// Start, if set, is the initial state (default: the state MAP finds
	// with a few flips, so that the chain starts where the mass is).
	Start *State
	// Each, if set, is called with every recorded state (not to be kept).
	Each func(s *State)
}

// Marginals are the results of Sample.
type Marginals struct {
	True     []float64 // for each Boolean variable, the fraction of samples where it is true
	Mean     []float64 // for each continuous variable, its sample mean
	Variance []float64 // and its sample variance
	// Counts holds, for each template, the mean over the samples of the
	// sum of its ground feature values (the expected counts of learning).
	Counts []float64
}

// Sample runs hybrid MC-SAT. Each iteration draws, for every ground
// feature i with weighted value phi_i in the current state, a level
// phi_i + log(u), u uniform on (0, 1]; the new state is drawn from the
// states where every feature is at or above its level: the Boolean
// variables are flipped one by one in random order (a flip that takes a
// feature below its level is undone) and each continuous variable is moved
// by slice sampling with stepping-out and shrinkage (Neal 2003) on the set
// where its features are above their levels. This leaves the uniform
// distribution over that set invariant, so the chain's stationary
// distribution is the model's. For mixing, each iteration then also makes
// a Gibbs sweep over the Boolean variables and a slice-sampling step on
// each continuous variable's conditional distribution (both leave the
// model's distribution invariant too).
func (p *Problem) Sample(ctx context.Context, opt SampleOptions) (*Marginals, error) {
	if opt.Burn <= 0 {
		opt.Burn = 100
	}
	if opt.Samples <= 0 {
		opt.Samples = 1000
	}
	if opt.Width <= 0 {
		opt.Width = 1
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6879627269640002))
	var s State
	if opt.Start != nil {
		s = State{Bools: append([]bool(nil), opt.Start.Bools...), Reals: append([]float64(nil), opt.Start.Reals...)}
	} else {
		st, _, err := p.MAP(ctx, MAPOptions{Seed: opt.Seed, MaxFlips: 10 * len(p.Bools)})
		if err != nil {
			return nil, err
		}
		s = st
	}
	b, x := s.Bools, s.Reals
	res := &Marginals{
		True:     make([]float64, len(b)),
		Mean:     make([]float64, len(x)),
		Variance: make([]float64, len(x)),
		Counts:   make([]float64, len(p.Features)),
	}
	level := make([]float64, len(p.ground))
	m2 := make([]float64, len(x))
	order := make([]int32, max(len(b), len(x)))
	for it := 0; it < opt.Burn+opt.Samples; it++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for i := range p.ground {
			phi := p.Weights[p.ground[i].tmpl] * p.value(int32(i), b, x)
			level[i] = phi + math.Log(1-rng.Float64())
		}
		// Boolean variables.
		ord := order[:len(b)]
		for i := range ord {
			ord[i] = int32(i)
		}
		rng.Shuffle(len(ord), func(i, j int) { ord[i], ord[j] = ord[j], ord[i] })
		for _, v := range ord {
			b[v] = !b[v]
			if !p.above(p.boolOcc[v], level, b, x) {
				b[v] = !b[v]
			}
		}
		// Continuous variables.
		ord = order[:len(x)]
		for i := range ord {
			ord[i] = int32(i)
		}
		rng.Shuffle(len(ord), func(i, j int) { ord[i], ord[j] = ord[j], ord[i] })
		for _, v := range ord {
			p.slice(v, level, b, x, opt.Width, rng)
		}
		// Moves on the full conditionals, for mixing: a Gibbs sweep over
		// the Boolean variables and a slice-sampling step per continuous
		// variable with one level for the sum of its features.
		for v := range b {
			d := p.flipDelta(int32(v), b, x)
			if rng.Float64()*(1+math.Exp(-d)) < 1 {
				b[v] = !b[v]
			}
		}
		for _, v := range ord {
			p.sliceConditional(v, b, x, opt.Width, rng)
		}
		if it < opt.Burn {
			continue
		}
		n := float64(it - opt.Burn + 1)
		for i, t := range b {
			if t {
				res.True[i]++
			}
		}
		for i, v := range x {
			d := v - res.Mean[i]
			res.Mean[i] += d / n
			m2[i] += d * (v - res.Mean[i])
		}
		for i, c := range p.Counts(b, x) {
			res.Counts[i] += c
		}
		if opt.Each != nil {
			opt.Each(&State{Bools: b, Reals: x})
		}
	}
	n := float64(opt.Samples)
	for i := range res.True {
		res.True[i] /= n
	}
	for i := range res.Variance {
		if opt.Samples > 1 {
			res.Variance[i] = m2[i] / (n - 1)
		}
	}
	for i := range res.Counts {
		res.Counts[i] /= n
	}
	return res, nil
}

// above reports whether the features fs are all at or above their levels.
func (p *Problem) above(fs []int32, level []float64, b []bool, x []float64) bool {
	for _, f := range fs {
		if p.Weights[p.ground[f].tmpl]*p.value(f, b, x) < level[f] {
			return false
		}
	}
	return true
}

// conditional returns the log-weight of the features of continuous
// variable v.
func (p *Problem) conditional(v int32, b []bool, x []float64) float64 {
	s := 0.0
	for _, f := range p.realOcc[v] {
		s += p.Weights[p.ground[f].tmpl] * p.value(f, b, x)
	}
	return s
}

// sliceConditional moves continuous variable v by slice sampling its
// conditional distribution given the other variables.
func (p *Problem) sliceConditional(v int32, b []bool, x []float64, w float64, rng *rand.Rand) {
	level := p.conditional(v, b, x) + math.Log(1-rng.Float64())
	p.stepOut(v, x, w, rng, func() bool { return p.conditional(v, b, x) >= level })
}

// maxStepOut bounds the stepping-out of a slice-sampling step (in widths).
const maxStepOut = 64

// slice moves continuous variable v uniformly within the slice (the values
// where its features are above their levels), by stepping-out and
// shrinkage.
func (p *Problem) slice(v int32, level []float64, b []bool, x []float64, w float64, rng *rand.Rand) {
	fs := p.realOcc[v]
	p.stepOut(v, x, w, rng, func() bool { return p.above(fs, level, b, x) })
}

// stepOut moves x[v] uniformly within the slice {x[v]: in()} by
// stepping-out and shrinkage.
func (p *Problem) stepOut(v int32, x []float64, w float64, rng *rand.Rand, ok func() bool) {
	x0 := x[v]
	in := func(y float64) bool {
		x[v] = y
		return ok()
	}
	lo := x0 - w*rng.Float64()
	hi := lo + w
	j := rng.IntN(maxStepOut)
	k := maxStepOut - 1 - j
	for ; j > 0 && in(lo); j-- {
		lo -= w
	}
	for ; k > 0 && in(hi); k-- {
		hi += w
	}
	for range 200 {
		y := lo + rng.Float64()*(hi-lo)
		if in(y) {
			return
		}
		if y < x0 {
			lo = y
		} else {
			hi = y
		}
	}
	x[v] = x0
}
