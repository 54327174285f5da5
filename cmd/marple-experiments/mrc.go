package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/marple-mln/marple/cmd/marple-experiments/internal/experiment"
	"github.com/marple-mln/marple/internal/testkit/datadir"
	"github.com/marple-mln/marple/invent"
)

const mrcSynopsis = `mrc [-data ../shared/data] [-out results] [-sets animals,...] [-folds 0,1,...] [-mslTimeLimit 1m] [-restarts N -seed N -lambda L -beta B]

The MRC protocol (Kok & Domingos 2007) on animals, kinship, umls and
nations: per shared fold, learn on the others and predict the fold's atoms;
CLL and AUC-PR against a per-relation baseline and MSL from unit clauses
(each search capped by -mslTimeLimit). Writes mrc.md.`

func runMRCExperiment(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, mrcSynopsis)
	var (
		data  = fs.String("data", datadir.Root(), "the data folder (holding animals/, kinship/, umls/, nations/)")
		out   = fs.String("out", "results", "folder for mrc.md")
		sets  = fs.String("sets", "", "data sets, comma-separated (default: animals,kinship,umls,nations)")
		folds = fs.String("folds", "", "held-out folds, comma-separated (default: 0-7, the shared ones)")
		msl   = fs.Duration("mslTimeLimit", time.Minute, "the MSL baseline's search per fold ends after this long, keeping its model (0: no MSL baseline)")
		mrc   = addMRCFlags(fs)
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	opt, grid, err := mrc()
	if err != nil {
		return err
	}
	var fl []int
	for _, s := range splitList(*folds) {
		k, err := strconv.Atoi(s)
		if err != nil {
			return usagef("-folds: %q is not a fold number", s)
		}
		fl = append(fl, k)
	}
	if err := checkOut(*out, "mrc.md"); err != nil {
		return err
	}
	table, err := experiment.RunMRC(ctx, experiment.MRCConfig{
		Dir:      *data,
		Sets:     splitList(*sets),
		Folds:    fl,
		Opt:      opt,
		Tune:     grid,
		MSLTime:  *msl,
		Progress: e.stderr,
	})
	if err != nil {
		return err
	}
	return writeResults(e, *out, table.WriteMarkdown, []outFile{{"mrc.md", table.WriteMarkdown}})
}

// addMRCFlags registers MRC's parameters on fs, as "marple invent" names
// them; the returned function checks them and gives the options and,
// unless -lambda and -beta are both given, the grid to tune the others over
// (a given one is fixed).
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
		if *restarts < 1 || *lambda < 0 || *beta < 0 || *maxK < 2 {
			return invent.Options{}, nil, usagef("-restarts must be positive, -lambda and -beta not negative, -maxClusters at least 2")
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
