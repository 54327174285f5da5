package structure

import (
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

const seqMLN = `
Token(word, pos, seq)
Next(pos, pos)
InField(seq, field, pos)
!InField(s, A, p) v !InField(s, B, p).
`

func seqModel(t testing.TB) *mln.Model {
	t.Helper()
	m, err := mln.ParseModel("seq.mln", seqMLN)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestParseModes(t *testing.T) {
	m := seqModel(t)
	src := "// linear chain\nmodep(2, InField(., ., -))\nmodep(2, Token(., +, .))\n# a comment\nmodep(1,Next(-,-))\n\nmodec(InField(v, c, v))\nmodec( Token(c,v,v) )\n"
	ms, err := ParseModes(m, "seq.modes", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := m.Pred("Token")
	in, _ := m.Pred("InField")
	next, _ := m.Pred("Next")
	if pm := ms.Path[tok.ID]; pm == nil || pm.Recall != 2 || string([]byte{byte(pm.Places[0]), byte(pm.Places[1]), byte(pm.Places[2])}) != ".+." {
		t.Fatalf("Token mode %+v", ms.Path[tok.ID])
	}
	if !ms.IO(next.ID, 0) || !ms.IO(in.ID, 2) || ms.IO(in.ID, 0) || ms.IO(tok.ID, 0) {
		t.Fatal("IO")
	}
	if !ms.KeepConst(in.ID, 1) || ms.KeepConst(in.ID, 0) || !ms.KeepConst(tok.ID, 0) || ms.KeepConst(next.ID, 0) {
		t.Fatal("KeepConst")
	}
	again, err := ParseModes(m, "again", []byte(ms.String(m)))
	if err != nil {
		t.Fatal(err)
	}
	if again.String(m) != ms.String(m) {
		t.Fatalf("round trip:\n%s\nvs\n%s", again.String(m), ms.String(m))
	}
}

func TestParseModesErrors(t *testing.T) {
	m := seqModel(t)
	for _, tc := range []struct{ src, want string }{
		{"modep(2, Foo(+))", "x.modes:1:10: unknown predicate Foo"},
		{"\nmodep(2, Next(+))", "x.modes:2:10: Next has 2 arguments, the declaration gives 1"},
		{"modep(0, Next(+,+))", "x.modes:1:7: modep needs a positive recall number"},
		{"modep(1, Next(+,*))", "x.modes:1:17: place-maker must be"},
		{"modec(Next(c,x))", "x.modes:1:14: modec argument must be 'c' or 'v'"},
		{"mode(Next(c,v))", "x.modes:1:1: unknown declaration \"mode\""},
		{"modep(1, Next(+,+))\nmodep(2, Next(-,-))", "x.modes:2:1: second modep for Next (first at x.modes:1:1)"},
		{"modep(1, Next(+,+)) x", "x.modes:1:21: unexpected"},
		{"modep(1, Next(+,+)", "x.modes:1:19: expected ')', found end of line"},
		{"modep(1, Next(+,", "x.modes:1:17: unterminated argument list of Next"},
	} {
		_, err := ParseModes(m, "x.modes", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
		}
	}
	// All errors are reported.
	_, err := ParseModes(m, "x.modes", []byte("modep(2, Foo(+))\nmodec(Bar(c))"))
	if err == nil || !strings.Contains(err.Error(), "1:10") || !strings.Contains(err.Error(), "2:7") {
		t.Errorf("both errors: %v", err)
	}
}

func FuzzParseModes(f *testing.F) {
	f.Add([]byte("modep(2, Token(., +, .))\nmodec(Token(c, v, v))\n"))
	f.Add([]byte("modep(1,Next(-,-)) // c\n# x\n"))
	f.Add([]byte("modep(9999999999999999999, Next(-,-))"))
	f.Add([]byte("modec(InField(v,c,v)"))
	m, err := mln.ParseModel("seq.mln", seqMLN)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		ms, err := ParseModes(m, "f", src)
		if err != nil {
			return
		}
		if _, err := ParseModes(m, "g", []byte(ms.String(m))); err != nil {
			t.Fatalf("printed modes do not parse: %v", err)
		}
	})
}
