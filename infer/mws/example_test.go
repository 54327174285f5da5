package mws_test

import (
	"context"
	"fmt"
	"math"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/mws"
)

// Smokes(A) => Cancer(A) with weight 1.5, Smokes(A) with weight 2 and a
// hard clause saying Cancer(A) is false.
func Example() {
	net := ground.NewNetwork(2) // atom 0: Smokes(A), atom 1: Cancer(A)
	smokes, cancer := int32(0), int32(1)
	net.AddClause([]ground.Lit{ground.MakeLit(smokes, true), ground.MakeLit(cancer, false)}, 1.5, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(smokes, false)}, 2, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(cancer, true)}, math.Inf(1), -1, -1, 1)
	res, err := mws.Solve(context.Background(), net, mws.Options{Options: infer.Options{Seed: 1}, MaxSteps: 1000})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Assign, res.Cost, res.HardViolated)
	// Output: [true false] 1.5 0
}

// A Walker indexes the network once for several runs: a short descent,
// then a longer walk from where it ended.
func ExampleWalker() {
	net := ground.NewNetwork(2)
	smokes, cancer := int32(0), int32(1)
	net.AddClause([]ground.Lit{ground.MakeLit(smokes, true), ground.MakeLit(cancer, false)}, 1.5, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(smokes, false)}, 2, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(cancer, true)}, math.Inf(1), -1, -1, 1)
	wk, err := mws.NewWalker(context.Background(), net, mws.Options{Options: infer.Options{Seed: 1}})
	if err != nil {
		panic(err)
	}
	short, _ := wk.Run(context.Background(), 1, nil)
	long, _ := wk.Run(context.Background(), 1000, short.Assign)
	fmt.Println(long.Assign, long.Cost, long.Cost <= short.Cost)
	// Output: [true false] 1.5 true
}
