package mln_test

import (
	"fmt"
	"os"

	"github.com/marple-mln/marple/mln"
)

// ExampleParseModel shows the front end: parse a model, read evidence,
// compile the formulas to clauses, and write the model back.
func ExampleParseModel() {
	m, err := mln.ParseModel("smokers.mln", `
// Friends and smokers.
Friends(person, person)
Smokes(person)
Cancer(person)

1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))
EXIST y Friends(x, y).
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Evidence adds its constants to the types.
	db, err := mln.ParseDatabase(m, "smokers.db", "Friends(Anna, Bob)\nSmokes(Anna)\n!Cancer(Bob)\n")
	if err != nil {
		fmt.Println(err)
		return
	}
	// Compile once the domains are final.
	if err := m.Compile(); err != nil {
		fmt.Println(err)
		return
	}
	person, _ := m.Type("person")
	fmt.Println("person:", person.Size(), "constants")
	smokes, _ := m.Pred("Smokes")
	anna, _ := m.Const("Anna")
	v, _ := db.Get(smokes.ID, []mln.ConstID{anna})
	fmt.Println("Smokes(Anna):", v)
	for _, c := range m.Clauses {
		fmt.Printf("formula %d coef %.2g hard %v: %s\n", c.Formula, c.Coef, c.Hard, m.ClauseString(c))
	}
	m.Weights[m.Formulas[0].Params[""]] = 2.25 // as a learner would
	mln.WriteModel(os.Stdout, m)
	// Output:
	// person: 2 constants
	// Smokes(Anna): true
	// formula 0 coef 1 hard false: !Smokes(x) v Cancer(x)
	// formula 1 coef 0.5 hard false: !Friends(x,y) v !Smokes(x) v Smokes(y)
	// formula 1 coef 0.5 hard false: !Friends(x,y) v Smokes(x) v !Smokes(y)
	// formula 2 coef 1 hard true: EXIST y Friends(x,y)
	//
	// // predicates
	// Friends(person,person)
	// Smokes(person)
	// Cancer(person)
	//
	// // formulas
	// 2.25 Smokes(x) => Cancer(x)
	// 1.1 Friends(x,y) => (Smokes(x) <=> Smokes(y))
	// EXIST y Friends(x,y).
}
