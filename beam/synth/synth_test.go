package synth

import (
	"testing"

	"github.com/marple-mln/marple/mln"
)

// TestReplicate replicates a tiny database three times, renaming the
// constants of type bib only.
func TestReplicate(t *testing.T) {
	m, err := mln.ParseModel("t.mln", "Author(bib, person)\nTitle(bib, word)\n")
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "t.db", "Author(B1, Ann)\n!Author(B2, Ann)\nTitle(B1, Logic)\n?Title(B2, Nets)\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	bib, ok := m.Type("bib")
	if !ok {
		t.Fatal("no type bib")
	}
	got := Replicate(m, db, bib.ID, 3)
	want := "Author(B1,Ann)\n!Author(B2,Ann)\nTitle(B1,Logic)\n?Title(B2,Nets)\n" +
		"Author(B1_r1,Ann)\n!Author(B2_r1,Ann)\nTitle(B1_r1,Logic)\n?Title(B2_r1,Nets)\n" +
		"Author(B1_r2,Ann)\n!Author(B2_r2,Ann)\nTitle(B1_r2,Logic)\n?Title(B2_r2,Nets)\n"
	if got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
	if got := Replicate(m, db, bib.ID, 0); got != "" {
		t.Errorf("k = 0: %q", got)
	}
}
