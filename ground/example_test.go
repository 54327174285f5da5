package ground_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// ExampleGround parses a model and its evidence, compiles the model,
// grounds it with Smokes and Cancer as query predicates and prints the
// network.
func ExampleGround() {
	m, err := mln.ParseModel("smokers.mln", `
person = {Anna, Bob, Chris}
Friends(person, person)
Smokes(person)
Cancer(person)
1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))
`)
	if err != nil {
		panic(err)
	}
	db, err := mln.ParseDatabase(m, "smokers.db", "Friends(Anna, Bob)\nFriends(Bob, Anna)\nSmokes(Anna)\n")
	if err != nil {
		panic(err)
	}
	if err := m.Compile(); err != nil {
		panic(err)
	}
	smokes, _ := m.Pred("Smokes")
	cancer, _ := m.Pred("Cancer")
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: []mln.PredID{smokes.ID, cancer.ID}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d atoms, %d clauses\n", net.NumAtoms(), net.NumClauses())
	atom := func(a int32) string {
		var args []string
		for _, c := range net.AtomArgs[a] {
			args = append(args, m.ConstName(c))
		}
		return m.Preds[net.AtomPred[a]].Name + "(" + strings.Join(args, ",") + ")"
	}
	for c := 0; c < net.NumClauses(); c++ {
		var lits []string
		for _, l := range net.Clause(c) {
			s := atom(l.Atom())
			if l.Neg() {
				s = "!" + s
			}
			lits = append(lits, s)
		}
		fmt.Printf("%.2f  %s\n", net.Weight(c), strings.Join(lits, " v "))
	}
	// Output:
	// 5 atoms, 5 clauses
	// 1.50  Cancer(Anna)
	// 1.50  !Smokes(Bob) v Cancer(Bob)
	// 1.50  !Smokes(Chris) v Cancer(Chris)
	// 0.55  Smokes(Bob)
	// 0.55  Smokes(Bob)
}
