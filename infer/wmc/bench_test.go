package wmc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// grid returns an n×n Ising-like network: a clause of weight w either way
// between neighbours, and a unit clause of random weight per atom.
func grid(n int, seed uint64) *ground.Network {
	rng := rand.New(rand.NewPCG(seed, 1))
	net := ground.NewNetwork(n * n)
	at := func(i, j int) int32 { return int32(i*n + j) }
	for i := range n {
		for j := range n {
			net.AddClause([]ground.Lit{ground.MakeLit(at(i, j), false)}, rng.Float64()-0.5, -1, -1, 1)
			for _, d := range [][2]int{{0, 1}, {1, 0}} {
				if i+d[0] < n && j+d[1] < n {
					a, b := at(i, j), at(i+d[0], j+d[1])
					w := rng.Float64()
					net.AddClause([]ground.Lit{ground.MakeLit(a, true), ground.MakeLit(b, false)}, w, -1, -1, 1)
					net.AddClause([]ground.Lit{ground.MakeLit(a, false), ground.MakeLit(b, true)}, w, -1, -1, 1)
				}
			}
		}
	}
	return net
}

// BenchmarkGrid counts square grids.
func BenchmarkGrid(b *testing.B) {
	for _, n := range []int{6, 10, 14} {
		net := grid(n, 1)
		b.Run(fmt.Sprintf("%dx%d", n, n), func(b *testing.B) {
			var st Stats
			for range b.N {
				r, err := Solve(context.Background(), net, Options{MaxNodes: -1})
				if err != nil {
					b.Fatal(err)
				}
				st = r.Stats
			}
			b.ReportMetric(float64(st.Nodes), "nodes")
		})
	}
}

// smokersNet grounds examples/smokers with its test evidence.
func smokersNet(tb testing.TB) *ground.Network {
	dir := filepath.Join("..", "..", "examples", "smokers")
	m, err := mln.LoadModel(filepath.Join(dir, "smoking-weighted.mln"))
	if err != nil {
		tb.Fatal(err)
	}
	db, err := mln.LoadDatabase(m, filepath.Join(dir, "smoking-test.db"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		tb.Fatal(err)
	}
	q, err := m.PredIDs("Smokes", "Cancer")
	if err != nil {
		tb.Fatal(err)
	}
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: q})
	if err != nil {
		tb.Fatal(err)
	}
	return net
}

// BenchmarkSmokers counts examples/smokers with its test evidence.
func BenchmarkSmokers(b *testing.B) {
	net := smokersNet(b)
	b.ResetTimer()
	for range b.N {
		if _, err := Solve(context.Background(), net, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
