package wmc

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/mcsat"
)

// banded returns a random network of n atoms whose clauses join atoms at
// most k-1 apart (so its treewidth is below k), with hard clauses and
// linear terms.
func banded(rng *rand.Rand, n, k int) (*ground.Network, []float64) {
	net := ground.NewNetwork(n)
	for i := range n {
		for range 2 {
			m := 1 + rng.IntN(3)
			ls := []ground.Lit{ground.MakeLit(int32(i), rng.IntN(2) == 0)}
			for range m - 1 {
				j := i + rng.IntN(k)
				if j < n {
					ls = append(ls, ground.MakeLit(int32(j), rng.IntN(2) == 0))
				}
			}
			w := 4*rng.Float64() - 2
			if rng.IntN(10) == 0 && len(ls) > 1 {
				w = math.Inf(1)
			}
			net.AddClause(ls, w, -1, -1, 1)
		}
	}
	bias := make([]float64, n)
	for a := range bias {
		bias[a] = rng.Float64() - 0.5
	}
	return net, bias
}

// windowLogZ computes log Z of a banded network by dynamic programming
// over the values of the last k atoms, with atom fix[0] fixed to fix[1]
// (none when fix is nil).
func windowLogZ(net *ground.Network, bias []float64, k int, fix []int) float64 {
	n := net.NumAtoms()
	last := make([][]int, n) // clauses by their largest atom
	for c := range net.NumClauses() {
		hi := int32(0)
		for _, l := range net.Clause(c) {
			hi = max(hi, l.Atom())
		}
		last[hi] = append(last[hi], c)
	}
	// f[s]: log-weight of the atoms so far with the last k atoms' values
	// s (bit j: atom i-j).
	size := 1 << k
	f := make([]float64, size)
	for s := range f {
		f[s] = math.Inf(-1)
	}
	f[0] = 0
	y := make([]bool, n)
	for i := range n {
		g := make([]float64, size)
		for s := range g {
			g[s] = math.Inf(-1)
		}
		for s, v := range f {
			if math.IsInf(v, -1) {
				continue
			}
			for x := range 2 {
				if fix != nil && fix[0] == i && fix[1] != x {
					continue
				}
				t := (s<<1 | x) & (size - 1)
				for j := 0; j < k && i-j >= 0; j++ {
					y[i-j] = t>>j&1 == 1
				}
				w := v
				if x == 1 {
					w += bias[i]
				}
				for _, c := range last[i] {
					sat := net.Satisfied(c, y)
					cw := net.Weight(c)
					switch {
					case math.IsInf(cw, 1) && !sat:
						w = math.Inf(-1)
					case sat && !math.IsInf(cw, 1):
						w += cw
					}
				}
				g[t] = logAdd(g[t], w)
			}
		}
		f = g
	}
	z := math.Inf(-1)
	for _, v := range f {
		z = logAdd(z, v)
	}
	return z
}

// TestBanded checks log Z and marginals of networks of 300 atoms of
// treewidth below 4 against dynamic programming over a sliding window.
func TestBanded(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 4 {
		const n, k = 300, 4
		net, bias := banded(rng, n, k)
		want := windowLogZ(net, bias, k, nil)
		for _, method := range []Method{MethodSearch, MethodVE, MethodAuto} {
			res, err := Solve(context.Background(), net, Options{Bias: bias, Method: method, noTopVE: true})
			if math.IsInf(want, -1) {
				if err == nil {
					t.Fatalf("network %d (%v): infeasible, got log Z %v", i, method, res.LogZ)
				}
				continue
			}
			if err != nil {
				t.Fatalf("network %d (%v): %v", i, method, err)
			}
			if d := math.Abs(res.LogZ - want); d > 1e-9*math.Abs(want) {
				t.Fatalf("network %d (%v): log Z %v, window DP %v", i, method, res.LogZ, want)
			}
			for _, a := range []int{0, 1, n / 3, n / 2, n - 2, n - 1} {
				p := math.Exp(windowLogZ(net, bias, k, []int{a, 1}) - want)
				if d := math.Abs(res.Marginals[a] - p); d > 1e-9 {
					t.Fatalf("network %d (%v): P(atom %d) = %v, window DP %v", i, method, a, res.Marginals[a], p)
				}
			}
			t.Logf("network %d (%v): log Z %.6f, %+v", i, method, res.LogZ, res.Stats)
		}
	}
}

// TestGrid checks an 8×8 grid (treewidth 8) against dynamic programming
// over a window of nine atoms (the grid's bandwidth in row-major order).
func TestGrid(t *testing.T) {
	const n = 8
	net := grid(n, 2)
	want := windowLogZ(net, make([]float64, n*n), n+1, nil)
	for _, method := range []Method{MethodSearch, MethodVE, MethodAuto} {
		res, err := Solve(context.Background(), net, Options{Method: method, noTopVE: true})
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(res.LogZ - want); d > 1e-9*math.Abs(want) {
			t.Fatalf("%v: log Z %v, window DP %v", method, res.LogZ, want)
		}
		for _, a := range []int{0, n + 1, n * n / 2, n*n - 1} {
			p := math.Exp(windowLogZ(net, make([]float64, n*n), n+1, []int{a, 1}) - want)
			if d := math.Abs(res.Marginals[a] - p); d > 1e-9 {
				t.Fatalf("%v: P(atom %d) = %v, window DP %v", method, a, res.Marginals[a], p)
			}
		}
		t.Logf("%v: log Z %.6f, %+v", method, res.LogZ, res.Stats)
	}
}

// TestAgainstMCSATComponents compares the smokers example with its test
// evidence, and a network of 400 atoms in components of up to 12, with
// MC-SAT, which enumerates components of up to mcsat.DefaultExactAtoms
// atoms: the same marginals to 1e-9.
func TestAgainstMCSATComponents(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	many := ground.NewNetwork(400)
	for base := 0; base < 400; base += 10 {
		for range 25 {
			k := 1 + rng.IntN(3)
			var ls []ground.Lit
			for range k {
				ls = append(ls, ground.MakeLit(int32(base+rng.IntN(10)), rng.IntN(2) == 0))
			}
			w := 4*rng.Float64() - 2
			if k > 1 && rng.IntN(12) == 0 {
				w = math.Inf(1)
			}
			many.AddClause(ls, w, -1, -1, 1)
		}
	}
	for _, c := range []struct {
		name string
		net  *ground.Network
	}{{"smokers", smokersNet(t)}, {"400 atoms", many}} {
		want, d, err := mcsat.Run(ctx, c.net, 2, mcsat.Options{Samples: 10}, mcsat.MethodMCSAT)
		if err != nil {
			t.Fatalf("%s: MC-SAT: %v", c.name, err)
		}
		if !math.IsInf(d.MinESS, 1) {
			t.Fatalf("%s: MC-SAT sampled a component", c.name)
		}
		res, err := Solve(ctx, c.net, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for a := range want {
			if d := math.Abs(res.Marginals[a] - want[a]); d > 1e-9 {
				t.Fatalf("%s: P(atom %d) = %v, MC-SAT's enumeration %v", c.name, a, res.Marginals[a], want[a])
			}
		}
		t.Logf("%s: %d components, log Z %.6f", c.name, res.Stats.Components, res.LogZ)
	}
}
