package lp

import (
	"context"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/marple-mln/marple/infer"
)

func TestDbgIters(t *testing.T) {
	for _, cfg := range [][3]float64{{1, 1, 0}, {1, 1.3, 0}, {1, 1.6, 0}, {0.5, 1.3, 0}, {2, 1.3, 0}, {1, 1.3, 1}, {1, 1.6, 1}} {
		dbgRhoMul, dbgGamma, dbgAdapt = cfg[0], cfg[1], cfg[2] == 1
		for _, g := range []genOpts{
			{maxAtoms: 12, maxClauses: 30, maxLen: 4, hardFrac: 0.15},
			{maxAtoms: 12, maxClauses: 60, maxLen: 2, hardFrac: 0.3},
		} {
			rng := rand.New(rand.NewPCG(7, 2))
			var its []int
			bad := 0
			tot := 0
			for range 200 {
				net, bias := randNet(rng, g)
				lpScore, feasible := simplexLP(t, net, bias)
				if !feasible {
					continue
				}
				_, st, _ := Solve(context.Background(), net, Options{Options: infer.Options{Bias: bias}, Tol: 1e-8, MaxIter: 200000})
				its = append(its, st.Iterations)
				tot += st.Iterations
				if d := st.LPValue - lpScore; d > 1e-4 || d < -1e-4 {
					bad++
				}
			}
			sort.Ints(its)
			t.Logf("cfg %v len %d: n=%d median %d p90 %d max %d mean %d bad %d", cfg, g.maxLen, len(its), its[len(its)/2], its[len(its)*9/10], its[len(its)-1], tot/len(its), bad)
		}
	}
}
