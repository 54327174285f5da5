package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/invent"
	"github.com/marple-mln/marple/mln"
)

const inventSynopsis = `-i decls.mln -t data.db,... -o clusters.mln [-restarts N -seed N -lambda L -beta B]

Statistical predicate invention by multiple relational clusterings (MRC,
Kok & Domingos 2007). Clusters the constants of every type and the
predicates of each argument signature, recursively per cluster
combination, maximising the MAP score (closed-form rule weights, an
exponential prior on the number of clusters). Unless -lambda and -beta
are both given, they are first chosen (and printed) by the log-likelihood
of a random 10% of the training atoms held out while learning on the rest.
Writes -o, an MLN with one
unary predicate per invented cluster and the weighted atom prediction rules
(marple infer runs it with the membership evidence); the membership
evidence, clusters.db beside it; and a readable report, clusters.report.txt.
Training atoms: every ground atom, false unless listed true (-closed, the
default); with -closed=false only the listed true and false atoms. Files
ending in .gz are decompressed.`

func runInvent(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "invent", inventSynopsis)
	var (
		input   = fs.String("i", "", "model files declaring the predicates, comma-separated")
		train   = fs.String("t", "", "training databases, comma-separated")
		out     = fs.String("o", "", "output MLN (the .db and .report.txt go beside it)")
		mrc     = addMRCFlags(fs)
		closed  = fs.Bool("closed", true, "closed world: unlisted atoms are false training atoms")
		prefix  = fs.String("prefix", "Cluster", "name prefix of the invented predicates")
		top     = fs.Int("top", 20, "strongest combinations listed in the report")
		verbose = fs.Bool("v", false, "report every stage")
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *input == "" || *train == "" || *out == "" {
		return usagef("need -i, -t and -o")
	}
	opt, grid, err := mrc()
	if err != nil {
		return err
	}
	base := strings.TrimSuffix(*out, ".mln")
	if err := firstErr(atLeast(0, map[string]int{"top": *top}), checkOutput("o", *out),
		checkOutput("o", base+".db"), checkOutput("o", base+".report.txt")); err != nil {
		return err
	}
	prog := newProgress(e.stderr, *verbose)
	done := prog.stage("load")
	m, err := mln.LoadModel(splitList(*input)...)
	if err != nil {
		return err
	}
	db, err := invent.LoadDatabase(m, splitList(*train)...)
	if err != nil {
		return err
	}
	if err := checkTraining(m, []*mln.Database{db}, splitList(*train)); err != nil {
		return err
	}
	data, err := invent.FromDatabases(m, []*mln.Database{db}, *closed)
	if err != nil {
		return err
	}
	n := 0
	for _, g := range data.Groups {
		n += g.Len()
	}
	done("%d predicate groups, %d training atoms", len(data.Groups), n)
	if grid != nil {
		done = prog.stage("tune")
		var tried []invent.TuneResult
		if opt, tried, err = invent.Tune(ctx, data, opt, *grid); err != nil {
			return err
		}
		done("held-out log-likelihood per atom: %s", invent.TuneText(tried))
		fmt.Fprintf(e.stderr, "marple invent: chose lambda %g beta %g on a held-out %g of the training atoms\n", opt.Lambda, opt.Beta, grid.Holdout)
	}
	done = prog.stage("invent")
	model, err := invent.Learn(ctx, data, opt)
	if err != nil {
		return err
	}
	inv, rules := model.Rules(*prefix)
	done("%d problems searched, %d invented predicates, %d rules", model.Stats.Problems, len(inv), len(rules))
	if err := atomicfile.Write(*out, func(w io.Writer) error { return model.WriteMLN(w, *prefix) }); err != nil {
		return err
	}
	if err := atomicfile.Write(base+".db", func(w io.Writer) error { return model.WriteDB(w, *prefix) }); err != nil {
		return err
	}
	if err := atomicfile.Write(base+".report.txt", func(w io.Writer) error { return model.WriteReport(w, *top) }); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "marple invent: %d invented predicates, %d rules, log-posterior %.3f; wrote %s, %s.db, %s.report.txt\n",
		len(inv), len(rules), model.LogPosterior(), *out, base, base)
	return nil
}

// addMRCFlags registers MRC's parameters on fs; the returned function
// checks them and gives the options and, unless -lambda and -beta are both
// given, the grid to tune the others over (a given one is fixed).
func addMRCFlags(fs *flag.FlagSet) func() (invent.Options, *invent.TuneGrid, error) {
	var (
		restarts = fs.Int("restarts", 10, "greedy restarts per refinement")
		seed     = fs.Int64("seed", 1, "random seed")
		lambda   = fs.Float64("lambda", 0, fmt.Sprintf("prior: log-posterior cost of each cluster (default: chosen among %v on a held-out slice of the training atoms)", invent.DefaultTuneGrid.Lambdas))
		beta     = fs.Float64("beta", 0, fmt.Sprintf("smoothing of the rule weights (default: chosen among %v, as -lambda)", invent.DefaultTuneGrid.Betas))
		maxK     = fs.Int("maxClusters", invent.DefaultMaxClusters, "clusters per set and node (2: bisection)")
		noLook   = fs.Bool("noLookahead", false, "cluster every set at every node (no predicates-first lookahead)")
	)
	return func() (invent.Options, *invent.TuneGrid, error) {
		if err := firstErr(atLeast(1, map[string]int{"restarts": *restarts}), atLeast(2, map[string]int{"maxClusters": *maxK}),
			nonNegative("lambda", *lambda), nonNegative("beta", *beta)); err != nil {
			return invent.Options{}, nil, err
		}
		opt := invent.Options{Restarts: *restarts, Seed: *seed, Lambda: *lambda, Beta: *beta, MaxClusters: *maxK, NoLookahead: *noLook}
		if *lambda > 0 && *beta > 0 {
			return opt, nil, nil
		}
		grid := invent.DefaultTuneGrid
		if *lambda > 0 {
			grid.Lambdas = []float64{*lambda}
		}
		if *beta > 0 {
			grid.Betas = []float64{*beta}
		}
		return opt, &grid, nil
	}
}
