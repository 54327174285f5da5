package decision_test

import (
	"context"
	"fmt"

	"github.com/marple-mln/marple/infer/decision"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/mln"
)

// Example solves the viral-marketing decision network shipped in examples/:
// whom to market to, given who is friends with whom and who is responsive.
func Example() {
	ctx := context.Background()
	m, db, err := mln.Load(ctx, []string{"../../examples/viral/viral.mln"}, []string{"../../examples/viral/viral.db"})
	if err != nil {
		panic(err)
	}
	actions, err := m.PredIDs("MarketTo")
	if err != nil {
		panic(err)
	}
	p, err := decision.NewProblem(ctx, m, db, actions, decision.Options{})
	if err != nil {
		panic(err)
	}
	engine, err := p.AutoEngine(engines.DefaultSettings())
	if err != nil {
		panic(err)
	}
	res, err := p.Solve(ctx, decision.SolveOptions{Engine: engine, Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("engine %s, marginals %q, exact search %v, expected utility %.3f\n", engine.Name(), res.Methods, res.Exact, res.Utility)
	for i, a := range p.Actions {
		fmt.Println(m.AtomString(p.Net.AtomPred[a], p.Net.AtomArgs[a]), res.Actions[i])
	}
	// Output:
	// engine bp, marginals ["variable elimination"], exact search true, expected utility 13.673
	// MarketTo(Ann) true
	// MarketTo(Eve) true
	// MarketTo(Hal) true
	// MarketTo(Bob) false
	// MarketTo(Cat) false
	// MarketTo(Dan) false
	// MarketTo(Fay) false
	// MarketTo(Gus) false
	// MarketTo(Ivy) false
	// MarketTo(Jay) false
}
