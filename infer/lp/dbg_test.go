package lp

import (
	"context"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/marple-mln/marple/infer"
)

func TestDbgIters(t *testing.T) {
	for _, g := range []genOpts{
		{maxAtoms: 12, maxClauses: 30, maxLen: 4, hardFrac: 0.15},
		{maxAtoms: 12, maxClauses: 60, maxLen: 3, hardFrac: 0.05},
		{maxAtoms: 12, maxClauses: 60, maxLen: 2, hardFrac: 0.3},
	} {
		rng := rand.New(rand.NewPCG(7, 2))
		var its []int
		bad := 0
		for range 300 {
			net, bias := randNet(rng, g)
			lpScore, feasible := simplexLP(t, net, bias)
			if !feasible {
				continue
			}
			_, st, _ := Solve(context.Background(), net, Options{Options: infer.Options{Bias: bias}, Tol: 1e-8, MaxIter: 200000})
			its = append(its, st.Iterations)
			if d := st.LPValue - lpScore; d > 1e-4 || d < -1e-4 {
				bad++
			}
		}
		sort.Ints(its)
		t.Logf("%+v: n=%d median %d p90 %d max %d bad %d", g, len(its), its[len(its)/2], its[len(its)*9/10], its[len(its)-1], bad)
	}
}
