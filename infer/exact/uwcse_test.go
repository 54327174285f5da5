package exact

import (
	"context"
	"flag"
	"testing"
	"time"

	"github.com/marple-mln/marple/infer/mws"
	"github.com/marple-mln/marple/internal/testkit/uwcse"
)

// uwLimit is the time limit of BenchmarkUWCSE.
var uwLimit = flag.Duration("uwcse.limit", 10*time.Second, "time limit of BenchmarkUWCSE")

// BenchmarkUWCSE runs the exact engine under a time limit (-uwcse.limit,
// default 10 s) on each UW-CSE area and reports the cost, the lower bound
// and MaxWalkSAT's cost (one million steps) for comparison.
func BenchmarkUWCSE(b *testing.B) {
	for _, area := range []string{"ai", "graphics", "language", "systems", "theory"} {
		b.Run(area, func(b *testing.B) {
			net := uwcse.Network(b, area)
			lastCost, lastBound := 0.0, 0.0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, st, err := SolveStats(context.Background(), net, Options{TimeLimit: *uwLimit})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(res.Cost, "cost")
				lastCost, lastBound = res.Cost, res.Bound
				b.ReportMetric(res.Bound, "bound")
				opt := 0.0
				if res.Optimal {
					opt = 1
				}
				b.ReportMetric(opt, "optimal")
				for _, c := range st.Components {
					if c.Method == Search {
						b.Logf("%s: component of %d atoms, %d clauses: width %d, i-bound %d, %d nodes, warm start %.6g, LP bound %.6g, cost %.6g, bound %.6g, optimal %v, %v",
							area, c.Atoms, c.Clauses, c.Width, c.IBound, c.Nodes, c.WarmCost, c.LPBound, c.Cost, c.Bound, c.Optimal, c.Elapsed)
					}
				}
			}
			b.StopTimer()
			mr, err := mws.Solve(context.Background(), net, mws.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(mr.Cost, "mws-cost")
			b.Logf("%s: exact cost %.6f bound %.6f, MaxWalkSAT (1M steps) cost %.6f", area, lastCost, lastBound, mr.Cost)
		})
	}
}
