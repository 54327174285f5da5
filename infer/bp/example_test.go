package bp_test

import (
	"context"
	"fmt"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/bp"
)

// Smokes(A) => Cancer(A) with weight 1.5 and Smokes(A) with weight 1: a
// tree, on which belief propagation is exact.
func ExampleMarginals() {
	net := ground.NewNetwork(2)
	smokes, cancer := int32(0), int32(1)
	net.AddClause([]ground.Lit{ground.MakeLit(smokes, true), ground.MakeLit(cancer, false)}, 1.5, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(smokes, false)}, 1, -1, -1, 1)
	p, st, err := bp.Marginals(context.Background(), net, bp.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("P(Smokes) = %.4f, P(Cancer) = %.4f, converged %v\n", p[smokes], p[cancer], st.Converged)
	// Output: P(Smokes) = 0.6244, P(Cancer) = 0.6983, converged true
}
