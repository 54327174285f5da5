package cpi_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/cpi"
	"github.com/marple-mln/marple/infer/exact"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/internal/testkit/randmln"
)

var exactEngine = exact.Engine{Options: exact.Options{Workers: 1}}

// TestCPIEqualsFullGrounding checks on 300 random MLNs, with and without
// loss augmentation, that cutting-plane inference with the exact engine
// reaches the optimum of the full network.
func TestCPIEqualsFullGrounding(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(3))
	fewer := 0
	for seed := int64(0); seed < 300; seed++ {
		c := randmln.Generate(seed)
		m, db, q, ow, err := c.Load()
		if err != nil {
			t.Fatal(err)
		}
		net, err := ground.Ground(ctx, m, db, ground.Options{Query: q, OpenWorld: ow, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if net.NumAtoms() == 0 {
			continue
		}
		var bias []float64
		if seed%2 == 1 {
			bias = make([]float64, net.NumAtoms())
			for a := range bias {
				bias[a] = float64(2*r.Intn(2) - 1)
			}
		}
		yb, _, hardB := brute.MAPBias(net, bias)
		hardB -= net.HardFalse
		best, _ := infer.BiasedCost(net, bias, yb)
		res, st, err := cpi.Solve(ctx, net, exactEngine, cpi.Options{Options: infer.Options{Bias: bias}})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		cost, hard := infer.BiasedCost(net, bias, res.Assign)
		if hard != hardB || (hardB == 0 && math.Abs(cost-best) > 1e-7*math.Max(1, math.Abs(best))) {
			t.Errorf("seed %d: CPI cost %v (%d hard), full grounding %v (%d hard)", seed, cost, hard, best, hardB)
		}
		if res.Cost != cost {
			t.Errorf("seed %d: reported cost %v, actual %v", seed, res.Cost, cost)
		}
		if st.Clauses < st.Total {
			fewer++
		}
	}
	if fewer == 0 {
		t.Errorf("CPI never used fewer clauses than full grounding")
	}
}

func ExampleSolve() {
	// Two atoms; clause 0 says "a", clause 1 says "a => b", clause 2
	// (negative) says "b" is unlikely.
	net := ground.NewNetwork(2)
	net.AddClause([]ground.Lit{ground.MakeLit(0, false)}, 2, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, true), ground.MakeLit(1, false)}, 1.5, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(1, false)}, -1, -1, -1, 1)
	res, st, _ := cpi.Solve(context.Background(), net, exact.Engine{}, cpi.Options{})
	fmt.Println(res.Assign, res.Cost, st.Rounds)
	// Output: [true true] 1 3
}

func ExampleWrap() {
	net := ground.NewNetwork(2)
	net.AddClause([]ground.Lit{ground.MakeLit(0, false)}, 2, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, true), ground.MakeLit(1, false)}, 1.5, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(1, false)}, -1, -1, -1, 1)
	var rounds int
	engine := cpi.Wrap(exact.Engine{})
	engine.Stats = func(st *cpi.Stats) { rounds = st.Rounds }
	res, _ := engine.Solve(context.Background(), net, infer.Options{})
	fmt.Println(engine.Name(), res.Assign, res.Cost, rounds)
	// Output: cpi(exact) [true true] 1 3
}
