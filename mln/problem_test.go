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

func TestLoadMultiple(t *testing.T) {
	m, dbs, err := mln.LoadMultiple(context.Background(), []string{"../examples/smokers/smoking.mln"},
		[]string{"../examples/smokers/smoking-test.db", "../examples/smokers/smoking-train.db"})
	if err != nil {
		t.Fatal(err)
	}
	if len(dbs) != 2 || len(m.Clauses) == 0 {
		t.Fatalf("%d databases, %d clauses", len(dbs), len(m.Clauses))
	}
	smokes, _ := m.PredIDs("Smokes")
	if a, b := dbs[0].Count(smokes[0]), dbs[1].Count(smokes[0]); a != 2 || b != 4 {
		t.Fatalf("Smokes atoms per database: %d, %d; want 2, 4", a, b)
	}
	person, _ := m.Type("person")
	if n := len(m.Types[person.ID].Consts); n != 14 {
		t.Fatalf("%d people in the domain; want the 14 of both files", n)
	}
	if _, _, err := mln.LoadMultiple(context.Background(), []string{"../examples/smokers/smoking.mln"}, []string{"no-such.db"}); err == nil {
		t.Fatal("no error for a missing file")
	}
	if _, _, err := mln.LoadMultiple(context.Background(), nil, nil); err == nil {
		t.Fatal("no error without a model file")
	}
}
