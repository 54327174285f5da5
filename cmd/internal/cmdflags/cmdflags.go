// Package cmdflags registers the flags that marple and marple-experiments
// share, so that both commands name, document and check them alike.
package cmdflags

import (
	"errors"
	"flag"
	"fmt"
	"github.com/marple-mln/marple/internal/suggest"
	"io"
	"strings"

	"github.com/marple-mln/marple/flagcheck"
	"github.com/marple-mln/marple/invent"
	"github.com/marple-mln/marple/structure"
)

// NewFlagSet returns a flag set that prints nothing by itself; its Usage
// writes "usage: " and usage, then the flags, to w.
func NewFlagSet(name, usage string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fs.SetOutput(w)
		fmt.Fprintf(w, "usage: %s\n\nflags:\n", usage)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// Parse parses args. On -h it prints the usage once and returns
// flag.ErrHelp; a bad flag, an argument left over or a floating-point flag
// that is not a finite number gives an error for the command to report as
// a usage error, without the usage.
func Parse(fs *flag.FlagSet, args []string) error {
	help := fs.Usage
	fs.Usage = func() {} // the flag package calls it on -h and on every error
	err := fs.Parse(args)
	fs.Usage = help
	switch {
	case errors.Is(err, flag.ErrHelp):
		help()
		return err
	case err != nil:
		if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
			var names []string
			fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
			return fmt.Errorf("%v%s", err, strings.Replace(suggest.Hint(name, names), "mean ", "mean -", 1))
		}
		return err
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return flagcheck.Floats(fs)
}

// Scoring adds the scorer's flags (Alchemy's learnstruct names).
func Scoring(fs *flag.FlagSet, so *structure.Scoring) {
	fs.Float64Var(&so.PriorStdDev, "priorStdDev", so.PriorStdDev, "standard deviation of the Gaussian prior on the weights")
	fs.BoolVar(&so.NoPrior, "noPrior", so.NoPrior, "no Gaussian prior on the weights")
	fs.BoolVar(&so.NoWtPredsEqually, "noWtPredsEqually", so.NoWtPredsEqually, "weigh every atom 1 instead of 1/(atoms of its predicate)")
	fs.IntVar(&so.TightMaxIter, "tightMaxIter", so.TightMaxIter, "L-BFGS iterations for the model kept")
	fs.Float64Var(&so.TightConvThresh, "tightConvThresh", so.TightConvThresh, "relative change of the score at which L-BFGS stops, for the model kept")
	fs.IntVar(&so.LooseMaxIter, "looseMaxIter", so.LooseMaxIter, "L-BFGS iterations when scoring a candidate")
	fs.Float64Var(&so.LooseConvThresh, "looseConvThresh", so.LooseConvThresh, "relative change of the score at which L-BFGS stops, when scoring a candidate")
	fs.BoolVar(&so.NoSampleAtoms, "noSampleAtoms", so.NoSampleAtoms, "score candidates on every atom, not a sample")
	fs.Float64Var(&so.FractAtoms, "fractAtoms", so.FractAtoms, "fraction of each predicate's atoms sampled when scoring candidates")
	fs.IntVar(&so.MinAtomSamples, "minAtomSamples", so.MinAtomSamples, "least atoms of a predicate sampled (-1: no minimum)")
	fs.IntVar(&so.MaxAtomSamples, "maxAtomSamples", so.MaxAtomSamples, "most atoms of a predicate sampled (-1: no maximum)")
	fs.Int64Var(&so.MaxGroundings, "maxGroundings", so.MaxGroundings, "skip a candidate whose counting examines more groundings than this per database (0: no bound)")
	fs.BoolVar(&so.SharedDomains, "sharedDomains", so.SharedDomains, "score every training database over the union of all databases' constants (default: each over its own, as Alchemy's -multipleDatabases)")
}

// MRC registers MRC's parameters on fs; the returned function
// checks them (its errors name the flag, as flagcheck's) and gives the options and, unless -lambda and -beta are both
// given, the grid to tune the others over (a given one is fixed).
func MRC(fs *flag.FlagSet) func() (invent.Options, *invent.TuneGrid, error) {
	var (
		restarts = fs.Int("restarts", 10, "greedy restarts per refinement")
		seed     = fs.Int64("seed", 1, "random seed")
		lambda   = fs.Float64("lambda", 0, fmt.Sprintf("prior: log-posterior cost of each cluster (default: chosen among %v on held-out slices of the training atoms)", invent.DefaultTuneGrid.Lambdas))
		beta     = fs.Float64("beta", 0, fmt.Sprintf("smoothing of the rule weights (default: chosen among %v, as -lambda)", invent.DefaultTuneGrid.Betas))
		maxK     = fs.Int("maxClusters", invent.DefaultMaxClusters, "clusters per set and node (2: bisection)")
		noLook   = fs.Bool("noLookahead", false, "cluster every set at every node (no predicates-first lookahead)")
	)
	return func() (invent.Options, *invent.TuneGrid, error) {
		for _, err := range []error{flagcheck.AtLeast("restarts", *restarts, 1), flagcheck.AtLeast("maxClusters", *maxK, 2),
			flagcheck.NonNegative("lambda", *lambda), flagcheck.NonNegative("beta", *beta)} {
			if err != nil {
				return invent.Options{}, nil, err
			}
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

// ConstantsUsage is the help of learnstruct's and the msl experiment's
// -constants flag (structure.Validation.NoConstants).
const ConstantsUsage = "with -repeatedPredicates auto and two or more training databases: try the learned clauses with variables given a weight per constant, over the constants every training database mentions (inPhase(a1,+a2) v !yearsInProgram(a1,+a3): one clause per phase and year beside the clause), and keep each that improves the held-out CLL by more than its standard error over the databases held out in turn without lowering the held-out AUC-PR"
