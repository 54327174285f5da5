package hybrid

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/optimize"
)

// State is an assignment of the Problem's variables.
type State struct {
	Bools []bool
	Reals []float64
}

// MAPOptions configures hybrid MaxWalkSAT.
type MAPOptions struct {
	Seed     uint64
	Tries    int     // restarts (default 1)
	MaxFlips int     // Boolean flips per try (default 100 per Boolean variable, at least 1000)
	Noise    float64 // probability of a random flip in a chosen feature (default 0.2)
	// Start, if set, gives the Boolean values the first try starts from
	// (instead of random ones; the continuous variables are optimised for
	// them as in every try).
	Start []bool
}

// MAP returns the most probable state found by hybrid MaxWalkSAT and its
// log-weight. Each try starts from random Boolean values, optimises the
// continuous variables for them (L-BFGS), then repeatedly picks a ground
// feature that a flip could improve (a Boolean feature that is false with a
// positive weight or true with a negative one; a hybrid feature whose
// weighted term would add to the score by becoming true, or is negative
// while true) and flips one of its Boolean atoms, at random with
// probability Noise and otherwise the best, re-optimising the continuous
// variables of the features it touches; it ends by flipping, from the best
// state of the try, every Boolean variable whose flip raises the
// log-weight until none does. It fails if the continuous part is unbounded
// (no maximum).
func (p *Problem) MAP(ctx context.Context, opt MAPOptions) (State, float64, error) {
	if opt.Tries <= 0 {
		opt.Tries = 1
	}
	if opt.MaxFlips <= 0 {
		opt.MaxFlips = max(1000, 100*len(p.Bools))
	}
	if opt.Noise == 0 {
		opt.Noise = 0.2
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6879627269640001))
	best := State{Bools: make([]bool, len(p.Bools)), Reals: make([]float64, len(p.Reals))}
	bestW := math.Inf(-1)
	b := make([]bool, len(p.Bools))
	x := make([]float64, len(p.Reals))
	for try := 0; try < opt.Tries; try++ {
		for i := range b {
			b[i] = rng.IntN(2) == 1
		}
		if try == 0 && opt.Start != nil {
			copy(b, opt.Start)
		}
		clear(x)
		if err := p.optimizeReals(b, x); err != nil {
			return best, 0, err
		}
		w := p.logWeight(b, x) // the current state's, kept up to date
		if w > bestW {
			bestW = w
			copy(best.Bools, b)
			copy(best.Reals, x)
		}
		for flip := 0; flip < opt.MaxFlips && len(b) > 0; flip++ {
			if flip%256 == 0 && ctx.Err() != nil {
				return best, bestW, ctx.Err()
			}
			f, ok := p.pickImprovable(b, x, rng)
			if !ok {
				break
			}
			vars := p.ground[f].cond.vars(nil)
			var v int32
			if rng.Float64() < opt.Noise {
				v = vars[rng.IntN(len(vars))]
			} else {
				bestD := math.Inf(-1)
				for _, u := range vars {
					d := p.flipDelta(u, b, x)
					if d > bestD {
						bestD, v = d, u
					}
				}
			}
			if p.touchesReals(v) {
				b[v] = !b[v]
				if err := p.optimizeReals(b, x); err != nil {
					return best, 0, err
				}
				w = p.logWeight(b, x)
			} else {
				w += p.flipDelta(v, b, x)
				b[v] = !b[v]
			}
			if w > bestW+1e-12 {
				bestW = w
				copy(best.Bools, b)
				copy(best.Reals, x)
			}
		}
		// Finish at a local maximum: flip every Boolean variable that
		// raises the log-weight, sweeping until none does.
		copy(b, best.Bools)
		copy(x, best.Reals)
		if err := p.ascend(ctx, b, x); err != nil {
			return best, bestW, err
		}
		if w := p.logWeight(b, x); w > bestW+1e-12 {
			bestW = w
			copy(best.Bools, b)
			copy(best.Reals, x)
		}
	}
	return best, p.logWeight(best.Bools, best.Reals), nil
}

// ascend flips Boolean variables that raise the log-weight (re-optimising
// the continuous variables they touch) until none does.
func (p *Problem) ascend(ctx context.Context, b []bool, x []float64) error {
	for sweep := 0; sweep < 1000; sweep++ {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		improved := false
		for v := range b {
			if p.flipDelta(int32(v), b, x) <= 1e-12 {
				continue
			}
			b[v] = !b[v]
			improved = true
			if p.touchesReals(int32(v)) {
				if err := p.optimizeReals(b, x); err != nil {
					return err
				}
			}
		}
		if !improved {
			return nil
		}
	}
	return nil
}

// pickImprovable returns a ground feature that a flip could improve, at
// random: among up to 64 random draws, else among all.
func (p *Problem) pickImprovable(b []bool, x []float64, rng *rand.Rand) (int32, bool) {
	for range 64 {
		i := int32(rng.IntN(len(p.ground)))
		if p.isImprovable(i, b, x) {
			return i, true
		}
	}
	cands := p.improvable(b, x)
	if len(cands) == 0 {
		return 0, false
	}
	return cands[rng.IntN(len(cands))], true
}

// isImprovable reports whether a flip could raise ground feature i.
func (p *Problem) isImprovable(i int32, b []bool, x []float64) bool {
	gf := &p.ground[i]
	if gf.cond == nil {
		return false
	}
	t := 1.0
	if gf.term != nil {
		t = gf.term.eval(x)
	}
	wt := p.Weights[gf.tmpl] * t
	if gf.cond.eval(b) {
		return wt < 0
	}
	return wt > 0
}

// improvable returns the ground features with Boolean atoms whose value a
// flip could raise.
func (p *Problem) improvable(b []bool, x []float64) []int32 {
	var out []int32
	for i := range p.ground {
		if p.isImprovable(int32(i), b, x) {
			out = append(out, int32(i))
		}
	}
	return out
}

// flipDelta returns the change of the log-weight when Boolean variable v
// flips (the continuous variables fixed).
func (p *Problem) flipDelta(v int32, b []bool, x []float64) float64 {
	before := 0.0
	for _, f := range p.boolOcc[v] {
		before += p.Weights[p.ground[f].tmpl] * p.value(f, b, x)
	}
	b[v] = !b[v]
	after := 0.0
	for _, f := range p.boolOcc[v] {
		after += p.Weights[p.ground[f].tmpl] * p.value(f, b, x)
	}
	b[v] = !b[v]
	return after - before
}

func (p *Problem) touchesReals(v int32) bool {
	for _, f := range p.boolOcc[v] {
		if p.ground[f].term != nil && p.ground[f].term.op != 'c' {
			return true
		}
	}
	return false
}

// optimizeReals sets x to a maximum of the log-weight over the continuous
// variables for the Boolean values b (L-BFGS from x).
func (p *Problem) optimizeReals(b []bool, x []float64) error {
	if len(x) == 0 {
		return nil
	}
	var active []int32
	for i := range p.ground {
		gf := &p.ground[i]
		if gf.term != nil && gf.term.op != 'c' && (gf.cond == nil || gf.cond.eval(b)) {
			active = append(active, int32(i))
		}
	}
	f := func(y []float64) float64 {
		s := 0.0
		for _, i := range active {
			s -= p.Weights[p.ground[i].tmpl] * p.ground[i].term.eval(y)
		}
		return s
	}
	grad := func(g, y []float64) {
		clear(g)
		for _, i := range active {
			p.ground[i].term.grad(y, -p.Weights[p.ground[i].tmpl], g)
		}
	}
	settings := &optimize.Settings{GradientThreshold: 1e-10, MajorIterations: 10000}
	res, err := optimize.Minimize(optimize.Problem{Func: f, Grad: grad}, x, settings, &optimize.LBFGS{})
	if res == nil {
		return fmt.Errorf("hybrid: optimising the continuous variables: %v", err)
	}
	// A stationary point that is not a maximum (a flat start, a saddle):
	// start again from a nearby better point.
	for try := 0; ; try++ {
		y, better, bi := slices.Clone(res.X), false, 0
		for i := range y {
			bi = i
			for _, s := range []float64{1, -1} {
				old := y[i]
				y[i] = old + s*1e-3*(1+math.Abs(old))
				if f(y) < res.F-1e-12 {
					better = true
					break
				}
				y[i] = old
			}
			if better {
				break
			}
		}
		if !better {
			break
		}
		if try == 3 {
			return &unboundedError{msg: fmt.Sprintf("hybrid: the log-weight has no maximum in the continuous variables (it keeps growing from %s = %g)",
				p.Model.AtomString(p.Reals[bi].Pred, p.Reals[bi].Args), y[bi]), bools: slices.Clone(b), from: slices.Clone(res.X), to: y}
		}
		if res, err = optimize.Minimize(optimize.Problem{Func: f, Grad: grad}, y, settings, &optimize.LBFGS{}); res == nil {
			return fmt.Errorf("hybrid: optimising the continuous variables: %v", err)
		}
	}
	for i, v := range res.X {
		if math.IsNaN(v) || math.Abs(v) > 1e12 || math.IsInf(res.F, -1) || res.F < -1e200 {
			return &unboundedError{msg: fmt.Sprintf("hybrid: the log-weight has no maximum in %s (the continuous part is unbounded)", p.Model.AtomString(p.Reals[i].Pred, p.Reals[i].Args)),
				bools: slices.Clone(b), from: slices.Clone(x), to: slices.Clone(res.X)}
		}
	}
	copy(x, res.X)
	return nil
}

// unboundedError is the error of optimizeReals when the log-weight has no
// maximum in the continuous variables for the Boolean values bools: it
// grows from the point from towards the point to.
type unboundedError struct {
	msg      string
	bools    []bool
	from, to []float64
}

func (e *unboundedError) Error() string { return e.msg }
