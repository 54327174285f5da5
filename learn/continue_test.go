package learn

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// TestContinue checks that a run split in two — the second part a learner
// continued from the first part's last weights at its step count
// (Settings.StartStep) — ends at the weights of the uninterrupted run, and
// that the two parts' averages, weighted by their steps, make its average.
func TestContinue(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var exs Examples
	for range 16 {
		exs = append(exs, chainExample(r, 5, []float64{1.5, -1, 0.3, 0.8}))
	}
	order := func(lo, hi int) []int {
		var o []int
		for i := lo; i < hi; i++ {
			o = append(o, i)
		}
		return o
	}
	for _, m := range []Method{DefaultCDA(), &CDA{Sigma: 0.1, Inference: MaxLoss}, DefaultSubgradient(), DefaultMIRA(), DefaultAdaGradFB()} {
		whole := &mln.Model{Weights: make([]float64, 4)}
		stW, err := Online(context.Background(), whole, exs, m, Settings{Solver: bruteSolver, Passes: 2})
		if err != nil {
			t.Fatal(err)
		}
		// Part one: the first pass; part two: the second, continued.
		first := &mln.Model{Weights: make([]float64, 4)}
		st1, err := Online(context.Background(), first, exs, m, Settings{Solver: bruteSolver})
		if err != nil {
			t.Fatal(err)
		}
		second := &mln.Model{Weights: append([]float64(nil), st1.Last...)}
		st2, err := Online(context.Background(), second, exs, m, Settings{Solver: bruteSolver, KeepInitial: true, StartStep: st1.Steps, Order: order(0, len(exs))})
		if err != nil {
			t.Fatal(err)
		}
		_, cont := m.(Continuer)
		for i := range stW.Last {
			if !near(st2.Last[i], stW.Last[i], 1e-9) && (cont || m.Name()[:4] == "MIRA") {
				t.Errorf("%s: last weight %d: continued %v, whole %v", m.Name(), i, st2.Last[i], stW.Last[i])
			}
			avg := (first.Weights[i]*float64(st1.Steps) + second.Weights[i]*float64(st2.Steps)) / float64(st1.Steps+st2.Steps)
			if !near(avg, whole.Weights[i], 1e-9) && (cont || m.Name()[:4] == "MIRA") {
				t.Errorf("%s: average weight %d: parts %v, whole %v", m.Name(), i, avg, whole.Weights[i])
			}
			if math.IsNaN(avg) {
				t.Errorf("%s: NaN", m.Name())
			}
		}
	}
}

// TestOrderSubset checks Settings.Order: a run over a subset of the
// examples equals a run over a source holding only those examples.
func TestOrderSubset(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var exs Examples
	for range 10 {
		exs = append(exs, chainExample(r, 4, []float64{1, -1, 0.5, 0.7}))
	}
	pick := []int{7, 2, 5, 9}
	a := &mln.Model{Weights: make([]float64, 4)}
	if _, err := Online(context.Background(), a, exs, DefaultCDA(), Settings{Solver: bruteSolver, Order: pick}); err != nil {
		t.Fatal(err)
	}
	b := &mln.Model{Weights: make([]float64, 4)}
	sub := Examples{exs[7], exs[2], exs[5], exs[9]}
	if _, err := Online(context.Background(), b, sub, DefaultCDA(), Settings{Solver: bruteSolver}); err != nil {
		t.Fatal(err)
	}
	for i := range a.Weights {
		if a.Weights[i] != b.Weights[i] {
			t.Fatalf("weights differ: %v vs %v", a.Weights, b.Weights)
		}
	}
	if _, err := Online(context.Background(), a, exs, DefaultCDA(), Settings{Solver: bruteSolver, Order: []int{10}}); err == nil {
		t.Error("Order naming a missing example: no error")
	}
}
