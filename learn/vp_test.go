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
			MaxIter: 1, KeepInitial: true, Solver: vpBrute{}, Workers: 1})
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
			MaxIter: 2000, Solver: vpBrute{}, Workers: 1}); err != nil {
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
