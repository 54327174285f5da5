package ground_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

const smokersMLN = `
person = {Anna, Bob, Chris, Dan}
Friends(person, person)
Smokes(person)
Cancer(person)
1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))
0.7 Friends(+x, y) ^ Smokes(y) => Smokes(x)
!Cancer(x) v !Friends(x, x).
`

const smokersDB = `
Friends(Anna, Bob)
Friends(Bob, Anna)
Friends(Chris, Dan)
Friends(Dan, Dan)
Smokes(Anna)
!Smokes(Chris)
?Friends(Bob, Chris)
Cancer(Dan)
`

func loadSmokers(t *testing.T) (*mln.Model, *mln.Database, []mln.PredID) {
	return loadSmokersWith(t, "")
}

// loadSmokersWith is loadSmokers with more model text after smokersMLN.
func loadSmokersWith(t *testing.T, more string) (*mln.Model, *mln.Database, []mln.PredID) {
	t.Helper()
	m, err := mln.ParseModel("smokers.mln", smokersMLN+more)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "smokers.db", smokersDB)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	s, _ := m.Pred("Smokes")
	c, _ := m.Pred("Cancer")
	return m, db, []mln.PredID{s.ID, c.ID}
}

func TestOptionsErrors(t *testing.T) {
	m, db, q := loadSmokers(t)
	ctx := context.Background()
	if _, err := ground.Ground(ctx, m, db, ground.Options{Query: q, ClosedWorld: q[:1]}); err == nil || !strings.Contains(err.Error(), "Smokes") {
		t.Errorf("query and closed world: %v", err)
	}
	f, _ := m.Pred("Friends")
	if _, err := ground.Ground(ctx, m, db, ground.Options{Query: q, OpenWorld: []mln.PredID{f.ID}, ClosedWorld: []mln.PredID{f.ID}}); err == nil {
		t.Error("open and closed world: no error")
	}
	if _, err := ground.Ground(ctx, m, db, ground.Options{Query: []mln.PredID{99}}); err == nil {
		t.Error("bad predicate: no error")
	}
	if _, err := ground.Ground(ctx, m, db, ground.Options{Query: q, ClosedWorld: []mln.PredID{f.ID}}); err != nil {
		t.Errorf("closed-world evidence predicate: %v", err)
	}
}

func TestMaxBytes(t *testing.T) {
	m, db, q := loadSmokers(t)
	_, bytes, err := ground.Estimate(m, db, ground.Options{Query: q})
	if err != nil || bytes <= 0 {
		t.Fatalf("Estimate: %d bytes, %v", bytes, err)
	}
	_, err = ground.Ground(context.Background(), m, db, ground.Options{Query: q, MaxBytes: 100})
	if err == nil || !strings.Contains(err.Error(), "clause") || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("MaxBytes 100: %v", err)
	}
	t.Log(err)
	if _, err := ground.Ground(context.Background(), m, db, ground.Options{Query: q, MaxBytes: -1}); err != nil {
		t.Fatalf("no limit: %v", err)
	}
}

func TestCancel(t *testing.T) {
	m, db, q := loadSmokers(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ground.Ground(ctx, m, db, ground.Options{Query: q}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	n := net.NumClauses()
	m.Clauses = append(m.Clauses, m.Clauses[0])
	if err := net.AddModelClause(ctx, len(m.Clauses)-1); !errors.Is(err, context.Canceled) {
		t.Fatalf("AddModelClause cancelled: %v", err)
	}
	if net.NumClauses() != n {
		t.Fatal("cancelled AddModelClause changed the network")
	}
	if err := net.AddModelClause(context.Background(), len(m.Clauses)); err == nil {
		t.Fatal("clause out of range: no error")
	}
	if err := ground.NewNetwork(2).AddModelClause(context.Background(), 0); err == nil {
		t.Fatal("hand-built network: no error")
	}
}

func TestAtomsAndWeights(t *testing.T) {
	m, db, q := loadSmokers(t)
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	c := func(name string) mln.ConstID { id, _ := m.Const(name); return id }
	smokes, cancer, friends := q[0], q[1], mustPred(t, m, "Friends")
	// Query atoms come first, by predicate then arguments; evidence atoms
	// are not atoms; a "?" atom of a closed-world predicate is one.
	if a, ok := net.AtomID(smokes, []mln.ConstID{c("Bob")}); !ok || a != 0 {
		t.Errorf("Smokes(Bob) = %d, %v", a, ok)
	}
	if _, ok := net.AtomID(smokes, []mln.ConstID{c("Anna")}); ok {
		t.Error("Smokes(Anna) is evidence but has an ID")
	}
	if _, ok := net.AtomID(cancer, []mln.ConstID{c("Dan")}); ok {
		t.Error("Cancer(Dan) is evidence but has an ID")
	}
	if a, ok := net.AtomID(friends, []mln.ConstID{c("Bob"), c("Chris")}); !ok || a < 5 {
		t.Errorf("Friends(Bob,Chris) = %d, %v", a, ok)
	}
	if _, ok := net.AtomID(friends, []mln.ConstID{c("Anna"), c("Chris")}); ok {
		t.Error("Friends(Anna,Chris) is false evidence but has an ID")
	}
	if net.NumAtoms() != 2+3+1 {
		t.Errorf("%d atoms, want 6", net.NumAtoms())
	}
	// Assignment.
	truth, err := mln.ParseDatabase(m, "truth.db", "Smokes(Bob)\nCancer(Anna)\n!Cancer(Bob)\n")
	if err != nil {
		t.Fatal(err)
	}
	y := net.Assignment(truth)
	for a := range y {
		want := (net.AtomPred[a] == smokes && net.AtomArgs[a][0] == c("Bob")) || (net.AtomPred[a] == cancer && net.AtomArgs[a][0] == c("Anna"))
		if y[a] != want {
			t.Errorf("atom %d: %v, want %v", a, y[a], want)
		}
	}
	// SetWeights.
	for p := range m.Weights {
		m.Weights[p] *= 2
	}
	net.SetWeights()
	for cl := 0; cl < net.NumClauses(); cl++ {
		p := net.Param(cl)
		if p < 0 {
			if !math.IsInf(net.Weight(cl), 1) {
				t.Errorf("clause %d: no parameter, weight %v", cl, net.Weight(cl))
			}
			continue
		}
		if net.Weight(cl) != m.Weights[p]*net.Coef(cl) {
			t.Errorf("clause %d: weight %v, want %v", cl, net.Weight(cl), m.Weights[p]*net.Coef(cl))
		}
	}
}

func mustPred(t *testing.T, m *mln.Model, name string) mln.PredID {
	t.Helper()
	p, ok := m.Pred(name)
	if !ok {
		t.Fatalf("no predicate %s", name)
	}
	return p.ID
}

// TestHandBuilt checks the count methods and components on a network built
// by hand, with an atom twice in a clause and components given unsorted.
func TestHandBuilt(t *testing.T) {
	n := ground.NewNetwork(4)
	n.AddClause([]ground.Lit{ground.MakeLit(0, false), ground.MakeLit(1, true)}, 1.5, -1, 0, 1)
	n.AddClause([]ground.Lit{ground.MakeLit(2, false), ground.MakeLit(2, false)}, 0.5, -1, 1, 0.5)
	n.AddClause([]ground.Lit{ground.MakeLit(3, true)}, math.Inf(1), -1, -1, 1)
	y := []bool{false, true, false, true}
	y2 := []bool{true, true, true, false}
	cnt, cnt2 := n.Counts(y), n.Counts(y2)
	if len(cnt) != 2 || cnt[0] != 0 || cnt[1] != 0 || cnt2[0] != 1 || cnt2[1] != 0.5 {
		t.Fatalf("counts %v %v", cnt, cnt2)
	}
	acc := make([]float64, 2)
	n.CountDiff(y2, y, []int32{0, 2, 3}, acc)
	if acc[0] != 1 || acc[1] != 0.5 {
		t.Fatalf("CountDiff %v", acc)
	}
	comps := n.Components()
	if len(comps) != 3 {
		t.Fatalf("%d components", len(comps))
	}
	sub := n.Sub(ground.Component{Atoms: []int32{1, 0}, Clauses: []int32{0}})
	if s, _ := sub.Score([]bool{true, false}); s != 0 {
		t.Fatalf("sub score %v, want 0", s)
	}
	if s, _ := sub.Score([]bool{false, true}); s != 1.5 {
		t.Fatalf("sub score %v, want 1.5", s)
	}
	if sub.Global[0] != 1 || sub.GlobalClause[0] != 0 {
		t.Fatal("Global mapping")
	}
}

// TestAddFormula follows a structure learner: a formula added to the
// compiled model with AddFormula and ground into the existing network
// gives the same scores as grounding the extended model from scratch.
func TestAddFormula(t *testing.T) {
	const extra = "0.9 Smokes(+x) ^ Friends(x, y) => Smokes(y)"
	m, db, q := loadSmokers(t)
	ctx := context.Background()
	net, err := ground.Ground(ctx, m, db, ground.Options{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.ParseFormula(extra)
	if err != nil {
		t.Fatal(err)
	}
	cls, err := m.AddFormula(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, ci := range cls {
		if err := net.AddModelClause(ctx, ci); err != nil {
			t.Fatal(err)
		}
	}
	m2, err := mln.ParseModel("smokers2.mln", smokersMLN+extra+"\n")
	if err != nil {
		t.Fatal(err)
	}
	db2, err := mln.ParseDatabase(m2, "smokers.db", smokersDB)
	if err != nil {
		t.Fatal(err)
	}
	if err := m2.Compile(); err != nil {
		t.Fatal(err)
	}
	net2, err := ground.Ground(ctx, m2, db2, ground.Options{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	if net.NumAtoms() != net2.NumAtoms() || net.NumClauses() != net2.NumClauses() {
		t.Fatalf("%d atoms, %d clauses; from scratch %d, %d", net.NumAtoms(), net.NumClauses(), net2.NumAtoms(), net2.NumClauses())
	}
	for w := 0; w < 1<<net.NumAtoms(); w++ {
		y := make([]bool, net.NumAtoms())
		for a := range y {
			y[a] = w&(1<<a) != 0
		}
		s, h := net.Score(y)
		s2, h2 := net2.Score(y)
		if math.Abs(s-s2) > 1e-9 || h != h2 {
			t.Fatalf("world %d: score %v (%d), from scratch %v (%d)", w, s, h, s2, h2)
		}
	}
}

// TestNonEvidenceOpen checks that NonEvidenceOpen makes the predicates the
// database does not mention open world (their atoms unknown, in the
// network), leaves those it mentions closed, and yields to ClosedWorld.
func TestNonEvidenceOpen(t *testing.T) {
	m, db, q := loadSmokersWith(t, "Drinks(person)\n0.5 Drinks(x) => Smokes(x)\n")
	s := m.Preds[q[0]]
	d, _ := m.Pred("Drinks")
	c, _ := m.Pred("Cancer")
	bob, _ := m.Const("Bob") // Smokes(Bob) is unknown
	ctx := context.Background()
	for _, tc := range []struct {
		opt            ground.Options
		drinks, cancer bool
	}{
		{ground.Options{Query: []mln.PredID{s.ID}}, false, false},
		{ground.Options{Query: []mln.PredID{s.ID}, NonEvidenceOpen: true}, true, false},
		{ground.Options{Query: []mln.PredID{s.ID}, NonEvidenceOpen: true, ClosedWorld: []mln.PredID{d.ID}}, false, false},
	} {
		net, err := ground.Ground(ctx, m, db, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := net.AtomID(d.ID, []mln.ConstID{bob}); ok != tc.drinks {
			t.Errorf("%+v: Drinks(Bob) in the network: %v, want %v", tc.opt, ok, tc.drinks)
		}
		if _, ok := net.AtomID(c.ID, []mln.ConstID{bob}); ok != tc.cancer {
			t.Errorf("%+v: Cancer(Bob) in the network: %v, want %v", tc.opt, ok, tc.cancer)
		}
	}
}
