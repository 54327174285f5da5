package decision_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/infer/bp"
	"github.com/marple-mln/marple/infer/decision"
	"github.com/marple-mln/marple/mln"
)

// problemText grounds a decision problem with action predicate A.
func problemText(t *testing.T, model, evidence string) *decision.Problem {
	t.Helper()
	ctx := context.Background()
	m, err := mln.ParseModel("p.mln", model)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "p.db", evidence)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	actions, err := m.PredIDs("A")
	if err != nil {
		t.Fatal(err)
	}
	p, err := decision.NewProblem(ctx, m, db, actions, decision.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// chainText is a chain of n nodes: acting on a node makes it good, good
// nodes make the next good; acting costs 1, a good node pays 3 (with
// nonLiteral, a good node that is also acted on pays 3).
func chainText(n int, nonLiteral bool) (model, evidence string) {
	var b strings.Builder
	b.WriteString("Next(node, node)\nA(node)\nGood(node)\n-1 Good(x)\n2 A(x) => Good(x)\n1 Next(x, y) ^ Good(x) => Good(y)\n:-1 A(x)\n")
	if nonLiteral {
		b.WriteString(":3 Good(x) ^ !A(x)\n")
	} else {
		b.WriteString(":3 Good(x)\n")
	}
	var e strings.Builder
	for i := range n - 1 {
		fmt.Fprintf(&e, "Next(N%d, N%d)\n", i, i+1)
	}
	return b.String(), e.String()
}

// TestOverflow: utilities whose sum lies beyond the float64 range are
// evaluated exactly (scaled by a power of two): the result is the exact
// sum, never +Inf, and sums that cancel (Inf - Inf in float64) are exact.
func TestOverflow(t *testing.T) {
	ctx := context.Background()
	const model = "P(t)\nQ(t)\nR(t)\nA(t)\nA(x) => P(x).\n:5e307 P(x)\n:1e308 Q(x)\n"
	for _, c := range []struct {
		name, model, evidence string
		want                  string // the constant part, besides P's
	}{
		{"sum", model, "Q(K1)\nQ(K2)\n", "2e308"},
		{"cancel", model + ":-1e308 R(x)\n", "Q(K1)\nQ(K2)\nR(K1)\nR(K2)\n", "0"},
	} {
		p := problemText(t, c.model, c.evidence)
		if p.Scale == 0 {
			t.Fatalf("%s: utilities up to 4e308 not scaled", c.name)
		}
		res, err := p.Solve(ctx, decision.SolveOptions{Engine: bp.Engine{}, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if math.IsInf(res.Scaled, 0) || math.IsNaN(res.Scaled) || strings.Contains(res.Text(), "Inf") {
			t.Fatalf("%s: utility %v (scaled %v, %s)", c.name, res.Utility, res.Scaled, res.Text())
		}
		// Acting on both makes P certain (5e307 each, within the clamp's
		// e^-60): the best policy.
		if !slices.Equal(res.Actions, []bool{true, true}) {
			t.Errorf("%s: actions %v", c.name, res.Actions)
		}
		got, _, err := big.ParseFloat(res.Text(), 10, 200, big.ToNearestEven)
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := big.ParseFloat(c.want, 10, 200, big.ToNearestEven)
		want.Add(want, big.NewFloat(1e308))
		if d := new(big.Float).Sub(got, want); new(big.Float).Abs(d).Cmp(big.NewFloat(1e295)) > 0 {
			t.Errorf("%s: expected utility %s, want %s", c.name, res.Text(), want.Text('g', 17))
		}
		if c.name == "cancel" && (math.IsInf(res.Utility, 0) || math.Abs(res.Utility-1e308) > 1e295) {
			t.Errorf("%s: utility %v, want 1e308 as a float64", c.name, res.Utility)
		}
	}
	// Ordinary utilities are not scaled.
	if p := problemText(t, "P(t)\nA(t)\n1 A(x) => P(x)\n:1e300 P(x)\n", "P(K1)\n!P(K2)\n?A(K1)\n"); p.Scale != 0 {
		t.Errorf("scale %d for utilities far within the range", p.Scale)
	}
}

// TestTooLarge: an exhaustive search beyond MaxEvaluations is refused
// before it starts, with the number of evaluations and their cost.
func TestTooLarge(t *testing.T) {
	model, evidence := chainText(21, false)
	p := problemText(t, model, evidence)
	eng := bp.Engine{Options: bp.Options{Tolerance: 1e-4}}
	_, err := p.Solve(context.Background(), decision.SolveOptions{Engine: eng, MaxExact: 30, ExactAtoms: -1, ExactWidth: -1})
	var tl *decision.TooLargeError
	if !errors.As(err, &tl) || tl.Actions != 21 || tl.Limit != decision.DefaultMaxEvaluations {
		t.Fatalf("error %v", err)
	}
	for _, want := range []string{"2^21 = 2097152 evaluations", "each by belief propagation on 42 atoms", "more than the limit of 1048576"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// Within a raised limit it runs (here cancelled at once from the
	// progress report).
	ctx, cancel := context.WithCancel(context.Background())
	_, err = p.Solve(ctx, decision.SolveOptions{Engine: eng, MaxExact: 30, MaxEvaluations: 1 << 21, ExactAtoms: -1, ExactWidth: -1,
		Progress: func(decision.Progress) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled search: %v", err)
	}
}

// TestProgressAndLabels: the exhaustive search reports its assignments
// done out of 2^k and ends at the total; the greedy search reports its
// restarts; the result says which parts were searched how.
func TestProgressAndLabels(t *testing.T) {
	model, evidence := chainText(10, false)
	p := problemText(t, model, evidence)
	ctx := context.Background()
	var last decision.Progress
	calls := 0
	res, err := p.Solve(ctx, decision.SolveOptions{Engine: bp.Engine{}, Progress: func(g decision.Progress) { last = g; calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exact || res.Parts != 1 || res.ExactParts != 1 || res.Evaluations != 1024 || !slices.Equal(res.Methods, []string{"variable elimination"}) {
		t.Errorf("exhaustive: %+v", res)
	}
	if calls < 4 || !last.Exhaustive || last.Done != 1024 || last.Total != 1024 || last.Part != 1 || last.Parts != 1 || last.Best != res.Utility {
		t.Errorf("exhaustive: %d progress calls, last %+v", calls, last)
	}
	calls = 0
	g, err := p.Solve(ctx, decision.SolveOptions{Engine: bp.Engine{}, MaxExact: 5, Restarts: 3, Progress: func(x decision.Progress) { last = x; calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	if g.Exact || g.ExactParts != 0 || g.GreedyActions != 10 || g.Restarts != 3 {
		t.Errorf("greedy: %+v", g)
	}
	if calls == 0 || last.Exhaustive || last.Restart != 3 || last.Restarts != 3 || last.Total != 0 {
		t.Errorf("greedy: %d progress calls, last %+v", calls, last)
	}
	if g.Utility > res.Utility+1e-9 {
		t.Errorf("greedy %v above the exhaustive maximum %v", g.Utility, res.Utility)
	}
}

// TestNonLiteralUtility: a utility on a conjunction (an auxiliary atom per
// grounding, defined by hard clauses) is enumerated exactly with the
// auxiliary atoms derived, and agrees with the engine enumerating every
// atom; the independent parts are searched apart.
func TestNonLiteralUtility(t *testing.T) {
	model, evidence := chainText(5, true)
	// Two chains: N0..N4 and M0..M2.
	for i := range 2 {
		evidence += fmt.Sprintf("Next(M%d, M%d)\n", i, i+1)
	}
	p := problemText(t, model, evidence)
	ctx := context.Background()
	res, err := p.Solve(ctx, decision.SolveOptions{Engine: bp.Engine{}, Seed: 1, ExactWidth: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exact || res.Parts != 2 || res.Evaluations != 32+8 || !slices.Equal(res.Methods, []string{"exact enumeration"}) {
		t.Errorf("%+v", res)
	}
	// Variable elimination (the cheaper here, chosen by default) agrees.
	ve, err := p.Solve(ctx, decision.SolveOptions{Engine: bp.Engine{}, Seed: 1})
	if err != nil || !slices.Equal(ve.Methods, []string{"variable elimination"}) || math.Abs(ve.Utility-res.Utility) > 1e-9 || !slices.Equal(ve.Actions, res.Actions) {
		t.Errorf("variable elimination %+v (%v), enumeration %+v", ve, err, res)
	}
	ref, err := p.Solve(ctx, decision.SolveOptions{Engine: exactEngine{}, Seed: 1, ExactAtoms: -1, ExactWidth: -1})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ref.Utility-res.Utility) > 1e-9 || !slices.Equal(ref.Actions, res.Actions) {
		t.Errorf("enumeration %v %v, engine %v %v", res.Utility, res.Actions, ref.Utility, ref.Actions)
	}
	u, err := p.ExpectedUtility(ctx, exactEngine{}, res.Actions, 1)
	if err != nil || math.Abs(u-res.Utility) > 1e-9 {
		t.Errorf("Solve %v, the actions' expected utility %v (%v)", res.Utility, u, err)
	}
}

// TestVariableElimination: a part too large to enumerate by default (13
// atoms besides the actions and the auxiliary atoms) is solved by variable
// elimination, with the expected utilities of enumeration (asked for).
func TestVariableElimination(t *testing.T) {
	model, evidence := chainText(13, true)
	p := problemText(t, model, evidence)
	ctx := context.Background()
	ve, err := p.Solve(ctx, decision.SolveOptions{Engine: bp.Engine{}, MaxExact: -1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ve.Methods, []string{"variable elimination"}) || ve.Exact {
		t.Errorf("methods %q, exact %v", ve.Methods, ve.Exact)
	}
	en, err := p.Solve(ctx, decision.SolveOptions{Engine: bp.Engine{}, MaxExact: -1, Seed: 1, ExactAtoms: 13, ExactWidth: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(en.Methods, []string{"exact enumeration"}) || math.Abs(en.Utility-ve.Utility) > 1e-9*math.Max(1, math.Abs(en.Utility)) || !slices.Equal(en.Actions, ve.Actions) {
		t.Errorf("variable elimination %v %v, enumeration %v %v (%q)", ve.Utility, ve.Actions, en.Utility, en.Actions, en.Methods)
	}
}
