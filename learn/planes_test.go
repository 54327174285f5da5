package learn

import (
	"math"
	"testing"
)

// One plane w ≥ 1 − ξ: min ½w² + C·ξ has w = min(1, C), ξ = 1 − w; a
// second plane 2·w₂ ≥ 1 − ξ on another coordinate shares the slack.
func TestCuttingPlanes(t *testing.T) {
	for _, tc := range []struct{ C, w, xi float64 }{{10, 1, 0}, {0.5, 0.5, 0.5}} {
		cp := NewCuttingPlanes(tc.C)
		cp.Add(Sparse{Idx: []int32{0}, Val: []float64{1}}, 1)
		w := make([]float64, 2)
		cp.Weights(w)
		if math.Abs(w[0]-tc.w) > 1e-9 || math.Abs(cp.Slack()-tc.xi) > 1e-9 || w[1] != 0 {
			t.Fatalf("C %g: w %v, ξ %g, want w₀ %g, ξ %g", tc.C, w, cp.Slack(), tc.w, tc.xi)
		}
		if want := tc.w*tc.w/2 + tc.C*tc.xi; math.Abs(cp.Objective()-want) > 1e-9 {
			t.Fatalf("C %g: objective %g, want %g", tc.C, cp.Objective(), want)
		}
	}
	// Both planes with C = 10: w = (1, 0.5), ξ = 0.
	cp := NewCuttingPlanes(10)
	cp.Add(Sparse{Idx: []int32{0}, Val: []float64{1}}, 1)
	cp.Add(Sparse{Idx: []int32{1}, Val: []float64{2}}, 1)
	w := make([]float64, 2)
	cp.Weights(w)
	if math.Abs(w[0]-1) > 1e-9 || math.Abs(w[1]-0.5) > 1e-9 || cp.Slack() > 1e-9 || cp.Len() != 2 {
		t.Fatalf("w %v, ξ %g, %d planes", w, cp.Slack(), cp.Len())
	}
}
