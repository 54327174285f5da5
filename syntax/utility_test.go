package syntax

import (
	"bytes"
	"strings"
	"testing"
)

func TestUtility(t *testing.T) {
	src := "P(t)\n2:-1.5 P(x)\n:3 P(x)\n-1: 4 !P(A) v P(x)\n1.5 P(x)\n"
	f, err := ParseMLN("u.mln", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		w, u       float64
		hasW, hasU bool
		col        int
	}
	wants := []want{{2, -1.5, true, true, 2}, {0, 3, false, true, 1}, {-1, 4, true, true, 3}, {1.5, 0, true, false, 0}}
	var got []*FormulaDecl
	for _, d := range f.Decls {
		if d, ok := d.(*FormulaDecl); ok {
			got = append(got, d)
		}
	}
	if len(got) != len(wants) {
		t.Fatalf("%d formulas, want %d", len(got), len(wants))
	}
	for i, w := range wants {
		d := got[i]
		if d.Weight != w.w || d.HasWeight != w.hasW || (d.Utility != nil) != w.hasU {
			t.Errorf("formula %d: weight %v (%v), utility %+v", i, d.Weight, d.HasWeight, d.Utility)
			continue
		}
		if w.hasU && (d.Utility.Value != w.u || d.Utility.Pos().Col != w.col) {
			t.Errorf("formula %d: utility %v at col %d, want %v at %d", i, d.Utility.Value, d.Utility.Pos().Col, w.u, w.col)
		}
	}
	var buf bytes.Buffer
	if err := Fprint(&buf, f); err != nil {
		t.Fatal(err)
	}
	again, err := ParseMLN("printed.mln", buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if !sameAST(f.Decls, again.Decls) {
		t.Fatalf("round trip changed the tree:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), ":3 P(x)") {
		t.Errorf("printed:\n%s", buf.String())
	}
}

func TestUtilityErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"P(t)\n:inf P(x)\n", "u.mln:2:2: utility inf is not a finite number"},
		{"P(t)\n2:-Infinity P(x)\n", "u.mln:2:3: utility -Infinity is not a finite number"},
		{"P(t)\n:nan P(x)\n", "u.mln:2:2: utility nan is not a finite number"},
		{"P(t)\n:1e999 P(x)\n", "u.mln:2:2: utility 1e999 is not a finite number"},
		{"P(t)\n:0x10 P(x)\n", "u.mln:2:2: utility 0x10 is a hexadecimal number"},
		{"P(t)\n: P(x)\n", "u.mln:2:3: expected a utility (a number) after ':'"},
		{"P(t)\n1:2\n", "u.mln:2:4: expected a formula after the utility"},
		{"P(t)\nP(x) : 2\n", "u.mln:2:6: unexpected ':'"},
	} {
		_, err := ParseMLN("u.mln", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.src, err, c.want)
		}
	}
}
