package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/marple-mln/marple/experiment"
	"github.com/marple-mln/marple/internal/atomicfile"
	"github.com/marple-mln/marple/internal/datadir"
)

// paperExperiments are the experiments of issue 12, dispatched by name
// from runExperiment.
var paperExperiments = map[string]func(context.Context, *env, []string) error{
	"maxmargin": runMaxMarginExperiment,
	"curves":    runCurvesExperiment,
}

const maxMarginSynopsis = `maxmargin [-data ../shared/data] [-out results] [-datasets citeseer,webkb] [-folds face,dept1,...]

Huynh & Mooney's max-margin slides (ECML-PKDD 2009): MM-Hamming-LPRelax
(1-slack structural SVM, loss-augmented LP relaxation + ROUNDUP in training,
LP relaxation MPE in testing, C in -Cs chosen on training F1) against
PSCG-MCSAT (discriminative CLL, MC-SAT marginals >= 0.5 in testing), and the
cross rows PSCG-LPRelax and MM-Hamming-MCSAT, on CiteSeer (leave one topic
out, ISM) and WebKB (leave one department out, examples/webkb/webkb.mln).
Writes maxmargin.md and maxmargin-C-<data set>.svg (F1 against C) to -out.`

func runMaxMarginExperiment(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "experiment", maxMarginSynopsis)
	var (
		data     = fs.String("data", datadir.Root(), "the data folder (holding citeseer/ and webkb/)")
		out      = fs.String("out", "results", "folder for the table and charts")
		datasets = fs.String("datasets", "citeseer,webkb", "data sets, comma-separated")
		folds    = fs.String("folds", "", "test folds, comma-separated (default: all)")
		cs       = fs.String("Cs", "1,10,100,1000,10000", "grid of C (the max-margin learner is tested with the value best on training F1)")
		iters    = fs.Int("maxIter", experiment.DefaultMMPSCGIter, "PSCG iterations")
		samples  = fs.Int("numSamples", experiment.DefaultMMPSCGSamples, "PSCG: MC-SAT steps per iteration")
		test     = fs.Int("testSamples", experiment.DefaultMMTestSamples, "MC-SAT samples when testing")
		seed     = fs.Int64("seed", 1, "random seed")
		verbose  = fs.Bool("v", false, "report every cutting-plane round")
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	grid, err := positiveList("Cs", *cs)
	if err != nil {
		return err
	}
	if *iters < 1 || *samples < 1 || *test < 1 {
		return usagef("-maxIter, -numSamples and -testSamples must be positive")
	}
	table, err := experiment.RunMaxMargin(ctx, experiment.MaxMarginConfig{
		Data: *data, Datasets: splitList(*datasets), Folds: splitList(*folds), Cs: grid,
		PSCGIter: *iters, PSCGSamples: *samples, TestSamples: *test, Seed: *seed, Progress: e.stderr, Verbose: *verbose,
	})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if err := table.WriteMarkdown(e.stdout); err != nil {
		return err
	}
	written := []string{filepath.Join(*out, "maxmargin.md")}
	if err := atomicfile.Write(written[0], table.WriteMarkdown); err != nil {
		return err
	}
	for _, r := range table.Results {
		path := filepath.Join(*out, "maxmargin-C-"+r.Dataset+".svg")
		if err := atomicfile.Write(path, r.SensitivityChart().WriteSVG); err != nil {
			return err
		}
		written = append(written, path)
	}
	fmt.Fprintf(e.stderr, "marple experiment: wrote %v\n", written)
	return nil
}

// positiveList parses a comma-separated list of positive numbers.
func positiveList(name, s string) ([]float64, error) {
	var xs []float64
	for _, f := range splitList(s) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || v <= 0 {
			return nil, usagef("-%s: %q is not a positive number", name, f)
		}
		xs = append(xs, v)
	}
	return xs, nil
}

// writeCharts writes charts named by file to dir.
func writeCharts(dir string, charts map[string]interface{ WriteSVG(io.Writer) error }) ([]string, error) {
	var paths []string
	for name, c := range charts {
		path := filepath.Join(dir, name)
		if err := atomicfile.Write(path, c.WriteSVG); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

const curvesSynopsis = `curves [-data ../shared/data] [-out results] [-orders 3] [-seed 1]

Huynh & Mooney's (SDM 2011) Figures 1 and 2 on CiteSeer: the learning curve
(test F1 against training citations seen, one pass) and the label-noise curve
(test F1 against the fraction of training tokens given a random other field)
of CDA-ML-HM, 1-best-MIRA-HM and Subgradient-HM, averaged over the four
topics and -orders example orders. Writes curves.md, curves-learning.svg and
curves-noise.svg to -out.`

func runCurvesExperiment(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "experiment", curvesSynopsis)
	var (
		data   = fs.String("data", datadir.Root(), "the data folder (holding citeseer/)")
		out    = fs.String("out", "results", "folder for the table and charts")
		orders = fs.Int("orders", 3, "example orders per fold")
		seed   = fs.Int64("seed", 1, "random seed (orders and noise)")
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *orders < 1 {
		return usagef("-orders must be positive")
	}
	res, err := experiment.RunCurves(ctx, experiment.CurvesConfig{
		Dir: filepath.Join(*data, "citeseer"), Orders: *orders, Seed: *seed, Progress: e.stderr,
	})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if err := res.WriteMarkdown(e.stdout); err != nil {
		return err
	}
	md := filepath.Join(*out, "curves.md")
	if err := atomicfile.Write(md, res.WriteMarkdown); err != nil {
		return err
	}
	curve, noise := res.Charts()
	paths, err := writeCharts(*out, map[string]interface{ WriteSVG(io.Writer) error }{"curves-learning.svg": curve, "curves-noise.svg": noise})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "marple experiment: wrote %s %v\n", md, paths)
	return nil
}
