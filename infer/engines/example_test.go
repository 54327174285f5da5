package engines_test

import (
	"context"
	"fmt"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
)

func ExampleNewMAP() {
	// Two atoms: "a" (weight 2), "a => b" (1.5) and "b" (-1).
	net := ground.NewNetwork(2)
	net.AddClause([]ground.Lit{ground.MakeLit(0, false)}, 2, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, true), ground.MakeLit(1, false)}, 1.5, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(1, false)}, -1, -1, -1, 1)

	s := engines.DefaultSettings()
	s.Workers, s.MaxSteps = 1, 10000
	for _, name := range engines.MAPNames() {
		m, err := engines.NewMAP(name, s)
		if err != nil {
			panic(err)
		}
		res, err := m.Solve(context.Background(), net, infer.Options{Seed: 1})
		if err != nil {
			panic(err)
		}
		fmt.Println(m.Name(), res.Assign, res.Cost)
	}
	_, err := engines.NewMAP("bp", s)
	fmt.Println(err)
	// Output:
	// exact [true true] 1
	// lp [true true] 1
	// mws [true true] 1
	// unknown MAP engine "bp": the MAP engines are exact, lp or mws
}

func ExampleNewMarginal() {
	// One atom with weight ln 3: P(a) = 3/4.
	net := ground.NewNetwork(1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, false)}, 1.0986122886681098, -1, -1, 1)
	s := engines.DefaultSettings()
	s.Samples = 20000
	m, err := engines.NewMarginal("gibbs", s)
	if err != nil {
		panic(err)
	}
	p, err := m.Marginals(context.Background(), net, infer.Options{Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: P(a) = %.2f\n", m.Name(), p[0])
	// Output: gibbs: P(a) = 0.75
}
