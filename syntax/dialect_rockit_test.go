package syntax

import (
	"bytes"
	"strings"
	"testing"
)

// RockIt's statements read as Marple's: declarations with their observed
// mark, formulas with variables of any case and quoted constants, weights
// from the evidence and cardinality constraints compiled to hard formulas.
func TestRockItParse(t *testing.T) {
	src := "*obs(t, float_)\n" +
		"hid(t, t)\n" +
		"*p(t)\n" +
		"// a comment\n" +
		"2.5 !hid(x, \"A\") v hid(X, \"b c\")\n" +
		"-1 hid(x, y)\n" +
		"!hid(x, x).\n" +
		"w: !obs(x, w) v hid(x, x)\n" +
		"|y| !p(y) v hid(x, y) <= 1\n" +
		"|y| hid(x, y) <= 0\n" +
		"|y| !p(y) v hid(x, x) <= 2\n" +
		"0.3 !obs(x, c)\n"
	f, err := ParseMLNConfig("m.mln", []byte(src), &Config{Dialect: RockIt})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *RockItConf:
			got = append(got, d.Var.Name+": "+FormulaString(d.Decl.F)+" @"+d.Atom.Pred)
		default:
			var b bytes.Buffer
			Fprint(&b, d)
			got = append(got, b.String())
		}
	}
	want := []string{
		"*obs(t, float_)",
		"hid(t, t)",
		"*p(t)",
		"2.5 !hid(x,A) v hid(v-X,\"b c\")",
		"-1 hid(x,y)",
		"!hid(x,x).",
		"w: !obs(x,w) v hid(x,x) @obs",
		"!p(y-1) v !p(y-2) v !hid(x,y-1) v !hid(x,y-2) v y-1 = y-2.",
		"!hid(x,y-1).",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A formula's binding by an evidence atom.
	conf := f.Decls[6].(*RockItConf)
	d, ok, err := conf.Bind([]string{"B", "0.25"})
	if err != nil || !ok || d.Weight != 0.25 || !d.Fixed || FormulaString(d.F) != "!obs(B,0.25) v hid(B,B)" {
		t.Errorf("Bind: %v %v %+v %s", ok, err, d, FormulaString(d.F))
	}
}

// RockIt's constructs without a faithful meaning in Marple are refused at
// their position, with the reason.
func TestRockItRefused(t *testing.T) {
	decl := "*o(t, float_)\n*p(t)\nh(t, t)\n"
	for _, c := range []struct{ src, want string }{
		{"n(x) := [x > 1]\n", "4:6: RockIt's numerical predicates"},
		{"1 !p(x) v h(x, [x+1])\n", "4:16: RockIt's arithmetic terms"},
		{"|y| !p(x) v h(x, y) >= 1\n", "4:21: RockIt's cardinality constraints with '>='"},
		{"|y| !p(x) v h(x, y) <= 4\n", "4:24: cardinality bound 4 is past 3"},
		{"|y| h(x, y) v h(y, x) <= 1\n", "4:15: a cardinality constraint with more than one hidden literal"},
		{"|y| !h(x, y) <= 1\n", "4:5: a negated hidden literal"},
		{"|z| h(x, y) <= 1\n", "4:2: over-variable z does not occur"},
		{"1 h(x, !\"A\")\n", "4:8: '!' before a constant"},
		{"w: o(x, w) v h(x, x)\n", "4:4: a literal of float_ predicate o must be negated"},
		{"w: !o(x, v) v h(x, x)\n", "4:1: weight variable w is not the value"},
		{"1 !o(x, \"1.5\") v h(x, x)\n", "4:9: the value of float_ predicate o must be a variable"},
		{"q(t, float_)\n", "4:6: a predicate with a float_ argument must be observed"},
		{"*q(float_, t)\n", "4:10: float_ must be the last argument"},
		{"h(x, y)\n", "4:1: predicate h is declared twice"},
		{"1 g(x)\n", "4:3: predicate g is not declared"},
		{"h(x, y) v p(x)\n", "4:15: expected '.' after a formula without a weight"},
		{"2 h(x, y).\n", "4:10: a hard formula (trailing '.') has no weight"},
		{"1 h(x)\n", "4:3: predicate h has 2 argument(s), found 1"},
	} {
		_, err := ParseMLNConfig("m.mln", []byte(decl+c.src), &Config{Dialect: RockIt})
		if err == nil || !strings.Contains(err.Error(), "m.mln:"+c.want) {
			t.Errorf("%q: got %v, want m.mln:%s", c.src, err, c.want)
		}
	}
}

// RockIt's .db files: quotes are dropped where the name is a Marple
// constant, lower-case names are quoted, values are kept as written.
func TestRockItDB(t *testing.T) {
	src := "p(\"A\", b, \"owl:Thing\", \"7\", -0.25)\n!q(C)\n"
	var got []string
	err := ScanDBDialect(RockIt, "e.db", []byte(src), func(a *RawAtom) {
		s := string(a.Pred) + "("
		for i, x := range a.Args {
			if i > 0 {
				s += ","
			}
			s += string(x)
		}
		if a.Value == ValFalse {
			s = "!" + s
		}
		got = append(got, s+")")
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "p(A,\"b\",\"owl:Thing\",7,-0.25) !q(C)"; strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
}
