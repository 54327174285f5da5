package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/infer/lazy"
	"github.com/marple-mln/marple/mln"
)

// inferLazy runs marple infer -lazy: lazy MaxWalkSAT (MAP) or lazy MC-SAT
// (marginal, with -ms or -p) on the first-order model, and writes the
// results as the eager engines do.
func inferLazy(ctx context.Context, e *env, p *progress, ax *inferExtras, wf *worldFlags, ef *engineFlags,
	m *mln.Model, db *mln.Database, marginal bool, seed int64, out string, start time.Time) error {
	gopt, err := wf.groundOptions(m, e.stderr)
	if err != nil {
		return usagef("%v", err)
	}
	name := "lazy-mws"
	if marginal {
		name = "lazy-mcsat"
	}
	s := ef.settings(wf.workers, nil)
	s.WalkProb = ax.walkProb
	if ax.walkProb == 0 {
		s.WalkProb = -1
	}
	s.Temp = ax.saTemp
	engine, err := engines.NewLazy(name, s)
	if err != nil {
		return err
	}
	pr := lazy.Problem{Model: m, DB: db, Query: gopt.Query, OpenWorld: gopt.OpenWorld, ClosedWorld: gopt.ClosedWorld, MaxBytes: gopt.MaxBytes}
	done := p.stage(name)
	res, err := engine.Run(ctx, pr, seed)
	if errors.Is(err, lazy.ErrTooLarge) {
		return fmt.Errorf("%v; -maxMem (MiB) raises the limit if the machine has the memory", err)
	}
	if err != nil {
		return err
	}
	net := res.Net
	built := fmt.Sprintf("%d atoms (%d expanded), %d clauses built", net.NumAtoms(), res.Expanded, res.Clauses)
	done("%s", built)
	isQuery := ax.queryMask(m, gopt.Query)
	if marginal {
		note := ""
		if w := engines.HardFalseWarning(res.HardFalse); w != "" {
			fmt.Fprintf(e.stderr, "marple infer: warning: %s\n", w)
			note = fmt.Sprintf(", %d hard clauses falsified by the evidence", res.HardFalse)
		}
		if err := atomicfile.Write(out, func(w io.Writer) error {
			return ax.writeMarginals(w, m, net, res.Marginals, isQuery)
		}); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "marple infer: lazy MC-SAT, %s%s, %.2fs\n", built, note, time.Since(start).Seconds())
		return nil
	}
	if res.HardViolated > 0 || res.HardFalse > 0 {
		fmt.Fprintf(e.stderr, "marple infer: warning: the MAP state violates %d hard clauses (%d falsified by the evidence alone)\n",
			res.HardViolated+res.HardFalse, res.HardFalse)
	}
	ax.q.SetMAPEvidence(true) // Alchemy's lazy -m lists the true evidence atoms too
	if err := atomicfile.Write(out, func(w io.Writer) error {
		return ax.writeMAP(w, m, db, net, res.Assign, isQuery)
	}); err != nil {
		return err
	}
	proved := "not proved optimal"
	if res.Optimal {
		proved = "optimal (every clause in its preferred state)"
	}
	fmt.Fprintf(e.stdout, "marple infer: lazy MaxWalkSAT, %s, cost %s, %s, %.2fs\n", built, infer.FormatCost(res.Cost, res.Cost), proved, time.Since(start).Seconds())
	return nil
}
