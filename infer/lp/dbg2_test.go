package lp

import (
	"context"
	"testing"
	"time"
)

func TestDbgSynth(t *testing.T) {
	net := citeseerLike(3000, 1)
	for _, ad := range []bool{true, false} {
		for _, g := range []float64{1, 1.6, 1.8} {
			for _, rm := range []float64{0.25, 0.5, 1, 2, 4} {
				dbgRhoMul, dbgGamma, dbgAdapt = rm, g, ad
				start := time.Now()
				_, st, _ := Solve(context.Background(), net, Options{Tol: 1e-3, MaxIter: 50000})
				t.Logf("adapt %v gamma %v rho %v: iters %d %v final rho %.3g", ad, g, rm, st.Iterations, time.Since(start), st.Rho)
			}
		}
	}
}
