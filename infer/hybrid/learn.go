package hybrid

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
	"gonum.org/v1/gonum/mat"
)

// MaxStep bounds the change of one weight in one step of Learn.
const MaxStep = 5.0

// LearnOptions configures Learn.
type LearnOptions struct {
	// Query lists the predicates to predict (Boolean or real-valued): the
	// conditional log-likelihood is of their atoms given the rest of each
	// database.
	Query      []mln.PredID
	Iterations int     // gradient steps (default 100)
	Burn       int     // MC-SAT iterations discarded per step (default 10)
	Samples    int     // MC-SAT iterations per step (default 50)
	Sigma      float64 // standard deviation of the Gaussian prior on the weights, centred on 0 (default 10)
	Seed       uint64
	// Log, if set, is called after each step with the step number and the
	// largest weight change.
	Log func(iter int, maxChange float64)
}

// Learn fits the weights of the model's features (Problem.Features order;
// hard formulas are not learned: they stay constraints, which the samples
// satisfy, and their entries hold HardWeight) to the databases, maximising the
// conditional log-likelihood of the query atoms given the other atoms,
// with a Gaussian prior. The feature value of a grounding is its formula's
// indicator times its numeric term; the gradient for a weight is the
// feature's count in the data minus its expected count, estimated by
// hybrid MC-SAT chains that continue from step to step. Each step is a
// Newton step, the Hessian being the sample covariance of the counts plus
// the prior's (and a ridge of 1e-4 times the sum of the squared terms of
// each feature's groundings), shortened to at most 2 in the Hessian's norm
// and MaxStep in each weight. It returns the weights.
//
// The weights start at 0, except those of the features over real-valued
// query atoms (at weight 0 their density is flat, and the chains would
// have nothing to sample): see startWeights.
func Learn(ctx context.Context, m *mln.Model, dbs []*mln.Database, opt LearnOptions) ([]float64, error) {
	if opt.Iterations <= 0 {
		opt.Iterations = 100
	}
	if opt.Burn <= 0 {
		opt.Burn = 10
	}
	if opt.Samples <= 0 {
		opt.Samples = 50
	}
	if opt.Sigma <= 0 {
		opt.Sigma = 10
	}
	ground, err := groundExamples(ctx, m, dbs, opt.Query)
	if err != nil {
		return nil, err
	}
	// Features whose ground values reach 2^21 or stay below 2^-20 are learned in
	// rescaled units (featureScales): u = w·2^k against counts times
	// 2^-k, so that their counts, squares and covariances stay finite.
	ks := featureScales(ground)
	type example struct {
		p     *Problem
		data  []float64
		scale []float64
		state State
	}
	var exs []example
	for _, g := range ground {
		s := g.truth
		exs = append(exs, example{p: g.p, data: g.p.countsScaled(s.Bools, s.Reals, ks), scale: g.p.squares(s.Reals, ks), state: s})
	}
	feats := exs[0].p.Features
	k := len(feats)
	for e := range exs {
		for i := range k {
			if !finite(exs[e].data[i]) || !finite(exs[e].scale[i]) {
				return nil, fmt.Errorf("%s: the feature's count in training database %d is beyond float64's range", feats[i].Pos, e+1)
			}
		}
	}
	// w: the weights (hard ones at HardWeight), u: the free ones in the
	// rescaled units the steps are taken in.
	w := append([]float64(nil), exs[0].p.Weights...)
	u := make([]float64, k)
	start := startWeights(ground)
	for i, f := range feats {
		if !f.Hard {
			w[i] = start[i]
			u[i] = math.Ldexp(start[i], ks[i])
		}
	}
	// The slice sampler's step: the spread of the real-valued query atoms
	// in the data when it is above 1.
	width := 1.0
	{
		n, sum, sum2 := 0.0, 0.0, 0.0
		for _, ex := range exs {
			for _, x := range ex.state.Reals {
				n, sum, sum2 = n+1, sum+x, sum2+x*x
			}
		}
		if n > 1 {
			if sd := math.Sqrt(max(sum2/n-(sum/n)*(sum/n), 0)); finite(sd) {
				width = max(width, sd)
			}
		}
	}
	scale := make([]float64, k)
	for _, ex := range exs {
		for i, v := range ex.scale {
			scale[i] += v
		}
	}
	prior := make([]float64, k) // 1/σ² in the rescaled units
	for i := range k {
		prior[i] = math.Ldexp(1/(opt.Sigma*opt.Sigma), -2*ks[i])
	}
	for it := 0; it < opt.Iterations; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		grad := make([]float64, k)
		hess := mat.NewSymDense(k, nil) // the counts' covariance: the CLL's negative Hessian
		for e := range exs {
			ex := &exs[e]
			copy(ex.p.Weights, w)
			sum := make([]float64, k)
			sum2 := mat.NewSymDense(k, nil)
			n := 0
			counts := make([]float64, k)
			_, err := ex.p.Sample(ctx, SampleOptions{
				Seed: opt.Seed + uint64(it*len(exs)+e), Burn: opt.Burn, Samples: opt.Samples, Start: &ex.state, Width: width,
				Each: func(s *State) {
					c := ex.p.countsScaled(s.Bools, s.Reals, ks)
					for i := range k {
						sum[i] += c[i]
						counts[i] += c[i]
					}
					sum2.SymRankOne(sum2, 1, mat.NewVecDense(k, c))
					copy(ex.state.Bools, s.Bools)
					copy(ex.state.Reals, s.Reals)
					n++
				},
			})
			if err != nil {
				return nil, err
			}
			for i := range k {
				grad[i] += ex.data[i] - counts[i]/float64(n)
				for j := i; j < k; j++ {
					cov := sum2.At(i, j)/float64(n) - sum[i]*sum[j]/float64(n*n)
					hess.SetSym(i, j, hess.At(i, j)+cov)
				}
			}
		}
		// A Newton step on the free weights, with the prior and a small
		// ridge (relative to each feature's scale) keeping the system
		// positive definite; the step is shortened to at most 2 in the
		// norm of the Hessian and MaxStep in each weight.
		var free []int
		for i := range k {
			if !feats[i].Hard {
				free = append(free, i)
			}
		}
		for _, i := range free {
			if !finite(grad[i]) || !finite(hess.At(i, i)) {
				return nil, fmt.Errorf("%s: learning diverged at step %d: the feature's expected count under the weights reached is beyond float64's range (the numeric terms' values are too spread for the samples)", feats[i].Pos, it+1)
			}
		}
		nf := len(free)
		h := mat.NewSymDense(max(nf, 1), nil)
		g := mat.NewVecDense(max(nf, 1), nil)
		for a, i := range free {
			g.SetVec(a, grad[i]-u[i]*prior[i])
			for b := a; b < nf; b++ {
				v := hess.At(i, free[b])
				if a == b {
					v += prior[i] + 1e-4*scale[i]
				}
				h.SetSym(a, b, v)
			}
		}
		d := make([]float64, nf)
		var chol mat.Cholesky
		if nf > 0 && chol.Factorize(h) {
			var dv mat.VecDense
			if err := chol.SolveVecTo(&dv, g); err == nil {
				for a := range d {
					d[a] = dv.AtVec(a)
				}
			}
		} else {
			for a := range d {
				d[a] = g.AtVec(a) / h.At(a, a)
			}
		}
		var hd mat.VecDense
		dv := mat.NewVecDense(max(nf, 1), append(d, make([]float64, max(nf, 1)-nf)...))
		hd.MulVec(h, dv)
		shrink := 1.0
		if q := math.Sqrt(max(0, mat.Dot(dv, &hd))); q > 2 {
			shrink = 2 / q
		}
		for a := range d {
			if math.Abs(d[a]*shrink) > MaxStep {
				shrink = MaxStep / math.Abs(d[a])
			}
		}
		maxChange := 0.0
		for a, i := range free {
			u[i] += shrink * d[a]
			if !finite(u[i]) {
				return nil, fmt.Errorf("%s: learning diverged at step %d: the weight is not a finite number", feats[i].Pos, it+1)
			}
			w[i] = math.Ldexp(u[i], -ks[i])
			maxChange = max(maxChange, math.Abs(shrink*d[a]))
		}
		if opt.Log != nil {
			opt.Log(it+1, maxChange)
		}
	}
	for i, f := range feats {
		if !f.Hard && !representable(u[i], w[i], ks[i]) {
			return nil, fmt.Errorf("%s: the learned weight %g·2^%d is beyond float64's range (the feature's values reach 2^%d)", f.Pos, u[i], -ks[i], ks[i])
		}
	}
	return w, nil
}

// WriteModel writes the model in Alchemy syntax with the given weights
// (one per feature of m.Features, in order): its declarations and Boolean
// formulas as mln.WriteModel writes them, then its hybrid formulas. It sets
// the weights of m's Boolean formulas.
func WriteModel(out io.Writer, m *mln.Model, weights []float64) error {
	fs, err := m.Features()
	if err != nil {
		return err
	}
	if len(fs) != len(weights) {
		return fmt.Errorf("hybrid: %d weights for %d features", len(weights), len(fs))
	}
	for i, f := range fs {
		if f.Decl != nil || f.Hard {
			continue
		}
		if len(f.Plus) > 0 {
			m.Weights[m.Param(f.Formula, f.PlusConsts)] = weights[i] // written once per binding
			continue
		}
		fm := m.Formulas[f.Formula]
		fm.Weight, fm.HasWeight = weights[i], true
		if p, ok := fm.Params[""]; ok {
			m.Weights[p] = weights[i]
		}
	}
	if err := mln.WriteModel(out, m); err != nil {
		return err
	}
	bw := bufio.NewWriter(out)
	for i, f := range fs {
		if f.Decl == nil {
			continue
		}
		d := *f.Decl
		if len(f.Plus) > 0 {
			b, err := bindPlus(m, f.Decl, f)
			if err != nil {
				return err
			}
			d = *b
		}
		d.Weight, d.HasWeight = weights[i], true
		if err := syntax.Fprint(bw, &d); err != nil {
			return err
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// squares returns, for each template, the sum over its ground features of
// the square of the numeric term (1 for a Boolean feature) times 2^-ks
// with the continuous variables at x.
func (p *Problem) squares(x []float64, ks []int) []float64 {
	out := make([]float64, len(p.Features))
	for i := range p.ground {
		gf := &p.ground[i]
		t := 1.0
		if gf.term != nil {
			t = p.scaledTerm(gf, x, ks[gf.tmpl])
		}
		out[gf.tmpl] += t * t
	}
	return out
}

// scaledTerm returns the term of ground feature gf at x times 2^-k,
// evaluated in the extended range when float64 overflows.
func (p *Problem) scaledTerm(gf *gfeat, x []float64, k int) float64 {
	if v := gf.term.eval(x); finite(v) {
		return math.Ldexp(v, -k)
	}
	v := gf.term.evalX(x)
	v.e -= k
	return v.float()
}

// countsScaled is Counts with each template's values times 2^-ks.
func (p *Problem) countsScaled(b []bool, x []float64, ks []int) []float64 {
	n := make([]float64, len(p.Features))
	for i := range p.ground {
		gf := &p.ground[i]
		if gf.cond != nil && !gf.cond.eval(b) {
			continue
		}
		if gf.term == nil {
			n[gf.tmpl] += math.Ldexp(1, -ks[gf.tmpl])
			continue
		}
		n[gf.tmpl] += p.scaledTerm(gf, x, ks[gf.tmpl])
	}
	return n
}

// featureScales returns, for each template, the power of two its values
// are divided by while learning: 0 when the largest magnitude of its
// ground values in the data is in [2^-20, 2^21), else that
// magnitude's power of two (rescaling a feature by a power of two is
// exact, and changes only the prior's and MaxStep's units).
func featureScales(exs []example) []int {
	k := len(exs[0].p.Features)
	top := make([]xf, k)
	for _, ex := range exs {
		p := ex.p
		for i := range p.ground {
			gf := &p.ground[i]
			if gf.term == nil || gf.cond != nil && !gf.cond.eval(ex.truth.Bools) {
				continue
			}
			v := gf.term.evalX(ex.truth.Reals)
			v.m = math.Abs(v.m)
			if v.m != 0 && (top[gf.tmpl].m == 0 || v.add(top[gf.tmpl].neg()).m > 0) {
				top[gf.tmpl] = v
			}
		}
	}
	ks := make([]int, k)
	for t, v := range top {
		if v.m != 0 && (v.e > 21 || v.e < -19) {
			ks[t] = v.e
		}
	}
	return ks
}

// startWeights returns the weights Learn starts from: 0, except for a
// feature whose groundings (those the training data makes true) have
// continuous variables (real-valued query atoms). Such a feature starts at
// the weight that gives a Gaussian-like term the spread of the data: with
// s² the variance of the variables' values in the data and c the
// feature's mean curvature along them (minus half the second difference
// of its value when all the variables of a grounding move by ±s, over
// s²), the weight 1/(2·c·s²) when c > 0 (so that w·(-(X - m)^2) starts at
// 1/(2 s²), the likelihood's maximum when m is the mean); 0 when the
// term is not concave there (c ≤ 0), its weight then starting at 0.
func startWeights(exs []example) []float64 {
	k := len(exs[0].p.Features)
	out := make([]float64, k)
	var n, sum, sum2 = make([]float64, k), make([]float64, k), make([]float64, k)
	for _, ex := range exs {
		p := ex.p
		for i := range p.ground {
			gf := &p.ground[i]
			if gf.hard || gf.term == nil || gf.cond != nil && !gf.cond.eval(ex.truth.Bools) {
				continue
			}
			for _, v := range gf.term.vars(nil) {
				x := ex.truth.Reals[v]
				n[gf.tmpl]++
				sum[gf.tmpl] += x
				sum2[gf.tmpl] += x * x
			}
		}
	}
	s2 := make([]float64, k)
	for t := range k {
		if n[t] == 0 {
			continue
		}
		mean := sum[t] / n[t]
		s2[t] = max(sum2[t]/n[t]-mean*mean, 0)
		if !(s2[t] > 0) || !finite(s2[t]) {
			s2[t] = max(1, mean*mean) * 1e-6
		}
	}
	curv, groundings := make([]float64, k), make([]float64, k)
	for _, ex := range exs {
		p := ex.p
		x := slices.Clone(ex.truth.Reals)
		for i := range p.ground {
			gf := &p.ground[i]
			t := gf.tmpl
			if gf.hard || gf.term == nil || n[t] == 0 || gf.cond != nil && !gf.cond.eval(ex.truth.Bools) {
				continue
			}
			vars := gf.term.vars(nil)
			if len(vars) == 0 {
				continue
			}
			d := math.Sqrt(s2[t])
			at := func(shift float64) float64 {
				for _, v := range vars {
					x[v] = ex.truth.Reals[v] + shift
				}
				return gf.term.safeEval(x)
			}
			c := (at(d) + at(-d) - 2*at(0)) / s2[t]
			at(0)
			if finite(c) {
				curv[t] += c
				groundings[t]++
			}
		}
	}
	for t := range k {
		if groundings[t] == 0 {
			continue
		}
		if c := -curv[t] / (2 * groundings[t]); c > 0 {
			if w := 1 / (2 * c * s2[t]); finite(w) {
				out[t] = w
			}
		}
	}
	return out
}

// representable reports whether w = u·2^-k lost no more than 1e-9 of u's
// value to float64's range (an overflow, or an underflow past the
// subnormals' precision).
func representable(u, w float64, k int) bool {
	return finite(w) && math.Abs(math.Ldexp(w, k)-u) <= 1e-9*math.Abs(u)
}
