package wmc_test

import (
	"context"
	"fmt"
	"math"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/wmc"
)

// Two atoms: a (weight 1 when true), a ⇒ b (weight 2), and the hard
// clause a ∨ b. The worlds satisfying it weigh e^(1+2) (a, b), e^1 (a,
// ¬b) and e^2 (¬a, b).
func ExampleSolve() {
	net := ground.NewNetwork(2)
	a, b := ground.MakeLit(0, false), ground.MakeLit(1, false)
	net.AddClause([]ground.Lit{a}, 1, -1, -1, 1)
	net.AddClause([]ground.Lit{a.Not(), b}, 2, -1, -1, 1)
	net.AddClause([]ground.Lit{a, b}, math.Inf(1), -1, -1, 1)
	res, err := wmc.Solve(context.Background(), net, wmc.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("log Z = %.6f (log(e^3 + e + e^2) = %.6f)\n", res.LogZ, math.Log(math.Exp(3)+math.E+math.Exp(2)))
	fmt.Printf("P(a) = %.4f, P(b) = %.4f\n", res.Marginals[0], res.Marginals[1])
	// Output:
	// log Z = 3.407606 (log(e^3 + e + e^2) = 3.407606)
	// P(a) = 0.7553, P(b) = 0.9100
}
