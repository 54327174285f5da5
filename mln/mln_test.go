package mln

import (
	"flag"
	"fmt"
	"github.com/marple-mln/marple/internal/testkit/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/marple-mln/marple/syntax"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// describe lists a compiled model: types, predicates, and each clause with
// its formula, coefficient and flags.
func describe(m *Model) string {
	var b strings.Builder
	for _, t := range m.Types {
		fmt.Fprintf(&b, "type %s:", t.Name)
		for _, c := range t.Consts {
			fmt.Fprintf(&b, " %s", m.ConstName(c))
		}
		b.WriteByte('\n')
	}
	for _, p := range m.Preds {
		fmt.Fprintf(&b, "pred %s closed=%v unique=%v\n", m.sigString(p.Name, p.Args), p.Closed, p.Unique)
	}
	for _, f := range m.Funcs {
		fmt.Fprintf(&b, "func %s -> %s\n", m.sigString(f.Name, f.Args), m.Types[f.Ret].Name)
	}
	for i, f := range m.Formulas {
		src := "synthetic"
		if f.AST != nil {
			src = syntax.FormulaString(f.AST)
		}
		fmt.Fprintf(&b, "formula %d w=%v hasw=%v hard=%v plus=%v: %s\n", i, f.Weight, f.HasWeight, f.Hard, f.PlusVars, src)
		for _, ci := range f.Clauses {
			c := m.Clauses[ci]
			var vars []string
			for _, v := range c.Vars {
				vars = append(vars, v.Name+":"+m.Types[v.Type].Name)
			}
			fmt.Fprintf(&b, "  clause coef=%.4g hard=%v vars=[%s] exist=%v plus=%v: %s\n",
				c.Coef, c.Hard, strings.Join(vars, " "), c.Exist, c.Plus, m.ClauseString(c))
		}
	}
	return b.String()
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, got, *update)
}

// TestTestdata loads and compiles every model of testdata (one per
// construct) and compares the result with its golden description.
func TestTestdata(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.mln")
	files = append(files, "testdata/inc/main.mln")
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			m, err := LoadModel(path)
			if err != nil {
				t.Fatal(err)
			}
			if db := strings.TrimSuffix(path, ".mln") + ".db"; fileExists(db) {
				if _, err := LoadDatabase(m, db); err != nil {
					t.Fatal(err)
				}
			}
			if err := m.Compile(); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, strings.TrimSuffix(path, ".mln")+".golden", describe(m))
		})
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func firstError(err error) string {
	if l, ok := err.(syntax.ErrorList); ok && len(l) > 0 {
		return l[0].Error()
	}
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// A declaration with a syntax error is one error: the uses of its
// predicate are not also reported as unknown.
func TestBadDeclarationOneError(t *testing.T) {
	_, err := ParseModel("m.mln", "R(o)/2\n1.0 R(x)\nS(x) => R(x)\n")
	want := "m.mln:1:5: unexpected '/' at end of statement\nm.mln:3:1: unknown predicate S"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestModelErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"unknown predicate", "P(t)\nQ(x) v P(x)\n", "m.mln:2:1: unknown predicate Q"},
		{"arity", "P(t)\n1 P(x,y)\n", "m.mln:2:3: predicate P has 1 argument(s), found 2"},
		{"type clash", "P(t)\nQ(u)\nP(x) v Q(x)\n",
			"m.mln:3:10: variable x has type u here (argument 1 of Q) but type t at m.mln:3:3"},
		{"weight on hard", "P(t)\n1.5 P(x).\n",
			"m.mln:2:9: weight on a hard formula (a formula has either a weight or a trailing '.')"},
		{"undeclared function", "person motherOf(person)\nP(person)\nP(fatherOf(x))\n",
			"m.mln:3:3: unknown function fatherOf"},
		{"function arity", "int max(int,int)\nP(int)\nP(x) ^ max(x) > x\n",
			"m.mln:3:8: function max has 2 argument(s), found 1"},
		{"function as predicate", "person motherOf(person)\nmotherOf(x)\n",
			"m.mln:2:1: motherOf is a function, not a predicate"},
		{"plus on quantified", "P(t)\nEXIST x P(+x)\n", "m.mln:2:11: '+' on quantified variable x"},
		{"untyped variable", "P(t)\nP(x) v y = z\n",
			"m.mln:2:8: cannot infer the type of variable y (it appears only in comparisons)"},
		{"comparison types", "P(t)\nQ(u)\nP(x) ^ Q(y) ^ x = y\n",
			"m.mln:3:17: comparison between x (type t) and y (type u)"},
		{"plus in comparison", "P(t)\nP(x) ^ +x = x\n", "m.mln:2:8: '+' is not allowed in a comparison"},
		{"predicate as function", "P(t)\nt P(t)\n", "m.mln:2:3: P is declared as a predicate at m.mln:1:1"},
		{"missing include", "P(t)\n#include \"testdata/none.mln\"\n",
			"m.mln:2:1: cannot include \"testdata/none.mln\": open testdata/none.mln: no such file or directory"},
		{"syntax error", "P(t)\nP(x) v\n", "m.mln:3:1: expected a formula, found end of file"},
	}
	for _, tc := range tests {
		_, err := ParseModel("m.mln", tc.src)
		if got := firstError(err); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestIncludeErrors(t *testing.T) {
	_, err := LoadModel("testdata/inc/cycle_a.mln")
	want := "testdata/inc/cycle_b.mln:2:1: include cycle: cycle_a.mln includes cycle_b.mln includes cycle_a.mln"
	if got := firstError(err); got != want {
		t.Errorf("cycle:\n got %s\nwant %s", got, want)
	}
	_, err = LoadModel("testdata/inc/missing.mln")
	want = "testdata/inc/missing.mln:2:1: cannot include \"testdata/inc/nowhere.mln\""
	if got := firstError(err); !strings.HasPrefix(got, want) {
		t.Errorf("missing:\n got %s\nwant %s...", got, want)
	}
}

func TestDuplicateDeclaration(t *testing.T) {
	a, _ := syntax.ParseMLN("a.mln", []byte("P(t)\n"))
	b, _ := syntax.ParseMLN("b.mln", []byte("P(t, t)\n"))
	_, err := Build(a, b)
	want := "b.mln:1:1: predicate P redeclared as P(t,t), was P(t) at a.mln:1:1"
	if got := firstError(err); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	// The same declaration twice is fine.
	c, _ := syntax.ParseMLN("c.mln", []byte("P(t)\n"))
	if _, err := Build(a, c); err != nil {
		t.Error(err)
	}
	// Files given to LoadModel share declarations: repeating one is
	// harmless, a conflicting one is an error, and a bare atom with
	// other argument names is a unit formula.
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(src), 0o644)
		return p
	}
	a1 := write("a.mln", "P(t)\n")
	m, err := LoadModel(a1, write("b.mln", "P(t)\nP(x)\n"))
	if err != nil || len(m.Formulas) != 1 || len(m.Preds) != 1 {
		t.Errorf("got %d formulas, err %v", len(m.Formulas), err)
	}
	_, err = LoadModel(a1, write("c.mln", "P(t, u)\n"))
	if got := firstError(err); !strings.HasSuffix(got, "c.mln:1:1: predicate P redeclared as P(t,u), was P(t) at "+a1+":1:1") {
		t.Errorf("conflicting declaration: got %s", got)
	}
}

func TestDatabaseErrors(t *testing.T) {
	m, err := ParseModel("m.mln", "P(t)\nQ(t, u)\n")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ src, want string }{
		{"P(A)\nR(A)\n", "e.db:2:1: unknown predicate R"},
		{"P(A)\n!Q(A)\n", "e.db:2:2: predicate Q has 2 argument(s), found 1"},
		{"P(A, B)\n", "e.db:1:1: predicate P has 1 argument(s), found 2"},
		{"P(A\n", "e.db:1:4: expected ',' or ')', found end of line"},
	}
	for _, tc := range tests {
		_, err := ParseDatabase(m, "e.db", tc.src)
		if got := firstError(err); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

func TestDatabase(t *testing.T) {
	m, err := LoadModel("testdata/smokers.mln")
	if err != nil {
		t.Fatal(err)
	}
	db, err := LoadDatabase(m, "testdata/smokers.db")
	if err != nil {
		t.Fatal(err)
	}
	person, _ := m.Type("person")
	var names []string
	for _, c := range person.Consts {
		names = append(names, m.ConstName(c))
	}
	if got := strings.Join(names, ","); got != "Anna,Bob,Edward" {
		t.Errorf("person domain %s", got)
	}
	smokes, _ := m.Pred("Smokes")
	cancer, _ := m.Pred("Cancer")
	anna, _ := m.Const("Anna")
	bob, _ := m.Const("Bob")
	ed, _ := m.Const("Edward")
	check := func(p *Predicate, c ConstID, want Truth, listed bool) {
		v, ok := db.Get(p.ID, []ConstID{c})
		if v != want || ok != listed {
			t.Errorf("%s(%s) = %v %v, want %v %v", p.Name, m.ConstName(c), v, ok, want, listed)
		}
	}
	check(smokes, anna, True, true)
	check(smokes, bob, False, true)
	check(cancer, ed, Unknown, true)
	check(cancer, anna, False, false)
}
