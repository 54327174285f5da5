package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/infer/hybrid"
	"github.com/marple-mln/marple/mln"
)

// hybridRun holds what marple infer -hybrid needs.
type hybridRun struct {
	models, evidence []string
	out, query       string
	openWorld        string
	marginal         bool
	seed             uint64
	samples, burnIn  int
	contSamples      string
	verbose          bool
}

// runInferHybrid runs inference in a hybrid model: hybrid MaxWalkSAT for
// MAP (-m), hybrid MC-SAT for marginals (-ms). The -q and -ow predicates
// are open world, the others closed world; every real-valued atom without
// a value is a variable.
func runInferHybrid(ctx context.Context, e *env, r hybridRun) error {
	start := time.Now()
	p := newProgress(e.stderr, r.verbose)
	if r.contSamples != "" && !r.marginal {
		return usagef("-contSamples needs -ms")
	}
	m, err := mln.LoadModel(r.models...)
	if err != nil {
		return err
	}
	db, err := mln.LoadDatabase(m, r.evidence...)
	if err != nil {
		return err
	}
	query, err := m.PredIDs(r.query)
	if err != nil {
		return usagef("-q: %v", err)
	}
	open, err := m.PredIDs(r.openWorld)
	if err != nil {
		return usagef("-ow: %v", err)
	}
	done := p.stage("ground")
	prob, err := hybrid.Ground(ctx, m, db, hybrid.Options{Query: append(slices.Clone(query), open...)})
	if err != nil {
		return err
	}
	done("%d Boolean and %d continuous variables, %d ground features", len(prob.Bools), len(prob.Reals), prob.NumGround())
	if prob.HardFalse > 0 {
		fmt.Fprintf(e.stderr, "marple infer: warning: the evidence alone falsifies %d ground hard formulas (left out)\n", prob.HardFalse)
	}
	isQuery := make([]bool, len(m.Preds))
	realQuery := false
	for _, q := range query {
		isQuery[q] = true
		realQuery = realQuery || m.IsReal(q)
	}
	showReal := func(a hybrid.Atom) bool { return !realQuery || isQuery[a.Pred] }
	seed := r.seed
	if !r.marginal {
		done := p.stage("hybrid MaxWalkSAT")
		s, _, err := prob.MAP(ctx, hybrid.MAPOptions{Seed: seed})
		if err != nil && !errors.Is(err, hybrid.ErrHard) {
			return err
		}
		lw := prob.FormatLogWeight(s) // w may be beyond float64's range
		done("log-weight %s", lw)
		if h := prob.HardViolated(s.Bools); h > 0 {
			fmt.Fprintf(e.stderr, "marple infer: warning: the MAP state violates %d of %d ground hard formulas\n", h, prob.NumHard())
		}
		if err := atomicfile.Write(r.out, func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			for q := range m.Preds {
				if !isQuery[q] || m.IsReal(mln.PredID(q)) {
					continue
				}
				db.Atoms(mln.PredID(q), func(args []mln.ConstID, v mln.Truth) {
					if v == mln.True {
						fmt.Fprintln(bw, atomString(m, mln.PredID(q), args))
					}
				})
			}
			for i, a := range prob.Bools {
				if s.Bools[i] && isQuery[a.Pred] {
					fmt.Fprintln(bw, atomString(m, a.Pred, a.Args))
				}
			}
			for i, a := range prob.Reals {
				if showReal(a) {
					fmt.Fprintf(bw, "%s %s\n", atomString(m, a.Pred, a.Args), strconv.FormatFloat(s.Reals[i], 'g', 8, 64))
				}
			}
			return bw.Flush()
		}); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "marple infer -hybrid: %d Boolean and %d continuous variables, %d ground features, log-weight %s, %.2fs\n",
			len(prob.Bools), len(prob.Reals), prob.NumGround(), lw, time.Since(start).Seconds())
		return nil
	}
	opt := hybrid.SampleOptions{Seed: seed, Samples: r.samples, Burn: r.burnIn}
	var samplesOut *bufio.Writer
	if r.contSamples != "" {
		f, err := os.Create(r.contSamples)
		if err != nil {
			return err
		}
		defer f.Close()
		samplesOut = bufio.NewWriter(f)
		names := make([]string, len(prob.Reals))
		for i, a := range prob.Reals {
			names[i] = atomString(m, a.Pred, a.Args)
		}
		fmt.Fprintf(samplesOut, "# %s\n", strings.Join(names, " "))
		buf := make([]byte, 0, 64)
		opt.Each = func(s *hybrid.State) {
			for i, v := range s.Reals {
				if i > 0 {
					samplesOut.WriteByte(' ')
				}
				buf = strconv.AppendFloat(buf[:0], v, 'g', 8, 64)
				samplesOut.Write(buf)
			}
			samplesOut.WriteByte('\n')
		}
	}
	done = p.stage("hybrid MC-SAT")
	res, err := prob.Sample(ctx, opt)
	if err != nil {
		return err
	}
	done("%d samples", opt.Samples)
	if samplesOut != nil {
		if err := samplesOut.Flush(); err != nil {
			return err
		}
	}
	if err := atomicfile.Write(r.out, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		for i, a := range prob.Bools {
			if isQuery[a.Pred] {
				fmt.Fprintf(bw, "%s %s\n", atomString(m, a.Pred, a.Args), strconv.FormatFloat(res.True[i], 'g', 6, 64))
			}
		}
		for i, a := range prob.Reals {
			if showReal(a) {
				fmt.Fprintf(bw, "%s %s %s\n", atomString(m, a.Pred, a.Args),
					strconv.FormatFloat(res.Mean[i], 'g', 8, 64), strconv.FormatFloat(res.Variance[i], 'g', 6, 64))
			}
		}
		return bw.Flush()
	}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "marple infer -hybrid -ms: %d Boolean and %d continuous variables, %d ground features, %d samples, %.2fs\n",
		len(prob.Bools), len(prob.Reals), prob.NumGround(), opt.Samples, time.Since(start).Seconds())
	return nil
}
