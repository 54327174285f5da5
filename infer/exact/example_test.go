package exact_test

import (
	"context"
	"fmt"
	"math"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/exact"
)

// A three-atom network: atom 0 is likely true, 0 implies 1, atoms 1 and 2
// exclude each other (hard), and 2 is slightly preferred.
func Example() {
	net := ground.NewNetwork(3)
	x := func(a int32) ground.Lit { return ground.MakeLit(a, false) }
	net.AddClause([]ground.Lit{x(0)}, 1.5, -1, -1, 1)
	net.AddClause([]ground.Lit{x(0).Not(), x(1)}, 2, -1, -1, 1)
	net.AddClause([]ground.Lit{x(1).Not(), x(2).Not()}, math.Inf(1), -1, -1, 1)
	net.AddClause([]ground.Lit{x(2)}, 0.5, -1, -1, 1)

	res, err := exact.Solve(context.Background(), net, exact.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Assign, res.Cost, res.Optimal)

	// Loss-augmented: reward disagreeing with the gold assignment
	// (true, true, false) by one per atom (Hamming loss, up to a constant).
	gold := []bool{true, true, false}
	bias := make([]float64, len(gold))
	for a, g := range gold {
		if g {
			bias[a] = -1
		} else {
			bias[a] = 1
		}
	}
	res, _ = exact.Solve(context.Background(), net, exact.Options{Options: infer.Options{Bias: bias}})
	fmt.Println(res.Assign, res.Cost, res.Optimal)
	// Output:
	// [true true false] 0.5 true
	// [false false true] 0.5 true
}
