package mln

import (
	"bytes"
	"context"
	"os"
	"slices"
	"testing"
)

// TestLoadEvidenceRoundTrip: a model loaded and given weights on training
// evidence, including per-constant weights of a "+" formula, then given
// test evidence with LoadEvidence, has the domains that writing it and
// loading it again with the test evidence gives.
func TestLoadEvidenceRoundTrip(t *testing.T) {
	ctx := context.Background()
	model := "Friends(person, person)\nSmokes(person)\nCancer(person)\nsex = {F, M}\nSex(person, sex)\n" +
		"1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))\n0 Sex(x, +s) => Smokes(x)\nEXIST y Friends(x, y).\n"
	m, err := ParseModel("m.mln", model)
	if err != nil {
		t.Fatal(err)
	}
	train, err := ParseDatabase(m, "train.db", "Friends(Anna, Bob)\nSmokes(Anna)\nCancer(Anna)\nSex(Anna, F)\nSex(Bob, M)\nFriends(Carl, Anna)\n")
	if err != nil {
		t.Fatal(err)
	}
	_ = train
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	for i := range m.Formulas {
		for _, p := range m.Formulas[i].Params {
			m.Weights[p] = 0.25 * float64(p+1)
		}
	}
	// Bindings of the "+" formula met in training (as a learner does).
	for _, s := range []string{"F", "M"} {
		c, _ := m.Const(s)
		m.Param(2, []ConstID{c})
	}
	before := m.NumConsts()
	const testDB = "Friends(Dora, Eve)\nSmokes(Dora)\nSex(Dora, F)\n"

	// The round trip.
	var buf bytes.Buffer
	if err := WriteModel(&buf, m); err != nil {
		t.Fatal(err)
	}
	rt, err := ParseModel("rt.mln", buf.String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseDatabase(rt, "test.db", testDB); err != nil {
		t.Fatal(err)
	}
	if err := rt.Compile(); err != nil {
		t.Fatal(err)
	}

	// LoadEvidence.
	path := t.TempDir() + "/test.db"
	if err := os.WriteFile(path, []byte(testDB), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := LoadEvidence(ctx, m, path)
	if err != nil {
		t.Fatal(err)
	}
	le := db.Model
	if m.NumConsts() != before {
		t.Errorf("LoadEvidence changed the original model's constants")
	}
	names := func(m *Model, ty string) []string {
		tt, _ := m.Type(ty)
		var out []string
		for _, c := range tt.Consts {
			out = append(out, m.ConstName(c))
		}
		slices.Sort(out)
		return out
	}
	for _, ty := range []string{"person", "sex"} {
		if a, b := names(rt, ty), names(le, ty); !slices.Equal(a, b) {
			t.Errorf("%s: round trip %v, LoadEvidence %v", ty, a, b)
		}
	}
	// The round trip writes a formula per binding of "+": the parameters
	// are the same, with the same weights.
	if a, b := slices.Sorted(slices.Values(rt.Weights)), slices.Sorted(slices.Values(le.Weights)); !slices.Equal(a, b) {
		t.Errorf("weights: round trip %v, LoadEvidence %v", a, b)
	}
	// The original still grounds over its training domain.
	if got := names(m, "person"); !slices.Equal(got, []string{"Anna", "Bob", "Carl"}) {
		t.Errorf("the original's persons: %v", got)
	}
}

func TestDeclare(t *testing.T) {
	m := NewModel()
	person := m.DeclareType("person", "Anna", "Bob")
	if person.Size() != 2 || person.Declared != 2 {
		t.Errorf("person: %d constants, %d declared", person.Size(), person.Declared)
	}
	if _, err := m.DeclarePred("Friends", "person", "person"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.DeclarePred("Friends", "person"); err == nil {
		t.Error("a predicate declared twice")
	}
	if _, err := m.DeclarePred("Rain"); err == nil {
		t.Error("a predicate without arguments")
	}
	f, err := m.ParseFormula("Friends(x, y) => Friends(y, x).")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.AddFormula(f); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteModel(&buf, m); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseModel("back.mln", buf.String()); err != nil {
		t.Errorf("the model built in code does not read back: %v\n%s", err, buf.String())
	}
}
