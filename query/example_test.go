package query_test

import (
	"context"
	"log"
	"os"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/query"
)

// MAP and marginals of friends and smokers for what marple infer -q
// "Cancer,Smokes(Lars)" asks: every Cancer atom and one Smokes atom.
func Example() {
	ctx := context.Background()
	m, db, err := mln.Load(ctx, []string{"../examples/smokers/smoking-weighted.mln"}, []string{"../examples/smokers/smoking-test.db"})
	if err != nil {
		log.Fatal(err)
	}
	q, err := query.Parse(m, "Cancer,Smokes(Lars)")
	if err != nil {
		log.Fatal(err)
	}
	net, err := ground.Ground(ctx, m, db, ground.Options{Query: q.Preds()})
	if err != nil {
		log.Fatal(err)
	}
	mapEngine, _ := engines.NewMAP("exact", engines.DefaultSettings())
	res, err := mapEngine.Solve(ctx, net, infer.Options{})
	if err != nil {
		log.Fatal(err)
	}
	q.WriteMAP(os.Stdout, db, net, res.Assign, true)
	sampler, _ := engines.NewMarginal("mcsat", engines.DefaultSettings())
	probs, err := sampler.Marginals(ctx, net, infer.Options{Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	q.WriteMarginals(os.Stdout, net, probs, 0)
	// Output:
	// Smokes(Lars) 0
	// Cancer(Ivan) 1
	// Cancer(John) 1
	// Cancer(Katherine) 0
	// Cancer(Lars) 0
	// Cancer(Michael) 1
	// Cancer(Nick) 1
	// Smokes(Lars) 0.324275
	// Cancer(Ivan) 0.817574
	// Cancer(John) 0.705644
	// Cancer(Katherine) 0.602981
	// Cancer(Lars) 0.602981
	// Cancer(Michael) 0.768862
	// Cancer(Nick) 0.817574
}
