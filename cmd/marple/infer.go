package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/cpi"
	"github.com/marple-mln/marple/infer/exact"
	"github.com/marple-mln/marple/infer/lp"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/infer/mws"
	"github.com/marple-mln/marple/internal/atomicfile"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

const inferSynopsis = `-i model.mln -e a.db,b.db -r out.result -q Pred1,Pred2 [-m | -ms | -p]

Grounds the model against the evidence and writes, for MAP inference (-m,
the default), the true query atoms of the most probable state, one per
line; for marginal inference (-ms MC-SAT, -p Gibbs), every unknown query
atom with its probability ("atom probability" per line).`

func runInfer(ctx context.Context, e *env, args []string) (err error) {
	fs := newFlagSet(e, "infer", inferSynopsis)
	var (
		modelFiles = fs.String("i", "", "input model file(s) (.mln), comma-separated")
		evidence   = fs.String("e", "", "evidence database file(s) (.db), comma-separated")
		out        = fs.String("r", "", "output result file (required)")
		mapInf     = fs.Bool("m", false, "MAP inference (the default)")
		mcsatInf   = fs.Bool("ms", false, "marginal inference with MC-SAT")
		gibbsInf   = fs.Bool("p", false, "marginal inference with Gibbs sampling")
		solver     = fs.String("solver", "exact", "MAP engine: exact, lp or mws (MaxWalkSAT)")
		seed       = fs.Int64("seed", 1, "random seed")
		maxSteps   = fs.Int("mwsMaxSteps", 1000000, "MaxWalkSAT: maximum flips per try")
		tries      = fs.Int("tries", 1, "MaxWalkSAT: number of tries (restarts)")
		samples    = fs.Int("numSamples", 1000, "MC-SAT/Gibbs: number of samples per chain (of the first round with -converge)")
		burnIn     = fs.Int("burnIn", 100, "MC-SAT/Gibbs: burn-in steps")
		timeLimit  = fs.Duration("timeLimit", 60*time.Second, "exact/lp: stop after this long with the best answer so far and its lower bound (0: no limit)")
		lossAug    = fs.String("lossAugment", "", "truth database: solve the Hamming-loss-augmented MAP problem")
		useCPI     = fs.Bool("cpi", false, "cutting-plane inference around the MAP engine: solve with only the clauses the current state violates")
		prove      = fs.Bool("prove", false, "exact: search every component until it is proved optimal or -timeLimit expires (by default a large component gets the LP relaxation and a short search only)")
		verbose    = fs.Bool("v", false, "report every stage on stderr")
	)
	var wf worldFlags
	wf.register(true, fs)
	var mf marginalFlags
	mf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usagef("no output file: give -r out.result")
	}
	if err := firstErr(wf.check(), checkDuration("timeLimit", *timeLimit),
		atLeast(1, map[string]int{"numSamples": *samples, "mwsMaxSteps": *maxSteps, "tries": *tries}), atLeast(0, map[string]int{"burnIn": *burnIn}), mf.check()); err != nil {
		return err
	}
	if wf.query == "" {
		return usagef("no query predicates: give -q Pred1,Pred2")
	}
	modes := 0
	for _, b := range []bool{*mapInf, *mcsatInf, *gibbsInf} {
		if b {
			modes++
		}
	}
	if modes > 1 {
		return usagef("-m, -ms and -p exclude each other")
	}
	switch *solver {
	case "exact", "lp", "mws":
	default:
		return usagef("-solver must be exact, lp or mws, not %q", *solver)
	}

	start := time.Now()
	p := newProgress(e.stderr, *verbose)
	m, db, err := loadProblem(ctx, p, splitList(*modelFiles), splitList(*evidence))
	if err != nil {
		return err
	}
	warnUnweighted(e.stderr, m)
	switch {
	case *mcsatInf:
		wf.engine = mcsat.RunMemory(mf.chains, mf.replicas, mcsat.MethodMCSAT)
	case *gibbsInf:
		wf.engine = mcsat.RunMemory(mf.chains, mf.replicas, mcsat.MethodGibbs)
	case *solver == "lp":
		wf.engine = lp.Memory
	case *solver == "mws":
		wf.engine = mws.Memory
	default:
		wf.engine = exact.Memory
	}
	net, gopt, err := groundProblem(ctx, p, e, &wf, m, db)
	if err != nil {
		return err
	}

	isQuery := make([]bool, len(m.Preds))
	for _, q := range gopt.Query {
		isQuery[q] = true
	}

	if *mcsatInf || *gibbsInf {
		opt := mcsat.Options{Samples: *samples, BurnIn: *burnIn}
		opt.Seed = *seed
		method := mcsat.MethodMCSAT
		if *gibbsInf {
			method = mcsat.MethodGibbs
		}
		// Independent components are sampled apart, their chains in parallel.
		return inferMarginals(ctx, e, p, &mf, net, m, isQuery, opt, method, wf.workers, *out, start)
	}

	var bias []float64
	if *lossAug != "" {
		truth, err := mln.LoadDatabase(m, *lossAug)
		if err != nil {
			return err
		}
		bias = hammingBias(net, truth, isQuery)
	}
	done := p.stage("MAP (" + *solver + ")")
	engine := func(ctx context.Context, net *ground.Network, opt infer.Options) (*infer.Result, error) {
		return solveMAPWith(ctx, net, *solver, opt, mapSettings{*maxSteps, *tries, *timeLimit, wf.workers, *prove}, e.stderr)
	}
	var res *infer.Result
	if *useCPI {
		var st *cpi.Stats
		res, st, err = cpi.Solve(ctx, net, engine, cpi.Options{Options: infer.Options{Bias: bias, Seed: *seed}})
		if err == nil {
			p.logf("cutting-plane inference: %d rounds, %d of %d ground clauses", st.Rounds, st.Clauses, st.Total)
		}
	} else {
		res, err = engine(ctx, net, infer.Options{Bias: bias, Seed: *seed})
	}
	if err != nil {
		return err
	}
	done("cost %.6g, %d hard clauses violated, optimal %v", res.Cost, res.HardViolated, res.Optimal)
	if res.HardViolated > 0 || net.HardFalse > 0 {
		fmt.Fprintf(e.stderr, "marple infer: warning: the MAP state violates %d hard clauses (%d falsified by the evidence alone)\n",
			res.HardViolated+net.HardFalse, net.HardFalse)
	}
	if err := atomicfile.Write(*out, func(w io.Writer) error {
		return writeMAP(w, m, db, net, res.Assign, isQuery)
	}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "marple infer: %d atoms, %d clauses, cost %s, %s, %.2fs\n",
		net.NumAtoms(), net.NumClauses(), fmtCost(res.Cost, res.Cost), provedText(res, *solver, *prove), time.Since(start).Seconds())
	return nil
}

// provedText says whether res was proved optimal, and what to do if not.
func provedText(res *infer.Result, solver string, prove bool) string {
	switch {
	case res.Optimal:
		return "proved optimal"
	case math.IsInf(res.Bound, 1):
		return "not proved optimal (the hard clauses cannot all hold)"
	case math.IsInf(res.Bound, -1):
		return "not proved optimal"
	}
	s := "not proved optimal (lower bound " + fmtCost(res.Bound, res.Cost) + ")"
	switch {
	case solver == "exact" && !prove:
		s += "; -prove searches until -timeLimit"
	case solver == "exact":
		s += "; raise -timeLimit"
	}
	return s
}

// fmtCost formats a cost (or bound) x with six significant digits, as 0
// when it is float noise next to ref (|x| below 1e-9 of max(1, |ref|)).
func fmtCost(x, ref float64) string {
	if math.Abs(x) < 1e-9*math.Max(1, math.Abs(ref)) {
		x = 0
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

// warnUnweighted warns, naming them, about the formulas written without a
// weight and not hard: inference gives them weight 0 (they count for
// nothing).
func warnUnweighted(w io.Writer, m *mln.Model) {
	var names []string
	for _, f := range m.Formulas {
		if !f.HasWeight && !f.Hard && !f.Synthetic {
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

// mapSettings are the MAP engines' flags.
type mapSettings struct {
	maxSteps, tries int
	limit           time.Duration
	workers         int
	prove           bool
}

// solveMAP runs the chosen MAP engine (without -prove).
// report, when not nil, receives the LP relaxation's figures.
func solveMAP(ctx context.Context, net *ground.Network, solver string, opt infer.Options, maxSteps, tries int, limit time.Duration, workers int, report io.Writer) (*infer.Result, error) {
	return solveMAPWith(ctx, net, solver, opt, mapSettings{maxSteps, tries, limit, workers, false}, report)
}

// solveMAPWith runs the chosen MAP engine with settings s.
func solveMAPWith(ctx context.Context, net *ground.Network, solver string, opt infer.Options, s mapSettings, report io.Writer) (*infer.Result, error) {
	switch solver {
	case "mws":
		return mws.Solve(ctx, net, mws.Options{Options: opt, MaxSteps: s.maxSteps, Tries: s.tries})
	case "lp":
		res, st, err := lp.Solve(ctx, net, lp.Options{Options: opt, Workers: s.workers, TimeLimit: s.limit})
		if err == nil && report != nil {
			fmt.Fprintf(report, "marple: LP relaxation: bound on the cost %s (LP value %s), ROUNDUP cost %s, final cost %s, %.1f%% of atoms integral, %d iterations, converged %v\n",
				fmtCost(st.LPBound, st.RoundedCost), fmtCost(st.LPValue, st.LPValue), fmtCost(st.RoundupCost, st.RoundupCost), fmtCost(st.RoundedCost, st.RoundedCost), 100*st.FracIntegral, st.Iterations, st.Converged)
		}
		return res, err
	default:
		return exact.Solve(ctx, net, exact.Options{Options: opt, Workers: s.workers, TimeLimit: s.limit, Prove: s.prove})
	}
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

// writeMAP writes the true query atoms: those the evidence makes true, then
// those true in the MAP assignment y.
func writeMAP(w io.Writer, m *mln.Model, db *mln.Database, net *ground.Network, y []bool, isQuery []bool) error {
	for p := range m.Preds {
		if !isQuery[p] {
			continue
		}
		var err error
		db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
			if v == mln.True && err == nil {
				_, err = fmt.Fprintln(w, atomString(m, mln.PredID(p), args))
			}
		})
		if err != nil {
			return err
		}
	}
	for a := 0; a < net.NumAtoms(); a++ {
		if y[a] && isQuery[net.AtomPred[a]] {
			if _, err := fmt.Fprintln(w, atomString(m, net.AtomPred[a], net.AtomArgs[a])); err != nil {
				return err
			}
		}
	}
	return nil
}
