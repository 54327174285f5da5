package decision_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/marple-mln/marple/infer/decision"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/mln"
)

// TestViralMarketing solves the viral-marketing example (examples/viral)
// and checks that the chosen policy beats marketing to nobody and to
// everyone in expected utility, under belief propagation (the engine the
// search uses) and under MC-SAT; that the greedy search finds the policy of
// the exhaustive one; and that the frontier's utilities are those of BP run
// from scratch.
func TestViralMarketing(t *testing.T) {
	ctx := context.Background()
	m, db, err := mln.Load(ctx, []string{"../../examples/viral/viral.mln"}, []string{"../../examples/viral/viral.db"})
	if err != nil {
		t.Fatal(err)
	}
	actions, err := m.PredIDs("MarketTo")
	if err != nil {
		t.Fatal(err)
	}
	p, err := decision.NewProblem(ctx, m, db, actions, decision.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := engines.DefaultSettings()
	s.Workers = 1
	bpe, err := p.AutoEngine(s)
	if err != nil {
		t.Fatal(err)
	}
	if bpe.Name() != "bp" {
		t.Fatalf("engine %s, want bp", bpe.Name())
	}
	res, err := p.Solve(ctx, decision.SolveOptions{Engine: bpe, Seed: 1, ExactAtoms: -1, ExactWidth: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Methods, []string{"belief propagation"}) || res.Parts != 3 || res.ExactParts != 3 || res.Evaluations != 128+2+4 {
		t.Errorf("methods %q, %d parts (%d exhaustive), %d evaluations; want belief propagation, 3 parts, 134 evaluations", res.Methods, res.Parts, res.ExactParts, res.Evaluations)
	}
	// By default the parts are small enough for exact expected utilities
	// (variable elimination, cheaper here than enumeration): those of the
	// test's enumeration engine.
	ex, err := p.Solve(ctx, decision.SolveOptions{Engine: bpe, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ex.Methods, []string{"variable elimination"}) || !ex.Exact {
		t.Errorf("methods %q, exact %v; want variable elimination", ex.Methods, ex.Exact)
	}
	if u, err := p.ExpectedUtility(ctx, exactEngine{}, ex.Actions, 1); err != nil || math.Abs(u-ex.Utility) > 1e-9 {
		t.Errorf("enumerated utility %v, the enumeration engine's %v (%v)", ex.Utility, u, err)
	}
	if ex.Utility > res.Utility {
		t.Errorf("exact expected utility %v above BP's %v: BP overestimates it on this network", ex.Utility, res.Utility)
	}
	n := len(p.Actions)
	none, all := make([]bool, n), make([]bool, n)
	for i := range all {
		all[i] = true
	}
	marketed := 0
	for _, a := range res.Actions {
		if a {
			marketed++
		}
	}
	if !res.Exact || marketed == 0 || marketed == n {
		t.Fatalf("policy %v (exact %v)", res.Actions, res.Exact)
	}
	fresh, err := p.ExpectedUtility(ctx, bpe, res.Actions, 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := fresh - res.Utility; d > 1e-5 || d < -1e-5 {
		t.Errorf("frontier utility %v, BP from scratch %v", res.Utility, fresh)
	}
	mcs, err := engines.NewMarginal("mcsat", engines.Settings{Workers: 1, Samples: 4000, BurnIn: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, engine := range []string{"bp", "mcsat"} {
		e := bpe
		if engine == "mcsat" {
			e = mcs
		}
		best, err := p.ExpectedUtility(ctx, e, res.Actions, 3)
		if err != nil {
			t.Fatal(err)
		}
		uNone, err := p.ExpectedUtility(ctx, e, none, 3)
		if err != nil {
			t.Fatal(err)
		}
		uAll, err := p.ExpectedUtility(ctx, e, all, 3)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: chosen %.3f, nobody %.3f, everyone %.3f", engine, best, uNone, uAll)
		// The margins are several utility points, far beyond the sampling
		// error of 4000 MC-SAT samples.
		if best < uNone+1 || best < uAll+1 {
			t.Errorf("%s: the chosen policy's expected utility %.3f does not beat nobody (%.3f) and everyone (%.3f)", engine, best, uNone, uAll)
		}
	}
	g, err := p.Solve(ctx, decision.SolveOptions{Engine: bpe, MaxExact: -1, Seed: 1, ExactAtoms: -1, ExactWidth: -1})
	if err != nil {
		t.Fatal(err)
	}
	if g.Exact || g.Utility < res.Utility-1e-6 {
		t.Errorf("greedy search: utility %v (exact %v), exhaustive %v", g.Utility, g.Exact, res.Utility)
	}
}

// BenchmarkViralSolve measures the search alone on the viral-marketing
// example (1,024 assignments of 10 action atoms in three independent
// parts): exact, as by default, and with belief propagation on every part
// (marple infer -decision -bp, with its tolerance).
func BenchmarkViralSolve(b *testing.B) {
	ctx := context.Background()
	m, db, err := mln.Load(ctx, []string{"../../examples/viral/viral.mln"}, []string{"../../examples/viral/viral.db"})
	if err != nil {
		b.Fatal(err)
	}
	actions, err := m.PredIDs("MarketTo")
	if err != nil {
		b.Fatal(err)
	}
	p, err := decision.NewProblem(ctx, m, db, actions, decision.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s := engines.DefaultSettings()
	s.Workers = 1
	s.Tolerance = 1e-4 // marple infer's -convThresh
	eng, err := p.AutoEngine(s)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		exact int
	}{{"exact", 0}, {"bp", -1}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := p.Solve(ctx, decision.SolveOptions{Engine: eng, Seed: 1, ExactAtoms: c.exact, ExactWidth: c.exact}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
