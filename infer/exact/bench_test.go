package exact

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/marple-mln/marple/examples"
	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/cputime"
	"github.com/marple-mln/marple/internal/testkit/replicate"
	"github.com/marple-mln/marple/mln"
)

// chain returns a linear-chain network over n atoms: a unit clause with a
// random real weight per atom and two pairwise clauses with random real
// weights (some negative) between consecutive atoms.
func chain(n int, seed int64) *ground.Network {
	r := rand.New(rand.NewSource(seed))
	net := ground.NewNetwork(n)
	for a := 0; a < n; a++ {
		net.AddClause([]ground.Lit{ground.MakeLit(int32(a), false)}, r.NormFloat64(), -1, -1, 1)
		if a+1 < n {
			for k := 0; k < 2; k++ {
				lits := []ground.Lit{ground.MakeLit(int32(a), r.Intn(2) == 0), ground.MakeLit(int32(a+1), r.Intn(2) == 0)}
				net.AddClause(lits, r.NormFloat64(), -1, -1, 1)
			}
		}
	}
	return net
}

// citeseerLike returns a network shaped like the CiteSeer segmentation
// networks of the ISM model: per citation, 30 to 48 positions times three
// fields; unary clauses (token and LessThan-driven rules once the evidence
// is in), hard mutual exclusion of the fields at a position, a soft
// at-least-one-field clause, "Next" chain clauses of the same field and
// cross-field transitions between consecutive positions.
func citeseerLike(citations int, seed int64) *ground.Network {
	r := rand.New(rand.NewSource(seed))
	total := 0
	sizes := make([]int, citations)
	for c := range sizes {
		sizes[c] = 30 + r.Intn(19)
		total += 3 * sizes[c]
	}
	net := ground.NewNetwork(total)
	inf := math.Inf(1)
	base := int32(0)
	lit := func(p, f int, neg bool) ground.Lit { return ground.MakeLit(base+int32(3*p+f), neg) }
	for _, np := range sizes {
		for p := 0; p < np; p++ {
			for f := 0; f < 3; f++ {
				for k := 0; k < 4; k++ {
					net.AddClause([]ground.Lit{lit(p, f, r.Intn(3) == 0)}, r.NormFloat64(), -1, -1, 1)
				}
				for g := f + 1; g < 3; g++ {
					net.AddClause([]ground.Lit{lit(p, f, true), lit(p, g, true)}, inf, -1, -1, 1)
				}
			}
			net.AddClause([]ground.Lit{lit(p, 0, false), lit(p, 1, false), lit(p, 2, false)}, 1+r.Float64(), -1, -1, 1)
			if p+1 < np {
				for f := 0; f < 3; f++ {
					if r.Intn(5) != 0 {
						net.AddClause([]ground.Lit{lit(p, f, true), lit(p+1, f, false)}, 1+r.Float64(), -1, -1, 1)
					} else {
						net.AddClause([]ground.Lit{lit(p, f, true), lit(p+1, f, true)}, -0.5*r.Float64(), -1, -1, 1)
					}
					for g := 0; g < 3; g++ {
						if g != f {
							net.AddClause([]ground.Lit{lit(p, f, true), lit(p+1, g, true)}, 0.3*r.NormFloat64(), -1, -1, 1)
						}
					}
				}
			}
		}
		base += int32(3 * np)
	}
	return net
}

func benchSolve(b *testing.B, net *ground.Network, opt Options) {
	b.ReportAllocs()
	var st *Stats
	for i := 0; i < b.N; i++ {
		res, s, err := SolveStats(context.Background(), net, opt)
		if err != nil {
			b.Fatal(err)
		}
		if !res.Optimal {
			b.Fatal("not optimal")
		}
		st = s
	}
	b.ReportMetric(float64(len(st.Components)), "components")
	b.ReportMetric(float64(st.Width), "width")
}

// BenchmarkChain20000 solves the 20,000-atom linear chain.
func BenchmarkChain20000(b *testing.B) {
	benchSolve(b, chain(20000, 1), Options{})
}

// BenchmarkCiteSeerLike solves 1,563 CiteSeer-shaped components.
func BenchmarkCiteSeerLike(b *testing.B) {
	net := citeseerLike(1563, 1)
	b.Logf("%d atoms, %d clauses", net.NumAtoms(), net.NumClauses())
	benchSolve(b, net, Options{})
}

// BenchmarkCiteSeerLikeOneWorker is BenchmarkCiteSeerLike on one worker.
func BenchmarkCiteSeerLikeOneWorker(b *testing.B) {
	benchSolve(b, citeseerLike(1563, 1), Options{Workers: 1})
}

// BenchmarkCiteSeerLike100Search forces the search path (mini-bucket
// i-bound 4, below the width 5) on 100 CiteSeer-shaped components.
func BenchmarkCiteSeerLike100Search(b *testing.B) {
	benchSolve(b, citeseerLike(100, 1), Options{Method: Search, IBound: 4})
}

// BenchmarkCiteSeerLike100SearchWide is BenchmarkCiteSeerLike100Search
// with the default i-bound (the width: mini-buckets are exact).
func BenchmarkCiteSeerLike100SearchWide(b *testing.B) {
	benchSolve(b, citeseerLike(100, 1), Options{Method: Search})
}

// grid returns a k-by-k grid with random real unary and pairwise weights
// (induced width about k).
func grid(k int, seed int64) *ground.Network {
	r := rand.New(rand.NewSource(seed))
	net := ground.NewNetwork(k * k)
	id := func(i, j int) int32 { return int32(i*k + j) }
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			net.AddClause([]ground.Lit{ground.MakeLit(id(i, j), false)}, r.NormFloat64(), -1, -1, 1)
			if i+1 < k {
				net.AddClause([]ground.Lit{ground.MakeLit(id(i, j), true), ground.MakeLit(id(i+1, j), false)}, r.NormFloat64(), -1, -1, 1)
			}
			if j+1 < k {
				net.AddClause([]ground.Lit{ground.MakeLit(id(i, j), false), ground.MakeLit(id(i, j+1), true)}, r.NormFloat64(), -1, -1, 1)
			}
		}
	}
	return net
}

// BenchmarkGrid15 solves a 15x15 grid (width about 20: variable
// elimination with large tables).
func BenchmarkGrid15(b *testing.B) {
	benchSolve(b, grid(15, 1), Options{MaxWidth: 22})
}

// BenchmarkGrid20Search solves a 20x20 grid, too wide for variable
// elimination, by branch and bound.
func BenchmarkGrid20Search(b *testing.B) {
	benchSolve(b, grid(20, 1), Options{})
}

// BenchmarkCiteSeerLike100SearchCold is BenchmarkCiteSeerLike100Search
// without the warm start.
func BenchmarkCiteSeerLike100SearchCold(b *testing.B) {
	benchSolve(b, citeseerLike(100, 1), Options{Method: Search, IBound: 4, NoWarmStart: true})
}

// BenchmarkGrid20SearchCold is BenchmarkGrid20Search without the warm
// start.
func BenchmarkGrid20SearchCold(b *testing.B) {
	benchSolve(b, grid(20, 1), Options{NoWarmStart: true})
}

// citeSeerNetwork grounds the ISM model on CiteSeer replicated k times
// (see replicate.CiteSeer; query InField) with every parameter's weight
// drawn from N(0, 1).
func citeSeerNetwork(b *testing.B, k int) *ground.Network {
	return groundCiteSeer(b, replicate.CiteSeer(b, k), 0)
}

// groundCiteSeer parses the ISM model and the evidence src, grounds them
// (query InField) and draws the weights, reading and grounding on workers
// goroutines (0: GOMAXPROCS).
func groundCiteSeer(b *testing.B, src []byte, workers int) *ground.Network {
	m, err := mln.ParseModel("ism.mln", examples.CiteSeerISM())
	if err != nil {
		b.Fatal(err)
	}
	db := mln.NewDatabase(m)
	db.Workers = workers
	if err := db.ReadFrom("citeseer.db", src); err != nil {
		b.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		b.Fatal(err)
	}
	q, _ := m.Pred("InField")
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: []mln.PredID{q.ID}, Workers: workers})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	for i := range m.Weights {
		m.Weights[i] = r.NormFloat64()
	}
	net.SetWeights()
	return net
}

// BenchmarkCiteSeer16x is exact MAP on CiteSeer 16x (3.8M atoms, 15M
// clauses, weights from N(0, 1)) end to end from the evidence text in
// memory: reading, grounding and solving, all on one goroutine and all on
// GOMAXPROCS, in the same run; it reports the CPU time and its ratio to
// the wall time. Skipped without the data folder.
func BenchmarkCiteSeer16x(b *testing.B) {
	src := replicate.CiteSeer(b, 16)
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			cpu0 := cputime.Now()
			cost := 0.0
			for i := 0; i < b.N; i++ {
				net := groundCiteSeer(b, src, workers)
				res, err := Solve(context.Background(), net, Options{Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				if !res.Optimal {
					b.Fatal("not proved optimal")
				}
				cost = res.Cost
			}
			cpu := float64(cputime.Now() - cpu0)
			b.ReportMetric(cpu/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(cpu/float64(b.Elapsed().Nanoseconds()), "cpu/wall")
			b.ReportMetric(cost, "cost")
		})
	}
}

// BenchmarkPrepareCiteSeer16x is the preparation of exact MAP (unit
// propagation, simplification and the residual components) on CiteSeer
// 16x (3.8M atoms, 15M clauses): the serial code it replaced ("before"),
// the parallel code on one goroutine and on GOMAXPROCS, in the same run.
// Skipped without the data folder.
func BenchmarkPrepareCiteSeer16x(b *testing.B) {
	net := citeSeerNetwork(b, 16)
	ctx := context.Background()
	run := func(name string, f func() int) {
		b.Run(name, func(b *testing.B) {
			cpu0 := cputime.Now()
			nc := 0
			for i := 0; i < b.N; i++ {
				nc = f()
			}
			b.ReportMetric(float64(cputime.Now()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(nc), "components")
		})
	}
	run("before", func() int { return len(prepareSerial(ctx, net, nil).componentsSerial()) })
	run("workers=1", func() int { return len(prepare(ctx, net, nil, 1).components()) })
	run(fmt.Sprintf("workers=%d", runtime.GOMAXPROCS(0)), func() int {
		return len(prepare(ctx, net, nil, runtime.GOMAXPROCS(0)).components())
	})
}
