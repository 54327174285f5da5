package syntax

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func addSeeds(f *testing.F, pattern string) {
	files, _ := filepath.Glob(pattern)
	for _, p := range files {
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
	}
}

// FuzzParseMLN checks that the .mln parser never panics and that a file
// it accepts prints to text that parses back to the same tree.
func FuzzParseMLN(f *testing.F) {
	addSeeds(f, "testdata/*.mln")
	f.Add([]byte("P(t)\n1.5 EXIST x,y P(x) => !(x = y) v *P(+y).\n"))
	f.Add([]byte("P(t)\n2:-1.5 P(x) v P(A)\n:3 !P(x)\n-1 :0.5e2 (P(x))\n"))
	f.Add([]byte("t = {1,...,3}\nt f(t)\n#include \"x.mln\"\n"))
	f.Add([]byte("P(t)\nQ(t)\n1.5 (2 P(x) ^ -1 !Q(x))\n(0.5 P(x) v 2 EXIST y 1 Q(y))\n1 FORALL y 2 (P(y) ^ 3 (x = y))\n"))
	f.Add([]byte("L(t)\n1.5 P(x) * -(L(x) - 2.5)^2 + 3 * L(x)\n0.5 L(x) = -3.5\n-2 * (L(A) -1)^2\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := ParseMLN("fuzz.mln", src)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := Fprint(&buf, file); err != nil {
			t.Fatal(err)
		}
		again, err := ParseMLN("printed.mln", buf.Bytes())
		if err != nil {
			t.Fatalf("printed text does not parse: %v\n%s", err, buf.String())
		}
		if !sameAST(file.Decls, again.Decls) {
			t.Fatalf("round trip changed the tree:\n%s\n---\n%s", dump(file), dump(again))
		}
	})
}

// FuzzParseDB checks that the .db parser never panics and that a file it
// accepts prints to text that parses back to the same atoms.
func FuzzParseDB(f *testing.F) {
	addSeeds(f, "testdata/*.db")
	f.Add([]byte("P(A, \"b c\", 1)\n!Q(-2.5)\n?R(X) // c\n"))
	f.Add([]byte("Dist(A, B) 3.2\nL(C) -1e-3\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := ParseDB("fuzz.db", src)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := Fprint(&buf, file); err != nil {
			t.Fatal(err)
		}
		again, err := ParseDB("printed.db", buf.Bytes())
		if err != nil {
			t.Fatalf("printed text does not parse: %v\n%s", err, buf.String())
		}
		if !sameAST(file.Atoms, again.Atoms) {
			t.Fatalf("round trip changed the atoms")
		}
	})
}
