package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

// trainFlags are the flags learn and learnstruct share.
type trainFlags struct {
	modelFiles, outFile, train, nonEv, exType       *string
	passes, every                                   *int
	shuffle, noAverage, checkpoint, resume, verbose *bool
	seed                                            *int64
	lambda, eta, delta                              *float64
	wf                                              worldFlags
	ef                                              engineFlags
	addUnits                                        bool // learn -addUnitClauses: learn_alchemy.go
	addedUnits                                      int  // the unit clauses it added (the model's last formulas)
	softenHard                                      bool // learn -gAlchemy: hard formulas learned as soft (learn_alchemy.go)
	softened                                        []int
	clauseGroups                                    []clauseGroup // learn -dClauseWeights: learn_alchemy.go
}

// newTrainFlags returns the flag set of a training command with the
// shared flags declared; exTypeHelp documents -exampleType, checkpointHelp
// -checkpoint.
func newTrainFlags(e *env, name, synopsis, exTypeHelp, checkpointHelp string) (*flag.FlagSet, *trainFlags) {
	fs := newFlagSet(e, name, synopsis)
	f := &trainFlags{}
	f.register(fs, exTypeHelp, checkpointHelp)
	return fs, f
}

// register declares the shared flags on fs.
func (f *trainFlags) register(fs *flag.FlagSet, exTypeHelp, checkpointHelp string) {
	f.modelFiles = fs.String("i", "", "input model file(s) (.mln), comma-separated")
	f.outFile = fs.String("o", "", "output model file (required)")
	f.train = fs.String("t", "", "training database file(s) (.db), comma-separated")
	f.nonEv = fs.String("ne", "", "non-evidence (query) predicates, comma-separated")
	f.exType = fs.String("exampleType", "auto", exTypeHelp)
	ada := learn.DefaultAdaGradFB()
	f.lambda = fs.Float64("lambda", ada.Lambda, "adagrad: l1 regularisation λ")
	f.eta = fs.Float64("eta", ada.Eta, "adagrad: learning rate η")
	f.delta = fs.Float64("delta", ada.Delta, "adagrad: δ")
	f.passes = fs.Int("passes", 1, "passes over the training examples")
	f.shuffle = fs.Bool("shuffle", false, "visit the examples in a random order drawn from -seed")
	f.noAverage = fs.Bool("noAverage", false, "keep the last weights instead of the average")
	f.ef.registerMAP(fs, "MAP engine inside training")
	f.seed = fs.Int64("seed", 1, "random seed")
	f.checkpoint = fs.Bool("checkpoint", false, checkpointHelp)
	f.every = fs.Int("checkpointEvery", 100, "with -checkpoint: save the learner's state every this many examples")
	f.resume = fs.Bool("resume", false, "continue the run whose -checkpoint state is saved beside -o (OUT.checkpoint)")
	f.verbose = fs.Bool("v", false, "report every stage on stderr")
	f.wf.register(false, fs)
}

// check validates the shared flags after parsing.
func (f *trainFlags) check() error {
	if err := firstErr(needModel(*f.modelFiles), f.wf.check(), f.ef.check(), atLeast(1, map[string]int{"passes": *f.passes}),
		nonNegative("lambda", *f.lambda), positive("eta", *f.eta), nonNegative("delta", *f.delta), checkOutput("o", *f.outFile)); err != nil {
		return err
	}
	switch {
	case *f.outFile == "":
		return usagef("no output file: give -o learned.mln")
	case *f.train == "":
		return usagef("no training data: give -t a.db,b.db")
	case *f.every < 1:
		return usagef("-checkpointEvery must be positive")
	}
	return nil
}

// load reads the model and the training databases (one per file with
// multi, else merged), compiles the model and resolves the grounding
// options with -ne as the query predicates.
func (f *trainFlags) load(ctx context.Context, e *env, p *progress, multi bool) (*mln.Model, []*mln.Database, ground.Options, error) {
	done := p.stage("parse")
	m, err := f.wf.loadModel(p.w, splitList(*f.modelFiles), splitList(*f.train))
	if err != nil {
		return nil, nil, ground.Options{}, err
	}
	files := [][]string{splitList(*f.train)}
	if multi {
		files = nil
		for _, file := range splitList(*f.train) {
			files = append(files, []string{file})
		}
	}
	var dbs []*mln.Database
	for _, fs := range files {
		db, err := mln.LoadDatabase(m, fs...)
		if err != nil {
			return nil, nil, ground.Options{}, err
		}
		dbs = append(dbs, db)
	}
	if err := checkTraining(m, dbs, splitList(*f.train)); err != nil {
		return nil, nil, ground.Options{}, err
	}
	if len(m.ProbConstraints) > 0 {
		return nil, nil, ground.Options{}, fmt.Errorf("%s: probability constraints and soft evidence (pracmln's P(F) = p, R(F) = p, \"0.6 A\") are fitted by infer, not learned: learn without them, then add them to the learned model", m.ProbConstraints[0].Pos)
	}
	if fx := m.FixedFormula(); fx != nil {
		return nil, nil, ground.Options{}, fmt.Errorf("%s: the weight of this formula is fixed (Tuffy's '@', the prior of soft evidence, or RockIt's weight taken from the evidence); learning with fixed weights is not supported", fx.Pos)
	}
	printWarnings(e.stderr, dbs...)
	if f.softenHard {
		f.softened = softenHard(m)
	}
	if err := m.CompileContext(ctx); err != nil {
		return nil, nil, ground.Options{}, err
	}
	if f.addUnits {
		if f.addedUnits, err = addUnitClauses(m); err != nil {
			return nil, nil, ground.Options{}, err
		}
	}
	done("%d formulas, %d clauses", len(m.Formulas), len(m.Clauses))
	f.wf.query = *f.nonEv
	if f.wf.engine, err = engines.Memory(*f.ef.solver); err != nil {
		return nil, nil, ground.Options{}, err
	}
	gopt, err := f.wf.groundOptions(m, e.stderr)
	if err != nil {
		return nil, nil, ground.Options{}, usagef("%v", err)
	}
	return m, dbs, gopt, nil
}

// exampleOptions turns -exampleType into learn.ExampleOptions; a fall-back
// to the whole grounding is reported on stderr when the type was named.
func (f *trainFlags) exampleOptions(e *env, p *progress, m *mln.Model, gopt ground.Options) (learn.ExampleOptions, error) {
	opt := learn.ExampleOptions{Query: gopt.Query, Ground: gopt}
	switch *f.exType {
	case "auto":
	case "none", "":
		opt.Split = learn.SplitComponents
	default:
		t, ok := m.Type(*f.exType)
		if !ok {
			return opt, usagef("-exampleType: unknown type %q", *f.exType)
		}
		opt.Split, opt.Type = learn.SplitType, t.ID
	}
	opt.Log = func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if opt.Split == learn.SplitType && strings.HasPrefix(msg, "grounding the whole") {
			fmt.Fprintf(e.stderr, "marple: learn: %s\n", msg)
			return
		}
		p.logf("learn: %s", msg)
	}
	return opt, nil
}

// settings returns the online driver's settings with a progress line on
// stderr (extra adds to it), and the checkpoint file's state when resuming.
//
// The MAP engine of every inference inside learning is built from the
// inference flags (-solver, -workers, -timeLimit, -mwsMaxSteps, -tries,
// -prove, -cpi) through package infer/engines.
func (f *trainFlags) settings(e *env, cmd string, extra func() string) (learn.Settings, error) {
	lastReport := time.Now()
	solver, err := f.ef.mapEngine(f.wf.workers, nil)
	if err != nil {
		return learn.Settings{}, err
	}
	s := learn.Settings{
		Solver:    watchedMAP{solver, e.stderr, cmd},
		Loss:      learn.Hamming,
		Passes:    *f.passes,
		Shuffle:   *f.shuffle,
		Seed:      *f.seed,
		NoAverage: *f.noAverage,
		Progress: func(pr learn.Progress) {
			if time.Since(lastReport) < time.Second && pr.Done != pr.Total {
				return
			}
			lastReport = time.Now()
			if pr.Elapsed < time.Second && !*f.verbose {
				return
			}
			fmt.Fprintf(e.stderr, "marple: %s: pass %d, %d/%d examples, %.0f examples/s, loss %.3f%s, ETA %s\n",
				cmd, pr.Pass+1, pr.Done, pr.Total, pr.Rate, pr.Loss, extra(), pr.ETA.Round(time.Second))
		},
	}
	path := *f.outFile + ".checkpoint"
	if *f.checkpoint {
		s.CheckpointEvery = *f.every
		s.Checkpoint = func(c *learn.Checkpoint) error {
			return atomicfile.Write(path, func(w io.Writer) error { return c.Write(w) })
		}
	}
	if *f.resume {
		c, err := learn.ReadCheckpointFile(path)
		if err != nil {
			return s, err
		}
		s.Resume = c
		fmt.Fprintf(e.stderr, "marple: %s: resuming after %d examples from %s\n", cmd, c.Steps, path)
	}
	return s, nil
}

// writeModel writes m to path atomically.
func writeModel(path string, m *mln.Model) error {
	return atomicfile.Write(path, func(w io.Writer) error { return mln.WriteModel(w, m) })
}

// finish writes the model when learning succeeded, or, with -checkpoint,
// when it was interrupted after learning something (learned units: examples
// or iterations); the weights are checked first.
func (f *trainFlags) finish(e *env, cmd string, m *mln.Model, err error, learned int, unit string) error {
	if err == nil {
		if err := checkWeights(m); err != nil {
			return err
		}
		write := func(w io.Writer) error { return mln.WriteModel(w, m) }
		if f.clauseGroups != nil {
			write = func(w io.Writer) error { return writeClauseWeights(w, m, f.clauseGroups) }
		}
		if err := atomicfile.Write(*f.outFile, write); err != nil {
			return err
		}
		if *f.checkpoint {
			os.Remove(*f.outFile + ".checkpoint") // done: nothing to resume
		}
		return nil
	}
	if *f.checkpoint && errors.Is(err, context.Canceled) {
		if werr := writeCheckpoint(e.stderr, cmd, *f.outFile, m, learned, unit); werr != nil {
			return werr
		}
	}
	return err
}
