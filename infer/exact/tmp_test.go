package exact

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"github.com/marple-mln/marple/ground"
)

func clique(k int, w float64, seed int64) *ground.Network {
	r := rand.New(rand.NewSource(seed))
	net := ground.NewNetwork(k)
	for a := 0; a < k; a++ {
		net.AddClause([]ground.Lit{ground.MakeLit(int32(a), false)}, r.NormFloat64()*2, -1, -1, 1)
		for b := a + 1; b < k; b++ {
			net.AddClause([]ground.Lit{ground.MakeLit(int32(a), true), ground.MakeLit(int32(b), true)}, w, -1, -1, 1)
		}
	}
	return net
}

func TestTmpClique(t *testing.T) {
	for _, k := range []int{30, 60, 100} {
		for _, w := range []float64{0.5, 3} {
			net := clique(k, w, 1)
			res, st, err := SolveStats(context.Background(), net, Options{TimeLimit: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			c := st.Components[0]
			t.Logf("k=%d w=%v cost %v bound %v opt %v method %v width %d ib %d nodes %d time %v", k, w, res.Cost, res.Bound, res.Optimal, c.Method, c.Width, c.IBound, c.Nodes, st.Elapsed)
		}
	}
}
