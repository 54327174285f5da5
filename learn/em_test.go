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

// exactMarginal is an infer.Marginal by enumeration (worlds of fewest hard
// violations, with the bias as unit clauses).
type exactMarginal struct{}

func (exactMarginal) Name() string { return "exact" }

func (exactMarginal) Marginals(_ context.Context, net *ground.Network, opt infer.Options) ([]float64, error) {
	n := net.NumAtoms()
	score := func(y []bool) (float64, int) {
		s, h := net.Score(y)
		for a, b := range opt.Bias {
			if y[a] {
				s += b
			}
		}
		return s, h
	}
	minHard, mx := math.MaxInt, math.Inf(-1)
	brute.Worlds(n, func(y []bool) {
		s, h := score(y)
		if h < minHard {
			minHard, mx = h, s
		} else if h == minHard {
			mx = max(mx, s)
		}
	})
	p, z := make([]float64, n), 0.0
	brute.Worlds(n, func(y []bool) {
		if s, h := score(y); h == minHard {
			q := math.Exp(s - mx)
			z += q
			for a, v := range y {
				if v {
					p[a] += q
				}
			}
		}
	})
	for a := range p {
		p[a] /= z
	}
	return p, nil
}

func dist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// TestEMBeatsHiddenFalse plants weights on random MLNs, samples 30 worlds
// from them (exactly), hides 20% of the atoms of each, and compares the
// weights learned by EM (exact E-step and M-step) and by treating the
// hidden atoms as false with the weights learned from the full data: EM
// must be closer in most cases.
func TestEMBeatsHiddenFalse(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(11, 12))
	cases, wins := 0, 0
	for seed := int64(0); cases < 6; seed++ {
		if seed > 300 {
			t.Fatalf("only %d cases", cases)
		}
		m, ex, ok := cllCase(t, r, seed, randmln.Config{MaxUnknown: 7})
		if !ok || ex.Net.NumAtoms() < 5 {
			continue
		}
		cases++
		np := len(m.Weights)
		planted := make([]float64, np)
		for i := range planted {
			planted[i] = 2*r.Float64() - 1
		}
		net := ex.Net
		net.SetParamWeights(planted)
		// Sample 30 worlds exactly.
		var worlds [][]bool
		var ps []float64
		exactSampler{net}.Sample(ctx, func(y []bool, p float64) { worlds, ps = append(worlds, slices.Clone(y)), append(ps, p) })
		var full, asFalse Examples
		var hidden [][]bool
		for e := 0; e < 30; e++ {
			u, tot := r.Float64(), 0.0
			for _, p := range ps {
				tot += p
			}
			u *= tot
			j := 0
			for ; j < len(ps)-1 && u > ps[j]; j++ {
				u -= ps[j]
			}
			y := worlds[j]
			full = append(full, &Example{Net: net, Truth: y})
			h := make([]bool, len(y))
			f := slices.Clone(y)
			for a := range h {
				if r.Float64() < 0.2 {
					h[a], f[a] = true, false
				}
			}
			hidden = append(hidden, h)
			asFalse = append(asFalse, &Example{Net: net, Truth: f})
		}
		set := DiscriminativeSettings{Sampler: exactSamplers, Workers: 1, MaxIter: 50}
		learn := func(exs Examples) []float64 {
			clear(m.Weights)
			if _, err := Discriminative(ctx, m, exs, set); err != nil {
				t.Fatal(err)
			}
			return slices.Clone(m.Weights)
		}
		wFull, wFalse := learn(full), learn(asFalse)
		clear(m.Weights)
		if _, err := EM(ctx, m, asFalse, hidden, EMSettings{Marginal: exactMarginal{}, Learn: set, Completions: 10, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		wEM := slices.Clone(m.Weights)
		dEM, dFalse := dist(wEM, wFull), dist(wFalse, wFull)
		t.Logf("seed %d: %d atoms, %d weights: |EM − full| %.3f, |false − full| %.3f", seed, net.NumAtoms(), np, dEM, dFalse)
		if dEM < dFalse {
			wins++
		}
	}
	if wins < cases*3/4 {
		t.Errorf("EM closer to the full-data weights in %d of %d cases", wins, cases)
	}
}
