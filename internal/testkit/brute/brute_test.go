package brute

import (
	"math"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

func load(t *testing.T, model, evidence string) (*mln.Model, *mln.Database) {
	t.Helper()
	m, err := mln.ParseModel("t.mln", model)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "t.db", evidence)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	return m, db
}

// TestEval checks scores and counts computed by hand.
func TestEval(t *testing.T) {
	m, db := load(t, `
t = {A, B, C}
P(t)
Q(t, t)
2 P(x)
-1 P(+x) v Q(x, A)
EXIST y Q(x, y).
`, "P(A)\n?Q(A,A)\nQ(B,C)\n")
	p, _ := m.Pred("P")
	prob := NewProblem(m, db, []mln.PredID{p.ID})
	// Unknown: P(B), P(C) (open world), Q(A,A) ("?").
	if len(prob.Atoms) != 3 {
		t.Fatalf("%d unknown atoms: %v", len(prob.Atoms), prob.Atoms)
	}
	q, _ := m.Pred("Q")
	a, _ := m.Const("A")
	b, _ := m.Const("B")
	iB, _ := prob.Index(p.ID, []mln.ConstID{b})
	iQ, _ := prob.Index(q.ID, []mln.ConstID{a, a})
	world := make([]bool, 3)
	world[iB] = true
	world[iQ] = true
	r := prob.Eval(world)
	// 2·(P(A)+P(B)) = 4; "+x": P(A) and P(B) true (each -1), P(C) false
	// and Q(C,A) false: 0; total 4 - 2 = 2.
	if r.Score != 2 {
		t.Errorf("score %v, want 2", r.Score)
	}
	// EXIST y Q(x,y): true for A (Q(A,A)) and B (Q(B,C)), false for C.
	if r.HardViolated != 1 {
		t.Errorf("hard violations %d, want 1", r.HardViolated)
	}
	if got := r.Counts[ParamKey{0, ""}]; got != 2 {
		t.Errorf("count of formula 0: %v, want 2", got)
	}
	if got := r.Counts[ParamKey{1, mln.BindingKey([]mln.ConstID{b})}]; got != 1 {
		t.Errorf("count of formula 1, x=B: %v, want 1", got)
	}
	if s, h := Score(m, db, []mln.PredID{p.ID}, func(pr mln.PredID, args []mln.ConstID) bool {
		return (pr == p.ID && args[0] == b) || pr == q.ID
	}); s != 2 || h != 1 {
		t.Errorf("Score = %v, %d", s, h)
	}
}

// TestNetwork checks the enumerators on a two-atom network.
func TestNetwork(t *testing.T) {
	n := ground.NewNetwork(2)
	n.AddClause([]ground.Lit{ground.MakeLit(0, false)}, 1, -1, 0, 1)
	n.AddClause([]ground.Lit{ground.MakeLit(0, true), ground.MakeLit(1, false)}, 2, -1, 1, 1)
	n.AddClause([]ground.Lit{ground.MakeLit(1, true)}, math.Inf(1), -1, -1, 1)
	y, s, h := MAP(n)
	// Atom 1 must be false (hard); then atom 0 true scores 1, false 2.
	if y[0] || y[1] || s != 2 || h != 0 {
		t.Errorf("MAP %v %v %d", y, s, h)
	}
	y, s, _ = MAPBias(n, []float64{1.5, 0})
	if !y[0] || s != 2.5 {
		t.Errorf("MAPBias %v %v", y, s)
	}
	// Feasible worlds: (0,0) score 2, (1,0) score 1.
	pr := Marginals(n)
	want := math.Exp(1) / (math.Exp(1) + math.Exp(2))
	if math.Abs(pr[0]-want) > 1e-12 || pr[1] != 0 {
		t.Errorf("marginals %v, want [%v 0]", pr, want)
	}
	if z := LogZ(n); math.Abs(z-math.Log(math.Exp(1)+math.Exp(2))) > 1e-12 {
		t.Errorf("LogZ %v", z)
	}
	e := ExpectedCounts(n)
	if math.Abs(e[0]-want) > 1e-12 || math.Abs(e[1]-(1-want)) > 1e-12 {
		t.Errorf("expected counts %v", e)
	}
}
