package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/infer/hybrid"
	"github.com/marple-mln/marple/mln"
)

// runLearnHybrid learns the weights of a hybrid model (marple learn
// -hybrid): the conditional log-likelihood of the -ne atoms given the rest
// of the training data, with expectations from hybrid MC-SAT.
func runLearnHybrid(ctx context.Context, e *env, tf *trainFlags, multi bool, iters, samples int, priorSD float64) error {
	start := time.Now()
	if *tf.nonEv == "" {
		return usagef("-hybrid needs the query predicates: give -ne")
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
	done := p.stage("learn (hybrid)")
	w, err := hybrid.Learn(ctx, m, dbs, hybrid.LearnOptions{
		Query: query, Iterations: iters, Samples: samples, Sigma: priorSD, Seed: uint64(*tf.seed),
		Log: func(it int, change float64) {
			if *tf.verbose {
				fmt.Fprintf(e.stderr, "marple: learn (hybrid): iteration %d, largest weight change %.4g\n", it, change)
			}
		},
	})
	if err != nil {
		return err
	}
	done("%d weights", len(w))
	if err := atomicfile.Write(*tf.outFile, func(out io.Writer) error { return hybrid.WriteModel(out, m, w) }); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "marple learn -hybrid: %d weights, %.2fs\n", len(w), time.Since(start).Seconds())
	return nil
}
