package structure

import (
	"context"
	"math"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/plant"
	"github.com/marple-mln/marple/mln"
)

// TestHeldOutBounded: scoring the held-out predicates cheapest first and
// stopping once the bound settles gives, when it never stops, the CLL of
// scoring them in order, bit for bit; when it stops, an upper bound on
// it that settles what the caller asked.
func TestHeldOutBounded(t *testing.T) {
	m, dbs, _, err := plant.Planted(context.Background(), 5, 8, 2)
	if err != nil {
		t.Fatal(err)
	}
	var preds []mln.PredID
	for p := range m.Preds {
		preds = append(preds, mln.PredID(p))
	}
	v := Validation{Samples: 200, Seed: 1}
	for _, db := range dbs {
		want, _, err := heldOutScores(context.Background(), m, db, preds, v)
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		got, bounded, err := heldOutBounded(context.Background(), m, db, preds, v, func(float64) bool { calls++; return false })
		if err != nil {
			t.Fatal(err)
		}
		if got != want || bounded || calls != len(preds)-1 {
			t.Fatalf("never settled: CLL %v (bounded %v, %d checks), want %v (%d checks)", got, bounded, calls, want, len(preds)-1)
		}
		var bounds []float64
		got, bounded, err = heldOutBounded(context.Background(), m, db, preds, v, func(b float64) bool { bounds = append(bounds, b); return true })
		if err != nil {
			t.Fatal(err)
		}
		if !bounded || len(bounds) != 1 || got != bounds[0] || got < want || got > 0 {
			t.Fatalf("settled at once: bound %v (bounded %v, checks %v), want an upper bound on %v", got, bounded, bounds, want)
		}
		// A threshold between the first bound and the CLL stops at the
		// first bound at or below it, never later than needed.
		thr := (bounds[0] + want) / 2
		bounds = bounds[:0]
		got, bounded, err = heldOutBounded(context.Background(), m, db, preds, v, func(b float64) bool { bounds = append(bounds, b); return b <= thr })
		if err != nil {
			t.Fatal(err)
		}
		if bounded && (got > thr || got < want) || !bounded && got != want {
			t.Fatalf("threshold %v: got %v (bounded %v, checks %v), CLL %v", thr, got, bounded, bounds, want)
		}
		for i := 1; i < len(bounds); i++ {
			if bounds[i] > bounds[i-1] || math.IsNaN(bounds[i]) {
				t.Fatalf("bounds not decreasing: %v", bounds)
			}
		}
	}
}

// TestSettledWith: the check behind a bounded held-out CLL is the
// settling rule with that CLL in place, and leaves the run's scores as
// they were.
func TestSettledWith(t *testing.T) {
	vr := &validationRun{n: 3, cll: []float64{-0.1, -0.2, -0.3, -1, math.NaN(), math.NaN()}}
	for _, c := range []float64{0, -0.2, -0.5, -0.7, -0.71, -2, math.Inf(-1)} {
		// Gains so far: -0.9 + (c + 0.2); best case of the last: +0.3.
		want := -0.9+c+0.2+0.3 <= 0
		if got := vr.settledWith(1, c); got != want {
			t.Errorf("CLL %v: settled %v, want %v", c, got, want)
		}
		if !math.IsNaN(vr.cll[4]) {
			t.Fatalf("settledWith left %v in place", vr.cll[4])
		}
	}
}
