package learn

import (
	"math"
	"testing"
)

// TestChooseExponent checks the held-out choice's rule: the best CLL among
// the exponents whose runs converged, the earlier on ties, the best of all
// when none converged.
func TestChooseExponent(t *testing.T) {
	inf := math.Inf(-1)
	for _, c := range []struct {
		cll  []float64
		conv []bool
		want float64
	}{
		{[]float64{-10, -5, -7}, []bool{true, true, true}, 0.5},
		{[]float64{-10, -5, -7}, []bool{true, false, true}, 1},
		{[]float64{-10, -5, -4}, []bool{true, false, false}, 0},
		{[]float64{-10, -5, -4}, []bool{false, false, false}, 1},
		{[]float64{-5, -5, -7}, []bool{true, true, true}, 0},
		{[]float64{-5, inf, inf}, []bool{true, false, false}, 0},
	} {
		ch := &JointPriorChoice{Exponents: []float64{0, 0.5, 1}, HeldOutCLL: c.cll, Converged: c.conv}
		if got := chooseExponent(ch); got != c.want {
			t.Errorf("CLL %v, converged %v: t = %g, want %g", c.cll, c.conv, got, c.want)
		}
	}
}
