package invent_test

import (
	"context"
	"fmt"

	"github.com/marple-mln/marple/invent"
	"github.com/marple-mln/marple/mln"
)

// Learn clusters people and predicates; Prob predicts an atom from its
// cluster combination, and WriteMLN gives the rules as an MLN.
func Example() {
	m, _ := mln.ParseModel("people.mln", "Hikes(person)\nClimbs(person)\nCodes(person)\n")
	db, err := mln.ParseDatabase(m, "people.db", `
Hikes(Ann)
Climbs(Ann)
Hikes(Bob)
Climbs(Bob)
Hikes(Cat)
Codes(Dan)
Codes(Eve)
Codes(Fay)
!Hikes(Dan)
!Hikes(Eve)
!Hikes(Fay)
!Climbs(Dan)
!Climbs(Eve)
!Climbs(Fay)
!Codes(Ann)
!Codes(Bob)
!Codes(Cat)
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Only the listed atoms train: Climbs(Cat) is unknown.
	data, _ := invent.FromDatabases(m, []*mln.Database{db}, false)
	model, _ := invent.Learn(context.Background(), data, invent.Options{Seed: 1, Lambda: 1})
	climbs, _ := m.Pred("Climbs")
	cat, _ := m.Const("Cat")
	dan, _ := m.Const("Dan")
	fmt.Printf("P(Climbs(Cat)) = %.2f\n", model.Prob(climbs.ID, []mln.ConstID{cat}))
	fmt.Printf("P(Climbs(Dan)) = %.2f\n", model.Prob(climbs.ID, []mln.ConstID{dan}))
	// Output:
	// P(Climbs(Cat)) = 0.80
	// P(Climbs(Dan)) = 0.16
}
