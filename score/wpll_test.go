package score

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// pllCase is a random MLN ground with its query and open-world atoms
// unknown, and the brute-force view of the same problem.
type pllCase struct {
	c     *randmln.Case
	m     *mln.Model
	net   *ground.Network
	prob  *brute.Problem
	index []int // network atom -> brute atom
}

func loadPLLCase(t *testing.T, seed int64) *pllCase {
	t.Helper()
	c := randmln.Generate(seed)
	m, db, query, ow, err := c.Load()
	if err != nil {
		t.Fatalf("seed %d: %v\n%s", seed, err, c)
	}
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: query, OpenWorld: ow, Workers: 1})
	if err != nil {
		t.Fatalf("seed %d: %v\n%s", seed, err, c)
	}
	pc := &pllCase{c: c, m: m, net: net, prob: brute.NewProblem(m, db, append(slices.Clone(query), ow...))}
	for a := 0; a < net.NumAtoms(); a++ {
		i, ok := pc.prob.Index(net.AtomPred[a], net.AtomArgs[a])
		if !ok {
			t.Fatalf("seed %d: network atom %d is not unknown for brute force\n%s", seed, a, c)
		}
		pc.index = append(pc.index, i)
	}
	return pc
}

// bruteWPLL computes the WPLL and its gradient by flipping each included
// atom in the full world and evaluating every grounding of the model
// (hard groundings weigh hard).
func (pc *pllCase) bruteWPLL(t *testing.T, truth, include []bool, unweighted bool, hard float64) (float64, []float64) {
	m := pc.m
	world := make([]bool, len(pc.prob.Atoms))
	for a, i := range pc.index {
		world[i] = truth[a]
	}
	count := map[mln.PredID]int{}
	for a := range truth {
		if include == nil || include[a] {
			count[pc.net.AtomPred[a]]++
		}
	}
	grad := make([]float64, len(m.Weights))
	val := 0.0
	r1 := pc.prob.Eval(world)
	s1 := r1.Score - hard*float64(r1.HardViolated)
	for a := range truth {
		if include != nil && !include[a] {
			continue
		}
		c := 1.0
		if !unweighted {
			c = 1 / float64(count[pc.net.AtomPred[a]])
		}
		i := pc.index[a]
		world[i] = !world[i]
		r2 := pc.prob.Eval(world)
		world[i] = !world[i]
		s2 := r2.Score - hard*float64(r2.HardViolated)
		mx := math.Max(s1, s2)
		lse := mx + math.Log(math.Exp(s1-mx)+math.Exp(s2-mx))
		val += c * (s1 - lse)
		pFlip := math.Exp(s2 - lse)
		for key, n1 := range r1.Counts {
			d := n1 - r2.Counts[key]
			p, ok := m.Formulas[key.Formula].Params[key.Binding]
			if !ok {
				if math.Abs(d) > 1e-12 {
					t.Fatalf("seed %d: a binding without parameter changes count", pc.c.Seed)
				}
				continue
			}
			grad[p] += c * pFlip * d
		}
	}
	return val, grad
}

// TestWPLLMatchesBruteForce checks WPLL values and gradients against brute
// force (every atom flipped in the full world, every grounding of the
// first-order clauses evaluated) on 150 random MLNs with random weights,
// truth values, atom subsets, weighting and hard weights.
func TestWPLLMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for seed := int64(0); seed < 150; seed++ {
		pc := loadPLLCase(t, seed)
		n := pc.net.NumAtoms()
		if n == 0 {
			continue
		}
		for trial := 0; trial < 2; trial++ {
			w := make([]float64, len(pc.m.Weights))
			for i := range w {
				w[i] = 4*r.Float64() - 2
			}
			copy(pc.m.Weights, w) // brute force reads the model's weights
			truth := randomBools(r, n)
			var include []bool
			if trial == 1 {
				include = randomBools(r, n)
			}
			opt := PLLOptions{Unweighted: r.IntN(2) == 0, Workers: 1 + r.IntN(2)}
			hard := float64(DefaultHardWeight)
			if r.IntN(2) == 0 {
				opt.HardWeight, hard = 3.5, 3.5
			}
			p, err := NewWPLL(pc.net, truth, include, opt)
			if err != nil {
				t.Fatal(err)
			}
			if p.NumParams() > len(w) {
				t.Fatalf("seed %d: %d parameters, model %d", seed, p.NumParams(), len(w))
			}
			g := make([]float64, len(w))
			v := p.Eval(w, g)
			bv, bg := pc.bruteWPLL(t, truth, include, opt.Unweighted, hard)
			if math.Abs(v-bv) > 1e-9 {
				t.Fatalf("seed %d trial %d: WPLL %.12g, brute force %.12g\n%s", seed, trial, v, bv, pc.c)
			}
			for i := range g {
				if math.Abs(g[i]-bg[i]) > 1e-9 {
					t.Fatalf("seed %d trial %d: gradient[%d] %.12g, brute force %.12g\n%s", seed, trial, i, g[i], bg[i], pc.c)
				}
			}
			if v2 := p.Eval(w, nil); v2 != v {
				t.Fatalf("seed %d: value without gradient %v, with %v", seed, v2, v)
			}
			checked++
		}
	}
	if checked < 200 {
		t.Fatalf("only %d cases checked", checked)
	}
}

// TestWPLLHand checks a case computed by hand. Atoms S(A) (predicate 0),
// C(A) and C(B) (predicate 1); clauses ¬S(A) ∨ C(A) (parameter 0, weight
// 1.5) and S(A) (parameter 1, weight 0.5); truth S(A), ¬C(A), C(B).
//
//	S(A): flipping it satisfies the first clause and falsifies the unit:
//	      s = 0.5 − 1.5 = −1, log σ(−1) = −1.3132616875182228,
//	      ∂/∂w0 = σ(1)·(−1) = −0.7310585786300049, ∂/∂w1 = +0.7310585786300049.
//	C(A): flipping it satisfies the first clause: s = −1.5,
//	      log σ(−1.5) = −1.7014132779827524, ∂/∂w0 = −σ(1.5) = −0.8175744761936437.
//	C(B): in no clause: log σ(0) = −0.6931471805599453.
//
// Weighted (S counts 1, each C 1/2): −1.3132616875182228 −
// (1.7014132779827524 + 0.6931471805599453)/2 = −2.5105419167895716,
// gradient (−0.7310585786300049 − 0.8175744761936437/2, 0.7310585786300049)
// = (−1.1398458167268268, 0.7310585786300049).
func TestWPLLHand(t *testing.T) {
	net := ground.NewNetwork(0)
	s := net.AddAtom(0, []mln.ConstID{0})
	ca := net.AddAtom(1, []mln.ConstID{0})
	net.AddAtom(1, []mln.ConstID{1})
	net.AddClause([]ground.Lit{ground.MakeLit(s, true), ground.MakeLit(ca, false)}, 0, 0, 0, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(s, false)}, 0, 1, 1, 1)
	truth := []bool{true, false, true}
	w := []float64{1.5, 0.5}
	p, err := NewWPLL(net, truth, nil, PLLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, 2)
	v := p.Eval(w, g)
	if want := -2.5105419167895716; math.Abs(v-want) > 1e-14 {
		t.Errorf("WPLL %.17g, want %.17g", v, want)
	}
	if want := []float64{-1.1398458167268268, 0.7310585786300049}; math.Abs(g[0]-want[0]) > 1e-14 || math.Abs(g[1]-want[1]) > 1e-14 {
		t.Errorf("gradient %v, want %v", g, want)
	}
	pu, _ := NewWPLL(net, truth, nil, PLLOptions{Unweighted: true})
	v = pu.Eval(w, g)
	if want := -1.3132616875182228 - 1.7014132779827524 - 0.6931471805599453; math.Abs(v-want) > 1e-14 {
		t.Errorf("PLL %.17g, want %.17g", v, want)
	}
	if want := -0.7310585786300049 - 0.8175744761936437; math.Abs(g[0]-want) > 1e-14 {
		t.Errorf("PLL gradient %v, want %v", g[0], want)
	}
	// A hard unit clause ¬C(B): C(B) is true, the flip satisfies it, at
	// weight 2: s = −2.
	net.AddClause([]ground.Lit{ground.MakeLit(2, true)}, math.Inf(1), 2, -1, 1)
	ph, err := pu.Extend(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := NewWPLL(net, truth, nil, PLLOptions{Unweighted: true})
	if a, b := ph.Eval(w, nil), fresh.Eval(w, nil); a != b {
		t.Errorf("extended %v, rebuilt %v", a, b)
	}
	ph2, _ := NewWPLL(net, truth, nil, PLLOptions{Unweighted: true, HardWeight: 2})
	if got, want := ph2.Eval(w, nil), -1.3132616875182228-1.7014132779827524-2.1269280110429727; math.Abs(got-want) > 1e-14 {
		t.Errorf("with hard clause: %.17g, want %.17g", got, want)
	}
}

// TestWPLLExtendAndWorkers checks, on a large random network (several
// evaluation blocks), that the value and gradient do not depend on the
// number of workers, equal a direct per-atom computation from count
// differences, and that extending a WPLL by appended clauses equals
// building it from scratch.
func TestWPLLExtendAndWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const n, m, np = 20000, 60000, 40
	net := randomNetwork(r, n, m, np, false)
	truth := randomBools(r, n)
	w := make([]float64, np)
	for i := range w {
		w[i] = r.NormFloat64()
	}
	p1, err := NewWPLL(net, truth, nil, PLLOptions{Unweighted: true, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(p1.blocks) < 3 {
		t.Fatalf("only %d blocks", len(p1.blocks)-1)
	}
	p2 := *p1
	p2.opt.Workers = 2
	g1, g2 := make([]float64, np), make([]float64, np)
	v1, v2 := p1.Eval(w, g1), p2.Eval(w, g2)
	if v1 != v2 || !slices.Equal(g1, g2) {
		t.Fatalf("1 worker %v, 2 workers %v", v1, v2)
	}
	// Direct computation.
	var want float64
	wantG := make([]float64, np)
	flip := slices.Clone(truth)
	d := make([]float64, np)
	for a := 0; a < n; a++ {
		flip[a] = !flip[a]
		clear(d)
		net.CountDiff(truth, flip, []int32{int32(a)}, d)
		flip[a] = !flip[a]
		s := 0.0
		for q, v := range d {
			s += w[q] * v
		}
		want += logSigmoid(s)
		for q, v := range d {
			wantG[q] += v / (1 + math.Exp(s))
		}
	}
	if math.Abs(v1-want) > 1e-8*math.Abs(want) {
		t.Fatalf("WPLL %v, direct %v", v1, want)
	}
	for i := range g1 {
		if math.Abs(g1[i]-wantG[i]) > 1e-9*(1+math.Abs(wantG[i])) {
			t.Fatalf("gradient[%d] %v, direct %v", i, g1[i], wantG[i])
		}
	}
	// Extend by more clauses, a new parameter among them.
	for c := 0; c < 500; c++ {
		lits := []ground.Lit{ground.MakeLit(int32(r.IntN(n)), r.IntN(2) == 0), ground.MakeLit(int32(r.IntN(n)), r.IntN(2) == 0)}
		if c%50 == 0 {
			net.AddClause(lits, math.Inf(1), -1, -1, 1)
		} else {
			net.AddClause(lits, 0, 0, int32(r.IntN(np+1)), 1)
		}
	}
	w = append(w, 0.7)
	pe, err := p1.Extend(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pf, _ := NewWPLL(net, truth, nil, PLLOptions{Unweighted: true, Workers: 1})
	ge, gf := make([]float64, np+1), make([]float64, np+1)
	if ve, vf := pe.Eval(w, ge), pf.Eval(w, gf); ve != vf || !slices.Equal(ge, gf) || pe.NumParams() != np+1 {
		t.Fatalf("extended %v (%d parameters), rebuilt %v", ve, pe.NumParams(), vf)
	}
	if v := p1.Eval(w[:np], g1); v != v1 {
		t.Fatalf("Extend changed the original: %v, was %v", v, v1)
	}
}

// TestMaximize checks Maximize's option checks, that it reaches a
// stationary point, that a warm start there stays there, and that a
// cancelled context returns a fit with the context's error.
func TestMaximize(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	const n, np = 200, 5
	net := randomNetwork(r, n, 600, np, true)
	p, err := NewWPLL(net, randomBools(r, n), nil, PLLOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	ps := []*WPLL{p}
	for _, bad := range []FitOptions{{PriorStdDev: -1}, {MaxIter: -1}, {ConvThresh: 1}, {GradTol: math.NaN()}} {
		if fit, err := Maximize(ctx, ps, np, bad); err == nil || fit != nil {
			t.Fatalf("options %+v: no error", bad)
		}
	}
	if _, err := Maximize(ctx, ps, np-1, FitOptions{}); err == nil {
		t.Fatal("fewer parameters than the rows': no error")
	}
	if fit, err := Maximize(ctx, nil, 0, FitOptions{}); err != nil || fit.Status != "no parameters" || len(fit.Weights) != 0 {
		t.Fatalf("no parameters: %+v, %v", fit, err)
	}
	tight := FitOptions{ConvThresh: 1e-15, GradTol: 1e-9}
	fit, err := Maximize(ctx, ps, np, tight)
	if err != nil {
		t.Fatal(err)
	}
	if fit.GradNorm > 1e-6 || len(fit.Weights) != np {
		t.Fatalf("gradient %g, %d weights (%s)", fit.GradNorm, len(fit.Weights), fit.Status)
	}
	prec := 1.0 / (DefaultPLLPriorStdDev * DefaultPLLPriorStdDev)
	obj := p.Eval(fit.Weights, nil)
	for _, w := range fit.Weights {
		obj -= prec * w * w / 2
	}
	if math.Abs(obj-fit.Objective) > 1e-12*(1+math.Abs(obj)) {
		t.Fatalf("objective %v, weights give %v", fit.Objective, obj)
	}
	// Progress sees every iteration in order, the objective never
	// falling, and ends at the fit's.
	var iters []int
	var objs []float64
	tight.Progress = func(i int, o float64) { iters, objs = append(iters, i), append(objs, o) }
	if _, err := Maximize(ctx, ps, np, tight); err != nil {
		t.Fatal(err)
	}
	// (gonum counts the iteration that meets the convergence test without
	// recording it.)
	if len(iters) == 0 || len(iters) > fit.Iterations {
		t.Fatalf("progress: %d calls, %d iterations", len(iters), fit.Iterations)
	}
	for k, i := range iters {
		if i != k+1 || (k > 0 && objs[k] < objs[k-1]-1e-12) {
			t.Fatalf("progress: iterations %v, objectives %v", iters, objs)
		}
	}
	tight.Progress = nil
	tight.Warm = fit.Weights
	again, err := Maximize(ctx, ps, np, tight)
	if err != nil {
		t.Fatal(err)
	}
	if again.Objective < fit.Objective-1e-9 {
		t.Fatalf("warm start at the optimum: objective %v, was %v", again.Objective, fit.Objective)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if f, err := Maximize(cctx, ps, np, FitOptions{}); !errors.Is(err, context.Canceled) || f == nil {
		t.Fatalf("cancelled: %+v, %v", f, err)
	}
}

// TestMaximizeMeansShared checks prior means, shared parameters and
// Alchemy's L-BFGS-B schedule: both optimisers reach the same point, where
// each group's parameters are equal and the gradient of the objective in
// the groups' weights, computed from the rows' own gradient, vanishes.
func TestMaximizeMeansShared(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 8))
	const n, np = 300, 6
	net := randomNetwork(r, n, 900, np, true)
	p, err := NewWPLL(net, randomBools(r, n), nil, PLLOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	ps := []*WPLL{p}
	means := []float64{0.5, -1, 2, 0, 1, -0.5}
	shared := [][]int{{1, 4}, {0, 2, 5}}
	const sigma = 0.7
	var fits []*Fit
	for _, alch := range []bool{false, true} {
		fit, err := Maximize(ctx, ps, np, FitOptions{PriorStdDev: sigma, PriorMeans: means, Shared: shared,
			ConvThresh: 1e-15, GradTol: 1e-10, AlchemySchedule: alch})
		if err != nil {
			t.Fatal(err)
		}
		if fit.GradNorm > 1e-6 {
			t.Fatalf("alchemy %v: gradient %g (%s)", alch, fit.GradNorm, fit.Status)
		}
		w := fit.Weights
		if w[1] != w[4] || w[0] != w[2] || w[0] != w[5] {
			t.Fatalf("alchemy %v: shared parameters differ: %v", alch, w)
		}
		// The gradient in the groups' weights: v1 = w1+w4, v0 = w0+w2+w5,
		// v3 = w3.
		g := make([]float64, np)
		wpll := p.Eval(w, g)
		prior := 0.0
		for _, grp := range [][]int{{1, 4}, {0, 2, 5}, {3}} {
			v, mu, d := 0.0, 0.0, 0.0
			for _, q := range grp {
				v += w[q]
				mu += means[q]
				d += g[q] / float64(len(grp))
			}
			d -= (v - mu) / (sigma * sigma)
			prior += (v - mu) * (v - mu) / (2 * sigma * sigma)
			if math.Abs(d) > 1e-6 {
				t.Fatalf("alchemy %v: group %v: gradient %g", alch, grp, d)
			}
		}
		if obj := wpll - prior; math.Abs(obj-fit.Objective) > 1e-10 {
			t.Fatalf("alchemy %v: objective %v, weights give %v", alch, fit.Objective, obj)
		}
		fits = append(fits, fit)
	}
	for i := range fits[0].Weights {
		if math.Abs(fits[0].Weights[i]-fits[1].Weights[i]) > 1e-5 {
			t.Fatalf("gonum %v, Alchemy's schedule %v", fits[0].Weights, fits[1].Weights)
		}
	}
	// A tight prior holds each group's weight at its mean.
	fit, err := Maximize(ctx, ps, np, FitOptions{PriorStdDev: 1e-4, PriorMeans: means, Shared: shared, AlchemySchedule: true})
	if err != nil {
		t.Fatal(err)
	}
	for q, want := range []float64{2.0 / 3, 0, 2.0 / 3, 0, 0, 2.0 / 3} {
		if math.Abs(fit.Weights[q]-want) > 1e-3 {
			t.Fatalf("tight prior: weights %v", fit.Weights)
		}
	}
	for _, bad := range [][][]int{{{0, 0}}, {{1}, {1, 2}}, {{np}}} {
		if _, err := Maximize(ctx, ps, np, FitOptions{Shared: bad}); err == nil {
			t.Fatalf("groups %v: no error", bad)
		}
	}
}
