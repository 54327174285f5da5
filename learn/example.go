package learn

import (
	"context"
	"fmt"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
)

// Example is one training example: a ground network (the unknown atoms of
// x_t) and the true assignment y_t to its atoms.
//
// The network must contain every ground clause whatever the current
// weights (a grounder that dropped zero-weight clauses would hide them from
// learning). Online overwrites the network's Weight entries of the clauses
// with a parameter.
type Example struct {
	Net *ground.Network
	// Truth is the gold assignment, one entry per atom of Net.
	Truth []bool
	// Query marks the atoms the label loss counts (nil: all atoms). Atoms
	// outside it still take part in the counts n(x,y).
	Query []bool
	// Name identifies the example in errors (optional).
	Name string
}

// validate checks the example's shape.
func (ex *Example) validate() error {
	if ex == nil || ex.Net == nil {
		return fmt.Errorf("learn: example without a network")
	}
	n := ex.Net.NumAtoms()
	if len(ex.Truth) != n {
		return fmt.Errorf("learn: example %q: truth has %d atoms, network %d", ex.Name, len(ex.Truth), n)
	}
	if ex.Query != nil && len(ex.Query) != n {
		return fmt.Errorf("learn: example %q: query mask has %d atoms, network %d", ex.Name, len(ex.Query), n)
	}
	return nil
}

// ExampleSource yields training examples one at a time, so that a large
// training set need not be held in memory as ground networks: a source may
// ground example i when asked and forget it afterwards. Example may be
// called more than once for the same i (one call per pass). Grounding may
// allocate new parameters in the model (Model.Param); the learners grow
// accordingly.
type ExampleSource interface {
	// Len returns the number of examples.
	Len() int
	// Example returns example i, 0 <= i < Len().
	Example(ctx context.Context, i int) (*Example, error)
}

// Examples is an ExampleSource over examples held in memory.
type Examples []*Example

// Len returns the number of examples.
func (s Examples) Len() int { return len(s) }

// Example returns example i.
func (s Examples) Example(_ context.Context, i int) (*Example, error) { return s[i], nil }

// engine returns m, or the default MAP engine (engines.DefaultMAP with
// engines.DefaultSettings) when m is nil.
func engine(m infer.MAP) infer.MAP {
	if m == nil {
		return engines.Default()
	}
	return m
}

// solveMAP computes with engine m the MAP assignment of net under its
// current clause weights plus the linear terms bias (nil for none): the
// assignment y maximising Score(y) + Σ_{a: y_a} bias[a], with the
// semantics of infer.Options.Bias.
func solveMAP(ctx context.Context, m infer.MAP, net *ground.Network, bias []float64, seed int64) ([]bool, error) {
	res, err := m.Solve(ctx, net, infer.Options{Bias: bias, Seed: seed})
	if err != nil {
		return nil, err
	}
	if len(res.Assign) != net.NumAtoms() {
		return nil, fmt.Errorf("%s returned %d atoms, network has %d", m.Name(), len(res.Assign), net.NumAtoms())
	}
	return res.Assign, nil
}
