package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/infer/lbg"
	"github.com/marple-mln/marple/infer/lifted"
	"github.com/marple-mln/marple/mln"
)

// liftedFlags are the flags of marple infer for the lifted engines of
// Alchemy's liftedinfer: lifted blocked Gibbs sampling (-lbg; -lvg, -lvgc,
// -cls), exact lifted inference (-fomc; -ptpe) and lifted importance
// sampling (-lis).
type liftedFlags struct {
	fomc, lis     bool
	lisProposal   string
	lisRate       float64
	lisInterval   int
	maxWork       int64
	alchemyZ      bool
	allOpen       bool
	lbg           bool
	clusters      string // cluster file to sample with
	writeClusters string
	clusterMode   string
	clusterOnly   bool
	bmf           float64

	result *lbg.Result // the lbg run's result
}

func (f *liftedFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.fomc, "fomc", false, "exact marginals and log Z by lifted weighted first-order model counting, without grounding (exact counting of the ground network, said in the summary, when the model is outside the lifted fragment); without -q, with -z, log Z alone")
	fs.BoolVar(&f.lis, "lis", false, "marginals and log Z by lifted importance sampling, with standard errors (-numSamples samples per estimate); without -q, with -z, log Z alone")
	fs.StringVar(&f.lisProposal, "lisProposal", "binomial", "LIS: the proposal: binomial, uniform or informed (adaptive)")
	fs.Float64Var(&f.lisRate, "lisRate", lifted.DefaultLearningRate, "LIS: learning rate of the informed proposal")
	fs.IntVar(&f.lisInterval, "lisInterval", lifted.DefaultUpdateInterval, "LIS: samples between updates of the informed proposal")
	fs.Int64Var(&f.maxWork, "liftedMaxWork", 0, "-fomc, -lis: the most work (count terms) before the lifted computation stops as out of reach (0: "+strconv.FormatInt(lifted.DefaultMaxWork, 10)+"; negative: no bound)")
	fs.BoolVar(&f.allOpen, "allOpenWorld", false, "-fomc, -lis, -lbg: every predicate of the formulas is open world, as in Alchemy's liftedinfer: the atoms the evidence does not list are unknown, whatever their predicate (-cw predicates excepted)")
	fs.BoolVar(&f.alchemyZ, "alchemyZ", false, "with -z: also print Z as Alchemy's liftedinfer does (\"Exact Z = Starting Exact Lifted Model Counting\", then \" (Actual) 3.71887e+22\", or \" (Log Space) 52.6\" past a double; LIS: \"iteration=N, ZApprox :  (Actual) ...\", without Alchemy's currZ, the last sample's weight)")
	fs.BoolVar(&f.lbg, "lbg", false, "marginal inference with lifted blocked Gibbs sampling: blocks of the ground atoms of clusters of predicates, each sampled exactly given the rest, several chains (-numChains) with their R-hat")
	fs.StringVar(&f.clusters, "clusters", "", "LBG: sample with the clustering of this cluster file (Alchemy's, one merge \"level i j\" per line) instead of building one")
	fs.StringVar(&f.writeClusters, "writeClusters", "", "LBG: write the clustering sampled with (or built, with -clusterOnly) to this file, in Alchemy's cluster file format")
	fs.StringVar(&f.clusterMode, "clusterMode", "sequential", "LBG: how clusters are merged: sequential (the most coupled pair first), random, or none (one cluster per predicate)")
	fs.BoolVar(&f.clusterOnly, "clusterOnly", false, "LBG: build the clustering, write it to -writeClusters and stop (no -q needed; Alchemy's liftedinfer -cls)")
	fs.Float64Var(&f.bmf, "bmf", lbg.DefaultBMF, "LBG: keep merging clusters while a sweep costs at most this times a sweep of propositional Gibbs sampling")
}

// check validates the flags; given lists the flags on the command line.
func (f *liftedFlags) check(given map[string]bool) error {
	if given["hybrid"] && (f.lbg || f.fomc || f.lis) {
		return usagef("-hybrid runs hybrid MaxWalkSAT (-m) or hybrid MC-SAT (-ms): it excludes -lbg, -fomc and -lis")
	}
	if given["allOpenWorld"] && !f.lbg && !f.fomc && !f.lis {
		return usagef("-allOpenWorld applies to -fomc, -lis and -lbg")
	}
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

// mcsatOnly are the flags of MC-SAT's and Gibbs' chains that lifted
// blocked Gibbs sampling does not take.
var mcsatOnly = []string{"diagnostics", "exactAtoms", "indicators", "blockWeight", "maxBlock", "minBeta", "walkProb", "saTemp"}

// checkSampler refuses with -lbg the flags of the other samplers.
func (f *liftedFlags) checkSampler(given map[string]bool) error {
	if !f.lbg {
		return nil
	}
	for _, name := range mcsatOnly {
		if given[name] {
			return usagef("-%s applies to MC-SAT and Gibbs sampling (-ms, -p), not to -lbg", name)
		}
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
	m, db, err := loadProblem(ctx, p, wf, modelFiles, evidenceFiles)
	if err != nil {
		return err
	}
	if err := f.openAll(m, wf); err != nil {
		return err
	}
	if wf.query == "" && wf.openWorld == "" {
		wf.query = predNames(m, unlistedPreds(m, db))
	} else if wf.query == "" {
		wf.query, wf.openWorld = wf.openWorld, ""
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

// openAll adds to wf's open-world predicates, with -allOpenWorld, every
// predicate of m's formulas that is not a query, -ow or -cw one.
func (f *liftedFlags) openAll(m *mln.Model, wf *worldFlags) error {
	if !f.allOpen {
		return nil
	}
	named := map[string]bool{}
	for _, l := range []string{wf.query, wf.openWorld, wf.closedWorld} {
		for _, n := range splitList(l) {
			named[n] = true
		}
	}
	var add []string
	for _, p := range formulaPreds(m) {
		if n := m.Preds[p].Name; !named[n] {
			add = append(add, n)
			named[n] = true
		}
	}
	if len(add) > 0 {
		wf.openWorld = strings.Join(append(splitList(wf.openWorld), add...), ",")
	}
	return nil
}

// formulaPreds returns the predicates of m's clauses, in order.
func formulaPreds(m *mln.Model) []mln.PredID {
	seen := map[mln.PredID]bool{}
	var out []mln.PredID
	for _, c := range m.Clauses {
		for _, l := range c.Lits {
			if l.Pred >= 0 && !seen[l.Pred] {
				seen[l.Pred] = true
				out = append(out, l.Pred)
			}
		}
	}
	return out
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

// firstOrder reports whether a lifted engine of the first-order model
// (-fomc, -lis) runs.
func (f *liftedFlags) firstOrder() bool { return f.fomc || f.lis }

// firstOrderExcludes are the flags -fomc and -lis exclude.
var firstOrderExcludes = []string{"m", "a", "ms", "p", "bp", "wmc", "lbg", "lazy", "counts", "decision", "hybrid", "outputNetwork", "lossAugment", "queryEvidence", "f", "cw"}

// inferFirstOrder runs marple infer -fomc or -lis: on the first-order
// model and its evidence, without grounding. It writes the marginals of
// the unknown query atoms asked for to out (none without -q) and, with
// -z, log Z on stdout.
func inferFirstOrder(ctx context.Context, e *env, given map[string]bool, f *liftedFlags, ax *inferExtras, wf *worldFlags, ef *engineFlags, modelFiles, evidenceFiles []string, out string, seed int64, verbose bool) error {
	start := time.Now()
	name := "fomc"
	if f.lis {
		name = "lis"
	}
	if f.fomc && f.lis {
		return usagef("-fomc and -lis exclude each other")
	}
	for _, x := range firstOrderExcludes {
		if given[x] {
			return usagef("-%s excludes -%s", name, x)
		}
	}
	if f.alchemyZ && !ax.logZ {
		return usagef("-alchemyZ formats -z: give -z")
	}
	var prop lifted.Proposal
	switch f.lisProposal {
	case "binomial":
		prop = lifted.Binomial
	case "uniform":
		prop = lifted.Uniform
	case "informed":
		prop = lifted.Informed
	default:
		return usagef("-lisProposal must be binomial, uniform or informed, not %q", f.lisProposal)
	}
	if !f.lis {
		for _, x := range []string{"lisProposal", "lisRate", "lisInterval"} {
			if given[x] {
				return usagef("-%s applies to -lis", x)
			}
		}
	}
	if !(f.lisRate > 0) || f.lisInterval < 1 {
		return usagef("-lisRate must be positive and -lisInterval at least 1")
	}
	noQuery := wf.query == ""
	if noQuery {
		if !ax.logZ {
			return usagef("no query predicates: give -q Pred1,Pred2, or -z for log Z alone")
		}
	}
	ax.firstOrder = true
	if noQuery {
	} else if err := ax.setup(wf, ef.samples, true, false); err != nil {
		return err
	}
	if !noQuery && out == "" {
		return usagef("no output file: give -r out.result")
	}
	if err := firstErr(wf.check(), ef.check()); err != nil {
		return err
	}
	if out != "" {
		if err := checkOutput("r", out); err != nil {
			return err
		}
		e.resultsToStdout(out)
	}
	p := newProgress(e.stderr, verbose)
	var m *mln.Model
	var db *mln.Database
	var err error
	if noQuery {
		m, db, err = loadProblem(ctx, p, wf, modelFiles, evidenceFiles)
	} else {
		m, db, err = ax.load(ctx, p, wf, modelFiles, evidenceFiles)
	}
	if err != nil {
		return err
	}
	if m.IsHybrid() {
		return usagef("-%s: the model has numeric terms (a hybrid MLN), which lifted inference does not take", name)
	}
	warnUnweighted(e.stderr, m)
	if err := f.openAll(m, wf); err != nil {
		return err
	}
	var query, open []mln.PredID
	if noQuery && !f.allOpen {
		open = unlistedPreds(m, db) // predicates without evidence are open world
	} else if !noQuery {
		if query, err = m.PredIDs(wf.query); err != nil {
			return usagef("-q: %v", err)
		}
	}
	if wf.openWorld != "" {
		ow, err := m.PredIDs(wf.openWorld)
		if err != nil {
			return usagef("-ow: %v", err)
		}
		open = append(open, ow...)
	}
	s := ef.settings(wf.workers, nil)
	s.LiftedMaxWork = f.maxWork
	s.LIS = engines.LISSettings{Proposal: prop, LearningRate: f.lisRate, UpdateInterval: f.lisInterval}
	eng, err := engines.NewFirstOrder(name, s)
	if err != nil {
		return err
	}
	what := "lifted first-order model counting"
	if f.lis {
		what = "lifted importance sampling"
	}
	done := p.stage(what)
	res, err := eng.Run(ctx, m, db, query, open, noQuery, seed)
	if err != nil {
		var nl *lifted.NotLiftableError
		switch {
		case f.lis && errors.As(err, &nl):
			return fmt.Errorf("-lis: %v (lifted importance sampling has no ground fallback: -wmc counts the ground network exactly, -ms samples it)", err)
		case errors.As(err, &nl):
			return fmt.Errorf("-fomc: %v (-wmc counts the ground network exactly, -lis estimates log Z within the lifted fragment, -ms samples the marginals)", err)
		}
		return err
	}
	how := describeLifted(res, f.lis, s.Samples)
	done("%s", how)
	for _, w := range res.Warnings {
		fmt.Fprintf(e.stderr, "marple infer: warning: %s\n", w)
	}
	n := 0
	if !noQuery {
		if err := atomicfile.Write(out, func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			var werr error
			res.Each(func(q mln.PredID, args []mln.ConstID, prob, _ float64) bool {
				if werr = ctx.Err(); werr != nil {
					return false
				}
				if !ax.keep(q, args) {
					return true
				}
				n++
				bw.WriteString(m.AtomString(q, args))
				bw.WriteByte(' ')
				bw.WriteString(strconv.FormatFloat(prob, 'g', 6, 64))
				bw.WriteByte('\n')
				return true
			})
			if werr != nil {
				return werr
			}
			return bw.Flush()
		}); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "marple infer: %d query atoms, %s, %.2fs\n", n, how, time.Since(start).Seconds())
	if ax.logZ {
		if f.lis {
			unreliable := ""
			if len(res.Warnings) > 0 {
				unreliable = "; UNRELIABLE: " + strings.Join(res.Warnings, "; ")
			}
			fmt.Fprintf(e.stdout, "marple infer: log Z = %s (lifted importance sampling; standard error %.3g%s)\n", strconv.FormatFloat(res.LogZ, 'g', -1, 64), res.LogZErr, unreliable)
		} else {
			fmt.Fprintf(e.stdout, "marple infer: log Z = %s (exact)\n", strconv.FormatFloat(res.LogZ, 'g', -1, 64))
		}
		if f.alchemyZ {
			if f.lis {
				fmt.Fprintf(e.stdout, "iteration=%d, ZApprox : %s\n", s.Samples, alchemyLogDouble(res.LogZ))
			} else {
				// Alchemy prints "Exact Z = ", then its search's first
				// line, then the value on a line of its own.
				fmt.Fprintf(e.stdout, "Exact Z = Starting Exact Lifted Model Counting\n%s\n", alchemyLogDouble(res.LogZ))
			}
		}
	}
	return nil
}

// describeLifted says how a lifted engine computed its result, for the
// summary line.
func describeLifted(r *lifted.Result, sampled bool, samples int) string {
	var b strings.Builder
	switch r.Method {
	case lifted.MethodLifted:
		fmt.Fprintf(&b, "exact, by lifted first-order model counting (%d count terms, no grounding)", r.Work)
	case lifted.MethodGround:
		fmt.Fprintf(&b, "exact, by weighted model counting of the GROUND network: the model is outside the lifted fragment (%s)", r.Reason)
	case lifted.MethodSampling:
		maxErr := 0.0
		for _, c := range r.Classes {
			if !math.IsNaN(c.Err) {
				maxErr = max(maxErr, c.Err)
			}
		}
		fmt.Fprintf(&b, "lifted importance sampling, %d samples per estimate, log Z standard error %.3g, largest standard error of a marginal %.3g, smallest effective sample size %.0f", samples, r.LogZErr, maxErr, r.ESS)
	default:
		b.WriteString(r.Method)
	}
	if len(r.Warnings) > 0 && r.Method != lifted.MethodGround { // the ground fallback's warning repeats its reason
		b.WriteString("; WARNING: " + strings.Join(r.Warnings, "; "))
	}
	return b.String()
}

// alchemyLogDouble formats exp(lz) as Alchemy's LogDouble::printValue
// does: " (Actual) v" when it is a normal double, " (Log Space) lz"
// otherwise, with C++'s default six significant digits.
func alchemyLogDouble(lz float64) string {
	v := math.Exp(lz)
	if v < math.MaxFloat64 && v > 0x1p-1022 {
		return " (Actual) " + cppG(v)
	}
	return " (Log Space) " + cppG(lz)
}

// cppG formats x as C++ streams do by default (%g, six significant
// digits).
func cppG(x float64) string { return fmt.Sprintf("%.6g", x) }
