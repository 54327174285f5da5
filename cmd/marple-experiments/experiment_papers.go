package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/cmd/marple-experiments/internal/experiment"
	"github.com/marple-mln/marple/internal/testkit/datadir"
)

const maxMarginSynopsis = `maxmargin [-data ../shared/data] [-out results] [-datasets citeseer,webkb] [-folds face,dept1,...]

Huynh & Mooney's max-margin slides (ECML-PKDD 2009): MM-Hamming-LPRelax
(1-slack structural SVM, loss-augmented LP relaxation + ROUNDUP in training,
LP relaxation MPE in testing, C in -Cs chosen on training F1) against
PSCG-MCSAT (discriminative CLL, MC-SAT marginals >= 0.5 in testing), and the
cross rows PSCG-LPRelax and MM-Hamming-MCSAT, on CiteSeer (leave one topic
out, ISM) and WebKB (leave one department out, examples/webkb/webkb.mln).
Writes maxmargin-<data set>.md and maxmargin-C-<data set>.svg (F1 against
C) to -out.`

func runMaxMarginExperiment(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, maxMarginSynopsis)
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
		workers  = fs.Int("foldWorkers", 0, "folds run at once (0: one per core)")
		rounds   = fs.Int("maxRounds", experiment.DefaultMMMaxRounds, "max-margin: cutting-plane rounds at most")
		eps      = fs.Float64("epsilon", experiment.DefaultMMEpsilonPerAtom, "max-margin: stopping tolerance in Hamming loss per query atom")
		rf       = addResumeFlags(fs)
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	grid, err := positiveList("Cs", *cs)
	if err != nil {
		return err
	}
	if *iters < 1 || *samples < 1 || *test < 1 || *rounds < 1 || *eps <= 0 {
		return usagef("-maxIter, -numSamples, -testSamples, -maxRounds and -epsilon must be positive")
	}
	var names []string
	for _, set := range splitList(*datasets) {
		names = append(names, "maxmargin-"+set+".md", "maxmargin-C-"+set+".svg")
	}
	if err := checkOut(*out, names...); err != nil {
		return err
	}
	j, err := rf.journal(fs, "maxmargin", *out)
	if err != nil {
		return err
	}
	table, err := experiment.RunMaxMargin(ctx, experiment.MaxMarginConfig{
		Journal: j,
		Data:    *data, Datasets: splitList(*datasets), Folds: splitList(*folds), Cs: grid,
		MaxRounds: *rounds, FoldWorkers: *workers, EpsilonPerAtom: *eps, PSCGIter: *iters, PSCGSamples: *samples, TestSamples: *test, Seed: *seed, Progress: e.stderr, Verbose: *verbose,
	})
	if err != nil {
		return err
	}
	// One table and chart per data set, so that the data sets may be run
	// apart.
	var files []outFile
	for _, r := range table.Results {
		one := *table
		one.Results = []*experiment.MaxMarginResult{r}
		files = append(files, outFile{"maxmargin-" + r.Dataset + ".md", one.WriteMarkdown},
			outFile{"maxmargin-C-" + r.Dataset + ".svg", r.SensitivityChart().WriteSVG})
	}
	if err := writeResults(e, *out, table.WriteMarkdown, files); err != nil {
		return err
	}
	return rf.done(e, j, "maxmargin")
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

// outFile is a file an experiment writes: its name and its writer.
type outFile struct {
	name  string
	write func(io.Writer) error
}

// checkOut checks, before any work, that the results can be written: dir
// is (or is made) a folder in which files can be created, and none of the
// files named is a folder. The error names the flag -out.
func checkOut(dir string, files ...string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("-out %s: cannot make the results folder: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".marple-experiments-check*")
	if err != nil {
		return fmt.Errorf("-out %s: cannot write in the results folder: %w", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	for _, name := range files {
		path := filepath.Join(dir, name)
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			return fmt.Errorf("-out %s: cannot write %s: is a directory", dir, path)
		}
	}
	return nil
}

// writeResults makes dir, prints the table on stdout and writes the files
// into dir atomically, then names them on stderr.
func writeResults(e *env, dir string, table func(io.Writer) error, files []outFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := table(e.stdout); err != nil {
		return err
	}
	var paths []string
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := atomicfile.Write(path, f.write); err != nil {
			return err
		}
		paths = append(paths, path)
	}
	fmt.Fprintf(e.stderr, "marple-experiments: wrote %s\n", strings.Join(paths, ", "))
	return nil
}

// markdowner is an experiment result that writes itself as Markdown.
type markdowner interface{ WriteMarkdown(io.Writer) error }

// sections returns a writer of a results file: a heading, the command
// that made it, and each result's Markdown.
func sections[R markdowner](title, name string, args []string, results []R) func(io.Writer) error {
	return func(w io.Writer) error {
		fmt.Fprintf(w, "## %s\n\nCommand: `marple-experiments %s %s`\n\n", title, name, strings.Join(shownArgs(args), " "))
		for _, r := range results {
			if err := r.WriteMarkdown(w); err != nil {
				return err
			}
			fmt.Fprintln(w)
		}
		return nil
	}
}

const curvesSynopsis = `curves [-data ../shared/data] [-out results] [-orders 3] [-seed 1]

Huynh & Mooney's (SDM 2011) Figures 1 and 2 on CiteSeer: the learning curve
(test F1 against training citations seen, one pass) and the label-noise curve
(test F1 against the fraction of training tokens given a random other field)
of CDA-ML-HM, 1-best-MIRA-HM and Subgradient-HM, averaged over the four
topics and -orders example orders. Writes curves.md, curves-learning.svg and
curves-noise.svg to -out.`

func runCurvesExperiment(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, curvesSynopsis)
	var (
		data   = fs.String("data", datadir.Root(), "the data folder (holding citeseer/)")
		out    = fs.String("out", "results", "folder for the table and charts")
		orders = fs.Int("orders", 3, "example orders per fold")
		seed   = fs.Int64("seed", 1, "random seed (orders and noise)")
		fw     = fs.Int("foldWorkers", 0, "folds run at once (0: one per core)")
		rf     = addResumeFlags(fs)
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *orders < 1 {
		return usagef("-orders must be positive")
	}
	if err := checkOut(*out, "curves.md", "curves-learning.svg", "curves-noise.svg"); err != nil {
		return err
	}
	j, err := rf.journal(fs, "curves", *out)
	if err != nil {
		return err
	}
	res, err := experiment.RunCurves(ctx, experiment.CurvesConfig{
		Journal: j,
		Dir:     filepath.Join(*data, "citeseer"), Orders: *orders, Seed: *seed, FoldWorkers: *fw, Progress: e.stderr,
	})
	if err != nil {
		return err
	}
	curve, noise := res.Charts()
	if err := writeResults(e, *out, res.WriteMarkdown, []outFile{
		{"curves.md", res.WriteMarkdown}, {"curves-learning.svg", curve.WriteSVG}, {"curves-noise.svg", noise.WriteSVG}}); err != nil {
		return err
	}
	return rf.done(e, j, "curves")
}
