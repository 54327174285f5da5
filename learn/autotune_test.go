package learn

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// TestTune checks Tune against learning with each grid value directly: the
// scores are the training F1 of those runs, the chosen value is the first
// best, and the model ends with the weights learned with it.
func TestTune(t *testing.T) {
	wStar := []float64{1.5, -1, 0.3, 0.8}
	r := rand.New(rand.NewPCG(3, 4))
	var exs Examples
	for i := 0; i < 20; i++ {
		ex := chainExample(r, 5, wStar)
		// Flip a label now and then so that the grid values differ.
		if i%3 == 0 {
			ex.Truth[i%5] = !ex.Truth[i%5]
		}
		exs = append(exs, ex)
	}
	ctx := context.Background()
	grid := []float64{10, 1, 0.1, 0.01}
	settings := Settings{Solver: bruteSolver}
	newCDA := func(s float64) Method { return &CDA{Sigma: s, Inference: MaxLoss} }
	var want []float64
	var wantW [][]float64
	for _, s := range grid {
		model := &mln.Model{Weights: make([]float64, 4)}
		if _, err := Online(ctx, model, exs, newCDA(s), settings); err != nil {
			t.Fatal(err)
		}
		f1, err := ScoreF1(ctx, model, exs, bruteSolver, 0)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, f1)
		wantW = append(wantW, model.Weights)
	}
	model := &mln.Model{Weights: make([]float64, 4)}
	res, err := TuneOnline(ctx, model, exs, newCDA, settings, Tuning{Grid: grid, Solver: bruteSolver})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.F1, want) {
		t.Fatalf("scores %v, want %v", res.F1, want)
	}
	best := 0
	for i, f := range want {
		if f > want[best] {
			best = i
		}
	}
	if res.Value != grid[best] || !slices.Equal(model.Weights, wantW[best]) {
		t.Errorf("chose %g with weights %v, want %g with %v", res.Value, model.Weights, grid[best], wantW[best])
	}
	if res.Scored != len(exs) {
		t.Errorf("scored %d examples, want %d", res.Scored, len(exs))
	}

	// Held out: each value is scored on the held-out examples, then the
	// chosen one is learned on all of them.
	model = &mln.Model{Weights: make([]float64, 4)}
	res, err = TuneOnline(ctx, model, exs, newCDA, settings, Tuning{Grid: grid, Solver: bruteSolver, Holdout: 0.25, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	if res.Scored != 5 || len(res.F1) != len(grid) {
		t.Fatalf("held out: scored %d examples, %d scores", res.Scored, len(res.F1))
	}
	i := slices.Index(grid, res.Value)
	if !slices.Equal(model.Weights, wantW[i]) {
		t.Errorf("held out: chose %g, weights %v, want those learned on all examples %v", res.Value, model.Weights, wantW[i])
	}

	// Max-margin C, and the errors.
	model = &mln.Model{Weights: make([]float64, 4)}
	if _, err := TuneMaxMargin(ctx, model, exs, MaxMargin{Workers: 1}, settings, Tuning{Grid: []float64{1, 100}, Solver: bruteSolver}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Tuning{{Solver: bruteSolver}, {Grid: grid, Solver: bruteSolver, Holdout: 1}, {Grid: grid, Solver: bruteSolver, Holdout: 0.01}} {
		if _, err := TuneOnline(ctx, model, exs, newCDA, settings, bad); err == nil {
			t.Errorf("Tune(%+v) did not fail", bad)
		}
	}
}
