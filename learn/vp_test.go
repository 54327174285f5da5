package learn

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// vpBrute is an infer.MAP by enumeration.
type vpBrute struct{}

func (vpBrute) Name() string { return "brute" }

func (vpBrute) Solve(_ context.Context, net *ground.Network, opt infer.Options) (*infer.Result, error) {
	y, _, h := brute.MAPBias(net, opt.Bias)
	return &infer.Result{Assign: y, HardViolated: h, Optimal: true}, nil
}

// counts returns the model-parameter counts of world y in net.
func vpCounts(net *ground.Network, np int, y []bool) []float64 {
	n := make([]float64, np)
	for c := 0; c < net.NumClauses(); c++ {
		if p := net.Param(c); p >= 0 && net.Satisfied(c, y) {
			n[p] += net.Coef(c)
		}
	}
	return n
}

// TestVPUpdateIsCountDifference checks on random MLNs that one iteration
// of VotedPerceptron (η = 1, no prior, no per-weight rates) moves the
// weights by n(truth) − n(MAP), the MAP state found by enumeration.
func TestVPUpdateIsCountDifference(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 6))
	checked := 0
	for seed := int64(0); checked < 40; seed++ {
		if seed > 300 {
			t.Fatalf("only %d cases", checked)
		}
		m, ex, ok := cllCase(t, r, seed, randmln.Config{MaxUnknown: 8})
		if !ok {
			continue
		}
		checked++
		np := len(m.Weights)
		w0 := make([]float64, np)
		for i := range w0 {
			w0[i] = 2*r.Float64() - 1
		}
		copy(m.Weights, w0)
		ex.Net.SetParamWeights(w0)
		yMAP, _, _ := brute.MAP(ex.Net)
		nt, nm := vpCounts(ex.Net, np, ex.Truth), vpCounts(ex.Net, np, yMAP)
		st, err := VotedPerceptron(ctx, m, Examples{ex}, VPSettings{LearningRate: 1, NoPerWeight: true, NoPrior: true,
			MaxIter: 1, KeepInitial: true, Solver: vpBrute{}, MAPCounts: true, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if st.Iterations != 1 {
			t.Fatalf("seed %d: %d iterations", seed, st.Iterations)
		}
		for p := range w0 {
			if want := w0[p] + nt[p] - nm[p]; math.Abs(m.Weights[p]-want) > 1e-9 {
				t.Fatalf("seed %d: weight %d is %v, want %v + %v − %v", seed, p, m.Weights[p], w0[p], nt[p], nm[p])
			}
		}
	}
}

// TestVPSeparable plants weights, takes their (unique) MAP state as the
// training truth, and checks that the averaged weights VotedPerceptron
// learns from zero make the truth a MAP state again (up to near-ties).
func TestVPSeparable(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 8))
	checked := 0
	for seed := int64(0); checked < 15; seed++ {
		if seed > 400 {
			t.Fatalf("only %d cases", checked)
		}
		m, ex, ok := cllCase(t, r, seed, randmln.Config{MaxUnknown: 6})
		if !ok {
			continue
		}
		np := len(m.Weights)
		planted := make([]float64, np)
		for i := range planted {
			planted[i] = 4*r.Float64() - 2
		}
		ex.Net.SetParamWeights(planted)
		truth, best, hard := brute.MAP(ex.Net)
		unique := true
		brute.Worlds(ex.Net.NumAtoms(), func(y []bool) {
			if s, h := ex.Net.Score(y); h == hard && s > best-0.05 && !slices.Equal(y, truth) {
				unique = false
			}
		})
		if !unique {
			continue
		}
		checked++
		ex.Truth = slices.Clone(truth)
		clear(m.Weights)
		if _, err := VotedPerceptron(ctx, m, Examples{ex}, VPSettings{LearningRate: 0.1, NoPerWeight: true, NoPrior: true,
			MaxIter: 2000, Solver: vpBrute{}, MAPCounts: true, Workers: 1}); err != nil {
			t.Fatal(err)
		}
		ex.Net.SetParamWeights(m.Weights)
		st, sh := ex.Net.Score(truth)
		_, bs, bh := brute.MAP(ex.Net)
		// The perceptron stops updating at the first weights whose MAP state
		// (ties broken in enumeration order) is the truth, so the average may
		// leave the truth a near-tie: allow a small fraction of the weights.
		if sh != bh || st < bs-1e-3*max(slices.Max(m.Weights), -slices.Min(m.Weights)) {
			t.Errorf("seed %d: truth scores %v (%d hard), MAP %v (%d hard) under averaged weights %v (planted %v)", seed, st, sh, bs, bh, m.Weights, planted)
		}
	}
}

// vpExact returns the exact expectation and variance of every parameter's
// count in ex under weights w, by enumeration of the worlds of fewest hard
// violations.
func vpExact(ex *Example, np int, w []float64) (mean, vari []float64) {
	ex.Net.SetParamWeights(w)
	mean, vari = make([]float64, np), make([]float64, np)
	sq := make([]float64, np)
	W := 0.0
	exactSampler{ex.Net}.Sample(context.Background(), func(y []bool, p float64) {
		n := vpCounts(ex.Net, np, y)
		W += p
		for i, x := range n {
			mean[i] += p * x
			sq[i] += p * x * x
		}
	})
	for i := range mean {
		mean[i] /= W
		vari[i] = max(0, sq[i]/W-mean[i]*mean[i])
	}
	return mean, vari
}

// feasibleCase is cllCase restricted to examples whose gold world violates
// no hard clause (MC-SAT samples only such worlds).
func feasibleCase(t *testing.T, r *rand.Rand, seed int64, cfg randmln.Config) (*mln.Model, *Example, bool) {
	m, ex, ok := cllCase(t, r, seed, cfg)
	if !ok {
		return nil, nil, false
	}
	if _, h := ex.Net.Score(ex.Truth); h > 0 {
		return nil, nil, false
	}
	return m, ex, true
}

// TestVPExpectedUpdateIsCLLGradient checks on random MLNs that one
// iteration of VotedPerceptron with expected counts (η = 1, no per-weight
// rates) moves the weights by minus the gradient of −CLL + prior: exactly,
// against central finite differences of the conditional log-likelihood
// computed by enumeration, when the expectations are exact; and within the
// sampling error of MC-SAT's persistent chain, the default.
func TestVPExpectedUpdateIsCLLGradient(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(41, 42))
	const steps = 20000
	checked := 0
	for seed := int64(0); checked < 25; seed++ {
		if seed > 400 {
			t.Fatalf("only %d cases", checked)
		}
		m, ex, ok := feasibleCase(t, r, seed, randmln.Config{MaxUnknown: 8})
		if !ok {
			continue
		}
		checked++
		np := len(m.Weights)
		w0 := make([]float64, np)
		for i := range w0 {
			w0[i] = 2*r.Float64() - 1
		}
		prec, noPrior := 1/float64(DefaultCLLPriorStdDev*DefaultCLLPriorStdDev), seed%2 == 1
		if noPrior {
			prec = 0
		}
		set := VPSettings{LearningRate: 1, NoPerWeight: true, NoPrior: noPrior, MaxIter: 1, KeepInitial: true, Workers: 1, Seed: seed}

		// Exact expectations: the step is −∇(−CLL + prior).
		copy(m.Weights, w0)
		set.Sampler = exactSamplers
		if _, err := VotedPerceptron(ctx, m, Examples{ex}, set); err != nil {
			t.Fatal(err)
		}
		exact := slices.Clone(m.Weights)
		const h = 1e-5
		wp := slices.Clone(w0)
		for i := range w0 {
			wp[i] = w0[i] + h
			fp := exactObjective(m, Examples{ex}, wp, prec)
			wp[i] = w0[i] - h
			fm := exactObjective(m, Examples{ex}, wp, prec)
			wp[i] = w0[i]
			fd := (fp - fm) / (2 * h)
			if step := exact[i] - w0[i]; math.Abs(step+fd) > 1e-6*(1+math.Abs(fd)) {
				t.Fatalf("seed %d: step[%d] %.10g, −gradient by finite differences %.10g", seed, i, step, -fd)
			}
		}

		// MC-SAT's expected counts: the same step within sampling error.
		copy(m.Weights, w0)
		set.Sampler, set.Samples = nil, steps
		st, err := VotedPerceptron(ctx, m, Examples{ex}, set)
		if err != nil {
			t.Fatal(err)
		}
		if st.Samples != steps {
			t.Fatalf("seed %d: %d MC-SAT steps, want %d", seed, st.Samples, steps)
		}
		_, vari := vpExact(ex, np, w0)
		for i := range w0 {
			// Six standard errors of a chain whose autocorrelation
			// inflates the variance up to ten-fold.
			tol := 6*math.Sqrt(10*vari[i]/steps) + 1e-9
			if d := m.Weights[i] - exact[i]; math.Abs(d) > tol {
				t.Errorf("seed %d: MC-SAT step[%d] %.6g, exact %.6g (difference %.3g, tolerance %.3g)",
					seed, i, m.Weights[i]-w0[i], exact[i]-w0[i], d, tol)
			}
		}
	}
}

// TestVPMovesTowardCLLOptimum runs VotedPerceptron with expected counts
// on random MLNs, from w = 0 with exact expectations and with MC-SAT (the
// weights averaged), and from the independent start with MC-SAT (the
// default), and checks that the weights learned have a lower −CLL + prior
// (computed by enumeration) than w = 0 and lie at most half as far from
// its optimum, found by Discriminative with exact expectations; and that
// a seed fixes the MC-SAT runs.
func TestVPMovesTowardCLLOptimum(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(43, 44))
	prec := 1 / float64(DefaultCLLPriorStdDev*DefaultCLLPriorStdDev)
	dist := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += (a[i] - b[i]) * (a[i] - b[i])
		}
		return math.Sqrt(s)
	}
	checked := 0
	for seed := int64(0); checked < 10; seed++ {
		if seed > 400 {
			t.Fatalf("only %d cases", checked)
		}
		m, ex, ok := feasibleCase(t, r, seed, randmln.Config{MaxUnknown: 6})
		if !ok {
			continue
		}
		np := len(m.Weights)
		clear(m.Weights)
		if _, err := Discriminative(ctx, m, Examples{ex}, DiscriminativeSettings{
			Sampler: exactSamplers, MaxIter: 500, MinLLChange: 1e-13, Workers: 1, ZeroStart: true}); err != nil {
			t.Fatal(err)
		}
		opt := slices.Clone(m.Weights)
		zero := make([]float64, np)
		d0 := dist(zero, opt)
		if d0 < 0.1 {
			continue // the optimum is at the start
		}
		checked++
		f0 := exactObjective(m, Examples{ex}, zero, prec)
		for run := range 3 {
			mcsat := run > 0
			set := VPSettings{LearningRate: 0.02, NoPerWeight: true, MaxIter: 400, ZeroStart: run < 2, Average: run == 1, Workers: 1, Seed: seed}
			if !mcsat {
				set.Sampler = exactSamplers
			} else {
				set.Samples = 100
			}
			clear(m.Weights)
			if _, err := VotedPerceptron(ctx, m, Examples{ex}, set); err != nil {
				t.Fatal(err)
			}
			w := slices.Clone(m.Weights)
			f, d := exactObjective(m, Examples{ex}, w, prec), dist(w, opt)
			if f >= f0 || d > 0.5*d0 {
				t.Errorf("seed %d (run %d, MC-SAT %v): −CLL + prior %.6g (start %.6g), distance to the optimum %.4g (start %.4g)",
					seed, run, mcsat, f, f0, d, d0)
			}
			if mcsat {
				clear(m.Weights)
				if _, err := VotedPerceptron(ctx, m, Examples{ex}, set); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(m.Weights, w) {
					t.Fatalf("seed %d: two runs with the same seed differ", seed)
				}
			}
		}
	}
}
