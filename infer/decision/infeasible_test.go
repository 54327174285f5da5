package decision_test

import (
	"context"
	"errors"
	"testing"

	"github.com/marple-mln/marple/infer/decision"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/mln"
)

// A(x) forces B(x), which forces C(x): with the evidence !C(K1), acting on
// K1 is infeasible through B(K1) and C(K1), atoms that are not actions
// (C is closed world: the evidence lists it).
// Acting on K2 gains 5 and makes B(K2) certain (cost 1).
const chainModel = `o = {K1, K2}
A(o)
B(o)
C(o)
A(x) => B(x).
B(x) => C(x).
:5 A(x)
:-1 B(x)
0.5 B(x)
`

func solveText(t *testing.T, model, evidence, engine string, maxExact int) (*mln.Model, *decision.Problem, *decision.Result, error) {
	t.Helper()
	ctx := context.Background()
	m, err := mln.ParseModel("c.mln", model)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "c.db", evidence)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	actions, _ := m.PredIDs("A")
	p, err := decision.NewProblem(ctx, m, db, actions, decision.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := engines.DefaultSettings()
	s.Workers = 1
	eng, err := engines.NewMarginal(engine, s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Solve(ctx, decision.SolveOptions{Engine: eng, Seed: 1, MaxExact: maxExact})
	return m, p, res, err
}

// TestInfeasibleThroughOtherAtoms: the exhaustive and the greedy searches,
// with BP and with MC-SAT, never choose or evaluate the infeasible
// assignments; when all are infeasible, Solve fails with ErrInfeasible.
func TestInfeasibleThroughOtherAtoms(t *testing.T) {
	for _, engine := range []string{"bp", "mcsat"} {
		for _, maxExact := range []int{0, -1} {
			m, p, res, err := solveText(t, chainModel, "!C(K1)\nC(K2)\n", engine, maxExact)
			if err != nil {
				t.Fatalf("%s: %v", engine, err)
			}
			name := func(i int) string { a := p.Actions[i]; return m.AtomString(p.Net.AtomPred[a], p.Net.AtomArgs[a]) }
			for i, v := range res.Actions {
				if want := name(i) == "A(K2)"; v != want {
					t.Errorf("%s (MaxExact %d): %s = %v, want %v", engine, maxExact, name(i), v, want)
				}
			}
			for w := range 4 {
				acts := make([]bool, len(p.Actions))
				for i := range acts {
					acts[i] = w>>i&1 == 1
				}
				k1 := acts[0] && name(0) == "A(K1)" || acts[1] && name(1) == "A(K1)"
				if ok, err := p.Feasible(acts); ok == k1 || err != nil {
					t.Errorf("%v: feasible %v, %v", acts, ok, err)
				}
			}
		}
	}
	// Some x must be acted on, and neither can be.
	if _, _, _, err := solveText(t, chainModel+"EXIST x A(x).\n", "!C(K1)\n!C(K2)\n", "bp", 0); !errors.Is(err, decision.ErrInfeasible) {
		t.Fatalf("got %v, want ErrInfeasible", err)
	}
	// The evidence alone falsifies a hard clause.
	if _, _, _, err := solveText(t, chainModel, "B(K1)\n!C(K1)\n", "mcsat", -1); !errors.Is(err, decision.ErrInfeasible) {
		t.Fatalf("got %v, want ErrInfeasible", err)
	}
}
