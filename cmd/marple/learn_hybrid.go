package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/infer/hybrid"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

// hybridFlags are the flags of marple learn -hybrid.
type hybridFlags struct {
	multi     bool
	maxMargin bool // -method mm
	iters     int
	samples   int
	priorSD   float64
	c         string
	epsilon   float64
	holdout   float64
}

// check chooses the learner from -method (dcll, the default, or mm) and
// rejects the flags that do not apply to it.
func (hf *hybridFlags) check(fs *flag.FlagSet, method string, gen, disc bool) error {
	var set []string
	fs.Visit(func(f *flag.Flag) { set = append(set, f.Name) })
	if gen {
		return usagef("-g does not apply to -hybrid: give -method dcll or mm")
	}
	if disc && slices.Contains(set, "method") && method != "dcll" {
		return usagef("-d means -method dcll, not %s", method)
	}
	if !slices.Contains(set, "method") {
		method = "dcll"
	}
	common := []string{"hybrid", "i", "o", "t", "ne", "multipleDatabases", "seed", "v", "method", "d", "maxIter"}
	own := map[string][]string{"dcll": {"numSamples", "priorStdDev"}, "mm": {"C", "epsilon", "tuneHoldout"}}
	if _, ok := own[method]; !ok {
		return usagef("-method must be dcll (the default) or mm with -hybrid, not %q", method)
	}
	other := map[string]string{"dcll": "mm", "mm": "dcll"}[method]
	for _, name := range set {
		switch {
		case slices.Contains(common, name) || slices.Contains(own[method], name):
		case slices.Contains(own[other], name):
			return usagef("-%s applies to -hybrid -method %s, not %s", name, other, method)
		default:
			return usagef("-%s does not apply to -hybrid", name)
		}
	}
	hf.maxMargin = method == "mm"
	if hf.epsilon < 0 || hf.iters < 0 {
		return usagef("-epsilon and -maxIter must not be negative")
	}
	if hf.holdout < 0 || hf.holdout >= 1 {
		return usagef("-tuneHoldout must be in [0, 1)")
	}
	return nil
}

// runLearnHybrid learns the weights of a hybrid model (marple learn
// -hybrid): the conditional log-likelihood of the -ne atoms given the rest
// of the training data, with expectations from hybrid MC-SAT, or with
// -method mm their max-margin weights.
func runLearnHybrid(ctx context.Context, e *env, tf *trainFlags, hf hybridFlags) error {
	multi, iters, samples, priorSD := hf.multi, hf.iters, hf.samples, hf.priorSD
	start := time.Now()
	if *tf.nonEv == "" {
		return usagef("-hybrid needs the query predicates: give -ne")
	}
	if err := tf.wf.alchemyOnly("-hybrid"); err != nil {
		return err
	}
	if *tf.outFile == "" {
		return usagef("no output file: give -o learned.mln")
	}
	if err := checkOutput("o", *tf.outFile); err != nil {
		return err
	}
	m, err := mln.LoadModel(splitList(*tf.modelFiles)...)
	if err != nil {
		return err
	}
	files := splitList(*tf.train)
	if len(files) == 0 {
		return usagef("no training data: give -t a.db")
	}
	var dbs []*mln.Database
	if multi {
		for _, f := range files {
			db, err := mln.LoadDatabase(m, f)
			if err != nil {
				return err
			}
			dbs = append(dbs, db)
		}
	} else {
		db, err := mln.LoadDatabase(m, files...)
		if err != nil {
			return err
		}
		dbs = append(dbs, db)
	}
	query, err := m.PredIDs(*tf.nonEv)
	if err != nil {
		return usagef("-ne: %v", err)
	}
	p := newProgress(e.stderr, *tf.verbose)
	if hf.maxMargin {
		return learnHybridMaxMargin(ctx, e, tf, hf, p, m, dbs, query, start)
	}
	last := time.Now()
	w, err := hybrid.Learn(ctx, m, dbs, hybrid.LearnOptions{
		Query: query, Iterations: iters, Samples: samples, Sigma: priorSD, Seed: uint64(*tf.seed),
		Log: func(it int, change float64) {
			// Every iteration with -v, else every 5 s; the summary line
			// on stdout closes the run.
			if *tf.verbose || time.Since(last) >= 5*time.Second {
				last = time.Now()
				fmt.Fprintf(e.stderr, "marple: learn (hybrid): iteration %d, largest weight change %.4g, %s elapsed\n", it, change, time.Since(start).Round(time.Second))
			}
		},
	})
	if err != nil {
		return err
	}
	if err := atomicfile.Write(*tf.outFile, func(out io.Writer) error { return hybrid.WriteModel(out, m, w) }); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "marple learn -hybrid: %d weights, %.2fs\n", len(w), time.Since(start).Seconds())
	return nil
}

// learnHybridMaxMargin runs marple learn -hybrid -method mm: -C auto
// chooses C as the Boolean max-margin learner does (hybrid.TuneMaxMargin
// over learn.CGrid).
func learnHybridMaxMargin(ctx context.Context, e *env, tf *trainFlags, hf hybridFlags, p *progress, m *mln.Model, dbs []*mln.Database, query []mln.PredID, start time.Time) error {
	c, cAuto, err := autoFloat("C", hf.c, 0)
	if err != nil {
		return err
	}
	if err := checkFinite(map[string]float64{"C": c, "epsilon": hf.epsilon}); err != nil {
		return err
	}
	if c < 0 {
		return usagef("-C must not be negative")
	}
	if !cAuto && hf.holdout > 0 {
		return usagef("-tuneHoldout applies to -C auto only")
	}
	opt := hybrid.MaxMarginOptions{
		Query: query, C: c, Epsilon: hf.epsilon, MaxIter: hf.iters, MAP: hybrid.MAPOptions{Seed: uint64(*tf.seed)},
		Log: func(it int, loss, viol float64) {
			if *tf.verbose {
				fmt.Fprintf(e.stderr, "marple: learn (hybrid mm): round %d, mean loss %.4g, violation %.4g\n", it, loss, viol)
			}
		},
	}
	var res *hybrid.MaxMarginResult
	if cAuto {
		done := p.stage("tune C (hybrid mm)")
		var f1s []float64
		res, c, f1s, err = hybrid.TuneMaxMargin(ctx, m, dbs, opt, learn.CGrid, hf.holdout, uint64(*tf.seed))
		if err != nil {
			return err
		}
		var desc strings.Builder
		for i, v := range learn.CGrid {
			if i > 0 {
				desc.WriteString(", ")
			}
			fmt.Fprintf(&desc, "%g: %.2f", v, f1s[i])
		}
		on := "the training data"
		if hf.holdout > 0 {
			on = fmt.Sprintf("%g of the -t files held out (then learned on all)", hf.holdout)
		}
		fmt.Fprintf(e.stderr, "marple: learn: C auto: chose C = %g by F1 on %s (%s)\n", c, on, desc.String())
		done("C = %g", c)
	} else {
		done := p.stage("learn (hybrid mm)")
		if res, err = hybrid.LearnMaxMargin(ctx, m, dbs, opt); err != nil {
			return err
		}
		done("%d weights", len(res.Weights))
	}
	if !res.Converged {
		fmt.Fprintf(e.stderr, "marple learn: warning: max-margin learning did not converge in %d rounds (the last plane's violation %.4g is above -epsilon)\n", res.Iterations, res.Violation)
	}
	if err := atomicfile.Write(*tf.outFile, func(out io.Writer) error { return hybrid.WriteModel(out, m, res.Weights) }); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "marple learn -hybrid -method mm: C %g, %d weights, %d rounds, %d planes, slack %.4g, converged %v, %.2fs\n",
		c, len(res.Weights), res.Iterations, res.Planes, res.Slack, res.Converged, time.Since(start).Seconds())
	return nil
}
