package lp

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkCiteseerLike solves a synthetic network shaped like one
// CiteSeer topic (16,700 positions: 50,100 atoms, 197,544 ground clauses)
// to tolerance 1e-3 and rounds it; it reports the ADMM iterations and the
// rounded cost's excess over the bound, in percent.
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
			b.ReportMetric(100*(st.RoundedCost-st.LPBound)/st.LPBound, "%gap")
		})
	}
}

// BenchmarkIteration measures one ADMM iteration on the same network.
func BenchmarkIteration(b *testing.B) {
	net := citeseerLike(16700, 1)
	p := newProblem(net, nil)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			s := newADMM(p, w)
			for b.Loop() {
				s.iterate()
			}
		})
	}
}
