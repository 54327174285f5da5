package hybrid

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

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
}

// MAP returns the most probable state found by hybrid MaxWalkSAT and its
// log-weight. Each try starts from random Boolean values, optimises the
// continuous variables for them (L-BFGS), then repeatedly picks a ground
// feature that a flip could improve (a Boolean feature that is false with a
// positive weight or true with a negative one; a hybrid feature whose
// weighted term would add to the score by becoming true, or is negative
// while true) and flips one of its Boolean atoms, at random with
// probability Noise and otherwise the best, re-optimising the continuous
// variables of the features it touches. It fails if the continuous part is
// unbounded (no maximum).
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
		clear(x)
		if err := p.optimizeReals(b, x); err != nil {
			return best, 0, err
		}
		w := p.logWeight(b, x)
		if w > bestW {
			bestW = w
			copy(best.Bools, b)
			copy(best.Reals, x)
		}
		for flip := 0; flip < opt.MaxFlips && len(b) > 0; flip++ {
			if flip%256 == 0 && ctx.Err() != nil {
				return best, bestW, ctx.Err()
			}
			cands := p.improvable(b, x)
			if len(cands) == 0 {
				break
			}
			f := cands[rng.IntN(len(cands))]
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
			b[v] = !b[v]
			if p.touchesReals(v) {
				if err := p.optimizeReals(b, x); err != nil {
					return best, 0, err
				}
			}
			if w := p.logWeight(b, x); w > bestW+1e-12 {
				bestW = w
				copy(best.Bools, b)
				copy(best.Reals, x)
			}
		}
	}
	return best, bestW, nil
}

// improvable returns the ground features with Boolean atoms whose value a
// flip could raise.
func (p *Problem) improvable(b []bool, x []float64) []int32 {
	var out []int32
	for i := range p.ground {
		gf := &p.ground[i]
		if gf.cond == nil {
			continue
		}
		w := p.Weights[gf.tmpl]
		t := 1.0
		if gf.term != nil {
			t = gf.term.eval(x)
		}
		if gf.cond.eval(b) {
			if w*t < 0 {
				out = append(out, int32(i))
			}
		} else if w*t > 0 {
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
	res, err := optimize.Minimize(optimize.Problem{Func: f, Grad: grad}, x, &optimize.Settings{
		GradientThreshold: 1e-10,
		MajorIterations:   10000,
	}, &optimize.LBFGS{})
	if res == nil {
		return fmt.Errorf("hybrid: optimising the continuous variables: %v", err)
	}
	for i, v := range res.X {
		if math.IsNaN(v) || math.Abs(v) > 1e12 || math.IsInf(res.F, -1) || res.F < -1e200 {
			return fmt.Errorf("hybrid: the log-weight has no maximum in %s (the continuous part is unbounded)", p.Model.AtomString(p.Reals[i].Pred, p.Reals[i].Args))
		}
	}
	copy(x, res.X)
	return nil
}
