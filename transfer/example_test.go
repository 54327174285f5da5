package transfer_test

import (
	"fmt"

	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/transfer"
)

// Instantiate turns a clique template into the clauses of its feature
// template in a target domain.
func ExampleInstantiate() {
	m, err := mln.ParseModel("target.mln", "Friends(person, person)\nSmokes(person)\n")
	if err != nil {
		panic(err)
	}
	t, err := transfer.ParseTemplate("r(x,y), r(y,x)")
	if err != nil {
		panic(err)
	}
	for _, inst := range transfer.Instantiate(t, m, nil) {
		for _, c := range inst.Clauses {
			fmt.Println(m.ClauseString(c))
		}
	}
	// Output:
	// Friends(x,y) v Friends(y,x)
	// !Friends(x,y) v Friends(y,x)
	// Friends(x,y) v !Friends(y,x)
	// !Friends(x,y) v !Friends(y,x)
}
