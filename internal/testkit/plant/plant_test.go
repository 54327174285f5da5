package plant

import (
	"context"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// TestPlantedDeterministic checks that a seed gives the same worlds, that
// different seeds differ, and that the sample follows the planted clause
// !Smokes(x) v Cancer(x): most smokers have cancer.
func TestPlantedDeterministic(t *testing.T) {
	ctx := context.Background()
	m, a, planted, err := Planted(ctx, 5, 30, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(planted) != 2 || len(a) != 2 {
		t.Fatalf("%d planted clauses, %d worlds", len(planted), len(a))
	}
	_, b, _, err := Planted(ctx, 5, 30, 2)
	if err != nil {
		t.Fatal(err)
	}
	key := func(db *mln.Database) string {
		s := ""
		for p := range m.Preds {
			db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) { s += m.Preds[p].Name + mln.BindingKey(args) })
		}
		return s
	}
	if key(a[0]) != key(b[0]) || key(a[1]) != key(b[1]) {
		t.Fatal("same seed, different worlds")
	}
	if key(a[0]) == key(a[1]) {
		t.Fatal("two worlds are equal")
	}
	sm, _ := m.Pred("Smokes")
	ca, _ := m.Pred("Cancer")
	smokers, sick := 0, 0
	for _, db := range a {
		db.Atoms(sm.ID, func(args []mln.ConstID, v mln.Truth) {
			smokers++
			if c, ok := db.Get(ca.ID, args); ok && c == mln.True {
				sick++
			}
		})
	}
	if smokers < 5 || float64(sick) < 0.7*float64(smokers) {
		t.Fatalf("%d smokers, %d with cancer", smokers, sick)
	}
}
