package mln_test

import (
	"context"
	"fmt"
	"log"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/mln"
)

// A model built in code rather than read from a file: friends and smokers
// with two people, one known to smoke; MC-SAT's marginals of the others.
func ExampleNewModel() {
	m := mln.NewModel()
	m.DeclareType("person", "Anna", "Bob")
	smokes, _ := m.DeclarePred("Smokes", "person")
	m.DeclarePred("Cancer", "person")
	m.DeclarePred("Friends", "person", "person")
	for _, text := range []string{"1.5 Smokes(x) => Cancer(x)", "1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))"} {
		f, err := m.ParseFormula(text)
		if err != nil {
			log.Fatal(err)
		}
		m.AddFormula(f)
	}
	db := mln.NewDatabase(m)
	anna, _ := m.Const("Anna")
	db.Set(smokes.ID, []mln.ConstID{anna}, mln.True)
	query, _ := m.PredIDs("Smokes,Cancer")
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: query})
	if err != nil {
		log.Fatal(err)
	}
	engine, _ := engines.NewMarginal("mcsat", engines.DefaultSettings())
	probs, err := engine.Marginals(context.Background(), net, infer.Options{Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	for a := range probs {
		fmt.Printf("%s %.3f\n", net.AtomName(int32(a)), probs[a])
	}
	// Output:
	// Smokes(Bob) 0.379
	// Cancer(Anna) 0.818
	// Cancer(Bob) 0.621
}
