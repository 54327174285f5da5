package mln

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/marple-mln/marple/syntax"
)

func mustModel(t *testing.T, src string) *Model {
	t.Helper()
	m, err := ParseModel("t.mln", src)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRecompile(t *testing.T) {
	m := mustModel(t, "person = {Ann, Bob}\nAdv(person, person)\nStud(person)\n"+
		"1 EXIST y Adv(x, y) ^ Stud(y)\n2 Stud(x) => Adv(x, +y)\n")
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	// The existential over a conjunction expands over {Ann, Bob}: 4 clauses.
	if n := len(m.Formulas[0].Clauses); n != 4 {
		t.Errorf("%d clauses, want 4", n)
	}
	ann, _ := m.Const("Ann")
	p := m.Param(1, []ConstID{ann})
	m.Weights[p] = 7
	nw := len(m.Weights)
	// Evidence adds a constant; compiling again expands over 3 values and
	// keeps the parameters.
	if _, err := ParseDatabase(m, "e.db", "Stud(Cy)\n"); err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	if n := len(m.Formulas[0].Clauses); n != 8 {
		t.Errorf("after a new constant: %d clauses, want 8", n)
	}
	if len(m.Weights) != nw || m.Weights[p] != 7 || m.Param(1, []ConstID{ann}) != p {
		t.Errorf("parameters changed by recompiling: %v", m.Weights)
	}
	for i, c := range m.Clauses {
		if m.Formulas[c.Formula].Clauses[0] > i {
			t.Errorf("clause %d: bad formula index", i)
		}
	}
}

func TestAddFormula(t *testing.T) {
	m := mustModel(t, "P(t)\nQ(t, t)\n1 P(x) => Q(x, x)\n")
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	before := len(m.Clauses)
	f, err := m.ParseFormula("-0.5 Q(x, y) ^ Q(y, z) => Q(x, z)")
	if err != nil {
		t.Fatal(err)
	}
	idx, err := m.AddFormula(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(idx) != 1 || idx[0] != before || len(m.Formulas) != 2 {
		t.Fatalf("clauses %v, formulas %d", idx, len(m.Formulas))
	}
	c := m.Clauses[idx[0]]
	if got := m.ClauseString(c); got != "!Q(x,y) v !Q(y,z) v Q(x,z)" {
		t.Errorf("clause %s", got)
	}
	if p, ok := f.Params[""]; !ok || m.Weights[p] != -0.5 {
		t.Errorf("parameter not allocated: %v", f.Params)
	}
	// Errors leave the model unchanged.
	if _, err := m.ParseFormula("R(x)"); err == nil || !strings.Contains(err.Error(), "unknown predicate R") {
		t.Errorf("got %v", err)
	}
	bad := &Formula{AST: &syntax.Atom{Pred: "Q", Args: []syntax.Term{{Kind: syntax.VarTerm, Name: "x"}}}}
	if _, err := m.AddFormula(bad); err == nil || len(m.Formulas) != 2 {
		t.Errorf("bad formula: err %v, %d formulas", err, len(m.Formulas))
	}
	if _, err := m.ParseFormula("*P(x) v Q(x,x)"); err == nil {
		t.Error("star formula: want an error")
	}
}

// TestClauseFormula checks that a clause turned back into a formula
// compiles to the same clause.
func TestClauseFormula(t *testing.T) {
	for _, path := range []string{"testdata/exist.mln", "testdata/plus.mln", "testdata/unique.mln", "testdata/conj.mln", "testdata/int.mln"} {
		m, err := LoadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(); err != nil {
			t.Fatal(err)
		}
		for _, c := range append([]*Clause(nil), m.Clauses...) {
			f := &Formula{AST: m.ClauseFormula(c), Hard: c.Hard, Weight: 1, HasWeight: !c.Hard}
			idx, err := m.AddFormula(f)
			if err != nil {
				t.Fatalf("%s: %s: %v", path, m.ClauseString(c), err)
			}
			if len(idx) != 1 || m.ClauseString(m.Clauses[idx[0]]) != m.ClauseString(c) {
				t.Errorf("%s: %s compiled back to %d clauses", path, m.ClauseString(c), len(idx))
			}
		}
	}
}

func TestEvalBuiltin(t *testing.T) {
	m := &Model{}
	c9, c10, a, b := m.AddConst("9"), m.AddConst("10"), m.AddConst("Ab"), m.AddConst("B")
	tests := []struct {
		b    Builtin
		x, y ConstID
		want bool
	}{
		{Lt, c9, c10, true}, {Gt, c9, c10, false}, {Le, c9, c9, true}, {Ge, c10, c9, true},
		{Eq, c9, c9, true}, {Neq, c9, c10, true}, {Lt, a, b, true}, {Eq, a, b, false},
	}
	for _, tc := range tests {
		if got := m.EvalBuiltin(tc.b, tc.x, tc.y); got != tc.want {
			t.Errorf("%s %v %s = %v", m.ConstName(tc.x), tc.b, m.ConstName(tc.y), got)
		}
	}
}

// clauseEntries lists the compiled clauses of a model with their weights,
// a formula with "+" variables contributing one entry per parameter with
// the binding's constants substituted.
func clauseEntries(m *Model) []string {
	var out []string
	for fi, f := range m.Formulas {
		for _, ci := range f.Clauses {
			c := m.Clauses[ci]
			if f.Hard {
				out = append(out, fmt.Sprintf("hard coef=%g %s", c.Coef, m.ClauseString(c)))
				continue
			}
			for key, p := range f.Params {
				_ = key
				sub := map[string]string{}
				for i, v := range c.Plus {
					sub[c.Vars[v].Name] = m.ConstName(m.ParamBinding[p][i])
				}
				ast := substPlus(m.ClauseFormula(c), sub)
				out = append(out, fmt.Sprintf("w=%g coef=%g %s", m.Weights[p], c.Coef, syntax.FormulaString(ast)))
			}
			_ = fi
		}
	}
	sort.Strings(out)
	return out
}

func modelShape(m *Model) string {
	var b strings.Builder
	var types []string
	for _, t := range m.Types {
		var tb strings.Builder
		fmt.Fprintf(&tb, "%s:", t.Name)
		for _, c := range t.Consts {
			fmt.Fprintf(&tb, " %s", m.ConstName(c))
		}
		types = append(types, tb.String())
	}
	sort.Strings(types) // types declared only by predicates are created in use order
	for _, t := range types {
		b.WriteString(t)
		b.WriteByte('\n')
	}
	for _, p := range m.Preds {
		fmt.Fprintf(&b, "%s closed=%v unique=%v\n", m.sigString(p.Name, p.Args), p.Closed, p.Unique)
	}
	for _, f := range m.Funcs {
		fmt.Fprintf(&b, "func %s %s\n", m.Types[f.Ret].Name, m.sigString(f.Name, f.Args))
	}
	return b.String()
}

// TestWriteModelRoundTrip checks that parsing the printed model gives the
// same types, predicates, and clauses with the same weights ("+" formulas
// being written once per parameter).
func TestWriteModelRoundTrip(t *testing.T) {
	m, err := LoadModel("testdata/unique.mln", "testdata/closed.mln", "testdata/functions.mln",
		"testdata/exist.mln", "testdata/star.mln", "testdata/int.mln")
	if err != nil {
		t.Fatal(err)
	}
	const evidence = "Token(Tw, P01, B1)\nToken(Tv, P02, B1)\nInField(B1, Fauthor, P01)\n" +
		"InField(B1, Ftitle, P02)\nNext(P02, P01)\nAdvisedBy(Ann, Cy)\n"
	if _, err := ParseDatabase(m, "e.db", evidence); err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	// Allocate parameters for some "+" bindings, with distinct weights.
	k := 0.25
	for fi, f := range m.Formulas {
		if len(f.PlusVars) == 0 {
			if p, ok := f.Params[""]; ok {
				m.Weights[p] = k
				k += 0.5
			}
			continue
		}
		for i := 0; i < 2; i++ {
			var b []ConstID
			for _, name := range f.PlusVars {
				// the type of the + variable, from the formula's first clause
				c := m.Clauses[f.Clauses[0]]
				for j, v := range c.Plus {
					if c.Vars[v].Name == name {
						dom := m.Types[c.Vars[c.Plus[j]].Type].Consts
						b = append(b, dom[i%len(dom)])
					}
				}
			}
			m.Weights[m.Param(fi, b)] = k
			k += 0.5
		}
	}
	var buf bytes.Buffer
	if err := WriteModel(&buf, m); err != nil {
		t.Fatal(err)
	}
	m2, err := ParseModel("printed.mln", buf.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	// The printer writes the constants of the model files, not those of
	// the evidence: load the same evidence again.
	if _, err := ParseDatabase(m2, "e.db", evidence); err != nil {
		t.Fatal(err)
	}
	if err := m2.Compile(); err != nil {
		t.Fatal(err)
	}
	if a, b := modelShape(m), modelShape(m2); a != b {
		t.Errorf("types/predicates differ:\n%s---\n%s", a, b)
	}
	a, b := clauseEntries(m), clauseEntries(m2)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("clauses differ:\n%s\n---\n%s\n--- printed model:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"), buf.String())
	}
	// Printing the reparsed model again gives the same text.
	var buf2 bytes.Buffer
	WriteModel(&buf2, m2)
	if buf.String() != buf2.String() {
		t.Errorf("second print differs:\n%s\n---\n%s", buf.String(), buf2.String())
	}
}

// TestWriteModelPlusUnallocated: a "+" formula without parameters is
// written with its "+" marks and written weight.
func TestWriteModelPlusUnallocated(t *testing.T) {
	m := mustModel(t, "P(t, u)\n1.5 P(x, +y)\nEXIST y P(x,y).\n")
	var buf bytes.Buffer
	WriteModel(&buf, m)
	want := "1.5 P(x,+y)\nEXIST y P(x,y).\n"
	if !strings.HasSuffix(buf.String(), want) {
		t.Errorf("got\n%s\nwant suffix\n%s", buf.String(), want)
	}
}
