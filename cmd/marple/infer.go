package main

import (
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
	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/query"
	"github.com/marple-mln/marple/syntax"
)

const inferSynopsis = `-i model.mln -e a.db,b.db -r out.result -q Pred1,Pred2 [-m | -a | -ms | -p | -bp | -wmc]

Grounds the model against the evidence and writes, for MAP inference (-m,
the default), the true query atoms of the most probable state, one per
line (-a: every query atom with 0 or 1); for marginal inference (-ms
MC-SAT, -p Gibbs sampling, both with several chains and their R-hat; -bp
belief propagation, -bp -lifted lifted; -wmc exact, by weighted model
counting), every unknown query atom with its probability ("atom
probability" per line). -q also takes partly ground
atoms: Friends(Anna,x).`

func runInfer(ctx context.Context, e *env, args []string) (err error) {
	fs := newFlagSet(e, "infer", inferSynopsis)
	var (
		modelFiles = fs.String("i", "", "input model file(s) (.mln), comma-separated")
		evidence   = fs.String("e", "", "evidence database file(s) (.db), comma-separated")
		out        = fs.String("r", "", "output result file (required)")
		mapInf     = fs.Bool("m", false, "MAP inference (the default)")
		mcsatInf   = fs.Bool("ms", false, "marginal inference with MC-SAT")
		gibbsInf   = fs.Bool("p", false, "marginal inference with Gibbs sampling")
		seed       = fs.Int64("seed", 1, "random seed")
		lossAug    = fs.String("lossAugment", "", "truth database: solve the Hamming-loss-augmented MAP problem")
		countsOut  = fs.Bool("counts", false, "write clause counts instead of atoms: per formula (and \"+\" binding) the count of its true groundings in the MAP world (-m, -a) or their expected count under MC-SAT (-ms), one \"count<TAB>formula\" line each")
		lazyInf    = fs.Bool("lazy", false, "lazy inference: ground on demand only the clauses inference makes active, all unknown atoms starting false (MAP: lazy MaxWalkSAT; -ms or -p: lazy MC-SAT); -maxMem bounds what it builds")
		verbose    = fs.Bool("v", false, "report every stage on stderr")
		hybridInf  = fs.Bool("hybrid", false, "hybrid MLN (numeric terms, real-valued atoms): -m by hybrid MaxWalkSAT, -ms by hybrid MC-SAT")
		contSample = fs.String("contSamples", "", "with -hybrid -ms: write every sample of the continuous atoms to this file")
		rrfInf     = fs.Bool("rrf", false, "recursive random field (nested weights, or any model read as one): -m by ICM, -p by Gibbs sampling")
	)
	var ef engineFlags
	ef.registerMAP(fs, "MAP engine")
	ef.registerSampling(fs)
	var wf worldFlags
	wf.register(true, fs)
	fs.BoolVar(&wf.nonEvidenceOpen, "nonEvidenceOpen", false, "the predicates with no atom in the evidence are open world too (their atoms unknown), -cw ones excepted, as Alchemy's infer reads them (default: closed world, their atoms false)")
	var ax inferExtras // -a, -f, -bp, partial -q atoms...: infer_query.go
	ax.register(fs)
	var mf marginalFlags // -numChains, -converge, diagnostics: marginals.go
	mf.register(fs)
	var df decisionFlags // -decision: decision.go
	df.register(fs)
	var lf liftedFlags // -lbg: infer_lifted.go
	lf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := lf.check(visited(fs)); err != nil {
		return err
	}
	if lf.clusterOnly {
		return clusterOnlyRun(ctx, e, newProgress(e.stderr, *verbose), &lf, &wf, splitList(*modelFiles), splitList(*evidence), *seed, time.Now())
	}
	if lf.firstOrder() {
		return inferFirstOrder(ctx, e, visited(fs), &lf, &ax, &wf, &ef, splitList(*modelFiles), splitList(*evidence), *out, *seed, *verbose)
	}
	if mf.converge == 0 {
		ax.maxSeconds = mf.maxSeconds // MC-SAT stopped by time; with -converge it bounds the rounds
	}
	if err := ax.setup(&wf, ef.samples, *mcsatInf || *gibbsInf || ax.bp || ax.wmc || lf.lbg, *gibbsInf); err != nil {
		return err
	}
	if *out == "" {
		return usagef("no output file: give -r out.result")
	}
	if err := firstErr(wf.check(), ef.check(), checkOutput("r", *out), mf.check()); err != nil {
		return err
	}
	e.resultsToStdout(*out)
	if *rrfInf {
		return runInferRRF(ctx, e, fs, rrfInferConfig(splitList(*modelFiles), splitList(*evidence), splitList(wf.query), *gibbsInf, *ef.samples, *ef.burnIn, mf.chains, *seed), *out)
	}
	if *hybridInf {
		if *lazyInf || *countsOut || df.on {
			return usagef("-hybrid excludes -lazy, -counts and -decision")
		}
		if *gibbsInf || ax.bp || ax.wmc {
			return usagef("-hybrid runs -m or -ms")
		}
		if wf.closedWorld != "" {
			return usagef("-cw does not apply with -hybrid: the predicates other than -q and -ow are closed world")
		}
		if err := wf.alchemyOnly("-hybrid"); err != nil {
			return err
		}
		return runInferHybrid(ctx, e, hybridRun{models: splitList(*modelFiles), evidence: splitList(*evidence), out: *out,
			query: wf.query, openWorld: wf.openWorld, marginal: *mcsatInf, seed: uint64(*seed), samples: *ef.samples, burnIn: *ef.burnIn,
			contSamples: *contSample, verbose: *verbose})
	}
	if *contSample != "" {
		return usagef("-contSamples needs -hybrid")
	}
	modes := 0
	for _, b := range []bool{*mapInf, *mcsatInf, *gibbsInf, ax.bp, ax.wmc, lf.lbg} {
		if b {
			modes++
		}
	}
	if modes > 1 {
		return usagef("-m, -ms, -p, -bp, -wmc and -lbg exclude each other")
	}
	if ax.wmc && (df.on || *lazyInf) {
		return usagef("-wmc excludes -decision and -lazy")
	}
	if lf.lbg && (*lazyInf || *countsOut || df.on || *lossAug != "" || mf.converge > 0 || mf.replicas > 1) {
		return usagef("-lbg excludes -lazy, -counts, -decision, -lossAugment, -converge and -replicas")
	}
	if err := lf.checkSampler(visited(fs)); err != nil {
		return err
	}
	if err := df.check(&ax, *mapInf, *lossAug, visited(fs)); err != nil {
		return err
	}
	if df.on && (*lazyInf || *countsOut) {
		return usagef("-decision excludes -lazy and -counts")
	}
	if *countsOut {
		switch {
		case *gibbsInf || ax.bp || ax.wmc:
			return usagef("-counts writes the MAP world's counts (-m, -a) or MC-SAT's expected counts (-ms): it excludes -p, -bp and -wmc")
		case *lazyInf:
			return usagef("-counts excludes -lazy: the counts take the whole grounding")
		case ax.outputNetwork:
			return usagef("-counts excludes -outputNetwork")
		}
	}
	if *lazyInf {
		switch {
		case ax.bp:
			return usagef("-lazy runs MaxWalkSAT or MC-SAT: it excludes -bp")
		case *lossAug != "":
			return usagef("-lazy excludes -lossAugment")
		case ax.outputNetwork:
			return usagef("-lazy excludes -outputNetwork: lazy inference builds no whole network")
		case mf.replicas > 1:
			return usagef("-lazy runs one MC-SAT chain without tempering: it excludes -replicas (Alchemy's -simtp)")
		case ax.maxSeconds > 0:
			return usagef("-lazy excludes -maxSeconds: bound lazy MC-SAT by -maxSteps")
		}
	}
	engineName := *ef.solver
	if *mcsatInf {
		engineName = "mcsat"
	} else if *gibbsInf {
		engineName = "gibbs"
	} else if lf.lbg {
		engineName = "lbg"
	}
	if !df.on {
		mode := inferMAP
		switch {
		case *mcsatInf || *gibbsInf || lf.lbg:
			mode = inferSample
		case ax.bp:
			mode = inferBP
		case ax.wmc:
			mode = inferExact
		}
		warnIgnored(e.stderr, fs, mode, *ef.solver, *lazyInf)
	}

	start := time.Now()
	p := newProgress(e.stderr, *verbose)
	if df.on {
		return runDecision(ctx, e, p, &df, &ax, &wf, &ef, splitList(*modelFiles), splitList(*evidence), *out, decisionEngine(*mcsatInf, *gibbsInf, ax.bp), *seed, start)
	}
	m, db, err := ax.load(ctx, p, &wf, splitList(*modelFiles), splitList(*evidence))
	if err != nil {
		return err
	}
	if m.IsHybrid() {
		return usagef("the model has numeric terms (a hybrid MLN): give -hybrid")
	}
	warnUnweighted(e.stderr, m)
	if err := lf.openAll(m, &wf); err != nil {
		return err
	}
	if *lazyInf {
		return inferLazy(ctx, e, p, &ax, &wf, &ef, m, db, *mcsatInf || *gibbsInf, *seed, *out, start)
	}
	if ax.bp && ax.lifted {
		if done, err := inferLiftedModel(ctx, e, p, &ax, &wf, m, db, *out, start); done || err != nil {
			return err
		}
	}
	if ax.bp {
		engineName = "bp"
	}
	if ax.wmc {
		engineName = "wmc"
	}
	switch {
	case (*mcsatInf || *gibbsInf) && ax.maxSeconds == 0:
		method := mcsat.MethodMCSAT
		if *gibbsInf {
			method = mcsat.MethodGibbs
		}
		wf.engine = mcsat.RunMemory(mf.chains, mf.replicas, method)
	default:
		if wf.engine, err = engines.Memory(engineName); err != nil {
			return err
		}
	}
	net, gopt, err := groundProblem(ctx, p, e, &wf, m, db)
	if errors.Is(err, ground.ErrTooLarge) {
		return fmt.Errorf("%w; or -lazy grounds only the clauses inference makes active", err)
	}
	if err != nil {
		return err
	}

	isQuery := ax.queryMask(m, gopt.Query)
	if ax.omitFree || ax.outputNetwork && ax.networkNumbers {
		// Alchemy's BP output and network: in the order of its factor graph.
		if fg, ok := alchemyOrder(e.stderr, &ax, m, db, net, gopt, isQuery); ok && ax.outputNetwork {
			cid := query.AlchemyConstIDs(m)
			return atomicfile.Write(*out, func(w io.Writer) error { return query.WriteAlchemyNetwork(w, net, fg, cid) })
		}
	}
	if ax.outputNetwork {
		if ax.networkNumbers {
			return atomicfile.Write(*out, func(w io.Writer) error { return net.WriteFactorGraphNumbers(w) })
		}
		return atomicfile.Write(*out, func(w io.Writer) error { return net.WriteFactorGraph(w) })
	}
	hardNote := "" // what the summary line says of the hard clauses
	if *mcsatInf || *gibbsInf || ax.bp || ax.wmc || lf.lbg {
		// -bp, -wmc and -lbg run a registry engine, which decides the
		// hard clauses itself; the samplers below are built here.
		if hardNote, err = checkHard(ctx, e.stderr, net, !ax.bp && !ax.wmc && !lf.lbg); err != nil {
			return err
		}
	}

	if *countsOut && *mcsatInf {
		burnIn := *ef.burnIn
		if burnIn == 0 {
			burnIn = -1 // mcsat: none
		}
		opt := mcsat.Options{Samples: *ef.samples, BurnIn: burnIn}
		ax.samplerOptions(&opt)
		opt.Seed = *seed
		done := p.stage("expected counts (MC-SAT)")
		counts, err := expectedCounts(ctx, net, opt)
		if err != nil {
			return err
		}
		done("%d samples", *ef.samples)
		if err := atomicfile.Write(*out, func(w io.Writer) error { return writeCounts(w, m, counts) }); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "marple infer: %d atoms, %d clauses, expected counts of %d samples%s, %.2fs\n", net.NumAtoms(), net.NumClauses(), *ef.samples, hardNote, time.Since(start).Seconds())
		return nil
	}
	if (*mcsatInf || *gibbsInf) && ax.maxSeconds == 0 {
		burnIn := *ef.burnIn
		if burnIn == 0 {
			burnIn = -1 // mcsat: none
		}
		opt := mcsat.Options{Samples: *ef.samples, BurnIn: burnIn}
		ax.samplerOptions(&opt)
		opt.Seed = *seed
		method := mcsat.MethodMCSAT
		if *gibbsInf {
			method = mcsat.MethodGibbs
		}
		// Independent components are sampled apart, their chains in parallel.
		mf.hardNote = hardNote
		return inferMarginals(ctx, e, p, &mf, &ax, net, m, isQuery, opt, method, wf.workers, *out, start)
	}
	if *mcsatInf || *gibbsInf || ax.bp || ax.wmc || lf.lbg {
		done := p.stage("sample")
		// Independent components are sampled apart, in parallel.
		s := ef.settings(wf.workers, nil)
		s.Warn = prefixed{e.stderr, "marple: "} // lifted-bp running ground BP
		s.Progress = prefixed{e.stderr, "marple: "}
		if lf.lbg {
			if err := lf.settings(&s, mf.chains, mf.maxSeconds); err != nil {
				return err
			}
		}
		logZ := math.NaN()
		s.LogZ = func(z float64) { logZ = z }
		probs, how, st, err := ax.marginals(ctx, net, engineName, s, *seed)
		if err != nil {
			return err
		}
		if ax.logZ {
			defer func() {
				if err != nil {
					return
				}
				z := strconv.FormatFloat(logZ, 'g', -1, 64)
				if net.HardFalse > 0 {
					fmt.Fprintf(e.stdout, "marple infer: log Z = -Inf (exact): the evidence alone falsifies %d hard ground clauses; the other clauses' log Z = %s\n", net.HardFalse, z)
					return
				}
				fmt.Fprintf(e.stdout, "marple infer: log Z = %s (exact)\n", z)
			}()
		}
		how += hardNote
		done("%s", how)
		if err := lf.written(); err != nil {
			return err
		}
		warnBP(e.stderr, m, net, st, ax.convThresh, ax.lifted)
		defer func() {
			if err == nil {
				fmt.Fprintf(e.stdout, "marple infer: %d atoms, %d clauses, %s, %.2fs\n", net.NumAtoms(), net.NumClauses(), how, time.Since(start).Seconds())
			}
		}()
		return atomicfile.Write(*out, func(w io.Writer) error {
			return ax.writeMarginals(w, m, net, probs, isQuery)
		})
	}

	var bias []float64
	if *lossAug != "" {
		truth, err := mln.LoadDatabase(m, *lossAug)
		if err != nil {
			return err
		}
		bias = hammingBias(net, truth, isQuery)
	}
	engine, err := ef.mapEngine(wf.workers, prefixed{e.stderr, "marple: "})
	if err != nil {
		return err
	}
	done := p.stage("MAP (" + engine.Name() + ")")
	stop := p.heartbeat("MAP ("+engine.Name()+")", *ef.timeLimit)
	res, err := engine.Solve(ctx, net, infer.Options{Bias: bias, Seed: *seed})
	stop()
	if err != nil {
		return err
	}
	done("cost %.6g, %d hard clauses violated, optimal %v", res.Cost, res.HardViolated, res.Optimal)
	if res.HardViolated > 0 || net.HardFalse > 0 {
		fmt.Fprintf(e.stderr, "marple infer: warning: the MAP state violates %d hard clauses (%d falsified by the evidence alone)\n",
			res.HardViolated+net.HardFalse, net.HardFalse)
	}
	if err := atomicfile.Write(*out, func(w io.Writer) error {
		if *countsOut {
			return writeCounts(w, m, net.Counts(res.Assign))
		}
		return ax.writeMAP(w, m, db, net, res.Assign, isQuery)
	}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "marple infer: %d atoms, %d clauses, cost %s, %s, %.2fs\n",
		net.NumAtoms(), net.NumClauses(), fmtCost(res.Cost, res.Cost), provedText(res, *ef.solver, *ef.prove), time.Since(start).Seconds())
	return nil
}

// proveHints tells, per MAP engine, what to do when a state is not proved
// optimal: without -prove and with it.
var proveHints = map[string][2]string{
	"exact": {"; -prove searches until -timeLimit", "; raise -timeLimit"},
}

// provedText says whether res, found by the engine called name, was proved
// optimal, and what to do if not.
func provedText(res *infer.Result, name string, prove bool) string {
	switch {
	case res.Optimal:
		return "proved optimal"
	case math.IsInf(res.Bound, 1):
		return "not proved optimal (the hard clauses cannot all hold)"
	case math.IsInf(res.Bound, -1):
		return "not proved optimal"
	}
	s := "not proved optimal (lower bound " + fmtCost(res.Bound, res.Cost) + ")"
	if h, ok := proveHints[name]; ok {
		s += h[b2i(prove)]
	}
	return s
}

// fmtCost formats a cost (or bound) x with six significant digits, as 0
// when it is float noise next to ref (|x| below 1e-9 of max(1, |ref|)).
func fmtCost(x, ref float64) string { return infer.FormatCost(x, ref) }

// warnUnweighted warns, naming them, about the formulas written without a
// weight and not hard: inference gives them weight 0 (they count for
// nothing).
func warnUnweighted(w io.Writer, m *mln.Model) {
	var names []string
	for _, f := range m.Formulas {
		if !f.HasWeight && !f.Hard && !f.Synthetic && !f.HasUtility {
			names = append(names, fmt.Sprintf("%s: %s", f.Pos, syntax.FormulaString(f.AST)))
		}
	}
	if len(names) == 0 {
		return
	}
	what := fmt.Sprintf("%d formulas have", len(names))
	if len(names) == 1 {
		what = "1 formula has"
	}
	fmt.Fprintf(w, "marple infer: warning: %s no weight: weight 0, counted for nothing (learn weights with marple learn, or end a hard formula with \".\"):\n", what)
	for _, n := range names {
		fmt.Fprintf(w, "  %s\n", n)
	}
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// hammingBias returns the linear terms of Hamming-loss-augmented inference
// against truth: +1 for making a gold-false query atom true, -1 for making a
// gold-true one true (its loss is 1 when it is false).
func hammingBias(net *ground.Network, truth *mln.Database, isQuery []bool) []float64 {
	gold := net.Assignment(truth)
	bias := make([]float64, net.NumAtoms())
	for a := range bias {
		if !isQuery[net.AtomPred[a]] {
			continue
		}
		if gold[a] {
			bias[a] = -1
		} else {
			bias[a] = 1
		}
	}
	return bias
}

// The kinds of inference whose flags warnIgnored tells apart.
const (
	inferMAP = iota
	inferSample
	inferBP
	inferExact
)

// warnIgnored warns about each flag given on the command line that the
// kind of inference chosen does not use (-numSamples with MAP, -tries with
// the exact solver), telling which inference it belongs to. A flag's
// usage text names the engines it applies to ("MC-SAT/Gibbs:", "BP:",
// "MaxWalkSAT:", "exact:").
func warnIgnored(stderr io.Writer, fs *flag.FlagSet, mode int, solver string, lazy bool) {
	fs.Visit(func(f *flag.Flag) {
		var ok bool
		var where string
		u := f.Usage
		switch {
		case f.Name == "maxSteps":
			ok, where = mode == inferSample || mode == inferBP, "-ms, -p and -bp"
		case strings.HasPrefix(u, "MC-SAT/Gibbs:"):
			ok, where = mode == inferSample, "-ms and -p (MC-SAT, Gibbs)"
		case strings.HasPrefix(u, "MC-SAT:"):
			ok, where = mode == inferSample, "-ms (MC-SAT)"
		case strings.HasPrefix(u, "BP:"):
			ok, where = mode == inferBP, "-bp"
		case strings.HasPrefix(u, "MaxWalkSAT:"):
			ok, where = mode == inferMAP && (solver == "mws" || lazy), "MAP inference with -solver mws or -lazy"
		case strings.HasPrefix(u, "exact:"):
			ok, where = mode == inferMAP && solver == "exact" && !lazy, "MAP inference with -solver exact"
		case strings.HasPrefix(u, "exact, lp, mws:"), f.Name == "solver", f.Name == "cpi":
			ok, where = mode == inferMAP, "MAP inference (-m, -a)"
		default:
			return
		}
		if !ok {
			fmt.Fprintf(stderr, "marple infer: warning: -%s applies to %s only; ignored here\n", f.Name, where)
		}
	})
}
