package mln_test

import (
	"context"
	"testing"

	"github.com/marple-mln/marple/mln"
)

func TestLoadAndNames(t *testing.T) {
	m, db, err := mln.Load(context.Background(), []string{"../examples/smokers/smoking-weighted.mln"}, []string{"../examples/smokers/smoking-test.db"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Clauses) == 0 {
		t.Fatal("the model is not compiled")
	}
	ids, err := m.PredIDs("Smokes,Cancer", "Friends")
	if err != nil || len(ids) != 3 {
		t.Fatalf("PredIDs = %v, %v", ids, err)
	}
	if _, err := m.PredIDs("Nope"); err == nil {
		t.Fatal("no error for an unknown predicate")
	}
	n := 0
	db.Atoms(ids[2], func(args []mln.ConstID, v mln.Truth) {
		if n == 0 && m.AtomString(ids[2], args) == "" {
			t.Fatal("empty atom name")
		}
		n++
	})
	if n == 0 {
		t.Fatal("no Friends evidence")
	}
	if _, _, err := mln.Load(context.Background(), nil, nil); err == nil {
		t.Fatal("no error without a model")
	}
}
