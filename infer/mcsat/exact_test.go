package mcsat

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// TestEnumeratedComponents checks the marginals of small components, which
// Components, Run and Sampling enumerate, against brute force over the
// whole network: random models with negative, real and hard weights, bias
// and repeated atoms in a clause, split into components or not.
func TestEnumeratedComponents(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for i := 0; i < 200; i++ {
		net, bias, want := randomModel(rng, false)
		opt := Options{Options: infer.Options{Bias: bias, Seed: int64(i)}, Samples: 10}
		got, err := Components(context.Background(), net, 2, opt, MCSAT)
		if err != nil {
			t.Fatal(err)
		}
		if e, a := maxErr(got, want); e > 1e-9 {
			t.Fatalf("model %d: Components: atom %d off by %g", i, a, e)
		}
		got, _, err = Run(context.Background(), net, 2, opt, MethodMCSAT)
		if err != nil {
			t.Fatal(err)
		}
		if e, a := maxErr(got, want); e > 1e-9 {
			t.Fatalf("model %d: Run: atom %d off by %g", i, a, e)
		}
	}
}

// TestEnumerationLimit checks that a component above Options.ExactAtoms,
// or one whose hard clauses no world satisfies, is not enumerated.
func TestEnumerationLimit(t *testing.T) {
	net := ground.NewNetwork(4)
	for a := int32(0); a < 3; a++ {
		net.AddClause([]ground.Lit{ground.MakeLit(a, true), ground.MakeLit(a+1, false)}, 0.7, -1, -1, 1)
	}
	c := net.Components()[0]
	if _, ok := enumerateMarginals(net, c, nil, 3); ok {
		t.Error("a component of 4 atoms was enumerated with a limit of 3")
	}
	p, ok := enumerateMarginals(net, c, nil, 4)
	if !ok {
		t.Fatal("a component of 4 atoms was not enumerated with a limit of 4")
	}
	want, _ := exactMarginals(net, nil)
	if e, a := maxErr(p, want); e > 1e-12 {
		t.Errorf("atom %d off by %g", a, e)
	}
	bad := ground.NewNetwork(1)
	bad.AddClause([]ground.Lit{ground.MakeLit(0, false)}, math.Inf(1), -1, -1, 1)
	bad.AddClause([]ground.Lit{ground.MakeLit(0, true)}, math.Inf(1), -1, -1, 1)
	if _, ok := enumerateMarginals(bad, bad.Components()[0], nil, 12); ok {
		t.Error("a component with no world satisfying its hard clauses was enumerated")
	}
	// Negative ExactAtoms: sampled, so a short run is not exact.
	opt := Options{Options: infer.Options{Seed: 1}, Samples: 7, ExactAtoms: -1}
	got, err := Components(context.Background(), net, 1, opt, MCSAT)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := maxErr(got, want); e == 0 {
		t.Error("ExactAtoms -1: the marginals came out exact")
	}
}

// TestConditionals checks the one-pass conditionals of every atom against
// conditional, atom by atom, on random models and worlds.
func TestConditionals(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for i := 0; i < 300; i++ {
		net, bias, _ := randomModel(rng, false)
		m := testModel(net, bias)
		s := newState(m, rng)
		s.begin()
		for a := range s.y {
			if rng.IntN(2) == 0 {
				s.flip(int32(a))
			}
		}
		hw := 0.0
		if i%3 == 0 {
			hw = 4
		}
		got := make([]float64, m.n)
		s.conditionals(got, make([]float64, m.n), make([]uint8, m.n), hw)
		for a := range got {
			if want := s.conditional(int32(a), hw); math.Abs(got[a]-want) > 1e-12 {
				t.Fatalf("model %d, atom %d: %g, conditional %g", i, a, got[a], want)
			}
		}
	}
}
