package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/marple-mln/marple/cmd/marple-experiments/internal/experiment"
	"github.com/marple-mln/marple/internal/testkit/datadir"
)

const citeseerSynopsis = `citeseer [-data ../shared/data] [-out results] [-methods CDA-ML-HM,...] [-topics face,...] [flags]

Huynh & Mooney's (SDM 2011) Tables 1 and 2: the ISM model learned online on
three CiteSeer topics and tested on the fourth, for each method, with F1 per
topic and training time next to the paper's figures. Writes citeseer.md and
citeseer.svg to -out.`

const oslSynopsis = `osl [-data ../shared/data] [-out results] [-methods OSL-M2-ISM,...] [-topics face,...] [flags]

Table 1 of Huynh & Mooney (ECML 2011): online structure learning (OSL-M1,
OSL-M2) and AdaGrad-FB from the LC_0, ISM and empty models, with F1,
training time and non-zero clauses. Writes osl.md.`

func runCiteSeerExperiment(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, citeseerSynopsis)
	var (
		data    = fs.String("data", datadir.Root(), "the data folder (holding citeseer/); default $MARPLE_DATA or ../shared/data beside the repository")
		out     = fs.String("out", "results", "folder for the table (Markdown) and chart (SVG)")
		methods = fs.String("methods", "", "rows to run, comma-separated (default: all)")
		topics  = fs.String("topics", "", "test topics, comma-separated (default: all four)")
		sigmas  = fs.String("sigmas", "1,0.1,0.01,0.001", "grid σ is tuned on (by training F1)")
		passes  = fs.Int("passes", 1, "passes over the training data")
		seed    = fs.Int64("seed", 1, "random seed")
		shuffle = fs.Bool("shuffle", false, "visit the training examples in a random order drawn from -seed")
		noAvg   = fs.Bool("noAverage", false, "predict with the last weights instead of the average")
		model   = fs.String("model", "", "model to learn instead of the ISM model (it must declare InField and Token as ISM does)")
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var grid []float64
	for _, s := range splitList(*sigmas) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v <= 0 {
			return usagef("-sigmas: %q is not a positive number", s)
		}
		grid = append(grid, v)
	}
	var modelText string
	if *model != "" {
		b, err := os.ReadFile(*model)
		if err != nil {
			return err
		}
		modelText = string(b)
	}
	cfg := experiment.CiteSeerConfig{
		Model:     modelText,
		Dir:       filepath.Join(*data, "citeseer"),
		Methods:   splitList(*methods),
		Topics:    splitList(*topics),
		Sigmas:    grid,
		Passes:    *passes,
		Seed:      *seed,
		Shuffle:   *shuffle,
		NoAverage: *noAvg,
		Progress:  e.stderr,
	}
	if err := checkOut(*out, "citeseer.md", "citeseer.svg"); err != nil {
		return err
	}
	table, err := experiment.RunCiteSeer(ctx, cfg)
	if err != nil {
		return err
	}
	return writeResults(e, *out, table.WriteMarkdown, []outFile{
		{"citeseer.md", table.WriteMarkdown}, {"citeseer.svg", func(w io.Writer) error { return table.WriteSVG(w) }}})
}

func runOSLExperiment(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, oslSynopsis)
	var (
		data    = fs.String("data", datadir.Root(), "the data folder (holding citeseer/); default $MARPLE_DATA or ../shared/data beside the repository")
		out     = fs.String("out", "results", "folder for the table (Markdown)")
		methods = fs.String("methods", "", "rows to run, comma-separated (default: all): "+oslMethodNames())
		topics  = fs.String("topics", "", "test topics, comma-separated (default: all four)")
		modes   = fs.String("modes", "", "mode declarations file (default: examples/citeseer/citeseer.modes)")
		maxLen  = fs.Int("maxLen", 4, "maximum number of atoms in a path")
		seed    = fs.Int64("seed", 1, "random seed")
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var modesText string
	if *modes != "" {
		b, err := os.ReadFile(*modes)
		if err != nil {
			return err
		}
		modesText = string(b)
	}
	if err := checkOut(*out, "osl.md"); err != nil {
		return err
	}
	table, err := experiment.RunOSL(ctx, experiment.OSLConfig{
		Dir:      filepath.Join(*data, "citeseer"),
		Methods:  splitList(*methods),
		Topics:   splitList(*topics),
		Modes:    modesText,
		MaxLen:   *maxLen,
		Seed:     *seed,
		Progress: e.stderr,
	})
	if err != nil {
		return err
	}
	return writeResults(e, *out, table.WriteMarkdown, []outFile{{"osl.md", table.WriteMarkdown}})
}

func oslMethodNames() string {
	var names []string
	for _, m := range experiment.OSLMethods {
		names = append(names, m.Name)
	}
	return strings.Join(names, ",")
}
