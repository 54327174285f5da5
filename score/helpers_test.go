package score

import (
	"math"
	"math/rand/v2"

	"github.com/marple-mln/marple/ground"
)

// randomNetwork builds a network over n atoms with m random clauses of 1-3
// literals, parameters in [0, np), coefficients in {1, 1/2, -1/3}, and
// (with hard) a few hard clauses.
func randomNetwork(r *rand.Rand, n, m, np int, hard bool) *ground.Network {
	net := ground.NewNetwork(n)
	coefs := []float64{1, 0.5, -1.0 / 3}
	for c := 0; c < m; c++ {
		k := 1 + r.IntN(3)
		lits := make([]ground.Lit, k)
		for j := range lits {
			lits[j] = ground.MakeLit(int32(r.IntN(n)), r.IntN(2) == 0)
		}
		if hard && r.IntN(8) == 0 {
			net.AddClause(lits, math.Inf(1), -1, -1, 1)
			continue
		}
		net.AddClause(lits, 0, int32(c%3), int32(r.IntN(np)), coefs[r.IntN(len(coefs))])
	}
	return net
}

func randomBools(r *rand.Rand, n int) []bool {
	y := make([]bool, n)
	for a := range y {
		y[a] = r.IntN(2) == 0
	}
	return y
}
