package mcsat_test

import (
	"context"
	"fmt"
	"math"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/mcsat"
)

// One hard clause H(A) v S(C) over two atoms: three worlds satisfy it, two
// of them with H(A) true.
func ExampleMCSAT() {
	net := ground.NewNetwork(2)
	h, s := int32(0), int32(1)
	net.AddClause([]ground.Lit{ground.MakeLit(h, false), ground.MakeLit(s, false)}, math.Inf(1), -1, -1, 1)
	p, err := mcsat.MCSAT(context.Background(), net, mcsat.Options{Options: infer.Options{Seed: 1}, Samples: 20000})
	if err != nil {
		panic(err)
	}
	fmt.Printf("P(H(A)) = %.2f\n", p[h])
	// Output: P(H(A)) = 0.67
}

// Smokes(A) => Cancer(A) with weight 1.5 and Smokes(A) with weight 1.
func ExampleGibbs() {
	net := ground.NewNetwork(2)
	smokes, cancer := int32(0), int32(1)
	net.AddClause([]ground.Lit{ground.MakeLit(smokes, true), ground.MakeLit(cancer, false)}, 1.5, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(smokes, false)}, 1, -1, -1, 1)
	p, err := mcsat.Gibbs(context.Background(), net, mcsat.Options{Options: infer.Options{Seed: 1}, Samples: 100000})
	if err != nil {
		panic(err)
	}
	fmt.Printf("P(Smokes) = %.2f, P(Cancer) = %.2f\n", p[smokes], p[cancer])
	// Output: P(Smokes) = 0.62, P(Cancer) = 0.70
}
