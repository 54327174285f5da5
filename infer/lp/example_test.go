package lp_test

import (
	"context"
	"fmt"
	"math"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/lp"
)

// The ground network of Huynh & Mooney's slides: one token that may be in
// the author, title or venue field, at most one field.
func Example() {
	const author, title, venue = 0, 1, 2
	pos := func(a int32) ground.Lit { return ground.MakeLit(a, false) }
	neg := func(a int32) ground.Lit { return ground.MakeLit(a, true) }
	net := ground.NewNetwork(3)
	net.AddClause([]ground.Lit{pos(author)}, 3, -1, -1, 1)
	net.AddClause([]ground.Lit{pos(author), pos(venue)}, 0.5, -1, -1, 1)
	net.AddClause([]ground.Lit{pos(title), pos(venue)}, -1, -1, -1, 1)
	hard := math.Inf(1)
	net.AddClause([]ground.Lit{neg(author), neg(title)}, hard, -1, -1, 1)
	net.AddClause([]ground.Lit{neg(author), neg(venue)}, hard, -1, -1, 1)
	net.AddClause([]ground.Lit{neg(title), neg(venue)}, hard, -1, -1, 1)

	res, st, err := lp.Solve(context.Background(), net, lp.Options{Tol: 1e-6})
	if err != nil {
		panic(err)
	}
	fmt.Println("assignment:", res.Assign)
	fmt.Printf("cost %.3f, cost - bound %.3f, optimal %v\n", res.Cost, res.Cost-res.Bound, res.Optimal)
	fmt.Printf("LP value (score) %.3f, integral %.0f%%\n", st.LPValue, 100*st.FracIntegral)
	// Output:
	// assignment: [true false false]
	// cost 0.000, cost - bound 0.000, optimal true
	// LP value (score) 3.500, integral 100%
}
