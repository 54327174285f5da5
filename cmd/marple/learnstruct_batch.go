package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/marple-mln/marple/cmd/internal/cmdflags"
	"io"
	"math"
	"os"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/structure"
)

const learnstructBatchSynopsis = `-method beam|sfs -i start.mln -o learned.mln -t a.db[,b.db] [-ne P,Q] [flags]

Batch structure learning (Kok & Domingos 2005; Alchemy's learnstruct). The
score is the weighted pseudo-log-likelihood of the training data (each
predicate's atoms weighted by 1/its number of groundings; -ne restricts the
sum to those predicates) with a Gaussian prior on the weights, learned by
L-BFGS, minus -penalty per literal a candidate differs by. Clause
construction operators add a literal (either sign), remove one or flip one,
within -maxVars variables and -maxNumPredicates literals.

-method beam is Alchemy's beam search: a beam of -beamSize clauses, started
from the model's clauses, refined until the best clause has not changed for
-bestGainUnchangedLimit steps; the best of them is added and the search
starts again, until no clause improves the score. -method sfs is
shortest-first search: for L = 1, 2, ... add the -sfsK best clauses of L
literals until none improves the score, then go to L+1. Both start from a
unit clause per non-evidence predicate plus the input model's clauses (with
-startFromEmptyMLN those are only candidates of the first step). Candidates
are scored on every core; the same input gives the same model. With
-checkpoint, Ctrl-C (or -timeLimit) still writes the best model so far,
and the search's state is saved to OUT.checkpoint (atomically) after each
clause added (beam) or round (sfs), and after each validation search; after
a crash or kill, the same command with -resume continues from it to the
model the uninterrupted run writes.

-method osl (the default when -modes is given) is OSL; see
"marple learnstruct -method osl -h".`

// learnstructMethod returns the structure learner args ask for: the
// -method flag's value, else osl when -modes is given, else beam.
func learnstructMethod(args []string) string {
	modes := false
	for i, a := range args {
		for _, name := range []string{"-method", "--method"} {
			if a == name && i+1 < len(args) {
				return args[i+1]
			}
			if len(a) > len(name)+1 && a[:len(name)+1] == name+"=" {
				return a[len(name)+1:]
			}
		}
		if a == "-modes" || a == "--modes" || len(a) > 7 && (a[:7] == "-modes=" || a[:8] == "--modes=") {
			modes = true
		}
	}
	if modes {
		return "osl"
	}
	return "beam"
}

func runLearnstructBatch(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "learnstruct", learnstructBatchSynopsis)
	d := structure.DefaultSettings()
	so := structure.DefaultScoring()
	var (
		method     = fs.String("method", "beam", "structure learner: beam, sfs (or osl)")
		modelFiles = fs.String("i", "", "input model file(s) (.mln), comma-separated: declarations and the starting clauses (required)")
		outFile    = fs.String("o", "", "output model file (required)")
		train      = fs.String("t", "", "training database file(s) (.db), comma-separated (required)")
		nonEv      = fs.String("ne", "", "non-evidence predicates, comma-separated (default: all)")
		multi      = fs.Bool("multipleDatabases", false, "each -t file is a separate domain (its own constants)")
		beamSize   = fs.Int("beamSize", d.BeamSize, "size of the beam")
		minWt      = fs.Float64("minWt", d.MinWt, "candidates (and learned clauses) whose absolute weight is below this are discarded")
		penalty    = fs.Float64("penalty", d.Penalty, "score penalty per literal a candidate differs from the clause it came from")
		maxVars    = fs.Int("maxVars", d.MaxVars, "maximum number of variables in a learned clause")
		maxPreds   = fs.Int("maxNumPredicates", d.MaxNumPredicates, "maximum number of literals in a learned clause")
		unchanged  = fs.Int("bestGainUnchangedLimit", d.BestGainUnchangedLimit, "beam search stops after this many steps without a new best clause")
		reEval     = fs.Int("numClausesReEval", d.NumClausesReEval, "best candidates re-scored with the tight tolerances")
		refits     = fs.Int("refits", 0, "candidates of each round refit with the loose tolerances after screening all by their gain with the other weights fixed (0: max(-beamSize, -numClausesReEval); -1: refit every candidate, no screening)")
		fromEmpty  = fs.Bool("startFromEmptyMLN", false, "start from unit clauses; the input model's clauses are candidates of the first step")
		dsa        = fs.Bool("dsa", d.DomainScaled, "domain-size-aware weights: a new clause with free variables (in only one literal) weighs its weight divided by their groundings in each database (written with a leading '@'), and enters the model if they are in negative literals; by default on unless the input model has clauses of two or more literals")
		freeVars   = fs.Bool("freeVars", false, "let every clause with a variable in only one literal enter the model, as Alchemy does (by default -dsa admits those whose free variables are in negative literals; the others only extend the beam)")
		singlePred = fs.Bool("singlePredicate", false, "let clauses whose literals are all of one predicate enter the model (by default they only extend the beam: pseudo-likelihood scores them by atoms of the predicate predicting each other)")
		joins      = fs.Bool("joins", !structure.DefaultValidation().NoJoins, "with -repeatedPredicates auto and two or more training databases: let new clauses that repeat a predicate in negative literals only, with a positive literal of another predicate and no free variable, enter the model whatever -repeatedPredicates chooses (!movie(f,a) v !movie(f,d) v workedUnder(a,d)), beam search propose them, each scored at its conclusion's atoms only, and cap the learned joins' weights at the value (0 drops them) that the held-out databases choose: the best held-out AUC-PR among the caps whose held-out CLL is within one standard error of the best; otherwise no joins are searched")
		constants  = fs.Bool("constants", !structure.DefaultValidation().NoConstants, cmdflags.ConstantsUsage)
		repeated   = fs.String("repeatedPredicates", "auto", "let new clauses repeat a predicate: true, false, or auto: with -multipleDatabases and two or more -t files, search both ways without each file in turn and allow them only if their models predict the held-out file's -ne predicates better (MC-SAT CLL, each given all others) by more than the gain's standard error over the files; else false")
		sfsK       = fs.Int("sfsK", d.ClausesPerStep, "shortest-first search: clauses of length L added at each step")
		maxSteps   = fs.Int("maxSteps", 0, "stop after this many clauses added or changed (0: no limit)")
		timeLimit  = fs.Duration("timeLimit", 0, "stop the search after this long, keeping the model so far (0: no limit; the model then depends on the machine's speed and load)")
		maxCands   = fs.Int("maxCandidates", 0, "stop each search at the first beam iteration or shortest-first round that would start with this many candidates scored, keeping the model so far (0: no limit; the same on any machine)")
		workers    = fs.Int("workers", 0, "candidates scored at once (0: all cores)")
		checkpoint = fs.Bool("checkpoint", false, "save the search's state after each step (OUT.checkpoint, for -resume); on Ctrl-C, still write the best model so far")
		resume     = fs.Bool("resume", false, "continue the run whose -checkpoint state is saved beside -o (OUT.checkpoint)")
		seed       = fs.Int64("seed", 1, "random seed of the atom and clause samplers")
		verbose    = fs.Bool("v", false, "report every stage on stderr")
	)
	cmdflags.Scoring(fs, &so)
	tf := registerTransfer(fs) // deep transfer: transfer.go
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	search, err := structure.ParseMethod(*method)
	switch {
	case err != nil || search == structure.MethodWeights:
		return usagef("-method must be beam, sfs or osl, not %q", *method)
	case *modelFiles == "":
		return usagef("no input model: give -i start.mln")
	case *outFile == "":
		return usagef("no output file: give -o learned.mln")
	case *train == "":
		return usagef("no training data: give -t a.db,b.db")
	case *beamSize <= 0 || *maxVars <= 0 || *maxPreds <= 0 || *unchanged <= 0 || *reEval <= 0 || *sfsK <= 0:
		return usagef("-beamSize, -maxVars, -maxNumPredicates, -bestGainUnchangedLimit, -numClausesReEval and -sfsK must be positive")
	case *repeated != "auto" && *repeated != "true" && *repeated != "false":
		return usagef("-repeatedPredicates must be auto, true or false, not %q", *repeated)
	}
	if err := firstErr(nonNegative("minWt", *minWt), nonNegative("penalty", *penalty),
		atLeast(0, map[string]int{"maxSteps": *maxSteps, "workers": *workers, "maxCandidates": *maxCands}), atLeast(-1, map[string]int{"refits": *refits}),
		checkDuration("timeLimit", *timeLimit), checkOutput("o", *outFile)); err != nil {
		return err
	}
	if err := so.Check(); err != nil {
		return usagef("%v", err)
	}
	if *seed != 0 {
		so.Seed = *seed
	}

	p := newProgress(e.stderr, *verbose)
	done := p.stage("parse")
	m, err := mln.LoadModel(splitList(*modelFiles)...)
	if err != nil {
		return err
	}
	var dbs []*mln.Database
	if *multi {
		for _, f := range splitList(*train) {
			db, err := mln.LoadDatabase(m, f)
			if err != nil {
				return err
			}
			dbs = append(dbs, db)
		}
	} else {
		db, err := mln.LoadDatabase(m, splitList(*train)...)
		if err != nil {
			return err
		}
		dbs = []*mln.Database{db}
	}
	if err := checkTraining(m, dbs, splitList(*train)); err != nil {
		return err
	}
	if err := m.Compile(); err != nil {
		return err
	}
	ne, err := preds(m, *nonEv, "ne")
	if err != nil {
		return usagef("%v", err)
	}
	done("%d predicates, %d clauses, %d databases", len(m.Preds), len(m.Clauses), len(dbs))

	s := d
	s.Model = m
	s.NonEvidence = ne
	s.Start = m.Clauses
	s.StartFromEmpty, s.FreeVars, s.SinglePredicate = *fromEmpty, *freeVars, *singlePred
	s.DomainScaled = *dsa
	dsaSet := false
	fs.Visit(func(f *flag.Flag) { dsaSet = dsaSet || f.Name == "dsa" })
	if !dsaSet && !*fromEmpty && hasKB(m) {
		// From a knowledge base, domain-size-aware clauses made the UW-CSE
		// search worse (results/dsa.md): only an explicit -dsa asks for them.
		s.DomainScaled = false
	}
	s.RepeatedPredicates = *repeated == "true"
	s.BeamSize, s.MinWt, s.Penalty = *beamSize, *minWt, *penalty
	s.MaxVars, s.MaxNumPredicates = *maxVars, *maxPreds
	s.BestGainUnchangedLimit, s.NumClausesReEval, s.ClausesPerStep = *unchanged, *reEval, *sfsK
	s.MaxSteps, s.TimeLimit, s.Workers, s.Refits = *maxSteps, *timeLimit, *workers, *refits
	s.MaxCandidates, s.Joins = *maxCands, false
	last := time.Time{}
	s.Progress = func(pr structure.Progress) {
		if time.Since(last) < time.Second && !*verbose {
			return
		}
		last = time.Now()
		what := "beam step"
		if search == structure.MethodSFS {
			what = "length"
		}
		gain := "–"
		if !math.IsNaN(pr.BestGain) {
			gain = fmt.Sprintf("%.4g", pr.BestGain)
		}
		round := ""
		if pr.RoundTotal > 0 {
			round = fmt.Sprintf(", round %d/%d, ETA %s", pr.Round, pr.RoundTotal, pr.ETA.Round(time.Second))
		}
		run := ""
		if pr.Searches > 0 {
			eta := "searches' ETA once one has ended"
			if pr.RunETA > 0 {
				eta = "searches' ETA " + pr.RunETA.Round(time.Second).String()
			}
			run = fmt.Sprintf("search %d of %d (%s in all, %s): ", pr.Search, pr.Searches, pr.RunElapsed.Round(time.Second), eta)
		}
		fmt.Fprintf(e.stderr, "marple: learnstruct %s: %s%s %d, %d clauses added, %d in the model (score %.4f), %d candidates scored (%.1f/s), best gain %s%s, %s elapsed\n",
			*method, run, what, pr.Length, pr.Step, pr.Clauses, pr.Score, pr.Scored, pr.Rate, gain, round, pr.Elapsed.Round(time.Second))
	}
	validated := *repeated == "auto" && tf.file == "" && len(dbs) > 1
	v := structure.DefaultValidation()
	v.Seed, v.Log, v.NoJoins, v.NoConstants = *seed, e.stderr, !*joins, !*constants
	ckPath := *outFile + ".checkpoint"
	if *resume && tf.file != "" {
		return usagef("-resume does not apply to -transfer")
	}
	if (*checkpoint || *resume) && tf.file == "" {
		flags, in, err := structFingerprint(fs, append(splitList(*modelFiles), splitList(*train)...))
		if err != nil {
			return err
		}
		ck := &structCheckpoint{Flags: flags, Inputs: in, Validated: validated}
		if *resume {
			c, err := readStructCheckpoint(ckPath, flags, in, validated)
			if err != nil {
				return err
			}
			ck.State = c.State
			steps := 0
			if c.State.Search != nil {
				steps = c.State.Search.Steps
			}
			fmt.Fprintf(e.stderr, "marple learnstruct: resuming from %s (phase %d, %d steps)\n", ckPath, c.State.Phase, steps)
			if validated {
				v.Resume = &ck.State
			} else {
				s.Resume = ck.State.Search
			}
		}
		if *checkpoint {
			v.Checkpoint = func(st *structure.ValidatedState) error {
				ck.State = *st
				return writeStructCheckpoint(ckPath, ck)
			}
			if !validated {
				s.Checkpoint = func(ss *structure.SearchState) error {
					return v.Checkpoint(&structure.ValidatedState{Search: ss})
				}
			}
		}
	}
	done = p.stage("learnstruct " + *method)
	var r *structure.Result
	var choice *structure.Choice
	if validated {
		fmt.Fprintf(e.stderr, "marple learnstruct: -repeatedPredicates auto: searching with and without repeated predicates, each of the %d training databases held out in turn\n", len(dbs))
		r, choice, err = structure.LearnValidated(ctx, search, dbs, s, so, v)
	} else {
		r, err = tf.learn(ctx, e, search, dbs, s, so)
	}
	write := func() error {
		out, err := r.Model(m)
		if err != nil {
			return err
		}
		return atomicfile.Write(*outFile, func(w io.Writer) error { return mln.WriteModel(w, out) })
	}
	if err != nil {
		if errors.Is(err, context.Canceled) && *checkpoint && r != nil {
			if choice != nil && choice.HeldOut > 0 {
				fmt.Fprintf(e.stderr, "marple learnstruct: interrupted during the validation searches, after %d candidates; writing the model so far, of the search without training database %d (%d clauses)\n", r.Scored, choice.HeldOut, len(r.Clauses))
			} else {
				fmt.Fprintf(e.stderr, "marple learnstruct: interrupted after %d candidates; writing the best model so far (%d clauses)\n", r.Scored, len(r.Clauses))
			}
			if werr := write(); werr != nil {
				return werr
			}
		}
		if errors.Is(err, context.Canceled) && !*checkpoint {
			fmt.Fprintln(e.stderr, "marple learnstruct: no model written; with -checkpoint an interrupted search writes the best model so far, and -resume continues it")
		}
		return err
	}
	done("%d candidates scored, %d steps", r.Scored, r.Steps)
	stop := ""
	if r.Stopped != "" {
		stop = " (stopped: " + r.Stopped + ")"
	}
	if choice != nil && choice.Folds > 0 {
		fmt.Fprintf(e.stderr, "marple learnstruct: %d clauses, score %.4f; %d candidates scored by the final search in %s (%.1f/s), %d by the validation searches; %s in all%s\n",
			len(r.Clauses), r.Score, r.Scored, r.Elapsed.Round(time.Millisecond), float64(r.Scored)/r.Elapsed.Seconds(), choice.Scored, time.Since(p.start).Round(time.Millisecond), stop)
	} else {
		fmt.Fprintf(e.stderr, "marple learnstruct: %d clauses, score %.4f, %d candidates scored in %s (%.1f/s); %s in all%s\n",
			len(r.Clauses), r.Score, r.Scored, r.Elapsed.Round(time.Millisecond), float64(r.Scored)/r.Elapsed.Seconds(), time.Since(p.start).Round(time.Millisecond), stop)
	}
	if err := write(); err != nil {
		return err
	}
	if *checkpoint || *resume {
		os.Remove(ckPath) // done: nothing to resume
	}
	return nil
}

// hasKB reports whether the model has a soft clause of two or more
// predicate literals (a knowledge base, not unit clauses only).
func hasKB(m *mln.Model) bool {
	for _, c := range m.Clauses {
		n := 0
		for _, l := range c.Lits {
			if l.Pred >= 0 {
				n++
			}
		}
		if n >= 2 && !c.Hard {
			return true
		}
	}
	return false
}
