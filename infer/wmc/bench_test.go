package wmc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
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

// BenchmarkGrid counts square grids by each method (search alone only up
// to 10×10).
func BenchmarkGrid(b *testing.B) {
	for _, n := range []int{6, 10, 14} {
		net := grid(n, 1)
		for _, method := range []Method{MethodSearch, MethodVE, MethodAuto} {
			if method == MethodSearch && n > 10 {
				continue
			}
			b.Run(fmt.Sprintf("%dx%d/%v", n, n, method), func(b *testing.B) {
				var st Stats
				for range b.N {
					r, err := Solve(context.Background(), net, Options{Method: method, MaxNodes: 2_000_000})
					if err != nil {
						b.Skip(err)
					}
					st = r.Stats
				}
				b.ReportMetric(float64(st.Nodes), "nodes")
				b.ReportMetric(float64(st.VEWidth), "width")
			})
		}
	}
}

// smokersNet grounds examples/smokers with its test evidence.
func smokersNet(tb testing.TB) *ground.Network {
	ev, err := os.ReadFile(filepath.Join("..", "..", "examples", "smokers", "smoking-test.db"))
	if err != nil {
		tb.Fatal(err)
	}
	return groundSmokers(tb, string(ev))
}

// groundSmokers grounds examples/smokers' weighted model against the
// evidence ev, Smokes and Cancer queried.
func groundSmokers(tb testing.TB, ev string) *ground.Network {
	model, err := os.ReadFile(filepath.Join("..", "..", "examples", "smokers", "smoking-weighted.mln"))
	if err != nil {
		tb.Fatal(err)
	}
	m, err := mln.ParseModel("smoking-weighted.mln", string(model))
	if err != nil {
		tb.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "evidence.db", ev)
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

// friends grounds the smokers model on n people, each with two random
// friends and one in ten a known smoker or non-smoker (Friends closed
// world, Smokes and Cancer queried).
func friends(tb testing.TB, n int) *ground.Network {
	rng := rand.New(rand.NewPCG(uint64(n), 9))
	var ev strings.Builder
	for i := range n {
		for range 2 {
			j := rng.IntN(n)
			if j != i {
				fmt.Fprintf(&ev, "Friends(P%d, P%d)\nFriends(P%d, P%d)\n", i, j, j, i)
			}
		}
		if rng.IntN(10) == 0 {
			if rng.IntN(2) == 0 {
				ev.WriteString("!")
			}
			fmt.Fprintf(&ev, "Smokes(P%d)\n", i)
		}
	}
	return groundSmokers(tb, ev.String())
}

// BenchmarkFriends counts friends and smokers with random friendships
// (two per person) by each method.
func BenchmarkFriends(b *testing.B) {
	for _, n := range []int{30, 60, 100} {
		net := friends(b, n)
		for _, method := range []Method{MethodSearch, MethodVE, MethodAuto} {
			b.Run(fmt.Sprintf("%d/%v", n, method), func(b *testing.B) {
				var st Stats
				for range b.N {
					r, err := Solve(context.Background(), net, Options{Method: method, MaxNodes: -1})
					if err != nil {
						b.Skip(err)
					}
					st = r.Stats
				}
				b.ReportMetric(float64(st.Nodes), "nodes")
				b.ReportMetric(float64(st.VEWidth), "width")
			})
		}
	}
}
