package syntax

import (
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testenv"
)

// TestBOMAndCRLF: a byte-order mark at the start of a file is skipped and
// CRLF line ends are line ends, in both languages; columns count from
// after the mark.
func TestBOMAndCRLF(t *testing.T) {
	f, err := ParseMLN("m.mln", []byte("\xef\xbb\xbfSmokes(person)\r\n1.5 Smokes(x)\r\n"))
	if err != nil || len(f.Decls) != 2 {
		t.Fatalf("%v, %d decls", err, len(f.Decls))
	}
	if p := f.Decls[0].Pos(); p.Line != 1 || p.Col != 1 {
		t.Errorf("first declaration at %v", p)
	}
	db, err := ParseDB("e.db", []byte("\xef\xbb\xbfSmokes(Anna)\r\n!Smokes(Bob)\r\n"))
	if err != nil || len(db.Atoms) != 2 || db.Atoms[0].Pred.Name != "Smokes" || db.Atoms[0].Pos().Col != 1 {
		t.Fatalf("%v, %+v", err, db.Atoms)
	}
}

// TestNonFiniteWeights: nan and inf weights are named as such.
func TestNonFiniteWeights(t *testing.T) {
	for _, w := range []string{"nan", "NaN", "inf", "Inf", "-inf", "infinity", "1e400", "-1e999"} {
		_, err := ParseMLN("m.mln", []byte("Smokes(person)\n"+w+" Smokes(x)\n"))
		if want := "m.mln:2:1: weight " + w + " is not a finite number"; err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", w, err, want)
		}
	}
	// Predicates and types may still be called so.
	if _, err := ParseMLN("m.mln", []byte("Inf(t)\nNaN(t)\n1 Inf(x) => NaN(x)\n")); err != nil {
		t.Errorf("predicates Inf and NaN: %v", err)
	}
}

// TestHexWeights: a hexadecimal weight is refused at its position, not
// read as a function declaration; a constant may still be spelled so.
func TestHexWeights(t *testing.T) {
	for _, w := range []string{"0x1p3", "0X10", "0x1p-2"} {
		for _, f := range []string{"Smokes(x)", "!Smokes(x)"} {
			_, err := ParseMLN("m.mln", []byte("Smokes(person)\n"+w+" "+f+"\n"))
			if want := "m.mln:2:1: weight " + w + " is a hexadecimal number"; err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s %s: error %v, want %q", w, f, err, want)
			}
		}
	}
	if _, err := ParseMLN("m.mln", []byte("Smokes(person)\n1 Smokes(0x1F)\n")); err != nil {
		t.Errorf("constant 0x1F: %v", err)
	}
}

// TestLongChains: chains of a million connectives parse, print and walk
// without deep recursion; longer ones are refused with a position.
func TestLongChains(t *testing.T) {
	for _, op := range []string{" ^ ", " v ", " => ", " <=> "} {
		n := 50_000
		src := "P(t)\n1 P(x)" + strings.Repeat(op+"P(x)", n) + "\n"
		f, err := ParseMLN("m.mln", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", op, err)
		}
		fd := f.Decls[1].(*FormulaDecl)
		atoms := 0
		Walk(fd.F, func(x Formula) bool {
			if _, ok := x.(*Atom); ok {
				atoms++
			}
			return true
		})
		if atoms != n+1 {
			t.Errorf("%q: walked %d atoms", op, atoms)
		}
		if s := FormulaString(fd.F); s != strings.TrimSpace(src[len("P(t)\n1 "):]) {
			t.Errorf("%q: printed differently", op)
		}
	}
	if testenv.Short() {
		return
	}
	src := "P(t)\n1 P(x)" + strings.Repeat(" => P(x)", MaxConnectives+1) + "\n"
	_, err := ParseMLN("m.mln", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "formula too long: more than 1048576 connectives") {
		t.Fatalf("err = %v", err)
	}
}
