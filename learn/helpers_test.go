package learn

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// assignment returns the assignment of n atoms encoded by the bits of mask.
func assignment(mask, n int) []bool {
	y := make([]bool, n)
	for a := range y {
		y[a] = mask>>a&1 == 1
	}
	return y
}

// biasedScore returns Score(y) + Σ_{a: y_a} bias[a] and the number of
// violated hard clauses.
func biasedScore(net *ground.Network, bias []float64, y []bool) (float64, int) {
	s, h := net.Score(y)
	for a, b := range bias {
		if y[a] {
			s += b
		}
	}
	return s, h
}

// bruteMAP enumerates all assignments and returns the one with the fewest
// violated hard clauses and then the highest biased score; ties go to the
// lowest mask (bit a = atom a).
func bruteMAP(net *ground.Network, bias []float64) []bool {
	n := net.NumAtoms()
	best, bestS, bestH := 0, math.Inf(-1), math.MaxInt
	for mask := 0; mask < 1<<n; mask++ {
		s, h := biasedScore(net, bias, assignment(mask, n))
		if h < bestH || (h == bestH && s > bestS) {
			best, bestS, bestH = mask, s, h
		}
	}
	return assignment(best, n)
}

// solverFunc is a MAP engine made of a function of the network and the
// linear terms.
type solverFunc func(ctx context.Context, net *ground.Network, bias []float64) ([]bool, error)

func (solverFunc) Name() string { return "test" }

func (f solverFunc) Solve(ctx context.Context, net *ground.Network, opt infer.Options) (*infer.Result, error) {
	y, err := f(ctx, net, opt.Bias)
	if err != nil {
		return nil, err
	}
	cost, hard := infer.BiasedCost(net, opt.Bias, y)
	return &infer.Result{Assign: y, Cost: cost, HardViolated: hard, Bound: infer.NoBound}, nil
}

// bruteSolver is a MAP engine that enumerates.
var bruteSolver = solverFunc(func(_ context.Context, net *ground.Network, bias []float64) ([]bool, error) {
	return bruteMAP(net, bias), nil
})

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

func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*(1+math.Abs(a)+math.Abs(b))
}
