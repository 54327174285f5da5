package mln

import (
	"strings"
	"testing"
)

func TestHybridModel(t *testing.T) {
	m, err := ParseModel("h.mln", "seg = {S1, S2}\nWall(seg)\nLength(seg)\n1.5 Wall(s) * Length(s) = 3\n-0.5 * (Length(S1) - 1)^2\n0.2 Wall(s)\n")
	if err != nil {
		t.Fatal(err)
	}
	if !m.IsHybrid() {
		t.Fatal("not hybrid")
	}
	l, _ := m.Pred("Length")
	w, _ := m.Pred("Wall")
	if !m.IsReal(l.ID) || m.IsReal(w.ID) {
		t.Fatal("wrong real-valued predicates")
	}
	fs, err := m.Features()
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 3 || fs[0].Term != nil || fs[1].Term == nil || fs[1].Cond == nil || fs[2].Cond != nil || len(fs[2].Free) != 0 {
		t.Fatalf("features %+v", fs)
	}
	db, err := ParseDatabase(m, "h.db", "Length(S1) 2.5\n?Length(S2)\nWall(S1)\n")
	if err != nil {
		t.Fatal(err)
	}
	s1, _ := m.Const("S1")
	if v, ok := db.Real(l.ID, []ConstID{s1}); !ok || v != 2.5 {
		t.Fatalf("Length(S1) = %v, %v", v, ok)
	}
	if v, ok := db.Without(w.ID).Real(l.ID, []ConstID{s1}); !ok || v != 2.5 {
		t.Fatalf("Without: Length(S1) = %v, %v", v, ok)
	}
}

func TestHybridErrors(t *testing.T) {
	const decls = "seg = {S1}\nWall(seg)\nLength(seg)\n"
	for _, c := range []struct{ model, db, want string }{
		{decls + "Wall(s) => Length(s)\n1 Wall(s) * Length(s)\n", "", "h.mln:5:13: numeric term over Boolean atom Length (Length is a Boolean atom at h.mln:4:12)"},
		{decls + "1 Wall(s) * Length(s)\nLength(s) v Wall(s)\n", "", "h.mln:5:1: Length is real-valued (it is in a numeric term at h.mln:4:13): it cannot be a Boolean atom"},
		{decls + "1 Wall(s) * +s = 2\n", "", "h.mln:4:"},
		{decls + "1 Wall(s) * Length(s)\n", "Wall(S1) 2.5\n", "h.db:1:10: real value for Boolean predicate Wall"},
		{decls + "1 Wall(s) * Length(s)\n", "Length(S1)\n", "h.db:1:1: real-valued atom Length(S1) needs a value"},
		{decls + "1 Wall(s) * Length(s)\n", "!Length(S1)\n", "h.db:1:1: real-valued atom Length(S1) cannot be false"},
		{decls + "1 Wall(s) * Length(s)\n", "Length(S1) 1\nLength(S1) 2\n", "h.db:2:1: contradictory evidence"},
	} {
		m, err := ParseModel("h.mln", c.model)
		if err == nil && c.db != "" {
			_, err = ParseDatabase(m, "h.db", c.db)
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q %q: got %v, want %s", c.model, c.db, err, c.want)
		}
	}
}
