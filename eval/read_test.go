package eval

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func mustParse(t testing.TB, name, src string) *AtomSet {
	t.Helper()
	s, err := ParseAtoms(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseOddFile(t *testing.T) {
	src := "\xEF\xBB\xBF// header comment\r\n" +
		"\r\n" +
		"P(\"a, b\", \"c)d(\", \"x\\\"y\", \"//not a comment\")\r\n" +
		"  Q( A ,B )   // trailing comment\r\n" +
		"/* block\r\n comment */ R(1, -2, 3.5)\r\n" +
		"Raining\r\n" +
		"Sunny()\r\n" +
		"!Smokes(Bob)\r\n" +
		"?Smokes(Carl)\r\n" +
		"Smokes (Anna)/* c */\r\n" +
		"Smokes(Anna)"
	s := mustParse(t, "odd.db", src)
	want := []struct {
		key  string
		pred string
		args []string
		v    float64
	}{
		{`P("a, b","c)d(","x\"y","//not a comment")`, "P", []string{`"a, b"`, `"c)d("`, `"x\"y"`, `"//not a comment"`}, 1},
		{"Q(A,B)", "Q", []string{"A", "B"}, 1},
		{"R(1,-2,3.5)", "R", []string{"1", "-2", "3.5"}, 1},
		{"Raining", "Raining", nil, 1},
		{"Sunny", "Sunny", nil, 1},
		{"Smokes(Bob)", "Smokes", []string{"Bob"}, 0},
		{"Smokes(Carl)", "Smokes", []string{"Carl"}, Unknown},
		{"Smokes(Anna)", "Smokes", []string{"Anna"}, 1},
	}
	if s.Len() != len(want) {
		t.Fatalf("got %d atoms, want %d", s.Len(), len(want))
	}
	for i, w := range want {
		a := s.Atom(i)
		if a.Key != w.key || a.Pred != w.pred || !slices.Equal(a.Args, w.args) || s.Value(i) != w.v {
			t.Errorf("atom %d = %q %q %q %v, want %q %q %q %v", i, a.Key, a.Pred, a.Args, s.Value(i), w.key, w.pred, w.args, w.v)
		}
	}
	if s.Complete {
		t.Error("a file without numbers is not Complete")
	}
	if got := s.Preds(); !slices.Equal(got, []string{"P", "Q", "R", "Raining", "Sunny", "Smokes"}) {
		t.Errorf("Preds = %q", got)
	}
	if s.Count("Smokes") != 3 {
		t.Errorf("Count(Smokes) = %d", s.Count("Smokes"))
	}
	if v, ok := s.Get("Q(A, B)"); !ok || v != 1 {
		t.Errorf("Get(Q(A, B)) = %v %v", v, ok)
	}
	if _, ok := s.Get("Q(B,A)"); ok {
		t.Error("Get(Q(B,A)) found")
	}
}

func TestParseValues(t *testing.T) {
	s := mustParse(t, "m.result", `Smokes(Anna) 0.734
0.25	Smokes(Bob)
Smokes(Carl)	1e-05
Raining 0
Sunny 1
Smokes(Dan)0.5
`)
	want := map[string]float64{"Smokes(Anna)": 0.734, "Smokes(Bob)": 0.25, "Smokes(Carl)": 1e-05, "Raining": 0, "Sunny": 1, "Smokes(Dan)": 0.5}
	for k, w := range want {
		if v, ok := s.Get(k); !ok || v != w {
			t.Errorf("%s = %v %v, want %v", k, v, ok, w)
		}
	}
	if !s.Complete || !s.Probabilistic() {
		t.Errorf("Complete = %v, Probabilistic = %v", s.Complete, s.Probabilistic())
	}
	s = mustParse(t, "b.result", "A(X) 1\nA(Y) 0\n")
	if !s.Complete || s.Probabilistic() {
		t.Errorf("0/1 file: Complete = %v, Probabilistic = %v", s.Complete, s.Probabilistic())
	}
	s = mustParse(t, "mixed.result", "A(X) 1\nA(Y)\n")
	if s.Complete {
		t.Error("mixed file is Complete")
	}
	s = mustParse(t, "dup.db", "A(X) 0.3\nA( X ) 0.3\n")
	if v, _ := s.Get("A(X)"); s.Len() != 1 || v != 0.3 {
		t.Errorf("duplicate: len %d value %v", s.Len(), v)
	}
	if s := mustParse(t, "empty", "// nothing\n\n"); s.Len() != 0 || s.Complete {
		t.Errorf("empty file: len %d Complete %v", s.Len(), s.Complete)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"A(X)\nSmokes(Anna", "f.db:2:7: unclosed '('"},
		{"Smokes(Anna) 1.5", "f.db:1:14: probability 1.5 out of range [0,1]"},
		{"Smokes(Anna) -0.5", "f.db:1:14: probability -0.5 out of range [0,1]"},
		{"Smokes(Anna) NaN", `f.db:1:14: unexpected "NaN" after atom`},
		{"\n\n  Smokes(Anna) foo", `f.db:3:16: unexpected "foo" after atom`},
		{"Smokes(Anna,,B)", `f.db:1:13: expected constant, found ",B)"`},
		{"Smokes(Anna B)", `f.db:1:13: expected ',' or ')', found "B)"`},
		{"0.5", "f.db:1:4: number without atom"},
		{"0.5 // x\nA", "f.db:1:9: number without atom"},
		{"0.5x A(B)", `f.db:1:1: invalid number "0.5x"`},
		{"!Smokes(Anna) 0.5", "f.db:1:15: unexpected number"},
		{"0.5 !Smokes(Anna)", `f.db:1:5: '!' after a number`},
		{"0.5 A(B) 0.5", "f.db:1:10: unexpected number"},
		{`A("x`, "f.db:1:3: unterminated string"},
		{"A(\"x\ny\")", "f.db:1:3: unterminated string"},
		{"A(X)\n/* open\n\n", "f.db:2:1: unterminated comment"},
		{"(X)", `f.db:1:1: expected predicate name, found "(X)"`},
		{"!!A", `f.db:1:2: expected predicate name, found "!A"`},
		{"A\n!", "f.db:2:2: expected predicate name, found end of line"},
		{"? // x\n", "f.db:1:7: expected predicate name, found end of line"},
		{"A(X) B(Y)", `f.db:1:6: unexpected "B(Y)" after atom`},
		{"A(X) 0.3\nA( X ) 0.6\n", "f.db:2:1: contradictory entries: A(X) is given probability 0.6 here but given probability 0.3 at f.db:1"},
		{"A(X)\nB(Y)\n  !A(X)\n", "f.db:3:3: contradictory entries: A(X) is false here but true at f.db:1"},
		{"?A(X)\nA(X)\n", "f.db:2:1: contradictory entries: A(X) is true here but unknown at f.db:1"},
	}
	for _, c := range cases {
		_, err := ParseAtoms("f.db", []byte(c.src))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %v is not a *ParseError", c.src, err)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("%q: error %q, want %q", c.src, err, c.want)
		}
	}
}

func TestLoadAtoms(t *testing.T) {
	s, err := LoadAtoms(filepath.Join("testdata", "marginal.result"))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Complete || s.Len() != 4 {
		t.Errorf("marginal.result: Complete %v, %d atoms", s.Complete, s.Len())
	}
	s, err = LoadAtoms(filepath.Join("testdata", "marginal.result"), filepath.Join("testdata", "map.result"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Complete {
		t.Error("merge with a MAP file is Complete")
	}
	if v, _ := s.Get("Smokes(D)"); v != 1 {
		t.Errorf("later file does not win: Smokes(D) = %v", v)
	}
	_, err = LoadAtoms(filepath.Join("testdata", "bad.db"))
	want := filepath.Join("testdata", "bad.db") + ":4:19: expected ',' or ')', found \"P02)\""
	if err == nil || err.Error() != want {
		t.Errorf("bad.db: error %v, want %s", err, want)
	}
	if _, err := LoadAtoms(filepath.Join("testdata", "missing.db")); err == nil {
		t.Error("missing file: no error")
	}
}

func TestParseAtomAndSet(t *testing.T) {
	a, err := ParseAtom(` InField( B1 , "F a" , P00 ) `)
	if err != nil || a.Key != `InField(B1,"F a",P00)` || a.Pred != "InField" || len(a.Args) != 3 {
		t.Fatalf("ParseAtom = %+v, %v", a, err)
	}
	for _, bad := range []string{"", "A(X) B", "A(X) 0.5", "!A(X)", "A("} {
		if _, err := ParseAtom(bad); err == nil {
			t.Errorf("ParseAtom(%q): no error", bad)
		}
	}
	s := NewAtomSet()
	if err := s.Set("A(X)", 1.5); err == nil {
		t.Error("Set value 1.5: no error")
	}
	if err := s.SetArgs("A", []string{"X", `"y z"`}, 0.25); err != nil {
		t.Fatal(err)
	}
	if err := s.SetArgs("Z", nil, Unknown); err != nil {
		t.Fatal(err)
	}
	if v, ok := s.Get(`A(X, "y z")`); !ok || v != 0.25 {
		t.Errorf("Get = %v %v", v, ok)
	}
	if err := s.SetArgs("A", []string{"a b"}, 1); err == nil {
		t.Error("SetArgs with a blank in a bare constant: no error")
	}
	var zero AtomSet // the zero value is usable
	if err := zero.Set("B(Y)", 1); err != nil || zero.Len() != 1 {
		t.Errorf("zero AtomSet: %v, len %d", err, zero.Len())
	}
	zero.Merge(s)
	if zero.Len() != 3 {
		t.Errorf("Merge: len %d", zero.Len())
	}
}

func TestWriteRoundTrip(t *testing.T) {
	s := mustParse(t, "x", "A(X) 0.125\nB(\"q, r\") 1\nC 0\n?D(Y)\n")
	var buf bytes.Buffer
	if err := s.Write(&buf, false); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "B(\"q, r\")\n" {
		t.Errorf("MAP write = %q", got)
	}
	buf.Reset()
	if err := s.Write(&buf, true); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "A(X) 0.125\nB(\"q, r\") 1\nC 0\n" {
		t.Errorf("marginal write = %q", got)
	}
	r, err := ReadAtoms(strings.NewReader(buf.String()), "w")
	if err != nil || r.Len() != 3 || !r.Complete {
		t.Fatalf("re-read: %v, %d atoms", err, r.Len())
	}
}
