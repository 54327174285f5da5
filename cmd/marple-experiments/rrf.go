package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/marple-mln/marple/cmd/marple-experiments/internal/experiment"
	"github.com/marple-mln/marple/internal/testkit/datadir"
)

const rrfSynopsis = `rrf [-data ../shared/data] [-out results] [-folds ai,...] [-samples n]

Recursive random fields (Lowd & Domingos, IJCAI 2007) against Markov logic
on probabilistic integrity constraints: a knowledge base of constraints on
UW-CSE's advisedBy (from uw.mln) learned by pseudo-likelihood on four areas
and queried on the fifth by Gibbs sampling, once as an MLN (a weight per
constraint) and once as an RRF (a weight on every literal and quantifier
too). Writes rrf-experiment.md into -out. Without the UW-CSE data under
-data it says so and exits 0 (skipped).`

func runRRFExperiment(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, rrfSynopsis)
	var (
		data    = fs.String("data", datadir.Root(), "the data folder (holding uw-cse/); default $MARPLE_DATA or ../shared/data beside the repository")
		out     = fs.String("out", "results", "folder for the table (Markdown)")
		folds   = fs.String("folds", "", "test areas, comma-separated (default: ai,graphics,language,systems,theory)")
		samples = fs.Int("samples", 300, "Gibbs samples per chain")
		burnIn  = fs.Int("burnIn", 50, "Gibbs burn-in sweeps per chain")
		chains  = fs.Int("chains", 2, "Gibbs chains")
		maxIter = fs.Int("maxIter", 30, "L-BFGS iterations")
		seed    = fs.Int64("seed", 1, "random seed")
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *samples < 1 || *chains < 1 || *burnIn < 0 || *maxIter < 1 {
		return usagef("-samples, -chains and -maxIter must be at least 1, -burnIn at least 0")
	}
	if err := checkOut(*out, "rrf-experiment.md"); err != nil {
		return err
	}
	cfg := experiment.RRFConfig{Dir: *data, Folds: splitList(*folds), Samples: *samples, BurnIn: *burnIn, Chains: *chains,
		MaxIter: *maxIter, Seed: *seed, Progress: e.stderr}
	res, err := experiment.RunRRF(ctx, cfg)
	if errors.Is(err, experiment.ErrNoData) {
		fmt.Fprintf(e.stderr, "marple-experiments rrf: skipped: %v (give -data the shared data folder)\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	return writeResults(e, *out, func(w io.Writer) error { return res.WriteMarkdown(w) },
		[]outFile{{"rrf-experiment.md", sections("Recursive random fields against Markov logic (UW-CSE integrity constraints)", "rrf", args, []*experiment.RRFResult{res})}})
}
