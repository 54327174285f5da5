package syntax

import (
	"math"
	"strings"
	"testing"
)

func TestEvalWeightExpr(t *testing.T) {
	for _, c := range []struct {
		s    string
		want float64
	}{
		{"1.5", 1.5}, {"-0.4", -0.4}, {"log(0.9/0.1)", math.Log(9)}, {"logx(0)", -100},
		{"logx(.75/.25)", math.Log(3)}, {"log(4)/2", math.Log(2)}, {"-2**2", -4}, {"2**-1", 0.5},
		{"2**3**2", 512}, {"7//2", 3}, {"-7%3", 2}, {"exp(1)", math.E}, {"sqrt(16)+1e1", 14},
		{"float('inf')", math.Inf(1)}, {"-float('inf')", math.Inf(-1)}, {"float(\"-inf\")", math.Inf(-1)},
		{"log(8,2)", 3}, {"(1+2)*3", 9}, {"pi", math.Pi},
	} {
		got, err := EvalWeightExpr(c.s)
		if err != nil || math.Abs(got-c.want) > 1e-12 && !(math.IsInf(got, 0) && got == c.want) {
			t.Errorf("%s = %v, %v; want %v", c.s, got, err, c.want)
		}
	}
	for _, s := range []string{"log(0)", "1/0", "float('nan')", "foo(1)", "1+", "exp(1000)", "(1", "log(1,2,3)", "x"} {
		if v, err := EvalWeightExpr(s); err == nil {
			t.Errorf("%s = %v, want an error", s, v)
		}
	}
}

func parsePrac(t *testing.T, src string) *File {
	t.Helper()
	f, err := ParseMLNConfig("m.mln", []byte(src), &Config{Dialect: Pracmln})
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	return f
}

func lastFormula(f *File) *FormulaDecl {
	return f.Decls[len(f.Decls)-1].(*FormulaDecl)
}

// The two grammars: StandardGrammar ("v" tighter than "^", lower-case
// names are variables) and PRACGrammar (?-variables, every other name a
// constant, Alchemy's precedence); "=/=", parenthesized quantifier
// scopes, weight expressions and infinite weights in both.
func TestPracmlnGrammars(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"P(t)\nQ(t)\n1 P(x) ^ Q(x) v P(A)", "P(x) ^ (Q(x) v P(A))"},
		{"P(t)\nQ(t)\n1 P(?x) ^ Q(?x) v P(a)", "P(?x) ^ Q(?x) v P(a)"},
		{"P(t)\nQ(t)\n1 EXIST y (P(y)) ^ Q(x)", "(EXIST y P(y)) ^ Q(x)"},
		{"P(t)\n1 P(x) ^ x =/= y", "P(x) ^ x != y"},
		{"P(t)\n-float('inf') P(x) ^ P(y)", "!(P(x) ^ P(y))"},
		{"P(t)\nfloat('inf') P(x)", "P(x)"},
		{"P(t)\nlog(0.5) P(?x) ^ P(b.c) ^ P(ja!_)", "P(?x) ^ P(b.c) ^ P(ja!_)"},
	} {
		d := lastFormula(parsePrac(t, c.src))
		if got := FormulaString(d.F); got != c.want {
			t.Errorf("%q: %s, want %s", c.src, got, c.want)
		}
	}
	d := lastFormula(parsePrac(t, "P(t)\n-float('inf') P(x)"))
	if !d.Hard {
		t.Errorf("-float('inf') formula not hard")
	}
	d = lastFormula(parsePrac(t, "P(t)\nlog(0.9/0.1) P(x)"))
	if !d.HasWeight || math.Abs(d.Weight-math.Log(9)) > 1e-15 || d.Hard || d.Fixed {
		t.Errorf("log(0.9/0.1) read as %+v", d)
	}
	d = lastFormula(parsePrac(t, "P(t)\n#fixweight\n0.5 P(x)"))
	if !d.Fixed {
		t.Errorf("#fixweight not read")
	}
	f := parsePrac(t, "P(t, u)\n1 P(?x, a)\n")
	if a, ok := f.Decls[1].(*FormulaDecl).F.(*Atom); !ok || a.Args[0].Kind != VarTerm || a.Args[1].Kind != ConstTerm {
		t.Errorf("PRACGrammar terms read as %+v", f.Decls[1])
	}
	pc := parsePrac(t, "P(t)\n1 P(x)\nP(P(x)) = 0.25\n").Decls[2].(*ProbConstraint)
	if pc.P != 0.25 || FormulaString(pc.F) != "P(x)" {
		t.Errorf("probability constraint read as %+v", pc)
	}
}

func TestPracmlnDB(t *testing.T) {
	var got []string
	err := ScanDBDialect(Pracmln, "e.db", []byte("person = {P1, p2}\nseq(t0, t1)\n"), func(a *RawAtom) {
		s := string(a.Pred)
		for _, x := range a.Args {
			s += " " + string(x)
		}
		if a.Domain {
			s = "domain " + s
		}
		got = append(got, s)
	})
	if err != nil || strings.Join(got, "|") != "domain person P1 p2|seq t0 t1" {
		t.Errorf("read %q, %v", got, err)
	}
	for _, src := range []string{"1.5 P(A)\n", "---\n", "t = {A\n", "t = A\n"} {
		if err := ScanDBDialect(Pracmln, "e.db", []byte(src), func(*RawAtom) {}); err == nil || !strings.Contains(err.Error(), "e.db:") {
			t.Errorf("%q: %v, want a positioned error", src, err)
		}
	}
}

// Formulas printed for pracmln's dialect read back the same in both of
// its grammars.
func TestPracmlnPrintRoundTrip(t *testing.T) {
	for _, src := range []string{
		"P(t)\nQ(t)\n1 P(x) ^ Q(x) v P(A) => !(Q(y) <=> EXIST z (P(z) ^ z =/= x))",
		"P(t)\nQ(t)\n1 (P(?x) ^ Q(?x)) v P(a) ^ !(EXIST ?z (Q(?z) v P(?z)))",
		"P(t)\nQ(t)\n-1.5 !(P(x) => Q(x)) ^ x = y",
	} {
		f := parsePrac(t, src)
		d := lastFormula(f)
		text := FormulaStringPracmln(d.F)
		head := src[:strings.LastIndex(src, "\n")+1]
		again := lastFormula(parsePrac(t, head+"1 "+text))
		if got, want := FormulaString(again.F), FormulaString(d.F); got != want {
			t.Errorf("%q printed as %q reads back as %s, want %s", src, text, got, want)
		}
	}
}

func TestPracmlnRefusedSyntax(t *testing.T) {
	for _, c := range []struct{ src, msg string }{
		{"c(o, k?)\n", "soft functional"},
		{"P(t)\nQ(t)\n1 P|Q(x)\n", "literal groups"},
		{"P(t)\n$w P(x)\n", "variables ($name)"},
		{"P(t)\n#unique{+?x}\n", "#unique"},
		{"P(t)\nlog(-1) P(x)\n", "math domain error"},
		{"P(t)\n1 EXIST y P(y)\n", "in parentheses"},
	} {
		_, err := ParseMLNConfig("m.mln", []byte(c.src), &Config{Dialect: Pracmln})
		if err == nil || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "m.mln:") {
			t.Errorf("%q: %v, want a positioned error with %q", c.src, err, c.msg)
		}
	}
}
