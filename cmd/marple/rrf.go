package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/rrf"
)

// onlyFlags refuses the flags set on fs that are not in allowed.
func onlyFlags(fs *flag.FlagSet, what string, allowed ...string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && !slices.Contains(allowed, f.Name) {
			err = usagef("-%s does not apply to %s", f.Name, what)
		}
	})
	return err
}

// runInferRRF runs marple infer -rrf: Gibbs marginals (-p, the default) or
// ICM (-m) on a recursive random field (package rrf).
func runInferRRF(ctx context.Context, e *env, fs *flag.FlagSet, cfg rrf.InferConfig, out string) error {
	if err := onlyFlags(fs, "-rrf", "rrf", "i", "e", "r", "q", "m", "p", "seed", "numChains", "numSamples", "burnIn", "v"); err != nil {
		return err
	}
	start := time.Now()
	cfg.Warn = e.stderr
	cfg.Gibbs.Progress = prefixed{e.stderr, "marple: "}
	cfg.ICM.Progress = prefixed{e.stderr, "marple: "}
	res, err := rrf.Infer(ctx, cfg)
	if err != nil {
		return err
	}
	if res.Marginals != nil && !res.Marginals.Converged() {
		fmt.Fprintf(e.stderr, "marple infer: warning: the Gibbs chains did not converge: %d atoms with R-hat above %g (max %.3f); raise -numSamples\n",
			res.Marginals.Diag.NumAbove, res.Marginals.Diag.Threshold, res.Marginals.Diag.MaxRhat)
	}
	if res.MAP != nil && !res.MAP.Converged {
		fmt.Fprintf(e.stderr, "marple infer: warning: ICM reached its sweep limit before a local optimum\n")
	}
	if err := atomicfile.Write(out, res.Write); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "marple infer: %s, %.2fs\n", res.Summary(), time.Since(start).Seconds())
	return nil
}

// runLearnRRF runs marple learn -rrf: pseudo-likelihood learning of every
// weight of a recursive random field, nested ones included.
func runLearnRRF(ctx context.Context, e *env, fs *flag.FlagSet, cfg rrf.LearnConfig, out string) error {
	if err := onlyFlags(fs, "-rrf", "rrf", "i", "o", "t", "ne", "multipleDatabases", "priorStdDev", "noPrior", "maxIter", "gNoEqualPredWt", "g", "v", "seed"); err != nil {
		return err
	}
	if out == "" {
		return usagef("no output file: give -o learned.mln")
	}
	start := time.Now()
	cfg.Options.Progress = prefixed{e.stderr, "marple: "}
	run, err := rrf.LearnModel(ctx, cfg)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(out, run.Write); err != nil {
		return err
	}
	r := run.Result
	if !r.Converged {
		hint := ""
		if r.Status == "IterationLimit" {
			hint = "; raise -maxIter"
		}
		fmt.Fprintf(e.stderr, "marple learn: warning: L-BFGS stopped before converging (%s)%s\n", r.Status, hint)
	}
	fmt.Fprintf(e.stdout, "marple learn: recursive random field, %d weights, %d training atoms, pseudo-log-likelihood %.6g, %d L-BFGS iterations (%s%s), %.2fs\n",
		len(r.Weights), run.Atoms, r.PLL, r.Iterations, r.Status, notConverged(r.Converged), time.Since(start).Seconds())
	return nil
}

// rrfInferConfig is the configuration of marple infer -rrf from its flags.
func rrfInferConfig(models, evidence, query []string, gibbs bool, samples, burnIn, chains int, seed int64) rrf.InferConfig {
	if burnIn == 0 {
		burnIn = -1 // rrf: none
	}
	return rrf.InferConfig{Models: models, Evidence: evidence, Query: query, MAP: !gibbs,
		Gibbs: rrf.GibbsOptions{Samples: samples, BurnIn: burnIn, Chains: chains, Seed: seed},
		ICM:   rrf.ICMOptions{Seed: seed}}
}

// notConverged is what a summary adds when learning did not converge.
func notConverged(ok bool) string {
	if ok {
		return ""
	}
	return ", NOT CONVERGED"
}
