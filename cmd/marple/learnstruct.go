package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/marple-mln/marple/internal/atomicfile"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/structure"
)

const learnstructSynopsis = `-i model.mln -o learned.mln -t train.db[,more.db] -ne Pred -modes x.modes [flags]

Structure learning (Alchemy's learnstruct). -method osl is OSL, the online
max-margin structure learner of Huynh & Mooney (ECML 2011): for each example (one constant of -exampleType and its atoms, ground
when the learner reaches it) it predicts with exact MPE; from every query
atom the prediction misses it searches paths of true atoms guided by the
mode declarations (-modes: modep(recall, Pred(+,-,.)) and modec(Pred(c,v))
lines), turns each path into two clauses and adds those with at least
-minCountDiff more true groundings in the truth than in the prediction; all
weights are learned with AdaGrad forward-backward and l1 (-lambda, -eta,
-delta). The output is the input model with the new clauses and the
averaged weights. -method beam or sfs (the default without -modes) is batch
structure learning: see "marple learnstruct -method beam -h".`

func runLearnstruct(ctx context.Context, e *env, args []string) error {
	if m := learnstructMethod(args); m == "beam" || m == "sfs" {
		return runLearnstructBatch(ctx, e, args) // beam, sfs: learnstruct_batch.go
	}
	fs := newFlagSet(e, "learnstruct", learnstructSynopsis)
	var (
		modelFiles = fs.String("i", "", "input model file(s) (.mln), comma-separated; may hold declarations only")
		outFile    = fs.String("o", "", "output model file (required)")
		train      = fs.String("t", "", "training database file(s) (.db), comma-separated (merged)")
		nonEv      = fs.String("ne", "", "non-evidence (query) predicates, comma-separated")
		exType     = fs.String("exampleType", "auto", "one example per constant of this type; auto: the query predicates' argument type with the most constants")
		method     = fs.String("method", "osl", "structure learner: osl")
		modesFile  = fs.String("modes", "", "mode declarations file (required)")
		minDiff    = fs.Float64("minCountDiff", structure.DefaultMinCountDiff, "least difference in true groundings, truth minus prediction, for a new clause")
		maxLen     = fs.Int("maxLen", structure.DefaultMaxLen, "maximum number of atoms in a path")
		lambda     = fs.Float64("lambda", 0.001, "l1 regularisation λ")
		eta        = fs.Float64("eta", 1, "learning rate η")
		delta      = fs.Float64("delta", 1, "δ")
		passes     = fs.Int("passes", 1, "passes over the training examples")
		shuffle    = fs.Bool("shuffle", false, "visit the examples in a random order drawn from -seed")
		noAverage  = fs.Bool("noAverage", false, "keep the last weights instead of the average")
		solver     = fs.String("solver", "exact", "MAP engine inside training: exact, lp or mws")
		seed       = fs.Int64("seed", 1, "random seed")
		checkpoint = fs.Bool("checkpoint", false, "on Ctrl-C, still write the clauses and weights learned so far")
		verbose    = fs.Bool("v", false, "report every stage on stderr")
	)
	var wf worldFlags
	wf.register(false, fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *outFile == "":
		return usagef("no output file: give -o learned.mln")
	case *train == "":
		return usagef("no training data: give -t a.db,b.db")
	case *nonEv == "":
		return usagef("no non-evidence predicates: give -ne Pred1,Pred2")
	case *modesFile == "":
		return usagef("no mode declarations: give -modes file.modes")
	case *method != "osl":
		return usagef("-method must be beam, sfs or osl, not %q", *method)
	case *minDiff <= 0 || *maxLen < 2 || *passes < 0:
		return usagef("-minCountDiff must be positive, -maxLen at least 2, -passes not negative")
	case !(*lambda >= 0) || !(*eta > 0) || !(*delta >= 0):
		return usagef("-lambda and -delta must not be negative, -eta must be positive")
	}
	switch *solver {
	case "exact", "lp", "mws":
	default:
		return usagef("-solver must be exact, lp or mws, not %q", *solver)
	}

	p := newProgress(e.stderr, *verbose)
	done := p.stage("parse")
	m, err := mln.LoadModel(splitList(*modelFiles)...)
	if err != nil {
		return err
	}
	db, err := mln.LoadDatabase(m, splitList(*train)...)
	if err != nil {
		return err
	}
	if err := m.Compile(); err != nil {
		return err
	}
	modes, err := structure.LoadModes(m, *modesFile)
	if err != nil {
		return err
	}
	done("%d formulas, %d clauses", len(m.Formulas), len(m.Clauses))
	wf.query = *nonEv
	gopt, err := wf.groundOptions(m, e.stderr)
	if err != nil {
		return usagef("%v", err)
	}
	var exT mln.TypeID
	if *exType == "auto" {
		t, ok := largestQueryType(m, gopt.Query)
		if !ok {
			return fmt.Errorf("learnstruct: the query predicates have no argument to split the examples by; give -exampleType")
		}
		exT = t
	} else {
		t, ok := m.Type(*exType)
		if !ok {
			return usagef("-exampleType: unknown type %q", *exType)
		}
		exT = t.ID
	}
	src, err := learn.NewPartitionSource(m, db, gopt.Query, exT, gopt)
	if err != nil {
		return fmt.Errorf("learnstruct: %w", err)
	}
	p.logf("learnstruct: %d examples, one per constant of type %s", src.Len(), m.Types[exT].Name)

	lastReport := time.Now()
	o := &structure.OSL{Modes: modes, MaxLen: *maxLen, MinCountDiff: *minDiff,
		Weights: &learn.AdaGradFB{Lambda: *lambda, Eta: *eta, Delta: *delta}}
	done = p.stage("learn OSL")
	before := len(m.Formulas)
	st, err := o.Learn(ctx, src, learn.Settings{
		Solver:    mapSolver(*solver, *seed),
		Loss:      learn.Hamming,
		Passes:    *passes,
		Shuffle:   *shuffle,
		Seed:      *seed,
		NoAverage: *noAverage,
		Progress: func(pr learn.Progress) {
			if time.Since(lastReport) < time.Second && pr.Done != pr.Total {
				return
			}
			lastReport = time.Now()
			if pr.Elapsed < time.Second && !*verbose {
				return
			}
			fmt.Fprintf(e.stderr, "marple: learnstruct: pass %d, %d/%d examples, %.0f examples/s, loss %.3f, %d clauses added, ETA %s\n",
				pr.Pass+1, pr.Done, pr.Total, pr.Rate, pr.Loss, len(m.Formulas)-before, pr.ETA.Round(time.Second))
		},
	})
	write := func() error {
		return atomicfile.Write(*outFile, func(w io.Writer) error { return mln.WriteModel(w, m) })
	}
	if err != nil {
		if errors.Is(err, context.Canceled) && *checkpoint && st != nil {
			fmt.Fprintf(e.stderr, "marple learnstruct: interrupted after %d examples; writing the model so far\n", st.Steps)
			if werr := write(); werr != nil {
				return werr
			}
		}
		return err
	}
	done("%d examples, %d clauses tried, %d added, %d of %d weights non-zero", st.Steps, st.Candidates, st.Added, st.NonZero, len(m.Weights))
	fmt.Fprintf(e.stderr, "marple learnstruct: %d clauses added (%d tried), %d non-zero weights\n", st.Added, st.Candidates, st.NonZero)
	return write()
}
