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
		if m := FindMarkers("fuzz.mln", src, false); len(m) > 0 {
			t.Fatalf("a file that parses in Alchemy's dialect has a marker of another: %v", m)
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
		if m := FindMarkers("fuzz.db", src, true); len(m) > 0 {
			t.Fatalf("a file that parses in Alchemy's dialect has a marker of another: %v", m)
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

// FuzzParseDialects checks that the marker search, and the .mln and .db
// parsers in Tuffy's, LoMRF's, RockIt's and pracmln's dialects, never
// panic, that the completion of the definite clauses of a LoMRF file they
// accept prints as Alchemy text that parses back to the same formulas, and
// that so do the declarations and formulas of a RockIt file (checkRockIt).
func FuzzParseDialects(f *testing.F) {
	addSeeds(f, "testdata/*.mln")
	f.Add([]byte("*F(p, p)\nS(p)\n0.7 F(a1, a2), S(a1), [a1 != a2 AND NOT (a1 <> A || a2 = B)] => S(a2)\n@1.2 S(a)\nS(a) v [a = A].\n"))
	f.Add([]byte("H(t)\nE(t)\n1.5 H(t) :- E(t) ^ !E(t++)\nH(x) :- E(x--).\nS(h1)\n"))
	f.Add([]byte("H(f, t)\nE(t)\nH(A, t) :- E(t).\n2 H(x, t) :- E(t) ^ E(x)\nH(m(p, q), t) :- E(p)\nH(B, t) :- E(t--)\n"))
	f.Add([]byte("0.8 Smokes(Carl)\n0 !F(A, B)\n1 S(C)\n!S(D)\n"))
	f.Add([]byte("*c(l, r, float_)\n*o(l)\nm(l, r)\nw: !c(x, Y, w) v m(x, Y)\n|Y| !o(x) v m(x, Y) <= 2\n-1.5 m(x, \"A b\") v !m(\"C\", x)\n!m(x, x).\n"))
	f.Add([]byte("c(\"A\", b, 0.5)\n!o(\"owl:Thing\")\n"))
	f.Add([]byte("S(t, u!)\n#fixweight\nlog(0.9/0.1) S(?x, a) ^ !(EXIST ?y (S(?y, b.c)))\nlogx(0) S(?x,?y) ^ ?x =/= ?y\n-float('inf') S(?x, Y).\nP(S(x, y)) = 0.5\nt = {a, B}\n"))
	f.Add([]byte("S(t)\n2**-1 S(x) ^ S(y) v S(z)\nfloat('inf') EXIST y (S(y)) ^ S(x)\n#fuzzy\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, db := range []bool{false, true} {
			for _, m := range FindMarkers("fuzz", src, db) {
				if !m.Pos.IsValid() || m.Marker.DB != db {
					t.Fatalf("marker %v", m)
				}
			}
		}
		for _, d := range []Dialect{Tuffy, LoMRF, RockIt, Pracmln} {
			file, err := ParseMLNConfig("fuzz.mln", src, &Config{Dialect: d})
			if err == nil && d == RockIt {
				checkRockIt(t, file)
			}
			_ = ScanDBDialect(d, "fuzz.db", src, func(a *RawAtom) {
				if a.HasPrior && !(a.Prior > 0 && a.Prior < 1) {
					t.Fatalf("prior %v outside (0,1)", a.Prior)
				}
			})
			if err != nil || d != LoMRF {
				continue
			}
			comps, err := Completions([]*File{file})
			if err != nil {
				continue
			}
			out := &File{Name: "completion"}
			for _, c := range comps {
				out.Decls = append(out.Decls, c)
			}
			var buf bytes.Buffer
			if err := Fprint(&buf, out); err != nil {
				t.Fatal(err)
			}
			// The completions mention predicates the file declares.
			var decls bytes.Buffer
			for _, dd := range file.Decls {
				if pd, ok := dd.(*PredDecl); ok {
					Fprint(&decls, pd)
					decls.WriteByte('\n')
				}
			}
			again, err := ParseMLN("printed.mln", append(decls.Bytes(), buf.Bytes()...))
			if err != nil {
				t.Fatalf("printed completion does not parse: %v\n%s%s", err, decls.String(), buf.String())
			}
			var got []Decl
			for _, dd := range again.Decls {
				if _, ok := dd.(*FormulaDecl); ok {
					got = append(got, dd)
				}
			}
			if !sameAST(out.Decls, got) {
				t.Fatalf("round trip changed the completion:\n%s", buf.String())
			}
		}
	})
}

// checkRockIt checks that the declarations and formulas a RockIt file
// parses to print as Alchemy text that parses back to the same tree (a
// formula weighted by the evidence as its formula).
func checkRockIt(t *testing.T, file *File) {
	out := &File{Name: "rockit"}
	for _, d := range file.Decls {
		if c, ok := d.(*RockItConf); ok {
			d = c.Decl
		}
		out.Decls = append(out.Decls, d)
	}
	var buf bytes.Buffer
	if err := Fprint(&buf, out); err != nil {
		t.Fatal(err)
	}
	again, err := ParseMLN("printed.mln", buf.Bytes())
	if err != nil {
		t.Fatalf("printed RockIt model does not parse: %v\n%s", err, buf.String())
	}
	if !sameAST(out.Decls, again.Decls) {
		t.Fatalf("round trip changed the RockIt model:\n%s\n---\n%s", dump(out), dump(again))
	}
}
