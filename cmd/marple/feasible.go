package main

import (
	"context"
	"fmt"
	"io"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/mln"
)

// checkHard runs before every marginal inference on net: it warns when
// the evidence alone falsifies hard groundings, as MAP inference does,
// and, with decide, fails when no world satisfies the hard clauses
// (engines.CheckHard). Inference through the engine registry
// (engines.NewMarginal) decides that itself: decide is for the samplers
// the command builds by hand. It returns what the summary line adds (""
// when nothing).
func checkHard(ctx context.Context, stderr io.Writer, net *ground.Network, decide bool) (string, error) {
	if w := engines.HardFalseWarning(net.HardFalse); w != "" {
		fmt.Fprintf(stderr, "marple infer: warning: %s\n", w)
	}
	if decide {
		if err := engines.CheckHard(ctx, net, prefixed{stderr, "marple infer: "}); err != nil {
			return "", err
		}
	}
	if net.HardFalse > 0 {
		return fmt.Sprintf(", %d hard clauses falsified by the evidence", net.HardFalse), nil
	}
	return "", nil
}

// checkHardModel is checkHard for inference that does not ground the
// model (-bp -lifted from the first-order model): it grounds the hard
// formulas alone, with the query predicates query, and checks them.
func checkHardModel(ctx context.Context, stderr io.Writer, wf *worldFlags, m *mln.Model, db *mln.Database, query []mln.PredID) (string, error) {
	var hard []*mln.Clause
	for _, c := range m.Clauses {
		if c.Hard {
			hard = append(hard, c)
		}
	}
	if len(hard) == 0 {
		return "", nil
	}
	gopt, err := wf.groundOptions(m, nil)
	if err != nil {
		return "", usagef("%v", err)
	}
	gopt.Query = query
	hm := *m
	hm.Clauses = hard
	net, err := ground.Ground(ctx, &hm, db, gopt)
	if err != nil {
		return "", err
	}
	return checkHard(ctx, stderr, net, true)
}
