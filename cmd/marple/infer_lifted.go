package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/infer/lbg"
	"github.com/marple-mln/marple/mln"
)

// liftedFlags are the flags of marple infer for lifted blocked Gibbs
// sampling (-lbg; Alchemy's liftedinfer -lvg, -lvgc, -cls).
type liftedFlags struct {
	lbg           bool
	clusters      string // cluster file to sample with
	writeClusters string
	clusterMode   string
	clusterOnly   bool
	bmf           float64

	result *lbg.Result // the lbg run's result
}

func (f *liftedFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.lbg, "lbg", false, "marginal inference with lifted blocked Gibbs sampling: blocks of the ground atoms of clusters of predicates, each sampled exactly given the rest, several chains (-numChains) with their R-hat")
	fs.StringVar(&f.clusters, "clusters", "", "LBG: sample with the clustering of this cluster file (Alchemy's, one merge \"level i j\" per line) instead of building one")
	fs.StringVar(&f.writeClusters, "writeClusters", "", "LBG: write the clustering sampled with (or built, with -clusterOnly) to this file, in Alchemy's cluster file format")
	fs.StringVar(&f.clusterMode, "clusterMode", "sequential", "LBG: how clusters are merged: sequential (the most coupled pair first), random, or none (one cluster per predicate)")
	fs.BoolVar(&f.clusterOnly, "clusterOnly", false, "LBG: build the clustering, write it to -writeClusters and stop (no -q needed; Alchemy's liftedinfer -cls)")
	fs.Float64Var(&f.bmf, "bmf", lbg.DefaultBMF, "LBG: keep merging clusters while a sweep costs at most this times a sweep of propositional Gibbs sampling")
}

// check validates the flags; given lists the flags on the command line.
func (f *liftedFlags) check(given map[string]bool) error {
	if !f.lbg {
		for _, name := range []string{"clusters", "writeClusters", "clusterMode", "clusterOnly", "bmf"} {
			if given[name] {
				return usagef("-%s applies to lifted blocked Gibbs sampling: give -lbg", name)
			}
		}
		return nil
	}
	if _, err := f.mode(); err != nil {
		return err
	}
	switch {
	case !(f.bmf >= 1):
		return usagef("-bmf must be at least 1, not %v", f.bmf)
	case f.clusterOnly && f.writeClusters == "":
		return usagef("-clusterOnly writes the clustering: give -writeClusters")
	case f.clusterOnly && f.clusters != "":
		return usagef("-clusterOnly builds a clustering: it excludes -clusters")
	case f.clusters != "" && given["clusterMode"]:
		return usagef("-clusters gives the clustering: it excludes -clusterMode")
	}
	if f.writeClusters != "" {
		return checkOutput("writeClusters", f.writeClusters)
	}
	return nil
}

func (f *liftedFlags) mode() (lbg.Mode, error) {
	switch f.clusterMode {
	case "sequential":
		return lbg.Sequential, nil
	case "random":
		return lbg.Randomized, nil
	case "none":
		return lbg.Sequential, nil
	}
	return 0, usagef("-clusterMode must be sequential, random or none, not %q", f.clusterMode)
}

// options returns lbg's options beyond the samplers' shared settings.
func (f *liftedFlags) options(maxSeconds float64) (lbg.Options, error) {
	var o lbg.Options
	if f.clusters != "" {
		merges, err := lbg.ReadClusterFile(f.clusters)
		if err != nil {
			return o, err
		}
		o.Merges = merges
		if o.Merges == nil {
			o.Merges = []lbg.Merge{}
		}
	} else {
		o.Cluster = f.clusterMode != "none"
		o.Mode, _ = f.mode()
	}
	o.BMF = f.bmf
	o.MaxTime = time.Duration(maxSeconds * float64(time.Second))
	return o, nil
}

// settings sets the lbg settings of s and has the run's result kept.
func (f *liftedFlags) settings(s *engines.Settings, chains int, maxSeconds float64) error {
	o, err := f.options(maxSeconds)
	if err != nil {
		return err
	}
	s.LBG = o
	s.Chains = chains
	s.LBGResult = func(r *lbg.Result) { f.result = r }
	return nil
}

// written writes the clustering of the run to -writeClusters, if asked.
func (f *liftedFlags) written() error {
	if f.writeClusters == "" || f.result == nil {
		return nil
	}
	return atomicfile.Write(f.writeClusters, func(w io.Writer) error {
		return lbg.WriteClusterFile(w, f.result.Plan.Clustering.Merges)
	})
}

// clusterOnlyRun builds the clustering of the ground network of m and db
// and writes it (-lbg -clusterOnly). Without -q every predicate the
// evidence does not mention is open world, as Alchemy's liftedinfer has
// it.
func clusterOnlyRun(ctx context.Context, e *env, p *progress, f *liftedFlags, wf *worldFlags, modelFiles, evidenceFiles []string, seed int64, start time.Time) error {
	if err := wf.check(); err != nil {
		return err
	}
	m, db, err := loadProblem(ctx, p, modelFiles, evidenceFiles)
	if err != nil {
		return err
	}
	if wf.query == "" {
		wf.query = predNames(m, unlistedPreds(m, db))
	}
	net, _, err := groundProblem(ctx, p, e, wf, m, db)
	if err != nil {
		return err
	}
	mode, _ := f.mode()
	done := p.stage("clustering")
	plan, err := lbg.Cluster(ctx, net, mode, f.bmf, seed, prefixed{e.stderr, "marple: "})
	if err != nil {
		return err
	}
	done("%s", plan.Clustering)
	if err := atomicfile.Write(f.writeClusters, func(w io.Writer) error {
		return lbg.WriteClusterFile(w, plan.Clustering.Merges)
	}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "marple infer: %d atoms, %d clauses, clusters %s (%d merges, %d blocks, largest %d atoms), sweep cost %.3g (propositional Gibbs %.3g), %.2fs\n",
		net.NumAtoms(), net.NumClauses(), plan.Clustering, len(plan.Clustering.Merges), plan.Blocks(), plan.Largest, plan.Cost, plan.GibbsCost, time.Since(start).Seconds())
	return nil
}

// unlistedPreds returns the predicates of m of which db lists no atom:
// with no -q, the open-world predicates of Alchemy's liftedinfer.
func unlistedPreds(m *mln.Model, db *mln.Database) []mln.PredID {
	var out []mln.PredID
	for p := range m.Preds {
		if db.Count(mln.PredID(p)) == 0 {
			out = append(out, mln.PredID(p))
		}
	}
	return out
}

// visited returns the names of the flags given on the command line.
func visited(fs *flag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
}
