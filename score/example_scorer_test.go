package score_test

import (
	"context"
	"fmt"

	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/score"
)

// Scoring candidate clauses against unit clauses by the weighted
// pseudo-log-likelihood of three worlds sampled from a model with two
// planted clauses (testdata/planted/planted.mln).
func ExampleScorer() {
	ctx := context.Background()
	m, dbs, err := mln.LoadMultiple(ctx, []string{"testdata/planted/planted.mln"},
		[]string{"testdata/planted/world1.db", "testdata/planted/world2.db", "testdata/planted/world3.db"})
	if err != nil {
		panic(err)
	}
	data, err := score.NewPLLData(m, dbs, nil, score.CountOptions{})
	if err != nil {
		panic(err)
	}
	var units, planted []*mln.Clause
	for _, c := range m.Clauses {
		if len(c.Lits) == 1 {
			units = append(units, c)
		} else {
			planted = append(planted, c)
		}
	}
	base, err := data.NewScorer(units)
	if err != nil {
		panic(err)
	}
	fit0, err := base.Fit(ctx, score.TightFit(nil))
	if err != nil {
		panic(err)
	}
	fits, errs := base.ScoreEach(ctx, planted, score.TightFit(fit0.Weights), 0)
	for i, f := range fits {
		if errs[i] != nil {
			panic(errs[i])
		}
		fmt.Printf("planted clause %d: gain %.2f, weight %.0f\n", i, f.Objective-fit0.Objective, f.Weights[len(units)])
	}
	// Output:
	// planted clause 0: gain 0.58, weight 2
	// planted clause 1: gain 0.34, weight 1
}
