package lp

import (
	"context"
	"math"
	"testing"
)

func TestDbgSynth(t *testing.T) {
	net := citeseerLike(16700, 1)
	for _, rm := range []float64{1, 4} {
		gapIt, violIt, viol2It := 0, 0, 0
		dbgCheck = func(it int, f, hv, d float64) {
			if gapIt == 0 && f-d <= 1e-3*math.Abs(d) {
				gapIt = it
			}
			if violIt == 0 && hv <= 1e-3 {
				violIt = it
			}
			if viol2It == 0 && hv <= 1e-2 {
				viol2It = it
			}
			if it%100 == 0 {
				t.Logf("it %d gap %.3g viol %.3g bound %.3f", it, f-d, hv, d)
			}
		}
		dbgRhoMul, dbgGamma, dbgAdapt = rm, 1, false
		res, st, _ := Solve(context.Background(), net, Options{Tol: 1e-3, MaxIter: 50000})
		t.Logf("rho %v: iters %d gap %.4g bound %.2f; gap ok at %d, viol 1e-3 at %d, 1e-2 at %d; cost %.2f", rm, st.Iterations, st.PrimalCost-st.LPBound, st.LPBound, gapIt, violIt, viol2It, res.Cost)
	}
}
