package hybrid

import (
	"context"
	"errors"
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

// HardFirst is the probability with which a step of hybrid MaxWalkSAT
// repairs a violated ground hard formula, when there is one, rather than
// improving a soft feature.
const HardFirst = 0.9

// MAP returns the most probable state found by hybrid MaxWalkSAT and its
// log-weight (the weighted sum of the soft feature values). Each try
// starts from random Boolean values, optimises the continuous variables
// for them (L-BFGS), then repeatedly picks a ground feature that a flip
// could improve and flips one of its Boolean atoms, at random with
// probability Noise and otherwise the best, re-optimising the continuous
// variables of the features it touches; it ends by flipping, from the best
// state of the try, every Boolean variable whose flip improves the state
// until none does.
//
// Hard formulas are constraints, compared before the log-weight: a state
// violating fewer ground hard formulas is better. While some are violated,
// a step repairs one of them with probability HardFirst (its best flip is
// the one leaving the fewest violated, then the highest log-weight);
// otherwise a step improves a soft feature (a Boolean feature that is
// false with a positive weight or true with a negative one; a hybrid
// feature whose weighted term would add to the score by becoming true, or
// is negative while true), its best flip leaving the fewest hard formulas
// violated, then the highest log-weight.
//
// The log-weight is ±Inf when it is beyond float64's range (weights near
// 1e308): FormatLogWeight writes it; the search itself compares
// log-weights in units of the largest weight and sums overflowing terms
// in an extended range, so the state is right.
//
// When the best state found violates a ground hard formula, MAP returns it
// with an error wrapping ErrHard (Problem.HardViolated counts them). It
// fails if the continuous part is unbounded (no maximum).
//
// A continuous variable that no soft feature with a non-zero weight
// constrains, in the model or given the Boolean values of the state found,
// has a flat conditional density, which has no normalisation: MAP refuses
// such a model (an error wrapping ErrImproper naming the atom) rather than
// return an arbitrary value for it.
func (p *Problem) MAP(ctx context.Context, opt MAPOptions) (State, float64, error) {
	if err := p.checkProper(nil); err != nil {
		return State{}, 0, err
	}
	s, w, err := p.search(ctx, opt)
	if err == nil || errors.Is(err, ErrHard) {
		if err := p.checkProper(s.Bools); err != nil {
			return s, w, err
		}
	}
	return s, w, err
}

// search is MAP without the checks for flat densities (for the learners'
// inference, where a variable that no weight constrains yet is at any
// value a maximum).
func (p *Problem) search(ctx context.Context, opt MAPOptions) (State, float64, error) {
	q := p.scaled()
	s, w, err := q.mapScaled(ctx, opt)
	return s, math.Ldexp(w, q.wexp), err
}

// mapScaled is MAP on p as it is (its log-weights in p's units).
func (p *Problem) mapScaled(ctx context.Context, opt MAPOptions) (State, float64, error) {
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
	bestW, bestH := math.Inf(-1), math.MaxInt
	b := make([]bool, len(p.Bools))
	x := make([]float64, len(p.Reals))
	// better reports whether (h, w) beats the best state.
	// better reports whether (h, w) beats the best state: by more than
	// 1e-12 in log-weight (in p's units, which may be scaled).
	eps := math.Ldexp(1e-12, -p.wexp)
	better := func(h int, w float64) bool { return h < bestH || h == bestH && w > bestW+eps }
	keep := func(h int, w float64) {
		bestW, bestH = w, h
		copy(best.Bools, b)
		copy(best.Reals, x)
	}
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
		h := p.HardViolated(b)
		if better(h, w) {
			keep(h, w)
		}
		for flip := 0; flip < opt.MaxFlips && len(b) > 0; flip++ {
			if flip%256 == 0 && ctx.Err() != nil {
				return best, bestW, ctx.Err()
			}
			var f int32
			ok := false
			if h > 0 && (rng.Float64() < HardFirst) {
				f, ok = p.pickViolatedHard(b, rng)
			}
			if !ok {
				if f, ok = p.pickImprovable(b, x, rng); !ok && h > 0 {
					f, ok = p.pickViolatedHard(b, rng)
				}
			}
			if !ok {
				break
			}
			vars := p.gvars[f]
			var v int32
			if rng.Float64() < opt.Noise {
				v = vars[rng.IntN(len(vars))]
			} else {
				// The atom whose flip leaves the fewest hard formulas
				// violated, then raises the log-weight most. A soft step
				// may still break a hard formula when every atom of its
				// feature does: the next steps repair it, which lets the
				// walk move atoms that hard formulas tie together.
				bestD, bestHD := math.Inf(-1), math.MaxInt
				for _, u := range vars {
					hd := p.hardDelta(u, b)
					d := p.flipDelta(u, b, x)
					if hd < bestHD || hd == bestHD && d > bestD {
						bestD, bestHD, v = d, hd, u
					}
				}
			}
			h += p.hardDelta(v, b)
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
			if better(h, w) {
				keep(h, w)
			}
		}
		// Finish at a local maximum: flip every Boolean variable that
		// improves the state, sweeping until none does.
		copy(b, best.Bools)
		copy(x, best.Reals)
		if err := p.ascend(ctx, b, x); err != nil {
			return best, bestW, err
		}
		if h, w := p.HardViolated(b), p.logWeight(b, x); better(h, w) {
			keep(h, w)
		}
	}
	w := p.logWeight(best.Bools, best.Reals)
	if h := p.HardViolated(best.Bools); h > 0 {
		return best, w, fmt.Errorf("%w: the best state found violates %d of %d ground hard formulas", ErrHard, h, len(p.hard))
	}
	return best, w, nil
}

// ascend flips Boolean variables that improve the state (fewer violated
// hard formulas, or as many and a higher log-weight), re-optimising the
// continuous variables they touch, until none does.
func (p *Problem) ascend(ctx context.Context, b []bool, x []float64) error {
	for sweep := 0; sweep < 1000; sweep++ {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		improved := false
		for v := range b {
			hd := p.hardDelta(int32(v), b)
			if hd > 0 || hd == 0 && p.flipDelta(int32(v), b, x) <= math.Ldexp(1e-12, -p.wexp) {
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

// pickViolatedHard returns a violated ground hard formula, at random:
// among up to 64 random draws, else among all.
func (p *Problem) pickViolatedHard(b []bool, rng *rand.Rand) (int32, bool) {
	if len(p.hard) == 0 {
		return 0, false
	}
	for range 64 {
		i := p.hard[rng.IntN(len(p.hard))]
		if !p.ground[i].cond.eval(b) {
			return i, true
		}
	}
	var cands []int32
	for _, i := range p.hard {
		if !p.ground[i].cond.eval(b) {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return 0, false
	}
	return cands[rng.IntN(len(cands))], true
}

// pickImprovable returns a soft ground feature that a flip could improve,
// at random: among up to 64 random draws, else among all.
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

// isImprovable reports whether a flip could raise soft ground feature i.
func (p *Problem) isImprovable(i int32, b []bool, x []float64) bool {
	gf := &p.ground[i]
	if gf.cond == nil || gf.hard {
		return false
	}
	t := 1.0
	if gf.term != nil {
		t = gf.term.safeEval(x)
	}
	wt := p.Weights[gf.tmpl] * t
	if wt == 0 || math.IsNaN(wt) {
		return false
	}
	if gf.cond.eval(b) {
		return wt < 0
	}
	return wt > 0
}

// improvable returns the soft ground features with Boolean atoms whose
// value a flip could raise.
func (p *Problem) improvable(b []bool, x []float64) []int32 {
	var out []int32
	for i := range p.ground {
		if p.isImprovable(int32(i), b, x) {
			out = append(out, int32(i))
		}
	}
	return out
}

// hardDelta returns the change of the number of violated ground hard
// formulas when Boolean variable v flips.
func (p *Problem) hardDelta(v int32, b []bool) int {
	d := 0
	for _, f := range p.boolOcc[v] {
		if gf := &p.ground[f]; gf.hard {
			before := gf.cond.eval(b)
			b[v] = !b[v]
			after := gf.cond.eval(b)
			b[v] = !b[v]
			switch {
			case before && !after:
				d++
			case !before && after:
				d--
			}
		}
	}
	return d
}

// flipDelta returns the change of the log-weight (of the soft features)
// when Boolean variable v flips (the continuous variables fixed).
func (p *Problem) flipDelta(v int32, b []bool, x []float64) float64 {
	fs := p.boolOcc[v]
	before := p.sumWeighted(fs, false, b, x)
	b[v] = !b[v]
	after := p.sumWeighted(fs, false, b, x)
	if finite(before) && finite(after) {
		b[v] = !b[v]
		return after - before
	}
	ax := p.sumWeightedX(fs, false, b, x)
	b[v] = !b[v]
	return ax.add(p.sumWeightedX(fs, false, b, x).neg()).float()
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
	top := 0.0
	for i := range p.ground {
		gf := &p.ground[i]
		if gf.term != nil && gf.term.op != 'c' && (gf.cond == nil || gf.cond.eval(b)) {
			active = append(active, int32(i))
			top = max(top, math.Abs(p.Weights[gf.tmpl]))
		}
	}
	// The optimisation's tolerances are absolute: when the largest weight
	// of the active features is far from 1 (tiny beside a weight of 1e300
	// that scaled the Problem, or huge), divide them by its power of two.
	if top > 0 && (top > scaleAbove || top < 1/scaleAbove) {
		_, k := math.Frexp(top)
		q := *p
		q.Weights = make([]float64, len(p.Weights))
		for i, w := range p.Weights {
			q.Weights[i] = math.Ldexp(w, -k)
		}
		p = &q
	}
	// The log-weight, summed without overflow (sumWeighted): a point
	// where it is -Inf (a term beyond float64's range) is one the line
	// search backs off from; +Inf (no maximum) ends the search, and the
	// checks below report it.
	f := func(y []float64) float64 {
		return -p.sumWeighted(active, false, b, y)
	}
	grad := func(g, y []float64) {
		clear(g)
		for _, i := range active {
			if w := p.Weights[p.ground[i].tmpl]; w != 0 {
				p.ground[i].term.grad(y, -w, g)
			}
		}
		// An overflowing derivative (far from any maximum) is kept
		// finite: the line search only needs its direction.
		for i, v := range g {
			switch {
			case math.IsNaN(v):
				g[i] = 0
			case math.IsInf(v, 0):
				g[i] = math.Copysign(math.MaxFloat64/float64(4*len(g)), v)
			}
		}
	}
	settings := &optimize.Settings{GradientThreshold: 1e-10, MajorIterations: 10000}
	bound := 1e12 * p.maxConst // farther, a variable has run off to infinity
	// L-BFGS; when its line search fails (a high power far from 1 makes
	// the function badly scaled: -(R-1)^16 + R^15), Nelder-Mead from where
	// it stopped, then L-BFGS again from there, keeping the best point.
	minimize := func(y []float64) (*optimize.Result, error) {
		res, err := optimize.Minimize(optimize.Problem{Func: f, Grad: grad}, y, settings, &optimize.LBFGS{})
		if res == nil || res.Status != optimize.Failure {
			return res, err
		}
		// A line search that fails at a maximum (rounding) is fine: only
		// a steep point is searched further.
		g := make([]float64, len(y))
		grad(g, res.X)
		steep := false
		for i, v := range g {
			steep = steep || math.Abs(v)*(1+math.Abs(res.X[i])) > 1e-6*(1+math.Abs(res.F))
		}
		if !steep {
			return res, err
		}
		nm, _ := optimize.Minimize(optimize.Problem{Func: f}, res.X, &optimize.Settings{FuncEvaluations: 2000 + 200*len(y)}, &optimize.NelderMead{})
		if nm == nil || !(nm.F < res.F) || slices.ContainsFunc(nm.X, func(v float64) bool { return !(math.Abs(v) <= bound) }) {
			return res, err // (an unbounded direction is reported from L-BFGS's point)
		}
		if again, _ := optimize.Minimize(optimize.Problem{Func: f, Grad: grad}, nm.X, settings, &optimize.LBFGS{}); again != nil && again.F <= nm.F {
			return again, nil
		}
		return nm, nil
	}
	start := x
	if !finite(f(x)) {
		start = p.coarseStart(active, b, x)
	}
	res, err := minimize(start)
	if res == nil {
		return fmt.Errorf("hybrid: optimising the continuous variables: %v", err)
	}
	if math.IsInf(res.F, 1) {
		i := int32(0) // a variable of a feature beyond the range
		for _, f := range active {
			if math.IsInf(p.weighted(f, b, res.X), 0) {
				i = p.ground[f].term.vars(nil)[0]
				break
			}
		}
		return fmt.Errorf("hybrid: the log-weight is below float64's range (a numeric term beyond ±1.8e308) wherever the optimisation of the continuous variables went (%s = %g)",
			p.Model.AtomString(p.Reals[i].Pred, p.Reals[i].Args), res.X[i])
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
		if res, err = minimize(y); res == nil {
			return fmt.Errorf("hybrid: optimising the continuous variables: %v", err)
		}
	}
	for i, v := range res.X {
		if math.IsNaN(v) || math.Abs(v) > bound || math.IsInf(res.F, -1) || res.F < -1e200 {
			return &unboundedError{msg: fmt.Sprintf("hybrid: the log-weight has no maximum in %s (the continuous part is unbounded)", p.Model.AtomString(p.Reals[i].Pred, p.Reals[i].Args)),
				bools: slices.Clone(b), from: slices.Clone(x), to: slices.Clone(res.X)}
		}
	}
	copy(x, res.X)
	return nil
}

// coarseStart returns a start for the optimisation of the continuous
// variables when their log-weight at x is beyond float64's range (a term
// (R - 1e200)^2 at R = 0, whose gradient the line search cannot follow):
// two sweeps of a coordinate search that sets each variable to the best
// of its value, 0 and the numbers of its active features' terms (and
// their negatives), comparing log-weights in the extended range.
func (p *Problem) coarseStart(active []int32, b []bool, x []float64) []float64 {
	y := slices.Clone(x)
	isActive := make(map[int32]bool, len(active))
	for _, i := range active {
		isActive[i] = true
	}
	score := func() xf { return p.sumWeightedX(active, false, b, y) }
	for range 2 {
		for v := range y {
			var cands []float64
			for _, f := range p.realOcc[v] {
				if isActive[f] {
					cands = p.ground[f].term.consts(cands)
				}
			}
			best, bestV := score(), y[v]
			for _, c := range append(cands, 0) {
				for _, s := range []float64{c, -c} {
					y[v] = s
					if sc := score(); sc.add(best.neg()).m > 0 {
						best, bestV = sc, s
					}
				}
			}
			y[v] = bestV
		}
	}
	return y
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
