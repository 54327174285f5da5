package main

import (
	"context"
	"github.com/marple-mln/marple/cmd/internal/cmdflags"
	"github.com/marple-mln/marple/flagcheck"
	"strconv"
	"time"

	"github.com/marple-mln/marple/cmd/marple-experiments/internal/experiment"
	"github.com/marple-mln/marple/internal/testkit/datadir"
)

const mrcSynopsis = `mrc [-data ../shared/data] [-out results] [-sets animals,...] [-folds 0,1,...] [-mslTimeLimit 1m] [-orders N] [-restarts N -seed N -lambda L -beta B]

The MRC protocol (Kok & Domingos 2007) on animals, kinship, umls and
nations: per shared fold, learn on the others and predict the fold's atoms;
CLL and AUC-PR against a per-relation baseline and MSL from unit clauses
(each search capped by -mslTimeLimit). With -orders N, each data set is
run N times with its fold files read in different orders (number order,
the reverse, then shuffles), and mrc.md shows the spread. Writes mrc.md.`

func runMRCExperiment(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, mrcSynopsis)
	var (
		data  = fs.String("data", datadir.Root(), "the data folder (holding animals/, kinship/, umls/, nations/)")
		out   = fs.String("out", "results", "folder for mrc.md")
		sets  = fs.String("sets", "", "data sets, comma-separated (default: animals,kinship,umls,nations)")
		folds = fs.String("folds", "", "held-out folds, comma-separated (default: 0-7, the shared ones)")
		msl   = fs.Duration("mslTimeLimit", time.Minute, "the MSL baseline's search per fold ends after this long, keeping its model (0: no MSL baseline)")
		nord  = fs.Int("orders", 1, "run each data set with its fold files read in this many orders (1: in number order)")
		mrc   = cmdflags.MRC(fs)
		rf    = addResumeFlags(fs)
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := flagcheck.AtLeast("orders", *nord, 1); err != nil {
		return usagef("%v", err)
	}
	opt, grid, err := mrc()
	if err != nil {
		return usagef("%v", err)
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
	j, err := rf.journal(fs, "mrc", *out)
	if err != nil {
		return err
	}
	table, err := experiment.RunMRC(ctx, experiment.MRCConfig{
		Journal:  j,
		Dir:      *data,
		Sets:     splitList(*sets),
		Folds:    fl,
		Opt:      opt,
		Tune:     grid,
		MSLTime:  *msl,
		Orders:   *nord,
		Progress: e.stderr,
	})
	if err != nil {
		return err
	}
	if err := writeResults(e, *out, table.WriteMarkdown, []outFile{{"mrc.md", table.WriteMarkdown}}); err != nil {
		return err
	}
	return rf.done(e, j, "mrc")
}
