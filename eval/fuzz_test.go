package eval

import (
	"bytes"
	"testing"
)

// FuzzParseAtoms checks that the reader never panics and that what it
// accepts survives a write and re-read unchanged.
func FuzzParseAtoms(f *testing.F) {
	for _, s := range []string{
		"InField(B1001,Fauthor,P00)\n",
		"Smokes(Anna) 0.734\r\n0.25 Smokes(Bob)\n",
		"!Friends(A, B)\n?Raining\n// c\n/* x\n */ Sunny()\n",
		"P(\"a, b\", \"c)d(\", \"x\\\"y\")\n",
		"\xEF\xBB\xBFA(1,-2) 1e-05",
		"A(\"unterminated\n", "0.5", "A(X) 1.5", "A(X Y)",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := ParseAtoms("fuzz", src)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		for i := range s.Len() {
			a := s.Atom(i)
			b, err := ParseAtom(a.Key)
			if err != nil || b.Key != a.Key || b.Pred != a.Pred || len(b.Args) != len(a.Args) {
				t.Fatalf("key %q does not re-parse: %+v %v", a.Key, b, err)
			}
			if v := s.Value(i); v != Unknown && (v < 0 || v > 1) {
				t.Fatalf("value %v", v)
			}
		}
		var buf bytes.Buffer
		if err := s.Write(&buf, true); err != nil {
			t.Fatal(err)
		}
		r, err := ParseAtoms("again", buf.Bytes())
		if err != nil {
			t.Fatalf("written file does not parse: %v\n%s", err, buf.Bytes())
		}
		n := 0
		for i := range s.Len() {
			if s.Value(i) == Unknown {
				continue
			}
			n++
			if v, ok := r.Get(s.Atom(i).Key); !ok || v != s.Value(i) {
				t.Fatalf("atom %s = %v after round trip, want %v", s.Atom(i).Key, v, s.Value(i))
			}
		}
		if r.Len() != n {
			t.Fatalf("round trip has %d atoms, want %d", r.Len(), n)
		}
	})
}
