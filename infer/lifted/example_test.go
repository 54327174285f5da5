package lifted_test

import (
	"context"
	"fmt"
	"log"

	"github.com/marple-mln/marple/infer/lifted"
	"github.com/marple-mln/marple/mln"
)

// Exact log Z and marginals of friends and smokers under the test
// evidence, without grounding.
func Example() {
	ctx := context.Background()
	m, db, err := mln.Load(ctx, []string{"../../examples/smokers/smoking-weighted.mln"},
		[]string{"../../examples/smokers/smoking-test.db"})
	if err != nil {
		log.Fatal(err)
	}
	query, err := m.PredIDs("Smokes,Cancer")
	if err != nil {
		log.Fatal(err)
	}
	r, err := lifted.Exact(ctx, m, db, lifted.Options{Query: query})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("method %s, log Z = %.4f\n", r.Method, r.LogZ)
	r.Each(func(p mln.PredID, args []mln.ConstID, prob, _ float64) bool {
		fmt.Printf("%s %.4f\n", m.AtomString(p, args), prob)
		return true
	})
	// Output:
	// method lifted, log Z = 51.9703
	// Smokes(John) 0.6475
	// Smokes(Katherine) 0.3243
	// Smokes(Lars) 0.3243
	// Smokes(Michael) 0.8466
	// Cancer(Ivan) 0.8176
	// Cancer(John) 0.7056
	// Cancer(Katherine) 0.6030
	// Cancer(Lars) 0.6030
	// Cancer(Michael) 0.7689
	// Cancer(Nick) 0.8176
}

// Lifted importance sampling of the same model: log Z and each marginal
// with its standard error.
func ExampleSample() {
	ctx := context.Background()
	m, db, err := mln.Load(ctx, []string{"../../examples/smokers/smoking-weighted.mln"},
		[]string{"../../examples/smokers/smoking-test.db"})
	if err != nil {
		log.Fatal(err)
	}
	query, err := m.PredIDs("Smokes,Cancer")
	if err != nil {
		log.Fatal(err)
	}
	r, err := lifted.Sample(ctx, m, db, lifted.Options{Query: query},
		lifted.Sampling{Samples: 2000, Proposal: lifted.Informed, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("log Z = %.2f ± %.2f\n", r.LogZ, r.LogZErr)
	for _, w := range r.Warnings {
		fmt.Println("warning:", w)
	}
	r.Each(func(p mln.PredID, args []mln.ConstID, prob, se float64) bool {
		fmt.Printf("%s %.3f ± %.3f\n", m.AtomString(p, args), prob, se)
		return true
	})
}
