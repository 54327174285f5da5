package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/marple-mln/marple/learn"
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
averaged weights. With -checkpoint the run's state is saved to
OUT.checkpoint every -checkpointEvery examples; after a crash or kill, the
same command with -resume continues to the model the uninterrupted run
learns. -method beam or sfs (the default without -modes) is batch
structure learning: see "marple learnstruct -method beam -h".`

func runLearnstruct(ctx context.Context, e *env, args []string) error {
	switch m := learnstructMethod(args); m {
	case "beam", "sfs":
		return runLearnstructBatch(ctx, e, args) // beam, sfs: learnstruct_batch.go
	case "osl":
	default:
		return usagef("-method must be beam, sfs or osl, not %q", m)
	}
	fs, tf := newTrainFlags(e, "learnstruct", learnstructSynopsis,
		"one example per constant of this type; auto: the query predicates' argument type with the most constants",
		"save the run's state (the clauses added, the learner's state) every -checkpointEvery examples (OUT.checkpoint, for -resume); on Ctrl-C, still write the clauses and weights learned so far")
	var (
		method    = fs.String("method", "osl", "structure learner: osl")
		modesFile = fs.String("modes", "", "mode declarations file (required)")
		minDiff   = fs.Float64("minCountDiff", structure.DefaultMinCountDiff, "least difference in true groundings, truth minus prediction, for a new clause")
		maxLen    = fs.Int("maxLen", structure.DefaultMaxLen, "maximum number of atoms in a path")
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *method != "osl" {
		return usagef("-method must be beam, sfs or osl, not %q", *method)
	}
	if err := firstErr(tf.check(), positive("minCountDiff", *minDiff), atLeast(2, map[string]int{"maxLen": *maxLen})); err != nil {
		return err
	}
	switch {
	case len(splitList(*tf.nonEv)) == 0:
		return usagef("no non-evidence predicates: give -ne Pred1,Pred2")
	case *modesFile == "":
		return usagef("no mode declarations: give -modes file.modes")
	}
	p := newProgress(e.stderr, *tf.verbose)
	m, dbs, gopt, err := tf.load(ctx, e, p, false)
	if err != nil {
		return err
	}
	modes, err := structure.LoadModes(m, *modesFile)
	if err != nil {
		return err
	}
	// The flags that shape the result and the inputs' digests: a resumed
	// run must have the same.
	flags, inputs, err := structFingerprint(fs, append(append(splitList(*tf.modelFiles), splitList(*tf.train)...), *modesFile))
	if err != nil {
		return err
	}
	delete(flags, "checkpointEvery")
	ckPath := *tf.outFile + ".checkpoint"
	if *tf.resume {
		if _, err := os.Stat(ckPath); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("-resume: no checkpoint %s to resume from", ckPath)
		}
	}

	eopt, err := tf.exampleOptions(e, p, m, gopt)
	if err != nil {
		return err
	}
	var why string
	log := eopt.Log
	eopt.Log = func(format string, args ...any) { why = fmt.Sprintf(format, args...); log(format, args...) }
	src, _, err := learn.NewExamples(ctx, m, dbs, eopt)
	if err != nil {
		return err
	}
	psrc, ok := src.(*learn.PartitionSource)
	if !ok {
		return fmt.Errorf("learnstruct: the examples must be ground one at a time (give -exampleType): %s", why)
	}

	o := &structure.OSL{Modes: modes, MaxLen: *maxLen, MinCountDiff: *minDiff,
		Weights: &learn.AdaGradFB{Lambda: *tf.lambda, Eta: *tf.eta, Delta: *tf.delta}}
	before := len(m.Formulas)
	settings, err := tf.settings(e, "learnstruct", func() string { return fmt.Sprintf(", %d clauses added", len(m.Formulas)-before) })
	if err != nil {
		return err
	}
	if save := settings.Checkpoint; save != nil {
		meta := runMeta(flags, inputs)
		settings.Checkpoint = func(c *learn.Checkpoint) error {
			c.Meta = meta
			return save(c)
		}
	}
	if c := settings.Resume; c != nil {
		if err := sameRunMeta(ckPath, flags, inputs, c.Meta); err != nil {
			return err
		}
	}
	done := p.stage("learn OSL")
	st, err := o.Learn(ctx, psrc, settings)
	if err == nil {
		done("%d examples, %d clauses tried, %d added, %d of %d weights non-zero", st.Steps, st.Candidates, st.Added, st.NonZero, len(m.Weights))
		fmt.Fprintf(e.stderr, "marple learnstruct: %d clauses added (%d tried), %d non-zero weights\n", st.Added, st.Candidates, st.NonZero)
	}
	learned := 0
	if st != nil {
		learned = st.Steps
	}
	return tf.finish(e, "learnstruct", m, err, learned, "example")
}
