package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/marple-mln/marple/infer/probfit"
	"github.com/marple-mln/marple/mln"
)

// fitProbConstraints fits the weights of the formulas a model of
// pracmln's dialect constrains with "P(F) = p" or soft evidence
// (infer/probfit) and says so on stderr.
func fitProbConstraints(ctx context.Context, p *progress, m *mln.Model, db *mln.Database) error {
	if len(m.ProbConstraints) == 0 {
		return nil
	}
	res, err := probfit.Fit(ctx, m, db, probfit.Options{})
	if err != nil {
		return err
	}
	ws := make([]string, len(res.Weights))
	for i, w := range res.Weights {
		ws[i] = strconv.FormatFloat(w, 'g', 10, 64)
	}
	fmt.Fprintf(p.w, "marple: %d probability constraint(s) and soft evidence met within %.2g by exact fitting in %d step(s): weights %s\n",
		len(res.Weights), res.MaxDiff, res.Steps, strings.Join(ws, ", "))
	return nil
}
