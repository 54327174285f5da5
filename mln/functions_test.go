package mln_test

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// functionsModel uses a function in atoms (nested too), in a comparison,
// under negation, in a hard equivalence and in an existential.
const functionsModel = `
person motherOf(person)
Smokes(person)
Cancer(person)
Friends(person, person)
1.5 Smokes(x) => Smokes(motherOf(x))
0.8 Smokes(motherOf(x)) ^ Friends(x, y) => Cancer(y)
-0.6 !Cancer(motherOf(motherOf(x))) v Smokes(x)
0.7 motherOf(x) = y => Cancer(y) v Smokes(x)
Cancer(motherOf(x)) <=> Smokes(x).
(EXIST y Friends(y, x) ^ Smokes(motherOf(y))) => Cancer(x).
`

const functionsDB = `
B = motherOf(A)
C = motherOf(B)
A = motherOf(C)
D = motherOf(D)
Friends(A, B)
Friends(C, D)
Friends(D, D)
`

// functionsByHand is functionsModel with each formula written out per x,
// the function's values substituted.
func functionsByHand() string {
	mother := map[string]string{"A": "B", "B": "C", "C": "A", "D": "D"}
	var b strings.Builder
	b.WriteString("Smokes(person)\nCancer(person)\nFriends(person, person)\n")
	for _, x := range []string{"A", "B", "C", "D"} {
		m, mm := mother[x], mother[mother[x]]
		r := strings.NewReplacer("$x", x, "$mm", mm, "$m", m)
		b.WriteString(r.Replace(`1.5 Smokes($x) => Smokes($m)
0.8 Smokes($m) ^ Friends($x, y) => Cancer(y)
-0.6 !Cancer($mm) v Smokes($x)
0.7 $m = y => Cancer(y) v Smokes($x)
Cancer($m) <=> Smokes($x).
`))
	}
	for _, x := range []string{"A", "B", "C", "D"} {
		var ors []string
		for _, y := range []string{"A", "B", "C", "D"} {
			ors = append(ors, "(Friends("+y+", "+x+") ^ Smokes("+mother[y]+"))")
		}
		b.WriteString(strings.Join(ors, " v ") + " => Cancer(" + x + ").\n")
	}
	return b.String()
}

// groundText parses, compiles and grounds model against db with the named
// predicates as the query (Smokes and Cancer when none are named).
func groundText(t *testing.T, model, db string, query ...string) (*mln.Model, *ground.Network) {
	t.Helper()
	m, err := mln.ParseModel("f.mln", model)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := mln.ParseDatabase(m, "f.db", db)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	var q []mln.PredID
	if len(query) == 0 {
		query = []string{"Smokes", "Cancer"}
	}
	for _, name := range query {
		p, _ := m.Pred(name)
		q = append(q, p.ID)
	}
	net, err := ground.Ground(context.Background(), m, ev, ground.Options{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	net.SetWeights()
	return m, net
}

// TestFunctionsBrute compares, over every world of the query atoms, the
// model with functions (compiled to auxiliary predicates) with the same
// model written out by hand: the same worlds satisfy the hard formulas and
// the scores differ by a constant.
func TestFunctionsBrute(t *testing.T) {
	mf, nf := groundText(t, functionsModel, functionsDB)
	mh, nh := groundText(t, functionsByHand(), functionsDB[strings.Index(functionsDB, "Friends"):])
	if _, ok := mf.Pred(mln.AuxPrefix + "motherOf"); !ok {
		t.Fatal("no auxiliary predicate")
	}
	if n := sameScores(t, mf, nf, mh, nh); n != 8 {
		t.Fatalf("%d query atoms, want 8", n)
	}

	// The model written out reads back to the same network.
	var buf bytes.Buffer
	if err := mln.WriteModel(&buf, mf); err != nil {
		t.Fatal(err)
	}
	readBack(t, mf, nf, functionsDB)
}

// readBack checks that model m, written out and read back, grounds
// against db to a network of net's size.
func readBack(t *testing.T, m *mln.Model, net *ground.Network, db string, query ...string) {
	t.Helper()
	var buf bytes.Buffer
	if err := mln.WriteModel(&buf, m); err != nil {
		t.Fatal(err)
	}
	_, nr := groundText(t, buf.String(), db, query...)
	if nr.NumAtoms() != net.NumAtoms() || nr.NumClauses() != net.NumClauses() {
		t.Fatalf("written and read back: %d atoms, %d clauses; was %d, %d\n%s", nr.NumAtoms(), nr.NumClauses(), net.NumAtoms(), net.NumClauses(), buf.String())
	}
}

// sameScores checks, over every world of the query atoms (the same atoms by
// name in both networks), that the same worlds satisfy the hard clauses
// and that the scores differ by a constant; it returns the number of query
// atoms.
func sameScores(t *testing.T, mf *mln.Model, nf *ground.Network, mh *mln.Model, nh *ground.Network) int {
	t.Helper()
	names := func(m *mln.Model, net *ground.Network) map[string]int32 {
		out := map[string]int32{}
		for a := 0; a < net.NumAtoms(); a++ {
			var args []string
			for _, c := range net.AtomArgs[a] {
				args = append(args, m.ConstName(c))
			}
			out[m.Preds[net.AtomPred[a]].Name+"("+strings.Join(args, ",")+")"] = int32(a)
		}
		return out
	}
	af, ah := names(mf, nf), names(mh, nh)
	var keys []string
	for k := range ah {
		if _, ok := af[k]; !ok {
			t.Fatalf("atom %s only in the second network", k)
		}
		keys = append(keys, k)
	}
	if len(keys) != len(af) || len(keys) > 20 {
		t.Fatalf("%d and %d query atoms", len(af), len(ah))
	}
	offset, feasible := math.NaN(), 0
	yf, yh := make([]bool, nf.NumAtoms()), make([]bool, nh.NumAtoms())
	for w := 0; w < 1<<len(keys); w++ {
		for i, k := range keys {
			yf[af[k]], yh[ah[k]] = w>>i&1 == 1, w>>i&1 == 1
		}
		sf, hf := nf.Score(yf)
		sh, hh := nh.Score(yh)
		if (hf == 0) != (hh == 0) {
			t.Fatalf("world %b: %d hard clauses violated in the first network, %d in the second", w, hf, hh)
		}
		if hf > 0 {
			continue
		}
		feasible++
		if math.IsNaN(offset) {
			offset = sf - sh
		} else if math.Abs(sf-sh-offset) > 1e-9 {
			t.Fatalf("world %b: score %g, %g in the second network: offset %g, was %g", w, sf, sh, sf-sh, offset)
		}
	}
	if feasible == 0 || feasible == 1<<len(keys) {
		t.Fatalf("%d feasible worlds: the hard formulas show nothing", feasible)
	}
	return len(keys)
}

// TestFunctionValueErrors checks the function value lines of .db files.
func TestFunctionValueErrors(t *testing.T) {
	m, err := mln.ParseModel("f.mln", functionsModel)
	if err != nil {
		t.Fatal(err)
	}
	for db, want := range map[string]string{
		"B = fatherOf(A)\n":  "f.db:1:5: unknown function fatherOf",
		"B = motherOf(A, C)": "f.db:1:5: function motherOf has 1 argument(s), found 2",
		"B = motherOf A\n":   "f.db:1:14: expected '(' after predicate motherOf",
	} {
		if _, err := mln.ParseDatabase(m, "f.db", db); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", db, err, want)
		}
	}
}

// FuzzFunctionModel builds models (with functions) and their evidence:
// errors are positioned, nothing panics, and a model that builds compiles.
func FuzzFunctionModel(f *testing.F) {
	f.Add(functionsModel, functionsDB)
	f.Add("int succ(int)\nP(int)\nP(succ(succ(x))) <=> !P(x)\n", "2 = succ(1)\nP(1)\n")
	f.Add("t f(t, t)\nQ(t)\nEXIST y f(x, y) = y v Q(f(y, x)).\n", "A = f(A, B)\n")
	f.Fuzz(func(t *testing.T, model, db string) {
		m, err := mln.ParseModel("f.mln", model)
		if err != nil {
			return
		}
		if _, err := mln.ParseDatabase(m, "f.db", db); err != nil {
			return
		}
		_ = m.Compile()
	})
}

// TestFunctionIffChainBounded: a chain of "<=>" around a function term,
// which the rewriting doubles at each "<=>", is refused at once, naming
// the formula, instead of growing exponentially (found by fuzzing).
func TestFunctionIffChainBounded(t *testing.T) {
	chain := "P(f(x))" + strings.Repeat(" <=> P(x)", 30)
	_, err := mln.ParseModel("f.mln", "t f(t)\nP(t)\n1 "+chain+"\n")
	if err == nil || !strings.Contains(err.Error(), "f.mln:3:") || !strings.Contains(err.Error(), "too large once its function terms are compiled") {
		t.Fatalf("err = %v", err)
	}
	// A short chain still compiles.
	if _, err := mln.ParseModel("f.mln", "t f(t)\nP(t)\n1 P(f(x)) <=> P(x) <=> P(x)\n"); err != nil {
		t.Fatal(err)
	}
}
