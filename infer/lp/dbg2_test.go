package lp

import (
	"context"
	"testing"
	"time"
)

func TestDbgSynth(t *testing.T) {
	for _, sz := range []int{3000, 16700} {
		net := citeseerLike(sz, 1)
		for _, g := range []float64{1, 1.3, 1.6} {
			for _, rm := range []float64{0.5, 1, 2, 4} {
				dbgRhoMul, dbgGamma, dbgAdapt = rm, g, false
				start := time.Now()
				_, st, _ := Solve(context.Background(), net, Options{Tol: 1e-3, MaxIter: 50000})
				t.Logf("size %d gamma %v rho %v: iters %d gap %.4g bound %.2f maxviol %.3g %v", sz, g, rm, st.Iterations, st.PrimalCost-st.LPBound, st.LPBound, st.HardViolation, time.Since(start))
			}
		}
	}
}
