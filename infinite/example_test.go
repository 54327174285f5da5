package infinite_test

import (
	"context"
	"fmt"
	"log"

	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/infinite"
	"github.com/marple-mln/marple/mln"
)

// The verdicts on friends and smokers with a friendship ring as evidence.
func ExampleAnalyze() {
	ctx := context.Background()
	m, db, err := mln.Load(ctx, []string{"../examples/infinite/smokers-bounded.mln"},
		[]string{"../examples/infinite/smokers-bounded.db"})
	if err != nil {
		log.Fatal(err)
	}
	query, err := m.PredIDs("Smokes,Cancer")
	if err != nil {
		log.Fatal(err)
	}
	r := infinite.Analyze(m, db, infinite.Options{Query: query})
	fmt.Printf("%v %v %.4g\n", r.LocallyFinite, r.Unique(), r.Sup)
	// Output:
	// true true 1.3
}

// The limit of friends and smokers as the population grows, each person
// befriending the next: every size counted exactly.
func ExampleGrow() {
	mcsat, err := engines.NewMarginal("mcsat", engines.DefaultSettings())
	if err != nil {
		log.Fatal(err)
	}
	exact, err := engines.NewMarginal("wmc", engines.DefaultSettings())
	if err != nil {
		log.Fatal(err)
	}
	res, err := infinite.Grow(context.Background(), infinite.GrowOptions{
		Load:   func() (*mln.Model, error) { return mln.LoadModel("../examples/infinite/smokers-bounded.mln") },
		Graphs: []infinite.Graph{{Pred: "Friends", Kind: "ring", K: 1}},
		Engine: mcsat,
		Exact:  exact,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Verdict)
	for i, p := range res.Preds {
		fmt.Printf("%s %.4f\n", p, res.Limit[i])
	}
	// Output:
	// limit
	// Smokes 0.2953
	// Cancer 0.5362
}
