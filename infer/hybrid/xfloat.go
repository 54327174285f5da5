package hybrid

import (
	"math"
	"math/big"
	"slices"
)

// xf is a float64 mantissa with an int exponent, m·2^e (m in [0.5, 1) or
// 0): the sums and products of numeric terms and weights in a range that
// does not overflow, used when float64 arithmetic gives an infinity or a
// NaN (a term like R^16 at R = 1e20, two weights of 1e308 added), so that
// the engines compare and sum such values correctly instead of meeting
// Inf − Inf.
type xf struct {
	m float64
	e int
}

func xfOf(v float64) xf {
	m, e := math.Frexp(v)
	return xf{m, e}
}

func (a xf) norm() xf {
	m, e := math.Frexp(a.m)
	if m == 0 {
		return xf{}
	}
	return xf{m, a.e + e}
}

func (a xf) mul(b xf) xf { return xf{a.m * b.m, a.e + b.e}.norm() }

func (a xf) neg() xf { return xf{-a.m, a.e} }

func (a xf) add(b xf) xf {
	if a.m == 0 {
		return b
	}
	if b.m == 0 {
		return a
	}
	if a.e < b.e {
		a, b = b, a
	}
	if a.e-b.e > 64 {
		return a
	}
	return xf{a.m + math.Ldexp(b.m, b.e-a.e), a.e}.norm()
}

func (a xf) pow(n int) xf {
	r := xf{0.5, 1} // 1
	for range n {
		r = r.mul(a)
	}
	return r
}

// float returns a as a float64: ±Inf beyond its range, 0 (or a
// subnormal) below it.
func (a xf) float() float64 {
	if a.m == 0 {
		return 0
	}
	if a.e > 1100 {
		return math.Inf(int(math.Copysign(1, a.m)))
	}
	if a.e < -1100 {
		return 0
	}
	return math.Ldexp(a.m, a.e)
}

// finite reports whether v is neither infinite nor NaN.
func finite(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }

// evalX evaluates e at x in the extended range.
func (e *nexpr) evalX(x []float64) xf {
	switch e.op {
	case 'c':
		return xfOf(e.val)
	case 'x':
		return xfOf(x[e.v])
	case '+':
		return e.x.evalX(x).add(e.y.evalX(x))
	case '-':
		return e.x.evalX(x).add(e.y.evalX(x).neg())
	case '*':
		return e.x.evalX(x).mul(e.y.evalX(x))
	case 'n':
		return e.x.evalX(x).neg()
	}
	return e.x.evalX(x).pow(e.exp)
}

// safeEval evaluates e at x: in float64 when that is finite, else in the
// extended range, rounded to float64 (±Inf when beyond it, never NaN).
func (e *nexpr) safeEval(x []float64) float64 {
	if v := e.eval(x); finite(v) {
		return v
	}
	return e.evalX(x).float()
}

// weighted returns the weighted value of soft ground feature i (weight
// times indicator times term) in state (b, x): 0 when the weight is 0,
// whatever the term, and never NaN.
func (p *Problem) weighted(i int32, b []bool, x []float64) float64 {
	gf := &p.ground[i]
	w := p.Weights[gf.tmpl]
	if w == 0 || gf.cond != nil && !gf.cond.eval(b) {
		return 0
	}
	if gf.term == nil {
		return w
	}
	if v := w * gf.term.eval(x); finite(v) {
		return v
	}
	return xfOf(w).mul(gf.term.evalX(x)).float()
}

// weightedX is weighted in the extended range.
func (p *Problem) weightedX(i int32, b []bool, x []float64) xf {
	gf := &p.ground[i]
	w := p.Weights[gf.tmpl]
	if w == 0 || gf.cond != nil && !gf.cond.eval(b) {
		return xf{}
	}
	if gf.term == nil {
		return xfOf(w)
	}
	return xfOf(w).mul(gf.term.evalX(x))
}

// sumWeighted returns the sum of the weighted values of the soft ground
// features fs (all of them when fs is nil) in state (b, x): in float64,
// or, when that overflows, in the extended range (±Inf only when the sum
// itself is beyond float64's range, never NaN).
func (p *Problem) sumWeighted(fs []int32, all bool, b []bool, x []float64) float64 {
	s := 0.0
	if all {
		for i := range p.ground {
			if !p.ground[i].hard {
				s += p.weighted(int32(i), b, x)
			}
		}
	} else {
		for _, i := range fs {
			if !p.ground[i].hard {
				s += p.weighted(i, b, x)
			}
		}
	}
	if finite(s) {
		return s
	}
	return p.sumWeightedX(fs, all, b, x).float()
}

// sumWeightedX is sumWeighted in the extended range.
func (p *Problem) sumWeightedX(fs []int32, all bool, b []bool, x []float64) xf {
	var s xf
	n := len(fs)
	if all {
		n = len(p.ground)
	}
	for k := range n {
		i := int32(k)
		if !all {
			i = fs[k]
		}
		if !p.ground[i].hard {
			s = s.add(p.weightedX(i, b, x))
		}
	}
	return s
}

// scaleAbove is the largest weight magnitude the engines use as it is:
// above it, MAP and Sample divide every weight by the power of two of the
// largest (see scaled).
const scaleAbove = 0x1p64

// scaled returns p, or, when a weight's magnitude exceeds scaleAbove, a
// copy of p whose weights are divided by 2^k, the power of two of the
// largest (exactly, each a power-of-two shift), with wexp = k: the
// log-weights the engines sum and compare are then those of the copy, so
// that two weights of 1e308 add without overflowing and the gradients of
// the continuous optimisation stay finite. The Sample code converts its
// levels (log u) and Gibbs probabilities to these units by wexp.
func (p *Problem) scaled() *Problem {
	top := 0.0
	for i, w := range p.Weights {
		if i < len(p.Features) && p.Features[i].Hard {
			continue
		}
		top = max(top, math.Abs(w))
	}
	if top <= scaleAbove {
		return p
	}
	_, k := math.Frexp(top)
	q := *p
	q.Weights = make([]float64, len(p.Weights))
	for i, w := range p.Weights {
		q.Weights[i] = math.Ldexp(w, -k)
	}
	q.wexp = p.wexp + k
	return &q
}

// FormatLogWeight formats the log-weight of state s (the sum of the
// weighted values of the soft ground features) with six significant
// digits, summed in an extended range so that a value beyond float64's
// (weights near 1e308) is still written as a number.
func (p *Problem) FormatLogWeight(s State) string {
	v := p.sumWeightedX(nil, true, s.Bools, s.Reals)
	if v.m == 0 {
		return "0"
	}
	f := new(big.Float).SetMantExp(big.NewFloat(v.m), v.e)
	return f.Text('g', 6)
}

// consts appends the numbers of e (each once).
func (e *nexpr) consts(out []float64) []float64 {
	if e == nil {
		return out
	}
	if e.op == 'c' {
		if !slices.Contains(out, e.val) {
			out = append(out, e.val)
		}
		return out
	}
	return e.y.consts(e.x.consts(out))
}
