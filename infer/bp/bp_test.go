package bp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/internal/testkit/brute"
)

// randomTree returns a network of n atoms whose factor graph is a tree:
// each clause but the unit ones joins one atom already reached to atoms
// not reached yet.
func randomTree(rng *rand.Rand, n int, hard bool) *ground.Network {
	net := ground.NewNetwork(n)
	lit := func(a int) ground.Lit { return ground.MakeLit(int32(a), rng.IntN(2) == 0) }
	weight := func() float64 {
		if hard && rng.IntN(6) == 0 {
			return math.Inf(1)
		}
		return 4*rng.Float64() - 2
	}
	reached := 1
	for reached < n {
		k := 1 + rng.IntN(min(3, n-reached))
		lits := []ground.Lit{lit(rng.IntN(reached))}
		for i := 0; i < k; i++ {
			lits = append(lits, lit(reached+i))
		}
		reached += k
		net.AddClause(lits, weight(), -1, -1, 1)
	}
	for i := 0; i < n/2; i++ {
		net.AddClause([]ground.Lit{lit(rng.IntN(n))}, weight(), -1, -1, 1)
	}
	return net
}

// randomLoopy returns a network of n atoms with m random clauses of one to
// three literals over distinct atoms, weights in [-w, w].
func randomLoopy(rng *rand.Rand, n, m int, w float64) *ground.Network {
	net := ground.NewNetwork(n)
	for c := 0; c < m; c++ {
		k := 1 + rng.IntN(3)
		perm := rng.Perm(n)[:k]
		var lits []ground.Lit
		for _, a := range perm {
			lits = append(lits, ground.MakeLit(int32(a), rng.IntN(2) == 0))
		}
		net.AddClause(lits, w*(2*rng.Float64()-1), -1, -1, 1)
	}
	return net
}

// exact returns the marginals of net with the bias terms as unit
// clauses, by enumeration; false when the hard clauses cannot all hold.
func exact(net *ground.Network, bias []float64) ([]float64, bool) {
	n := net.NumAtoms()
	full := ground.NewNetwork(n)
	for c := 0; c < net.NumClauses(); c++ {
		full.AddClause(net.Clause(c), net.Weight(c), -1, -1, 1)
	}
	for a, b := range bias {
		full.AddClause([]ground.Lit{ground.MakeLit(int32(a), false)}, b, -1, -1, 1)
	}
	if _, _, hard := brute.MAP(full); hard > 0 {
		return nil, false
	}
	return brute.Marginals(full), true
}

func TestTreeExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		n := 2 + rng.IntN(11)
		net := randomTree(rng, n, trial%2 == 1)
		var bias []float64
		if trial%3 == 0 {
			bias = make([]float64, n)
			for a := range bias {
				bias[a] = rng.Float64() - 0.5
			}
		}
		want, ok := exact(net, bias)
		if !ok {
			continue // the hard clauses cannot all hold
		}
		got, st, err := Marginals(context.Background(), net, Options{Options: infer.Options{Bias: bias}, Workers: 1 + trial%2})
		if err != nil {
			t.Fatal(err)
		}
		if !st.Converged {
			t.Fatalf("trial %d: a tree did not converge in %d iterations", trial, st.Iterations)
		}
		for a := range want {
			if math.Abs(got[a]-want[a]) > 1e-6 {
				t.Fatalf("trial %d: atom %d: BP %v, exact %v", trial, a, got[a], want[a])
			}
		}
	}
}

func TestLoopyClose(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	worst, conv := 0.0, 0
	for trial := 0; trial < 200; trial++ {
		net := randomLoopy(rng, 8, 10, 1)
		want, _ := exact(net, nil)
		got, st, err := Marginals(context.Background(), net, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !st.Converged {
			continue
		}
		conv++
		for a := range want {
			worst = math.Max(worst, math.Abs(got[a]-want[a]))
		}
	}
	t.Logf("%d of 200 converged; largest error %.4f", conv, worst)
	if conv < 150 {
		t.Errorf("only %d of 200 small loopy networks converged", conv)
	}
	if worst > 0.05 {
		t.Errorf("largest error %.4f above 0.05", worst)
	}
}

func TestDeterministicWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	net := randomLoopy(rng, 3000, 9000, 1)
	a, _, err := Marginals(context.Background(), net, Options{Workers: 1, MaxIterations: 30})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Marginals(context.Background(), net, Options{Workers: 3, MaxIterations: 30})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("atom %d: %v with 1 worker, %v with 3", i, a[i], b[i])
		}
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	net := randomLoopy(rand.New(rand.NewPCG(1, 1)), 10, 10, 1)
	if _, _, err := Marginals(ctx, net, Options{}); err == nil {
		t.Fatal("no error from a cancelled context")
	}
}
