package syntax

import (
	"bytes"
	"flag"
	"fmt"
	"github.com/marple-mln/marple/internal/testkit/datadir"
	"github.com/marple-mln/marple/internal/testkit/golden"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// sexpr dumps a formula with its structure explicit.
func sexpr(f Formula) string {
	switch f := f.(type) {
	case *Atom:
		s := FormulaString(f)
		return s
	case *Compare:
		return "(" + f.Op.String() + " " + termString(f.X) + " " + termString(f.Y) + ")"
	case *Not:
		return "(! " + sexpr(f.X) + ")"
	case *Binary:
		return "(" + f.Op.String() + " " + sexpr(f.X) + " " + sexpr(f.Y) + ")"
	case *Quant:
		q := "FORALL"
		if f.Exist {
			q = "EXIST"
		}
		var vs []string
		for _, v := range f.Vars {
			vs = append(vs, v.Name)
		}
		return "(" + q + " " + strings.Join(vs, ",") + " " + sexpr(f.Body) + ")"
	case *Weighted:
		return "(w " + FormatWeight(f.Weight) + " " + sexpr(f.X) + ")"
	}
	return "?"
}

func termString(t Term) string {
	var b strings.Builder
	writeTerm(&b, t)
	kind := map[TermKind]string{VarTerm: "var", ConstTerm: "const", FuncTerm: "func"}[t.Kind]
	return kind + ":" + b.String()
}

// dump describes every declaration of a file, one per line.
func dump(f *File) string {
	var b strings.Builder
	for _, d := range f.Decls {
		fmt.Fprintf(&b, "%d:%d ", d.Pos().Line, d.Pos().Col)
		switch d := d.(type) {
		case *TypeDecl:
			if d.IsRange {
				fmt.Fprintf(&b, "type %s range %d..%d", d.Name.Name, d.Lo, d.Hi)
			} else {
				var cs []string
				for _, c := range d.Consts {
					cs = append(cs, c.Name)
				}
				fmt.Fprintf(&b, "type %s [%s]", d.Name.Name, strings.Join(cs, " | "))
			}
		case *PredDecl:
			fmt.Fprintf(&b, "pred closed=%v ", d.Closed)
			Fprint(&b, d)
		case *FuncDecl:
			b.WriteString("func ")
			Fprint(&b, d)
		case *Include:
			fmt.Fprintf(&b, "include %q", d.Path)
		case *FormulaDecl:
			fmt.Fprintf(&b, "formula w=%v hasw=%v hard=%v %s", d.Weight, d.HasWeight, d.Hard, sexpr(d.F))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// stripPos zeroes every position in an AST (for structural comparison).
func stripPos(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			stripPos(v.Elem())
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(Pos{}) {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Field(i).CanSet() {
				stripPos(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			stripPos(v.Index(i))
		}
	}
}

func sameAST(a, b any) bool {
	stripPos(reflect.ValueOf(a))
	stripPos(reflect.ValueOf(b))
	return reflect.DeepEqual(a, b)
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, got, *update)
}

// TestTestdata parses every testdata file (each shows one construct),
// compares the parse with its golden dump, and checks that printing and
// parsing again gives the same tree.
func TestTestdata(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.mln")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := ParseMLN(path, src)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, path+".golden", dump(f))
			var buf bytes.Buffer
			if err := Fprint(&buf, f); err != nil {
				t.Fatal(err)
			}
			g, err := ParseMLN("printed", buf.Bytes())
			if err != nil {
				t.Fatalf("reparse: %v\n%s", err, buf.String())
			}
			if !sameAST(f.Decls, g.Decls) {
				t.Errorf("print/parse round trip changed the tree:\n%s\n---\n%s", dump(f), dump(g))
			}
		})
	}
	dbs, _ := filepath.Glob("testdata/*.db")
	for _, path := range dbs {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, _ := os.ReadFile(path)
			f, err := ParseDB(path, src)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			for _, a := range f.Atoms {
				fmt.Fprintf(&buf, "%d:%d ", a.AtomPos.Line, a.AtomPos.Col)
				Fprint(&buf, a)
				buf.WriteByte('\n')
			}
			checkGolden(t, path+".golden", buf.String())
			buf.Reset()
			Fprint(&buf, f)
			g, err := ParseDB("printed", buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if !sameAST(f.Atoms, g.Atoms) {
				t.Errorf("db round trip changed the atoms")
			}
		})
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{"P(t)\nP(x) v\n", "f.mln:3:1: expected a formula, found end of file"},
		{"P(t)\nP(x v Q(x)\n", "f.mln:2:5: expected ',' or ')', found 'v'"},
		{"P(t)\n1.5\n", "f.mln:2:4: expected a formula after the weight"},
		{"P(t)\nP(x) Q(x)\n", "f.mln:2:6: unexpected 'Q' at end of statement"},
		{"t = {A, B\nP(t)\n", "f.mln:2:1: expected ',' or '}' in the domain of t, found 'P'"},
		{"t = {1, ..., B}\n", "f.mln:1:14: expected the integer upper bound of the range, found 'B'"},
		{"t = {5, ..., 1}\n", "f.mln:1:14: empty range {5,...,1}"},
		{"P(t)\nP(+A)\n", "f.mln:2:4: '+' must precede a variable, found 'A'"},
		{"P(t)\nEXIST Y P(Y)\n", "f.mln:2:7: quantified variable Y must start with a lower-case letter"},
		{"P(t)\nP(x) $ P(y)\n", "f.mln:2:6: unexpected character '$'"},
		{"P(t)\nP(x) @ P(y)\n", "f.mln:2:6: unexpected '@' at end of statement"},
		{"P(t)\n@\n", "f.mln:2:2: expected a weight or a formula after '@'"},
		{"P(t)\n/* open\n", "f.mln:2:1: comment not terminated"},
		{"P(t)\nP(\"abc)\n", "f.mln:2:3: string not terminated"},
		{"#include foo\n", "f.mln:1:10: expected a quoted file name after #include, found 'foo'"},
		{"#define x\n", "f.mln:1:1: unexpected '#' (only #include is supported)"},
		{"P(t)\nx\n", "f.mln:2:2: expected a comparison operator after term x, found end of line"},
		{"P(t)\n*x = y\n", "f.mln:2:2: expected an atom after '*', found 'x'"},
		{"P(t)\nP()\n", "f.mln:2:1: 0-arity predicates are not supported: declare P(t) with a one-constant type t = {T} and write P(T)"},
		{"Rain()\n", "f.mln:1:1: 0-arity predicates are not supported: declare Rain(t) with a one-constant type t = {T} and write Rain(T)"},
		{"Rain\n", "f.mln:1:1: 0-arity predicates are not supported: declare Rain(t) with a one-constant type t = {T} and write Rain(T)"},
		{"P(t)\n1.5 P(x) ^ Rain\n", "f.mln:2:12: 0-arity predicates are not supported: declare Rain(t) with a one-constant type t = {T} and write Rain(T)"},
		{"P(t)\nP(x) ^ f() = x\n", "f.mln:2:10: expected an argument, found ')'"},
		{"P(t)\n(P(x) v P(y)\nQ(x)\n", "f.mln:3:1: expected ')', found 'Q'"},
	}
	for _, tc := range tests {
		_, err := ParseMLN("f.mln", []byte(tc.src))
		if err == nil {
			t.Errorf("%q: no error, want %q", tc.src, tc.want)
			continue
		}
		if got := err.(ErrorList)[0].Error(); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.src, got, tc.want)
		}
	}
}

func TestDBErrors(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{"P(A)\nP(A\n", "e.db:2:4: expected ',' or ')', found end of line"},
		{"P A\n", "e.db:1:3: expected '(' after predicate P, found 'A'"},
		{"P(x)\n", "e.db:1:3: x is a variable (lower case): evidence atoms must be ground"},
		{"P(A) Q(B)\n", "e.db:1:6: unexpected 'Q' after ground atom"},
		{"1.5 P(A)\n", "e.db:1:1: expected a ground atom, found '1'"},
		{"P(A,)\n", "e.db:1:5: expected a constant, found ')'"},
		{"P(\"A)\n", "e.db:1:3: string not terminated"},
		{"/* x\n", "e.db:1:1: comment not terminated"},
		{"R(A) 1e400\n", "e.db:1:6: number 1e400 is out of range"},
		{"R(A) -1e400\n", "e.db:1:6: number -1e400 is out of range"},
		{"R(A) 1.5.3\n", "e.db:1:6: malformed number 1.5.3"},
		{"R(A) 1abc\n", "e.db:1:6: malformed number 1abc"},
		{"R(A) -inf\n", "e.db:1:6: number -inf is not finite"},
		{"R(A) 1 2\n", "e.db:1:8: a second value 2 after 1: a ground atom takes at most one value"},
		{"R(A)  1.5   -2e3 // c\n", "e.db:1:13: a second value -2e3 after 1.5: a ground atom takes at most one value"},
		{"R(A) 1 x\n", "e.db:1:8: unexpected 'x' after the value 1"},
		{"R(A) x\n", "e.db:1:6: unexpected 'x' after ground atom"},
		{"Rain\n", "e.db:1:1: 0-arity predicates are not supported: declare Rain(t) with a one-constant type t = {T} and write Rain(T)"},
		{"!Rain()\n", "e.db:1:2: 0-arity predicates are not supported: declare Rain(t) with a one-constant type t = {T} and write Rain(T)"},
		{"Rain( )\n", "e.db:1:1: 0-arity predicates are not supported: declare Rain(t) with a one-constant type t = {T} and write Rain(T)"},
	}
	for _, tc := range tests {
		_, err := ParseDB("e.db", []byte(tc.src))
		if err == nil {
			t.Errorf("%q: no error, want %q", tc.src, tc.want)
			continue
		}
		if got := err.(ErrorList)[0].Error(); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.src, got, tc.want)
		}
	}
	// Good lines around a bad one are still read.
	f, err := ParseDB("e.db", []byte("P(A)\nP(B\nP(C)\n"))
	if err == nil || len(f.Atoms) != 2 {
		t.Errorf("recovery: %d atoms, err %v", len(f.Atoms), err)
	}
}

// A statement that parses but is followed by junk is one error, not a
// second one for the junk read as a further statement.
func TestOneErrorPerStatement(t *testing.T) {
	for _, src := range []string{"R(o)/2\n", "R(o)/2\n1.0 R(x)\n", "P(t)\nP(x) ) P(x)\n"} {
		f, err := ParseMLN("f.mln", []byte(src))
		if err == nil {
			t.Errorf("%q: no error", src)
			continue
		}
		if n := len(err.(ErrorList)); n != 1 {
			t.Errorf("%q: %d errors, want 1: %v", src, n, err)
		}
		for _, d := range f.Decls {
			if p, ok := d.(*PredDecl); ok && p.Name.Name == "R" {
				t.Errorf("%q: the bad statement was kept", src)
			}
		}
	}
	f, _ := ParseMLN("f.mln", []byte("R(o)/2\n"))
	if !f.Abandoned["R"] {
		t.Errorf("R not recorded as abandoned: %v", f.Abandoned)
	}
}

func TestErrorRecovery(t *testing.T) {
	src := "P(t)\nP(x) v )\nP(x) ^ ^\nP(x) v P(y)\n"
	f, err := ParseMLN("r.mln", []byte(src))
	if err == nil {
		t.Fatal("want errors")
	}
	if n := len(err.(ErrorList)); n != 2 {
		t.Errorf("%d errors, want 2: %v", n, err)
	}
	if len(f.Decls) != 2 {
		t.Errorf("%d decls kept, want 2", len(f.Decls))
	}
}

func TestKnownAcrossFiles(t *testing.T) {
	known := Known{}
	if _, err := ParseMLNConfig("a.mln", []byte("P(t)\n"), &Config{Known: known}); err != nil {
		t.Fatal(err)
	}
	f, err := ParseMLNConfig("b.mln", []byte("P(x)\n"), &Config{Known: known})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Decls[0].(*FormulaDecl); !ok {
		t.Errorf("P(x) after a declaration of P in an earlier file: got %T, want a formula", f.Decls[0])
	}
}

func TestParseFormula(t *testing.T) {
	d, err := ParseFormula("f", "2.5 P(x) => Q(x)", Known{"P": {"t"}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Weight != 2.5 || FormulaString(d.F) != "P(x) => Q(x)" {
		t.Errorf("got %v %s", d.Weight, FormulaString(d.F))
	}
	if _, err := ParseFormula("f", "P(x)\nQ(x)", nil); err == nil {
		t.Error("two formulas: want an error")
	}
}

func TestDeepNesting(t *testing.T) {
	src := "P(t)\n" + strings.Repeat("(", 100000) + "P(x)" + strings.Repeat(")", 100000) + "\n"
	if _, err := ParseMLN("deep", []byte(src)); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Errorf("got %v", err)
	}
	src = "P(t)\n" + strings.Repeat("!", 100000) + "P(x)\n"
	if _, err := ParseMLN("deep", []byte(src)); err == nil {
		t.Error("want error")
	}
}

// dataDir locates the shared data (MARPLE_DATA, default ../shared/data from
// the repository root).
func dataDir(t testing.TB) string {
	return datadir.Root()
}

// TestSharedData parses every .mln and .db file of the shared data set.
func TestSharedData(t *testing.T) {
	dir := dataDir(t)
	if _, err := os.Stat(dir); err != nil {
		t.Skip("shared data not available")
	}
	n := 0
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		src, _ := os.ReadFile(path)
		switch filepath.Ext(path) {
		case ".mln":
			n++
			if _, err := ParseMLN(path, src); err != nil {
				t.Errorf("%v", err)
			}
		case ".db":
			n++
			if _, err := ParseDB(path, src); err != nil {
				t.Errorf("%v", err)
			}
		}
		return nil
	})
	if n == 0 {
		t.Error("no files found")
	}
}

// TestInfixTerms checks that Alchemy's infix integer operators in terms
// read as its internal functions, with precedence and left associativity.
func TestInfixTerms(t *testing.T) {
	known := Known{"P": {"t"}, "Q": {"t", "t"}}
	for src, want := range map[string]string{
		"P(t+1)":                  "P(plus(t,1))",
		"P(t - 1)":                "P(minus(t,1))",
		"P(t -1)":                 "P(minus(t,1))",
		"P(t-1)":                  "P(t-1)", // one identifier, as in Alchemy
		"P(2*t+1)":                "P(plus(times(2,t),1))",
		"P(t + 2*u % 3)":          "P(plus(t,mod(times(2,u),3)))",
		"P(t - u - 1)":            "P(minus(minus(t,u),1))",
		"P(t / 2)":                "P(dividedBy(t,2))",
		"Q(t, succ(t)) => P(t+1)": "Q(t,succ(t)) => P(plus(t,1))",
		"t2 = t + 1 => P(t2)":     "t2 = plus(t,1) => P(t2)",
		"P(+t) => P(t + 1)":       "P(+t) => P(plus(t,1))",
	} {
		d, err := ParseFormula("f", src, known)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if got := FormulaString(d.F); got != want {
			t.Errorf("%s: got %s, want %s", src, got, want)
		}
	}
	for src, want := range map[string]string{
		"P(t +)":   "f:1:6: expected a term, found ')'",
		"P(t * )":  "f:1:7: expected a term, found ')'",
		"P(- t)":   "f:1:3: expected a term, found '-'",
		"P(t % %)": "f:1:7: expected a term, found '%'",
	} {
		if _, err := ParseFormula("f", src, known); err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %s", src, err, want)
		}
	}
}
