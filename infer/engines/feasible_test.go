package engines_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/bp"
	"github.com/marple-mln/marple/infer/engines"
)

// TestMarginalEnginesRefuseInfeasible checks that every marginal engine
// of the registry fails, with an error wrapping infer.ErrInfeasible, on
// networks whose hard clauses cannot all hold (directly, and only through
// a chain of implications), and runs on the same networks made
// satisfiable.
func TestMarginalEnginesRefuseInfeasible(t *testing.T) {
	hard := math.Inf(1)
	lit := func(a int32, neg bool) ground.Lit { return ground.MakeLit(a, neg) }
	contradiction := func(sat bool) *ground.Network {
		net := ground.NewNetwork(2)
		net.AddClause([]ground.Lit{lit(0, false)}, hard, -1, -1, 1)
		if !sat {
			net.AddClause([]ground.Lit{lit(0, true)}, hard, -1, -1, 1)
		}
		net.AddClause([]ground.Lit{lit(0, true), lit(1, false)}, 1, -1, -1, 1)
		return net
	}
	chain := func(sat bool) *ground.Network {
		// x0, x0 => x1 => ... => x5, and !x5 (or x5 v x6 when satisfiable).
		net := ground.NewNetwork(8)
		net.AddClause([]ground.Lit{lit(0, false)}, hard, -1, -1, 1)
		for a := int32(0); a < 5; a++ {
			net.AddClause([]ground.Lit{lit(a, true), lit(a+1, false)}, hard, -1, -1, 1)
		}
		if sat {
			net.AddClause([]ground.Lit{lit(5, false), lit(6, false)}, hard, -1, -1, 1)
		} else {
			net.AddClause([]ground.Lit{lit(5, true)}, hard, -1, -1, 1)
		}
		net.AddClause([]ground.Lit{lit(6, false), lit(7, false)}, 0.5, -1, -1, 1)
		return net
	}
	s := engines.DefaultSettings()
	s.Workers, s.Samples, s.BurnIn = 1, 200, 10
	ctx := context.Background()
	for _, name := range engines.MarginalNames() {
		m, err := engines.NewMarginal(name, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, build := range []func(bool) *ground.Network{contradiction, chain} {
			if _, err := m.Marginals(ctx, build(false), infer.Options{Seed: 1}); !errors.Is(err, infer.ErrInfeasible) {
				t.Errorf("%s on an infeasible network: error %v", name, err)
			}
			probs, err := m.Marginals(ctx, build(true), infer.Options{Seed: 1})
			if err != nil {
				t.Fatalf("%s on a feasible network: %v", name, err)
			}
			if probs[0] < 0.99 {
				t.Errorf("%s: P(x0) = %g, the hard unit clause x0 makes it 1", name, probs[0])
			}
		}
	}
	m, err := engines.NewMarginal("bp", s)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := engines.Unwrap(m).(bp.Engine); !ok {
		t.Errorf("Unwrap(bp) is a %T", engines.Unwrap(m))
	}
}

// TestHardFalseWarning checks the warning's words, those of MAP's.
func TestHardFalseWarning(t *testing.T) {
	if w := engines.HardFalseWarning(0); w != "" {
		t.Errorf("no hard clause falsified: warning %q", w)
	}
	if w, want := engines.HardFalseWarning(2), "every world violates 2 hard clauses (2 falsified by the evidence alone): the marginals are those of the other clauses"; w != want {
		t.Errorf("warning %q, want %q", w, want)
	}
}
