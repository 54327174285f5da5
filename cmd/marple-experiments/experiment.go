package main

import (
	"context"
	"flag"
	"fmt"
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
		rf      = addResumeFlags(fs)
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
	j, err := rf.journal(fs, "citeseer", *out)
	if err != nil {
		return err
	}
	cfg.Journal = j
	table, err := experiment.RunCiteSeer(ctx, cfg)
	if err != nil {
		return err
	}
	if err := writeResults(e, *out, table.WriteMarkdown, []outFile{
		{"citeseer.md", table.WriteMarkdown}, {"citeseer.svg", func(w io.Writer) error { return table.WriteSVG(w) }}}); err != nil {
		return err
	}
	return rf.done(e, j, "citeseer")
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
		rf      = addResumeFlags(fs)
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
	j, err := rf.journal(fs, "osl", *out)
	if err != nil {
		return err
	}
	table, err := experiment.RunOSL(ctx, experiment.OSLConfig{
		Journal:  j,
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
	if err := writeResults(e, *out, table.WriteMarkdown, []outFile{{"osl.md", table.WriteMarkdown}}); err != nil {
		return err
	}
	return rf.done(e, j, "osl")
}

func oslMethodNames() string {
	var names []string
	for _, m := range experiment.OSLMethods {
		names = append(names, m.Name)
	}
	return strings.Join(names, ",")
}

// resumeFlags are the -checkpoint and -resume flags of an experiment.
type resumeFlags struct {
	checkpoint, resume *bool
}

// addResumeFlags declares -checkpoint and -resume on fs.
func addResumeFlags(fs *flag.FlagSet) *resumeFlags {
	return &resumeFlags{
		checkpoint: fs.Bool("checkpoint", false, "record each completed unit (a fold's or a row's cell) in OUT/<experiment>.checkpoint, for -resume"),
		resume:     fs.Bool("resume", false, "continue the run whose -checkpoint state is in the -out folder: the units it completed are taken from it (and the run goes on recording)"),
	}
}

// journal opens the experiment's journal in out/name.checkpoint when
// -checkpoint or -resume is given (nil otherwise). The journal records
// the flags that shape the results (all but -checkpoint, -resume, -out,
// -v, -foldWorkers): a resume with other flags is refused, naming the
// flag.
func (r *resumeFlags) journal(fs *flag.FlagSet, name, out string) (*experiment.Journal, error) {
	if !*r.checkpoint && !*r.resume {
		return nil, nil
	}
	meta := map[string]string{"experiment": name}
	fs.VisitAll(func(f *flag.Flag) {
		switch f.Name {
		case "checkpoint", "resume", "out", "v", "foldWorkers":
			return
		}
		meta["-"+f.Name] = f.Value.String()
	})
	return experiment.OpenJournal(filepath.Join(out, name+".checkpoint"), meta, *r.resume)
}

// done removes the journal of a finished run and says how many units it
// gave back.
func (r *resumeFlags) done(e *env, j *experiment.Journal, name string) error {
	if j == nil {
		return nil
	}
	if n := j.Reused(); n > 0 {
		fmt.Fprintf(e.stderr, "marple-experiments %s: %d units taken from the checkpoint\n", name, n)
	}
	return j.Remove()
}

// shownArgs returns the arguments a results file names as its command:
// args without -checkpoint and -resume, which do not change the results.
func shownArgs(args []string) []string {
	var out []string
	for _, a := range args {
		switch strings.TrimLeft(a, "-") {
		case "checkpoint", "resume", "checkpoint=true", "resume=true", "checkpoint=false", "resume=false":
			if strings.HasPrefix(a, "-") {
				continue
			}
		}
		out = append(out, a)
	}
	return out
}
