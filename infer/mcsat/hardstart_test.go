package mcsat

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/exact"
)

// equivalenceChain returns the network of a long chain of hard
// equivalences x0 <=> x1 <=> ... <=> x(n-1) with x0 false, and atoms
// y0..y(k-1) with soft clauses x_i v y_i of weight 1 (so P(y_i) =
// e/(1+e)): from a random world, WalkSAT must move the boundaries between
// true and false runs of the chain until they meet, a random walk of
// order n^2 moves. Atoms: x_i is i, y_i is n+i.
func equivalenceChain(n, k int) *ground.Network {
	net := ground.NewNetwork(n + k)
	hard := math.Inf(1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, true)}, hard, -1, -1, 1)
	for a := int32(0); a+1 < int32(n); a++ {
		net.AddClause([]ground.Lit{ground.MakeLit(a, true), ground.MakeLit(a+1, false)}, hard, -1, -1, 1)
		net.AddClause([]ground.Lit{ground.MakeLit(a, false), ground.MakeLit(a+1, true)}, hard, -1, -1, 1)
	}
	for i := range k {
		x := int32(i * (n / k))
		net.AddClause([]ground.Lit{ground.MakeLit(x, false), ground.MakeLit(int32(n+i), false)}, 1, -1, -1, 1)
	}
	return net
}

// TestStartWhereWalkSATFails checks chains on a network whose hard
// clauses WalkSAT does not satisfy within its default budget from a
// random world, where the MAP engine finds a world satisfying them: the
// chains start from the exact search's world, MC-SAT and Gibbs run, and
// their marginals are the exact ones (the chain's atoms are all false in
// every sample, so the Rao-Blackwellised P(y_i) is exact in each).
func TestStartWhereWalkSATFails(t *testing.T) {
	const n, k = 4000, 4
	net := equivalenceChain(n, k)
	// WalkSAT alone, as the chains started before.
	m := testModel(net, nil)
	opt := Options{}
	opt.defaults()
	s := newState(m, rand.New(rand.NewPCG(1, 2)))
	for a := range s.y {
		s.y[a] = s.rng.Uint64()&1 == 1
	}
	if ok, err := s.initHard(opt.InitSteps, opt.Noise); ok || err != nil {
		t.Fatalf("WalkSAT satisfied the chain within %d moves (%v): the test needs a longer chain", opt.InitSteps, err)
	}
	// The MAP engine satisfies the hard clauses.
	res, err := exact.Engine{}.Solve(context.Background(), net, infer.Options{})
	if err != nil || res.HardViolated != 0 {
		t.Fatalf("MAP: %v, %d hard clauses violated", err, res.HardViolated)
	}
	want := math.E / (1 + math.E)
	for _, method := range []Method{MethodMCSAT, MethodGibbs} {
		probs, _, err := Run(context.Background(), net, 2, Options{Options: infer.Options{Seed: 3}, Samples: 10, BurnIn: -1, Chains: 2}, method)
		if err != nil {
			t.Fatalf("method %d: %v", method, err)
		}
		for a := range n {
			if probs[a] != 0 {
				t.Fatalf("method %d: P(x%d) = %g, the hard clauses make it 0", method, a, probs[a])
			}
		}
		for i := range k {
			if p := probs[n+i]; math.Abs(p-want) > 1e-9 {
				t.Errorf("method %d: P(y%d) = %.4f, exact %.4f", method, i, p, want)
			}
		}
	}
}

// TestExactStartMatchesExact checks MC-SAT and Gibbs against enumeration
// on random small networks with hard clauses, each chain started from the
// exact search's world.
func TestExactStartMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	worst := 0.0
	for i := range 15 {
		net, bias, want := randomModel(rng, false)
		for _, f := range []func(context.Context, *ground.Network, Options) ([]float64, error){MCSAT, Gibbs} {
			opt := Options{Options: infer.Options{Bias: bias, Seed: int64(i)}, Samples: 20000, Chains: 3}
			got, err := f(context.Background(), net, opt)
			if err != nil {
				t.Fatal(err)
			}
			e, a := maxErr(got, want)
			worst = math.Max(worst, e)
			if e > 0.04 {
				t.Errorf("model %d (%d atoms, %d clauses): atom %d: %.4f, exact %.4f", i, net.NumAtoms(), net.NumClauses(), a, got[a], want[a])
			}
		}
	}
	t.Logf("worst error %.4f", worst)
}

// equivalences returns a chain of n atoms tied by hard equivalences
// x_i <=> x_(i+1), with a soft unit clause x0 of weight w: its two worlds
// satisfying the hard clauses are all false and all true, and P(x_i) =
// e^w/(1+e^w).
func equivalences(n int, w float64) *ground.Network {
	net := ground.NewNetwork(n)
	hard := math.Inf(1)
	for a := int32(0); a+1 < int32(n); a++ {
		net.AddClause([]ground.Lit{ground.MakeLit(a, true), ground.MakeLit(a+1, false)}, hard, -1, -1, 1)
		net.AddClause([]ground.Lit{ground.MakeLit(a, false), ground.MakeLit(a+1, true)}, hard, -1, -1, 1)
	}
	net.AddClause([]ground.Lit{ground.MakeLit(0, false)}, w, -1, -1, 1)
	return net
}

// TestDispersedStarts checks that chain 0 starts with the atoms of the hard
// clauses false where it can, chain 1 with them true: on a chain of hard
// equivalences, the two modes.
func TestDispersedStarts(t *testing.T) {
	m := testModel(equivalences(50, 1.5), nil)
	opt := Options{}
	opt.defaults()
	for chain, want := range []bool{false, true} {
		s, err := startChain(m, &opt, rand.New(rand.NewPCG(1, uint64(chain))), chain)
		if err != nil {
			t.Fatal(err)
		}
		for a, v := range s.y {
			if v != want {
				t.Fatalf("chain %d: atom %d is %v", chain, a, v)
			}
		}
	}
}

// TestClassMovesMix checks that the chains cross between the two modes of
// a long chain of hard equivalences, which no single flip leaves: the
// class moves flip the whole chain, so the marginals are the exact ones
// (0.818) and R-hat is small.
func TestClassMovesMix(t *testing.T) {
	net := equivalences(40, 1.5)
	want := 1 / (1 + math.Exp(-1.5))
	for _, method := range []Method{MethodMCSAT, MethodGibbs} {
		probs, d, err := Run(context.Background(), net, 2, Options{Options: infer.Options{Seed: 1}, Samples: 1500, Chains: 2}, method)
		if err != nil {
			t.Fatal(err)
		}
		if d.NumAbove > 0 {
			t.Errorf("method %d: max R-hat %.3f", method, d.MaxRhat)
		}
		for a, p := range probs {
			if math.Abs(p-want) > 0.03 {
				t.Fatalf("method %d: P(x%d) = %.4f, exact %.4f", method, a, p, want)
			}
		}
	}
}

// TestClassMovesMatchExact checks Run (MC-SAT and Gibbs, with the class
// moves) against enumeration on random small networks in which pairs of
// hard clauses tie atoms as equal or opposite.
func TestClassMovesMatchExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	worst, tested := 0.0, 0
	for tested < 15 {
		net, bias, _ := randomModel(rng, false)
		n := net.NumAtoms()
		for range 1 + rng.IntN(3) {
			a, b := int32(rng.IntN(n)), int32(rng.IntN(n))
			if a == b {
				continue
			}
			opposite := rng.IntN(3) == 0
			net.AddClause([]ground.Lit{ground.MakeLit(a, false), ground.MakeLit(b, !opposite)}, math.Inf(1), -1, -1, 1)
			net.AddClause([]ground.Lit{ground.MakeLit(a, true), ground.MakeLit(b, opposite)}, math.Inf(1), -1, -1, 1)
		}
		want, ok := exactMarginals(net, bias)
		if !ok || len(testModel(net, bias).tiedClasses()) == 0 {
			continue
		}
		tested++
		for _, method := range []Method{MethodMCSAT, MethodGibbs} {
			opt := Options{Options: infer.Options{Bias: bias, Seed: int64(tested)}, Samples: 20000, Chains: 2, ExactAtoms: -1}
			got, _, err := Run(context.Background(), net, 1, opt, method)
			if err != nil {
				t.Fatal(err)
			}
			e, a := maxErr(got, want)
			worst = math.Max(worst, e)
			if e > 0.04 {
				t.Errorf("model %d, method %d (%d atoms, %d clauses): atom %d: %.4f, exact %.4f", tested, method, n, net.NumClauses(), a, got[a], want[a])
			}
		}
	}
	t.Logf("worst error %.4f", worst)
}
