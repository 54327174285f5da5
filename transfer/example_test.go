package transfer_test

import (
	"context"
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
	// Friends(x,y) v Friends(y,x) v x = y
	// !Friends(x,y) v Friends(y,x) v x = y
	// Friends(x,y) v !Friends(y,x) v x = y
	// !Friends(x,y) v !Friends(y,x) v x = y
}

// Discover ranks the clique templates of a source domain; here one with
// a planted symmetric relation (testdata/planted.mln).
func ExampleDiscover() {
	src, err := transfer.LoadSource([]string{"testdata/planted.mln"}, []string{"testdata/planted.db"}, transfer.SourceOptions{})
	if err != nil {
		panic(err)
	}
	res, err := transfer.Discover(context.Background(), src, transfer.Options{K: 1, Enum: transfer.EnumOptions{MaxLiterals: 2}})
	if err != nil {
		panic(err)
	}
	best := res.Templates[0]
	fmt.Println(best.Template, "-", best.Top[0].Format(best.Template))
	// Output:
	// r(x,y), r(y,x) - Sym(x,y), Sym(y,x)
}
