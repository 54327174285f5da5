package lp

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkCiteseerLike solves a synthetic 200k-clause, 50k-atom network
// shaped like one CiteSeer topic to tolerance 1e-3.
func BenchmarkCiteseerLike(b *testing.B) {
	net := citeseerLike(16700, 1)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			var st *Stats
			for b.Loop() {
				var err error
				_, st, err = Solve(context.Background(), net, Options{Tol: 1e-3, Workers: w})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(st.Iterations), "iters")
		})
	}
}
