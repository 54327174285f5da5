package learn_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

// Learn the weights of friends and smokers on its training people, then
// infer on the test people with the learned model: mln.LoadEvidence gives
// the test evidence its own domains, without the training constants.
func ExampleGenerativeCounts() {
	ctx := context.Background()
	m, train, err := mln.Load(ctx, []string{"../examples/smokers/smoking.mln"}, []string{"../examples/smokers/smoking-train.db"})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := learn.GenerativeCounts(ctx, m, []*mln.Database{train}, nil, learn.GenerativeSettings{}); err != nil {
		log.Fatal(err)
	}
	test, err := mln.LoadEvidence(ctx, m, "../examples/smokers/smoking-test.db")
	if err != nil {
		log.Fatal(err)
	}
	query, _ := test.Model.PredIDs("Smokes,Cancer")
	net, err := ground.Ground(ctx, test.Model, test, ground.Options{Query: query})
	if err != nil {
		log.Fatal(err)
	}
	engine, _ := engines.NewMAP("exact", engines.DefaultSettings())
	res, err := engine.Solve(ctx, net, infer.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(net.NumAtoms(), "unknown atoms; the true query atoms:")
	infer.WriteMAP(os.Stdout, test, net, res.Assign, query)
	// Output:
	// 10 unknown atoms; the true query atoms:
	// Smokes(Ivan)
	// Smokes(Nick)
	// Smokes(John)
	// Smokes(Michael)
	// Cancer(Ivan)
	// Cancer(John)
	// Cancer(Michael)
	// Cancer(Nick)
}
