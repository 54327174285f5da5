package hybrid

import (
	"context"
	"errors"
	"fmt"
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

// Sample runs hybrid MC-SAT. Each iteration draws, for every soft ground
// feature i with weighted value phi_i in the current state, a level
// phi_i + log(u), u uniform on (0, 1]; the new state is drawn from the
// states where every soft feature is at or above its level and every
// ground hard formula holds. The Boolean variables move by a SampleSAT-like
// chain on the Boolean states (see samplesat.go: Metropolis-Hastings moves
// that may leave the slice and are watched only when back in it, so that
// atoms tied by hard formulas move together), and each continuous variable
// by slice sampling with stepping-out and shrinkage (Neal 2003) on the set
// where its features are above their levels. This leaves the uniform
// distribution over that set invariant, so the chain's stationary
// distribution is the model's, with the hard formulas exact. For mixing,
// each iteration then also makes a Gibbs sweep over the Boolean variables
// (a flip that would violate a hard formula has probability 0) and a
// slice-sampling step on each continuous variable's conditional
// distribution (both leave the model's distribution invariant too).
//
// The chain starts from Start or from a state MAP finds; if that state
// violates a ground hard formula, WalkSAT on the hard formulas repairs it
// first, and Sample fails (ErrHard) when it cannot. A continuous variable
// that no soft feature with a non-zero weight constrains, in the model or
// in a Boolean state the chain reaches, has a flat density, which cannot
// be normalised: Sample fails with an error wrapping ErrImproper naming it.
// The weights are scaled as MAP's are when one exceeds 2^64 (the levels
// and Gibbs log-odds converted to those units).
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
	if err := p.checkProper(nil); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6879627269640002))
	var s State
	if opt.Start != nil {
		s = State{Bools: append([]bool(nil), opt.Start.Bools...), Reals: append([]float64(nil), opt.Start.Reals...)}
	} else {
		st, _, err := p.search(ctx, MAPOptions{Seed: opt.Seed, MaxFlips: 10 * len(p.Bools)})
		if err != nil && !errors.Is(err, ErrHard) {
			return nil, err
		}
		s = st
	}
	// The levels and the sums below are in the units of the scaled
	// weights (scaled): log u and the Gibbs log-odds are converted.
	p = p.scaled()
	b, x := s.Bools, s.Reals
	if len(b) != len(p.Bools) || len(x) != len(p.Reals) {
		return nil, fmt.Errorf("hybrid: the start state has %d Boolean and %d continuous values for %d and %d variables", len(b), len(x), len(p.Bools), len(p.Reals))
	}
	if math.IsInf(p.logWeight(b, x), -1) {
		return nil, fmt.Errorf("hybrid: the start state's log-weight is below float64's range (a numeric term beyond ±1.8e308)")
	}
	if p.HardViolated(b) > 0 && !p.satisfyHard(b, rng, max(100_000, 1000*len(b)), 0.5) {
		return nil, fmt.Errorf("%w: WalkSAT left %d of %d ground hard formulas violated", ErrHard, p.HardViolated(b), len(p.hard))
	}
	res := &Marginals{
		True:     make([]float64, len(b)),
		Mean:     make([]float64, len(x)),
		Variance: make([]float64, len(x)),
		Counts:   make([]float64, len(p.Features)),
	}
	level := make([]float64, len(p.ground))
	m2 := make([]float64, len(x))
	order := make([]int32, len(x))
	mover := p.newBoolMover(rng, level)
	for it := 0; it < opt.Burn+opt.Samples; it++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for i := range p.ground {
			if p.ground[i].hard {
				continue
			}
			level[i] = p.weighted(int32(i), b, x) + math.Ldexp(math.Log(1-rng.Float64()), -p.wexp)
		}
		// Boolean variables: one watched move per variable, at least 16
		// (cheap on small problems, and it lets tied atoms mix there).
		mover.move(max(len(b), 16), b, x)
		// Continuous variables.
		ord := order[:len(x)]
		for i := range ord {
			ord[i] = int32(i)
		}
		rng.Shuffle(len(ord), func(i, j int) { ord[i], ord[j] = ord[j], ord[i] })
		for _, v := range ord {
			if !p.constrained(v, b) {
				return nil, p.improper(v, b)
			}
			p.slice(v, level, b, x, opt.Width, rng)
		}
		// Moves on the full conditionals, for mixing: a Gibbs sweep over
		// the Boolean variables and a slice-sampling step per continuous
		// variable with one level for the sum of its features.
		for v := range b {
			if len(p.hard) > 0 && p.breaksHard(int32(v), b) {
				continue
			}
			d := math.Ldexp(p.flipDelta(int32(v), b, x), p.wexp)
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

// breaksHard reports whether flipping Boolean variable v violates a ground
// hard formula (b satisfying them all).
func (p *Problem) breaksHard(v int32, b []bool) bool {
	b[v] = !b[v]
	defer func() { b[v] = !b[v] }()
	for _, f := range p.boolOcc[v] {
		if gf := &p.ground[f]; gf.hard && !gf.cond.eval(b) {
			return true
		}
	}
	return false
}

// above reports whether the features fs are all at or above their levels.
func (p *Problem) above(fs []int32, level []float64, b []bool, x []float64) bool {
	for _, f := range fs {
		if p.weighted(f, b, x) < level[f] {
			return false
		}
	}
	return true
}

// conditional returns the log-weight of the features of continuous
// variable v.
func (p *Problem) conditional(v int32, b []bool, x []float64) float64 {
	return p.sumWeighted(p.realOcc[v], false, b, x)
}

// sliceConditional moves continuous variable v by slice sampling its
// conditional distribution given the other variables.
func (p *Problem) sliceConditional(v int32, b []bool, x []float64, w float64, rng *rand.Rand) {
	level := p.conditional(v, b, x) + math.Ldexp(math.Log(1-rng.Float64()), -p.wexp)
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
