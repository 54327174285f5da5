package syntax

import (
	"bytes"
	"strings"
	"testing"
)

func TestHybridParse(t *testing.T) {
	src := `Near(seg, seg)
Dist(seg, seg)
Length(seg)
1.5 Near(x, y) * -(Dist(x, y) - 2.5)^2
0.5 Length(s) = 3.5
-2 * (Length(s) - 1)^2 + 3 * Length(s)
Near(x, y) ^ (x != y) * Length(x) = -1
2 * 3 -2^2
`
	f, err := ParseMLN("h.mln", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range f.Decls[3:] {
		h, ok := d.(*HybridDecl)
		if !ok {
			t.Fatalf("%v: %T, want *HybridDecl", d.Pos(), d)
		}
		var b strings.Builder
		writeDecl(&b, h)
		got = append(got, b.String())
	}
	want := []string{
		"1.5 Near(x,y) * -((Dist(x,y) - 2.5)^2)",
		"0.5 Length(s) = 3.5",
		"-2 * (((Length(s) - 1)^2) + (3 * Length(s)))",
		"(Near(x,y) ^ x != y) * Length(x) = -1",
		"2 * (3 - (2^2))",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Printing reads back to the same trees.
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
}

func TestHybridParseErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"P(a)\nP(x) * (2", "h.mln:2:10: expected ')'"},
		{"P(a)\nP(x) * 2^x", "h.mln:2:10: expected a non-negative integer exponent"},
		{"P(a)\nP(x) * 2^99", "h.mln:2:10: exponent 99 is too large"},
		{"P(a)\nP(x). * 2", "h.mln:2:7: a hard formula"},
		{"P(a)\nP(x) * 2 .", "h.mln:2:10: a hard formula"},
		{"P(a)\nP(x) * Q(x) = y", "h.mln:2:15: expected a number after '='"},
		{"P(a)\n2 * (3) )", "h.mln:2:9: unexpected ')'"},
	} {
		_, err := ParseMLN("h.mln", []byte(c.src))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %s...", c.src, err, c.want)
		}
	}
}

func TestRealValuesInDB(t *testing.T) {
	f, err := ParseDB("e.db", []byte("Dist(A, B) 3.2\nLength(C)  -1e-3 // c\nP(A)\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a := f.Atoms[0]; !a.HasReal || a.Real != 3.2 {
		t.Fatalf("got %+v", a)
	}
	if a := f.Atoms[1]; !a.HasReal || a.Real != -1e-3 {
		t.Fatalf("got %+v", a)
	}
	if f.Atoms[2].HasReal {
		t.Fatal("P(A) has a value")
	}
	if _, err := ParseDB("e.db", []byte("Dist(A, B) 3.2x\n")); err == nil || !strings.HasPrefix(err.Error(), "e.db:1:12:") {
		t.Fatalf("got %v", err)
	}
}

// A term alone after "*" may start with an atom when what follows the
// atom cannot follow a "*" atom; otherwise it is Alchemy's "*" atom.
func TestHybridTermStartingWithAtom(t *testing.T) {
	for src, hybrid := range map[string]bool{
		"X(a)\n1 * X(A)^2\n":      true,
		"X(a)\n1 * X(A) - 2\n":    true,
		"X(a)\n1 * X(A) * X(B)\n": true,
		"X(a)\n1 * X(A) = 2\n":    true,
		"X(a)\n1 *X(A)\n":         false,
		"X(a)\n1 *X(A) ^ X(B)\n":  false,
		"X(a)\n1 *X(A) v !X(B)\n": false,
	} {
		f, err := ParseMLN("t.mln", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if _, ok := f.Decls[1].(*HybridDecl); ok != hybrid {
			t.Errorf("%q: hybrid %v, want %v", src, ok, hybrid)
		}
	}
}
