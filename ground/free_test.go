package ground_test

import (
	"context"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// TestFreeAtoms: the unknown atoms no clause grounding keeps are counted
// (Friends(x, x) of an open-world Friends makes a tautology of the
// friendship formula; an open-world predicate in no formula has every atom
// free), the listed and query atoms are not.
func TestFreeAtoms(t *testing.T) {
	const src = `person = {A, B, C}
Friends(person, person)
Smokes(person)
Cancer(person)
Likes(person)
1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))
`
	for _, c := range []struct {
		db   string
		open []string
		want float64
	}{
		{"", nil, 0},                 // Friends closed world: all false
		{"", []string{"Friends"}, 3}, // Friends(A,A), (B,B), (C,C)
		{"Friends(A, A)\n", []string{"Friends"}, 2},
		{"?Friends(A, A)\n", nil, 1},          // closed world, but listed unknown
		{"", []string{"Friends", "Likes"}, 6}, // and Likes(A), (B), (C)
		{"!Likes(B)\n", []string{"Likes"}, 2},
	} {
		m, err := mln.ParseModel("f.mln", src)
		if err != nil {
			t.Fatal(err)
		}
		db, err := mln.ParseDatabase(m, "f.db", c.db)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(); err != nil {
			t.Fatal(err)
		}
		var q, ow []mln.PredID
		for _, n := range []string{"Smokes", "Cancer"} {
			p, _ := m.Pred(n)
			q = append(q, p.ID)
		}
		for _, n := range c.open {
			p, _ := m.Pred(n)
			ow = append(ow, p.ID)
		}
		net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: q, OpenWorld: ow})
		if err != nil {
			t.Fatal(err)
		}
		if got := net.FreeAtoms(); got != c.want {
			t.Errorf("evidence %q, open world %v: %v free atoms, want %v", c.db, c.open, got, c.want)
		}
	}
}
