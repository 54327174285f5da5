package main

import (
	"context"
	"github.com/marple-mln/marple/cmd/internal/cmdflags"
	"time"

	"github.com/marple-mln/marple/cmd/marple-experiments/internal/experiment"
	"github.com/marple-mln/marple/internal/testkit/datadir"
	"github.com/marple-mln/marple/structure"
	"github.com/marple-mln/marple/transfer"
)

const transferExperimentSynopsis = `transfer [-data ../shared/data] [-out results] [-targets imdb,uw-cse] [-sources kinship,...] [-modes seed,greedy,refine] [-folds imdb.5] [flags]

Deep transfer (DTM, Davis & Domingos 2009) between the relational data sets:
for each target (UW-CSE, IMDB) and test fold, batch structure learning (beam
search from unit clauses) without transfer, and with the -top best clique
templates of each source (uw-cse, imdb, kinship, umls, nations; not the
target) in each mode. Each learned model infers every predicate in turn
given the others (MC-SAT); CLL, AUC-PR, learning time and the templates
transferred go to transfer.md. A source's templates are read from
-templates/<source>.txt when present, else discovered and written there.`

func runTransferExperiment(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, transferExperimentSynopsis)
	d := structure.DefaultSettings()
	d.DomainScaled = false // the searches measured in results/transfer.md
	so := structure.DefaultScoring()
	var (
		data      = fs.String("data", datadir.Root(), "the data folder; default $MARPLE_DATA or ../shared/data beside the repository")
		out       = fs.String("out", "results", "folder for the table (Markdown)")
		targets   = fs.String("targets", "", "target data sets, comma-separated (default: uw-cse,imdb)")
		sources   = fs.String("sources", "", "source data sets, comma-separated (default: all but the target)")
		modes     = fs.String("modes", "", "transfer modes, comma-separated (default: seed,greedy,refine)")
		foldsF    = fs.String("folds", "", "test folds, comma-separated file names or stems (default: all)")
		top       = fs.Int("top", defaultTransferTop, "best source templates instantiated in the target")
		templates = fs.String("templates", "results/transfer-templates", "folder of <source>.txt templates files (read, or written when missing)")
		maxOuter  = fs.Int("maxOuter", 2048, "template discovery: sample this many bindings of all but one object variable when there are more (0: exact)")
		timeLimit = fs.Duration("timeLimit", 4*time.Minute, "end each search after this long, keeping the model so far")
		samples   = fs.Int("samples", 1000, "MC-SAT samples per inference")
		seed      = fs.Int64("seed", 1, "random seed")
		repeated  = fs.String("repeatedPredicates", "auto", "let new clauses repeat a predicate: auto (the search without transfer chooses with each training database held out in turn, and the transfer searches of the fold follow it), true or false")
		rf        = addResumeFlags(fs)
	)
	so.MaxGroundings = 1000000
	cmdflags.Scoring(fs, &so)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := so.Check(); err != nil {
		return usagef("%v", err)
	}
	if *repeated != "auto" && *repeated != "true" && *repeated != "false" {
		return usagef("-repeatedPredicates must be auto, true or false, not %q", *repeated)
	}
	var modeList []structure.TransferMode
	for _, m := range splitList(*modes) {
		mode, err := structure.ParseTransferMode(m)
		if err != nil {
			return usagef("-modes: %q is not seed, greedy or refine", m)
		}
		modeList = append(modeList, mode)
	}
	d.TimeLimit = *timeLimit
	so.Seed = *seed
	cfg := experiment.TransferConfig{
		MSL: experiment.MSLConfig{Dir: *data, Datasets: splitList(*targets), Folds: splitList(*foldsF),
			Search: d, Scoring: so, Samples: *samples, Seed: *seed, Progress: e.stderr, Repeated: *repeated},
		Sources: splitList(*sources), Modes: modeList, Top: *top, Templates: *templates,
		Discover: transfer.Options{MaxOuter: *maxOuter, Seed: uint64(*seed)},
	}
	if err := cfg.Check(); err != nil {
		return usagef("%v", err)
	}
	if err := checkOut(*out, "transfer.md"); err != nil {
		return err
	}
	j, err := rf.journal(fs, "transfer", *out)
	if err != nil {
		return err
	}
	cfg.MSL.Journal = j
	results, err := experiment.RunTransfer(ctx, cfg)
	if err != nil {
		return err
	}
	write := sections("Deep transfer (DTM, Davis & Domingos 2009)", "transfer", args, results)
	if err := writeResults(e, *out, write, []outFile{{"transfer.md", write}}); err != nil {
		return err
	}
	return rf.done(e, j, "transfer")
}

// defaultTransferTop is the number of best source templates transferred,
// as marple learnstruct's -transferTop.
const defaultTransferTop = 5
