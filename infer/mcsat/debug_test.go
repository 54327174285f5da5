package mcsat

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

func TestDebugSAT(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 5; {
		n := 8
		net := ground.NewNetwork(n)
		for range 14 {
			var ls []ground.Lit
			for range 3 {
				ls = append(ls, ground.MakeLit(int32(rng.IntN(n)), rng.IntN(2) == 0))
			}
			net.AddClause(ls, math.Inf(1), -1, -1, 1)
		}
		exact, ok := exactMarginals(net, nil)
		if !ok {
			continue
		}
		for _, wp := range []float64{-1, 0.5, 1} {
			var errs []float64
			for _, ns := range []int{20000, 200000} {
				got, _ := MCSAT(context.Background(), net, Options{Options: infer.Options{Seed: int64(i)}, Samples: ns, WalkProb: wp})
				e, _ := maxErr(got, exact)
				errs = append(errs, e)
			}
			t.Logf("model %d walkprob %v: errs %.4f", i, wp, errs)
		}
		i++
	}
}
