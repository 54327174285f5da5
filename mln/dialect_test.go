package mln_test

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// loadDialect reads testdata/dialects/<model> and <db> in dialect d and
// grounds them with the given query predicates.
func loadDialect(t *testing.T, d syntax.Dialect, model, db string, query ...string) (*mln.Model, *ground.Network) {
	t.Helper()
	dir := "testdata/dialects/"
	m, err := mln.LoadModelConfig(&mln.LoadConfig{Dialect: d}, dir+model)
	if err != nil {
		t.Fatalf("%s: %v", model, err)
	}
	ev, err := mln.LoadDatabase(m, dir+db)
	if err != nil {
		t.Fatalf("%s: %v", db, err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	q, err := m.PredIDs(strings.Join(query, ","))
	if err != nil {
		t.Fatal(err)
	}
	net, err := ground.Ground(context.Background(), m, ev, ground.Options{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	return m, net
}

// marginal returns the brute-force marginal of ground atom "P(A,B)", or
// -1 if the atom is not in the network.
func marginal(t *testing.T, m *mln.Model, net *ground.Network, ps []float64, atom string) float64 {
	t.Helper()
	name, rest, _ := strings.Cut(strings.TrimSuffix(atom, ")"), "(")
	p, ok := m.Pred(name)
	if !ok {
		t.Fatalf("no predicate %s", name)
	}
	var args []mln.ConstID
	for _, a := range strings.Split(rest, ",") {
		c, ok := m.Const(a)
		if !ok {
			t.Fatalf("no constant %s", a)
		}
		args = append(args, c)
	}
	id, ok := net.AtomID(p.ID, args)
	if !ok {
		return -1
	}
	return ps[id]
}

// Tuffy's soft evidence "p A" is the prior log(p/(1-p)) on A, which stays
// unknown; its predicates without '*' are open world without -q.
func TestTuffySoftEvidence(t *testing.T) {
	m, net := loadDialect(t, syntax.Tuffy, "tuffy_soft.mln", "tuffy_soft.db")
	ps := brute.Marginals(net)
	// Anna: prior 0.8 on Smokes, 1.5 !Smokes v Cancer, both unknown:
	// enumerate the four worlds by hand.
	wp, w := math.Log(0.8/0.2), 1.5
	var z, pS, pC float64
	for _, s := range []bool{false, true} {
		for _, c := range []bool{false, true} {
			e := 0.0
			if s {
				e += wp
			}
			if !s || c {
				e += w
			}
			x := math.Exp(e)
			z += x
			if s {
				pS += x
			}
			if c {
				pC += x
			}
		}
	}
	for atom, want := range map[string]float64{
		"Smokes(Anna)": pS / z, "Cancer(Anna)": pC / z,
		// "0.3 !Smokes(Bob)": the prior 0.7 on Smokes(Bob).
		// "0.3 !Smokes(Bob)" is the prior 0.7 on Smokes(Bob): with S true
		// the clause weighs e^w (C true) or 1, with S false e^w either way.
		"Smokes(Bob)": 0.7 * (math.Exp(w) + 1) / (0.7*(math.Exp(w)+1) + 0.3*2*math.Exp(w)),
	} {
		if got := marginal(t, m, net, ps, atom); math.Abs(got-want) > 1e-9 {
			t.Errorf("P(%s) = %.12f, want %.12f", atom, got, want)
		}
	}
	// "1 Smokes(Carl)" is evidence: Smokes(Carl) is not an atom of the
	// network, and Cancer(Carl) follows the clause alone.
	if got := marginal(t, m, net, ps, "Smokes(Carl)"); got != -1 {
		t.Errorf("Smokes(Carl) is in the network (P = %v), want it evidence", got)
	}
	if got, want := marginal(t, m, net, ps, "Cancer(Carl)"), 1/(1+math.Exp(-w)); math.Abs(got-want) > 1e-9 {
		t.Errorf("P(Cancer(Carl)) = %v, want %v", got, want)
	}
}

// Tuffy drops the quotes of a string constant: Smokes("Anna") in the
// evidence and in the model is the atom Smokes(Anna), and the clause on
// Anna is the unit clause on Cancer(Anna); a name that is no Marple
// constant name keeps its quotes.
func TestTuffyQuotedConstants(t *testing.T) {
	m, net := loadDialect(t, syntax.Tuffy, "tuffy_quoted.mln", "tuffy_quoted.db")
	ps := brute.Marginals(net)
	if got := marginal(t, m, net, ps, "Smokes(Anna)"); got != -1 {
		t.Errorf("Smokes(Anna) is in the network (P = %v), want it evidence", got)
	}
	for atom, w := range map[string]float64{"Cancer(Anna)": 1, `Cancer("owl:Thing")`: 2} {
		if got, want := marginal(t, m, net, ps, atom), 1/(1+math.Exp(-w)); math.Abs(got-want) > 1e-9 {
			t.Errorf("P(%s) = %v, want %v", atom, got, want)
		}
	}
	if _, ok := m.Const(`"Anna"`); ok {
		t.Error(`the constant "Anna" exists beside Anna`)
	}
}

// Tuffy's "," conjunction, [conditions] and "@w" fixed weights mean the
// Alchemy formulas written by hand in tuffy_scope_alchemy.mln.
func TestTuffyScopingConditions(t *testing.T) {
	m, net := loadDialect(t, syntax.Tuffy, "tuffy_scope.mln", "tuffy_scope.db")
	ps := brute.Marginals(net)
	m2, err := mln.LoadModel("testdata/dialects/tuffy_scope_alchemy.mln")
	if err != nil {
		t.Fatal(err)
	}
	ev2, err := mln.LoadDatabase(m2, "testdata/dialects/tuffy_scope.db")
	if err != nil {
		t.Fatal(err)
	}
	if err := m2.Compile(); err != nil {
		t.Fatal(err)
	}
	s2, _ := m2.Pred("Smokes")
	net2, err := ground.Ground(context.Background(), m2, ev2, ground.Options{Query: []mln.PredID{s2.ID}})
	if err != nil {
		t.Fatal(err)
	}
	ps2 := brute.Marginals(net2)
	if !m.Formulas[2].Fixed || m.Formulas[2].DomainScaled || m.Formulas[2].Weight != 1.2 {
		t.Errorf("@1.2 read as %+v, want a fixed weight 1.2", m.Formulas[2])
	}
	for _, who := range []string{"Anna", "Bob", "Carl"} {
		a := "Smokes(" + who + ")"
		got, want := marginal(t, m, net, ps, a), marginal(t, m2, net2, ps2, a)
		if want < 0 || math.Abs(got-want) > 1e-12 {
			t.Errorf("P(%s) = %v in Tuffy's dialect, %v by hand", a, got, want)
		}
	}
}

// LoMRF's definite clauses add their completion, t++ and t-- are t+1 and
// t-1, and predicates without evidence are open world.
func TestLoMRFDefiniteClauses(t *testing.T) {
	m, net := loadDialect(t, syntax.LoMRF, "lomrf_ec.mln", "lomrf_ec.db", "HoldsAt")
	ps := brute.Marginals(net)
	m2, net2 := loadDialect(t, syntax.Alchemy, "lomrf_ec_alchemy.mln", "lomrf_ec.db", "HoldsAt", "InitiatedAt", "TerminatedAt")
	ps2 := brute.Marginals(net2)
	for _, f := range []string{"On", "Loud"} {
		for _, tm := range []string{"1", "2"} {
			for _, p := range []string{"HoldsAt", "InitiatedAt", "TerminatedAt"} {
				a := p + "(" + f + "," + tm + ")"
				got, want := marginal(t, m, net, ps, a), marginal(t, m2, net2, ps2, a)
				if got < 0 {
					got = 0 // not in the network: false (the completion)
					if p == "HoldsAt" {
						t.Errorf("query atom %s is not in the network", a)
					}
				}
				if math.Abs(got-want) > 1e-12 {
					t.Errorf("P(%s) = %v in LoMRF's dialect, %v by hand", a, got, want)
				}
			}
		}
	}
	// The completion makes InitiatedAt what its definitions say.
	for atom, want := range map[string]float64{"InitiatedAt(On,1)": 1, "InitiatedAt(Loud,2)": 0, "InitiatedAt(On,2)": 0} {
		if got := marginal(t, m, net, ps, atom); math.Abs(got-want) > 1e-12 {
			t.Errorf("P(%s) = %v, want %v", atom, got, want)
		}
	}
}

// LoMRF's completion groups a head under a more general one and makes
// the atoms no head matches false.
func TestLoMRFCompletionGroups(t *testing.T) {
	m, net := loadDialect(t, syntax.LoMRF, "lomrf_general.mln", "lomrf_general.db", "Head", "G")
	ps := brute.Marginals(net)
	m2, net2 := loadDialect(t, syntax.Alchemy, "lomrf_general_alchemy.mln", "lomrf_general.db", "Head", "G", "Q")
	ps2 := brute.Marginals(net2)
	for _, v := range []string{"Foo", "Bar", "Baz"} {
		atoms := []string{"G(" + v + ")", "Q(" + v + ")", "Head(" + v + ",1)", "Head(" + v + ",2)"}
		for _, a := range atoms {
			got, want := marginal(t, m, net, ps, a), marginal(t, m2, net2, ps2, a)
			if want < 0 {
				t.Fatalf("%s is not in the hand-written network", a)
			}
			if got < 0 || math.Abs(got-want) > 1e-12 {
				t.Errorf("P(%s) = %v in LoMRF's dialect, %v by hand", a, got, want)
			}
		}
	}
	if got := marginal(t, m, net, ps, "G(Bar)"); got != 0 {
		t.Errorf("P(G(Bar)) = %v, want 0 (no definition)", got)
	}
}

// Constructs without a faithful meaning are refused with the reason.
func TestDialectRefusals(t *testing.T) {
	for _, c := range []struct {
		d        syntax.Dialect
		src, msg string
	}{
		{syntax.Tuffy, "P(t)\nQ(t)\nP(x) :- Q(x).\n", "Datalog rules"},
		{syntax.Tuffy, "P(t)\n1 P(x) v [contains(x, A)]\n", "Tuffy's function contains"},
		{syntax.LoMRF, "P(t)\nQ(t)\nP(x) :- Q(x) v Q(A).\n", "conjunction (^) of literals"},
		{syntax.LoMRF, "P(t, t)\nQ(t)\nP(A, x) :- Q(x).\nP(y, B) :- Q(y).\n", "overlap"},
	} {
		path := t.TempDir() + "/m.mln"
		if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := mln.LoadModelConfig(&mln.LoadConfig{Dialect: c.d}, path)
		if err == nil || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "m.mln:") {
			t.Errorf("%s %q: error %v, want one with a position and %q", c.d, c.src, err, c.msg)
		}
	}
	m, err := mln.LoadModelConfig(&mln.LoadConfig{Dialect: syntax.Tuffy}, "testdata/dialects/tuffy_soft.mln")
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range []string{"1.5 Smokes(Anna)\n", "0.5 ?Smokes(Anna)\n"} {
		if _, err := mln.ParseDatabase(m, "e.db", db); err == nil || !strings.Contains(err.Error(), "e.db:1:") {
			t.Errorf("%q: error %v, want a positioned refusal", db, err)
		}
	}
}
