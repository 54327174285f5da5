package main

import (
	"context"
	"flag"
	"github.com/marple-mln/marple/cmd/internal/cmdflags"
	"os"

	"github.com/marple-mln/marple/cmd/marple-experiments/internal/experiment"
	"github.com/marple-mln/marple/internal/testkit/datadir"
	"github.com/marple-mln/marple/structure"
)

const mslSynopsis = `msl [-data ../shared/data] [-out results] [-datasets uw-cse,imdb] [-folds ai,imdb.1] [-rows beam-unit,...] [flags]

Batch structure learning (Kok & Domingos 2005) on UW-CSE (five areas, leave
one area out) and IMDB (five folds, leave one out), each training database
its own domain. Rows: weights-unit (unit clauses, weights learned),
weights-kb (the hand-built KB with weights learned, UW-CSE), beam-unit and
sfs-unit (search from unit clauses), beam-kb (search from the KB). Each
learned model infers every predicate in turn given all the others on the
test fold with MC-SAT; the table gives CLL and AUC-PR per predicate and
averaged, and the learning time per fold. Each search chooses whether new
clauses may repeat a predicate with each training database held out in
turn (-repeatedPredicates auto); -maxCandidates bounds each search (the
same on any machine), -timeLimit, when given, a fold's whole learning,
validation included. Writes msl.md.`

func runMSLExperiment(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, mslSynopsis)
	d := structure.DefaultSettings()
	so := structure.DefaultScoring()
	var (
		data      = fs.String("data", datadir.Root(), "the data folder (holding uw-cse/ and imdb/); default $MARPLE_DATA or ../shared/data beside the repository")
		out       = fs.String("out", "results", "folder for the table (Markdown)")
		datasets  = fs.String("datasets", "", "data sets, comma-separated (default: uw-cse,imdb)")
		folds     = fs.String("folds", "", "test folds, comma-separated file names or stems (default: all)")
		rows      = fs.String("rows", "", "rows, comma-separated: weights-unit, weights-kb, beam-unit, sfs-unit, beam-kb (default: all)")
		timeLimit = fs.Duration("timeLimit", 0, "end each fold's learning after this long, keeping the model so far (0: no limit; a limit the machine's load reaches changes the results, -maxCandidates does not)")
		maxCands  = fs.Int("maxCandidates", 250000, "end each search at the first beam iteration or shortest-first round that would start with this many candidates scored, keeping the model so far (0: no limit)")
		maxPreds  = fs.Int("maxNumPredicates", d.MaxNumPredicates, "maximum number of literals in a learned clause")
		maxVars   = fs.Int("maxVars", d.MaxVars, "maximum number of variables in a learned clause")
		beamSize  = fs.Int("beamSize", d.BeamSize, "size of the beam")
		samples   = fs.Int("samples", 1000, "MC-SAT samples per inference")
		seed      = fs.Int64("seed", 1, "random seed")
		models    = fs.String("models", "", "folder that receives every learned model (optional)")
		dsa       = fs.Bool("dsa", d.DomainScaled, "domain-size-aware weights for new clauses with free variables, which may then enter the model (learnstruct -dsa); set explicitly, also for the searches from the KB")
		freeVars  = fs.Bool("freeVars", false, "let every clause with a variable in only one literal enter the model, scaled with -dsa (learnstruct -freeVars)")
		joins     = fs.Bool("joins", !structure.DefaultValidation().NoJoins, "with -repeatedPredicates auto and two or more training databases: let new clauses that repeat a predicate in negative literals only, with a positive literal of another predicate and no free variable, enter the model whatever -repeatedPredicates chooses beam search propose them, each scored at its conclusion's atoms only, and cap the learned joins' weights at the value (0 drops them) that the held-out databases choose: the best held-out AUC-PR among the caps whose held-out CLL is within one standard error of the best; otherwise no joins are searched (learnstruct -joins)")
		constants = fs.Bool("constants", !structure.DefaultValidation().NoConstants, cmdflags.ConstantsUsage+" (learnstruct -constants)")
		repeated  = fs.String("repeatedPredicates", "auto", "let new clauses repeat a predicate: auto (each search chooses with each training database held out in turn), true or false")
		rf        = addResumeFlags(fs)
	)
	cmdflags.Scoring(fs, &so)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *models != "" {
		if err := os.MkdirAll(*models, 0o755); err != nil {
			return err
		}
	}
	if err := so.Check(); err != nil {
		return usagef("%v", err)
	}
	if *repeated != "auto" && *repeated != "true" && *repeated != "false" {
		return usagef("-repeatedPredicates must be auto, true or false, not %q", *repeated)
	}
	if *maxCands < 0 {
		return usagef("-maxCandidates must not be negative, not %d", *maxCands)
	}
	d.TimeLimit, d.MaxCandidates, d.MaxNumPredicates, d.MaxVars, d.BeamSize = *timeLimit, *maxCands, *maxPreds, *maxVars, *beamSize
	d.DomainScaled, d.FreeVars = *dsa, *freeVars
	dsaSet := false
	fs.Visit(func(f *flag.Flag) { dsaSet = dsaSet || f.Name == "dsa" })
	so.Seed = *seed
	cfg := experiment.MSLConfig{
		Dir: *data, Datasets: splitList(*datasets), Folds: splitList(*folds), Rows: splitList(*rows),
		Search: d, Scoring: so, Samples: *samples, Seed: *seed, Progress: e.stderr, ModelsDir: *models, Repeated: *repeated, NoJoins: !*joins, NoConstants: !*constants, DSAFromKB: dsaSet && *dsa,
	}
	if err := cfg.Check(); err != nil {
		return usagef("%v", err)
	}
	if err := checkOut(*out, "msl.md"); err != nil {
		return err
	}
	j, err := rf.journal(fs, "msl", *out)
	if err != nil {
		return err
	}
	cfg.Journal = j
	results, err := experiment.RunMSL(ctx, cfg)
	if err != nil {
		return err
	}
	write := sections("Batch structure learning (Kok & Domingos 2005)", "msl", args, results)
	if err := writeResults(e, *out, write, []outFile{{"msl.md", write}}); err != nil {
		return err
	}
	return rf.done(e, j, "msl")
}
