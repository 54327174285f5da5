package mcsat

import (
	"context"
	"math"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/testkit/brute"
)

// TestComponentsMatchesExact checks per-component sampling against exact
// marginals on a network of several independent pieces (with isolated
// atoms and bias), and that the worker count does not change the result.
func TestComponentsMatchesExact(t *testing.T) {
	net := ground.NewNetwork(9)
	lit := ground.MakeLit
	net.AddClause([]ground.Lit{lit(0, false), lit(1, false)}, math.Inf(1), -1, -1, 1) // H(A) v S(C): 2/3 each
	net.AddClause([]ground.Lit{lit(2, true), lit(3, false)}, 1.2, -1, -1, 1)
	net.AddClause([]ground.Lit{lit(3, false)}, -0.7, -1, -1, 1)
	net.AddClause([]ground.Lit{lit(4, false), lit(5, false), lit(6, true)}, 0.9, -1, -1, 1)
	net.AddClause([]ground.Lit{lit(6, false)}, 1.5, -1, -1, 1)
	// atoms 7 and 8 are in no clause
	bias := []float64{0, 0, 0, 0, 0, 0, 0, 0.8, 0}
	want := brute.Marginals(withBias(net, bias))
	for _, workers := range []int{1, 3} {
		for name, s := range map[string]Sampler{"MC-SAT": MCSAT, "Gibbs": Gibbs} {
			opt := Options{Samples: 20000, BurnIn: 200, ExactAtoms: -1}
			opt.Seed = 5
			opt.Bias = bias
			got, err := Components(context.Background(), net, workers, opt, s)
			if err != nil {
				t.Fatal(err)
			}
			for a := range want {
				if math.Abs(got[a]-want[a]) > 0.03 {
					t.Errorf("%s workers %d atom %d: %.3f, exact %.3f", name, workers, a, got[a], want[a])
				}
			}
		}
	}
}

// withBias returns net with the bias as unit clauses (for brute force).
func withBias(net *ground.Network, bias []float64) *ground.Network {
	out := ground.NewNetwork(net.NumAtoms())
	for c := 0; c < net.NumClauses(); c++ {
		out.AddClause(net.Clause(c), net.Weight(c), -1, -1, 1)
	}
	for a, b := range bias {
		if b != 0 {
			out.AddClause([]ground.Lit{ground.MakeLit(int32(a), false)}, b, -1, -1, 1)
		}
	}
	return out
}
