package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/internal/atomicfile"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

const learnSynopsis = `-i model.mln -o learned.mln -t a.db,b.db -ne Pred1,Pred2 [-method cda-ml | -g | -d]

Learns the weights of the model's formulas from training databases and
writes the model with the learned weights in Alchemy syntax. The -t files
are merged into one database; its atoms of the -ne (non-evidence, query)
predicates are the truth (unlisted atoms false), the rest is evidence. There
is one training example per constant of -exampleType (by default the query
predicates' argument type with the most constants: one example per CiteSeer
citation, bib), ground on its own when training reaches it, so only one
example's ground network is in memory at a time; its evidence is the atoms
of its constant and those without an argument of that type. A model whose
clauses link two constants of that type (two variables of the type in one
clause, say) is ground whole instead, and its examples are the independent
components of the ground network grouped by such a constant, as with
-exampleType none (every component an example). With -multipleDatabases
each file is one example.

Methods (Huynh & Mooney 2011): cda-pl, cda-ml (coordinate dual ascent with
prediction-based or maximal loss), mira (1-best MIRA), subgradient, adagrad
(AdaGrad forward-backward with l1); and mm, the batch max-margin learner
(Huynh & Mooney 2009: 1-slack structural SVM trained by cutting planes,
Hamming loss; -C, -epsilon, -maxIter; -passes, -shuffle, -noAverage do not
apply).

The two classic batch learners of Alchemy's learnwts: pll (alias -g),
generative learning by weighted pseudo-log-likelihood with L-BFGS (the -ne
predicates' atoms are summed, by default every predicate's; each atom weighs
1/(atoms of its predicate) unless -gNoEqualPredWt; -maxIter bounds L-BFGS
iterations), and dcll (alias -d), discriminative learning of the conditional
log-likelihood of the -ne predicates given the rest, with expectations from
MC-SAT (-numSamples steps per iteration, persistent chains) and preconditioned
scaled conjugate gradient (-dNewton: diagonal Newton; -maxIter iterations).
Both put a Gaussian prior N(0, σ²) on the weights (-priorStdDev, Alchemy's
defaults 100 for pll and 2 for dcll; -noPrior drops it).`

func runLearn(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "learn", learnSynopsis)
	var (
		modelFiles = fs.String("i", "", "input model file(s) (.mln), comma-separated")
		outFile    = fs.String("o", "", "output model file (required)")
		train      = fs.String("t", "", "training database file(s) (.db), comma-separated")
		nonEv      = fs.String("ne", "", "non-evidence (query) predicates, comma-separated")
		multi      = fs.Bool("multipleDatabases", false, "each -t file is one example")
		exType     = fs.String("exampleType", "auto", "one example per constant of this type, each ground on its own; auto: the query predicates' argument type with the most constants; none: ground everything, every component is an example")
		method     = fs.String("method", "cda-ml", "cda-pl, cda-ml, mira, subgradient, adagrad, mm, pll or dcll")
		gen        = fs.Bool("g", false, "generative weight learning: -method pll (Alchemy's learnwts -g)")
		disc       = fs.Bool("d", false, "discriminative weight learning: -method dcll (Alchemy's learnwts -d)")
		priorSD    = fs.Float64("priorStdDev", 0, fmt.Sprintf("pll, dcll: standard deviation of the Gaussian prior on the weights (0: Alchemy's default, %g for pll, %g for dcll)", float64(learn.DefaultPLLPriorStdDev), float64(learn.DefaultCLLPriorStdDev)))
		noPrior    = fs.Bool("noPrior", false, "pll, dcll: no prior on the weights")
		numSamples = fs.Int("numSamples", 0, fmt.Sprintf("dcll: MC-SAT steps per example and iteration (0: Alchemy's rule, %d / groundings of the smallest clause, at least %d)", learn.CLLSampleBudget, learn.CLLMinSamples))
		dNewton    = fs.Bool("dNewton", false, "dcll: diagonal Newton instead of preconditioned scaled conjugate gradient")
		noEqualWt  = fs.Bool("gNoEqualPredWt", false, "pll: weight every atom 1 instead of 1/(atoms of its predicate)")
		loss       = fs.String("loss", "hamming", "label loss: hamming or f1 (f1 with prediction-based methods only)")
		sigmaFlag  = fs.String("sigma", "auto", fmt.Sprintf("CDA, subgradient: the strong-convexity constant σ; auto: chosen from %v by F1 (see -tuneHoldout)", learn.SigmaGrid))
		cFlag      = fs.String("C", "auto", fmt.Sprintf("mira: clip the step at C (0 or auto: the paper's unclipped rule); mm: the SVM's margin/slack trade-off C (auto: chosen from %v by F1, see -tuneHoldout)", learn.CGrid))
		holdout    = fs.Float64("tuneHoldout", learn.DefaultTuneHoldout, "-sigma auto, -C auto: score each value on this fraction of the examples held out from its training (0: on the training examples)")
		epsilon    = fs.Float64("epsilon", 0, fmt.Sprintf("mm: stop when the most violated constraint is violated by at most ε, in Hamming loss per example (0: the default, %g)", learn.DefaultMaxMarginEpsilon))
		maxIter    = fs.Int("maxIter", 0, fmt.Sprintf("mm: maximum cutting-plane rounds (0: the default, %d); pll: maximum L-BFGS iterations (0: %d); dcll: iterations (0: %d)", learn.DefaultMaxMarginIter, learn.DefaultPLLMaxIter, learn.DefaultCLLMaxIter))
		lambda     = fs.Float64("lambda", 0.001, "adagrad: l1 regularisation λ")
		eta        = fs.Float64("eta", 1, "adagrad: learning rate η")
		delta      = fs.Float64("delta", 1, "adagrad: δ")
		passes     = fs.Int("passes", 1, "passes over the training examples")
		shuffle    = fs.Bool("shuffle", false, "visit the examples in a random order drawn from -seed")
		noAverage  = fs.Bool("noAverage", false, "keep the last weights instead of the average")
		solver     = fs.String("solver", "exact", "MAP engine inside training: exact, lp or mws")
		seed       = fs.Int64("seed", 1, "random seed")
		checkpoint = fs.Bool("checkpoint", false, "on Ctrl-C, still write the weights learned so far")
		verbose    = fs.Bool("v", false, "report every stage on stderr")
	)
	var wf worldFlags
	wf.register(false, fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *outFile == "" {
		return usagef("no output file: give -o learned.mln")
	}
	if *train == "" {
		return usagef("no training data: give -t a.db,b.db")
	}
	methodSet := false
	fs.Visit(func(f *flag.Flag) { methodSet = methodSet || f.Name == "method" })
	switch {
	case *gen && *disc:
		return usagef("-g and -d exclude each other")
	case *gen || *disc:
		want := "pll"
		if *disc {
			want = "dcll"
		}
		if methodSet && *method != want {
			return usagef("-%s means -method %s, not %s", map[bool]string{true: "g", false: "d"}[*gen], want, *method)
		}
		*method = want
	}
	generative, discriminative := *method == "pll", *method == "dcll"
	if *nonEv == "" && !generative {
		return usagef("no non-evidence predicates: give -ne Pred1,Pred2")
	}
	if *priorSD < 0 || *numSamples < 0 {
		return usagef("-priorStdDev and -numSamples must not be negative")
	}
	if generative || discriminative {
		if *maxIter < 0 {
			return usagef("-maxIter must not be negative")
		}
		return learnLikelihood(ctx, e, likelihoodFlags{
			modelFiles: *modelFiles, outFile: *outFile, train: *train, nonEv: *nonEv, multi: *multi, exType: *exType,
			generative: generative, priorSD: *priorSD, noPrior: *noPrior, maxIter: *maxIter, numSamples: *numSamples,
			newton: *dNewton, noEqualWt: *noEqualWt, seed: *seed, checkpoint: *checkpoint, verbose: *verbose, wf: wf,
		})
	}
	batch := *method == "mm"
	sigma, sigmaAuto, err := autoFloat("sigma", *sigmaFlag, 1)
	if err != nil {
		return err
	}
	c, cAuto, err := autoFloat("C", *cFlag, 0)
	if err != nil {
		return err
	}
	var meth learn.Method
	if !batch {
		meth, err = learnMethod(*method, sigma, c, *lambda, *eta, *delta)
		if err != nil {
			return err
		}
		sigmaAuto = sigmaAuto && *method != "mira" && *method != "adagrad"
	} else if c < 0 || *epsilon < 0 || *maxIter < 0 {
		return usagef("-C, -epsilon and -maxIter must not be negative")
	}
	if *holdout < 0 || *holdout >= 1 {
		return usagef("-tuneHoldout must be in [0, 1)")
	}
	var lossFn learn.LabelLoss
	switch *loss {
	case "hamming", "hm":
		lossFn = learn.Hamming
	case "f1":
		lossFn = learn.F1
	default:
		return usagef("-loss must be hamming or f1, not %q", *loss)
	}
	if lossFn == learn.F1 && (batch || meth.Label() == learn.MaxLoss) {
		return usagef("-loss f1 does not decompose over atoms: use a prediction-based method (cda-pl, mira, adagrad)")
	}
	switch *solver {
	case "exact", "lp", "mws":
	default:
		return usagef("-solver must be exact, lp or mws, not %q", *solver)
	}

	p := newProgress(e.stderr, *verbose)
	trainFiles := splitList(*train)
	done := p.stage("parse")
	m, err := mln.LoadModel(splitList(*modelFiles)...)
	if err != nil {
		return err
	}
	var dbs []*mln.Database
	if *multi {
		for _, f := range trainFiles {
			db, err := mln.LoadDatabase(m, f)
			if err != nil {
				return err
			}
			dbs = append(dbs, db)
		}
	} else {
		db, err := mln.LoadDatabase(m, trainFiles...)
		if err != nil {
			return err
		}
		dbs = append(dbs, db)
	}
	if err := m.Compile(); err != nil {
		return err
	}
	done("%d formulas, %d clauses", len(m.Formulas), len(m.Clauses))
	wf.query = *nonEv
	gopt, err := wf.groundOptions(m, e.stderr)
	if err != nil {
		return usagef("%v", err)
	}
	isQuery := make([]bool, len(m.Preds))
	for _, q := range gopt.Query {
		isQuery[q] = true
	}

	// The example type, if any.
	exT, hasExT := mln.TypeID(-1), false
	switch *exType {
	case "none", "":
	case "auto":
		exT, hasExT = largestQueryType(m, gopt.Query)
	default:
		t, ok := m.Type(*exType)
		if !ok {
			return usagef("-exampleType: unknown type %q", *exType)
		}
		exT, hasExT = t.ID, true
	}

	var src learn.ExampleSource
	var psrc *learn.PartitionSource
	// The batch learner visits every example on every round: it grounds the
	// training set once. The online ones ground each example when they
	// reach it, so the whole ground training set is never in memory.
	if !*multi && hasExT && !groundWhole && !batch {
		psrc, err = learn.NewPartitionSource(m, dbs[0], gopt.Query, exT, gopt)
		if err != nil {
			// Examples that cannot be ground apart: ground everything
			// (and say why, when the type was asked for).
			if *exType == "auto" {
				p.logf("learn: grounding the whole training set: %v", err)
			} else {
				fmt.Fprintf(e.stderr, "marple: learn: grounding the whole training set: %v\n", err)
			}
			psrc = nil
		}
	}
	switch {
	case *multi:
		src = &learn.DatabaseSource{
			Model: m, DBs: dbs, Query: gopt.Query, Names: trainFiles,
			Ground: func(ctx context.Context, ev *mln.Database) (*ground.Network, error) {
				return ground.Ground(ctx, m, ev, gopt)
			},
		}
	case psrc != nil:
		src = psrc
		p.logf("learn: %d examples, one per constant of type %s, each ground when training reaches it", psrc.Len(), m.Types[exT].Name)
	default:
		done := p.stage("ground")
		ev := withoutPreds(m, dbs[0], isQuery)
		net, err := ground.Ground(ctx, m, ev, gopt)
		if err != nil {
			return err
		}
		truth := net.Assignment(dbs[0])
		query := make([]bool, net.NumAtoms())
		for a := range query {
			query[a] = isQuery[net.AtomPred[a]]
		}
		var key func(int32) int64
		if hasExT {
			key = constKey(m, net, exT)
		}
		cs := learn.NewComponentSource(net, truth, query, key)
		src = cs
		done("%d atoms, %d clauses, %d examples", net.NumAtoms(), net.NumClauses(), cs.Len())
	}

	lastReport := time.Now()
	settings := learn.Settings{
		Solver:    mapSolver(*solver, *seed),
		Loss:      lossFn,
		Passes:    *passes,
		Shuffle:   *shuffle,
		Seed:      *seed,
		NoAverage: *noAverage,
		Progress: func(pr learn.Progress) {
			if time.Since(lastReport) < time.Second && pr.Done != pr.Total {
				return
			}
			lastReport = time.Now()
			if pr.Elapsed < time.Second && !*verbose {
				return
			}
			if batch {
				fmt.Fprintf(e.stderr, "marple: learn: round %d, %d/%d examples, %.0f examples/s, loss %.3f\n",
					pr.Pass+1, pr.Done-pr.Pass*src.Len(), src.Len(), pr.Rate, pr.Loss)
				return
			}
			fmt.Fprintf(e.stderr, "marple: learn: pass %d, %d/%d examples, %.0f examples/s, loss %.3f, ETA %s\n",
				pr.Pass+1, pr.Done, pr.Total, pr.Rate, pr.Loss, pr.ETA.Round(time.Second))
		},
	}
	var stats *learn.Stats
	mm := learn.MaxMargin{C: c, Epsilon: *epsilon, MaxIter: *maxIter, Workers: wf.workers}
	if batch && cAuto || !batch && sigmaAuto {
		// The papers' tuning: learn with each grid value, keep the best
		// by F1 (on held-out examples, then relearn on all of them).
		name, grid := "σ", learn.SigmaGrid
		if batch {
			name, grid = "C", learn.CGrid
		}
		done = p.stage("tune " + name)
		tuning := learn.Tuning{Grid: grid, Holdout: *holdout, Seed: *seed, Solver: settings.Solver}
		var res *learn.TuneResult
		if batch {
			res, err = learn.TuneMaxMargin(ctx, m, src, mm, settings, tuning)
		} else {
			res, err = learn.TuneOnline(ctx, m, src, func(v float64) learn.Method {
				meth, _ := learnMethod(*method, v, c, *lambda, *eta, *delta)
				return meth
			}, settings, tuning)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "marple: learn: %s\n", res.Describe(name, tuning))
		done("%s = %g", name, res.Value)
		return atomicfile.Write(*outFile, func(w io.Writer) error { return mln.WriteModel(w, m) })
	}
	if batch {
		done = p.stage("learn MM-HM")
		stats, err = learn.Batch(ctx, m, src, mm, settings)
	} else {
		done = p.stage("learn " + meth.Name())
		stats, err = learn.Online(ctx, m, src, meth, settings)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) && *checkpoint && stats != nil {
			fmt.Fprintf(e.stderr, "marple learn: interrupted after %d examples; writing the weights so far\n", stats.Steps)
			if werr := atomicfile.Write(*outFile, func(w io.Writer) error { return mln.WriteModel(w, m) }); werr != nil {
				return werr
			}
		}
		return err
	}
	if batch {
		done("%d rounds of %d examples, %d planes, ξ %.4g, converged %v, %d parameters",
			stats.Iterations, src.Len(), stats.Constraints, stats.Slack, stats.Converged, len(m.Weights))
	} else {
		done("%d examples, %d parameters", stats.Steps, len(m.Weights))
	}
	if n := len(stats.PassLoss); n > 0 {
		p.logf("learn: last pass mean loss %.4f, %d mistakes", stats.PassLoss[n-1], stats.PassMistakes[n-1])
	}
	return atomicfile.Write(*outFile, func(w io.Writer) error { return mln.WriteModel(w, m) })
}

// autoFloat parses a flag that is a number or "auto" (returned as def and
// true).
func autoFloat(name, v string, def float64) (float64, bool, error) {
	if v == "auto" {
		return def, true, nil
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, false, usagef("-%s must be a number or auto, not %q", name, v)
	}
	return x, false, nil
}

// groundWhole makes learn ground the whole training set even when its
// examples can be ground one at a time (for tests comparing the two).
var groundWhole = false

// learnMethod builds the update rule named by -method.
func learnMethod(name string, sigma, c, lambda, eta, delta float64) (learn.Method, error) {
	switch name {
	case "cda-pl":
		return &learn.CDA{Sigma: sigma, Inference: learn.Prediction}, nil
	case "cda-ml", "cda":
		return &learn.CDA{Sigma: sigma, Inference: learn.MaxLoss}, nil
	case "mira":
		return &learn.MIRA{C: c, Inference: learn.Prediction}, nil
	case "subgradient":
		return &learn.Subgradient{Sigma: sigma, Inference: learn.MaxLoss}, nil
	case "adagrad":
		return &learn.AdaGradFB{Lambda: lambda, Eta: eta, Delta: delta, Inference: learn.Prediction}, nil
	}
	return nil, usagef("-method must be cda-pl, cda-ml, mira, subgradient, adagrad, mm, pll or dcll, not %q", name)
}

// mapSolver adapts a MAP engine to the learners.
func mapSolver(name string, seed int64) learn.MAPSolver {
	return func(ctx context.Context, net *ground.Network, bias []float64) ([]bool, error) {
		res, err := solveMAP(ctx, net, name, infer.Options{Bias: bias, Seed: seed}, 100000, 1, 0, 1, nil)
		if err != nil {
			return nil, err
		}
		return res.Assign, nil
	}
}

// withoutPreds returns a copy of db without the atoms of the marked
// predicates.
func withoutPreds(m *mln.Model, db *mln.Database, drop []bool) *mln.Database {
	out := mln.NewDatabase(m)
	for p := range m.Preds {
		if drop[p] {
			continue
		}
		db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
			out.Set(mln.PredID(p), args, v)
		})
	}
	return out
}

// constKey returns a function giving, for an atom of net, its first
// argument of type t (-1 when it has none).
func constKey(m *mln.Model, net *ground.Network, t mln.TypeID) func(int32) int64 {
	return func(a int32) int64 {
		pr := m.Preds[net.AtomPred[a]]
		for i, at := range pr.Args {
			if at == t {
				return int64(net.AtomArgs[a][i])
			}
		}
		return -1
	}
}

// largestQueryType returns the argument type of the query predicates with
// the most constants.
func largestQueryType(m *mln.Model, query []mln.PredID) (mln.TypeID, bool) {
	best, size := mln.TypeID(-1), -1
	for _, q := range query {
		for _, t := range m.Preds[q].Args {
			if n := m.Types[t].Size(); n > size {
				best, size = t, n
			}
		}
	}
	return best, best >= 0
}

// likelihoodFlags are the flags of the likelihood learners (pll, dcll).
type likelihoodFlags struct {
	modelFiles, outFile, train, nonEv, exType string
	multi, generative, noPrior, newton        bool
	noEqualWt, checkpoint, verbose            bool
	priorSD                                   float64
	maxIter, numSamples                       int
	seed                                      int64
	wf                                        worldFlags
}

// learnLikelihood runs learn -method pll (generative, weighted
// pseudo-log-likelihood) or dcll (discriminative, conditional
// log-likelihood) and writes the learned model.
func learnLikelihood(ctx context.Context, e *env, f likelihoodFlags) error {
	p := newProgress(e.stderr, f.verbose)
	trainFiles := splitList(f.train)
	done := p.stage("parse")
	m, err := mln.LoadModel(splitList(f.modelFiles)...)
	if err != nil {
		return err
	}
	var dbs []*mln.Database
	if f.multi {
		for _, file := range trainFiles {
			db, err := mln.LoadDatabase(m, file)
			if err != nil {
				return err
			}
			dbs = append(dbs, db)
		}
	} else {
		db, err := mln.LoadDatabase(m, trainFiles...)
		if err != nil {
			return err
		}
		dbs = append(dbs, db)
	}
	if err := m.Compile(); err != nil {
		return err
	}
	done("%d formulas, %d clauses", len(m.Formulas), len(m.Clauses))
	wf := f.wf
	wf.query = f.nonEv
	gopt, err := wf.groundOptions(m, e.stderr)
	if err != nil {
		return usagef("%v", err)
	}
	if f.generative && f.nonEv == "" {
		// Alchemy's -g without -ne: every predicate's atoms are summed.
		gopt.Query = nil
		for q := range m.Preds {
			gopt.Query = append(gopt.Query, mln.PredID(q))
		}
	}
	isQuery := make([]bool, len(m.Preds))
	for _, q := range gopt.Query {
		isQuery[q] = true
	}

	// The examples: one per database for pll (its weights are per
	// database); for dcll the components of the whole grounding, grouped
	// by -exampleType as for mm.
	var src learn.ExampleSource
	switch {
	case f.multi:
		src = &learn.DatabaseSource{
			Model: m, DBs: dbs, Query: gopt.Query, Names: trainFiles,
			Ground: func(ctx context.Context, ev *mln.Database) (*ground.Network, error) {
				return ground.Ground(ctx, m, ev, gopt)
			},
		}
	default:
		done := p.stage("ground")
		ev := withoutPreds(m, dbs[0], isQuery)
		net, err := ground.Ground(ctx, m, ev, gopt)
		if err != nil {
			return err
		}
		truth := net.Assignment(dbs[0])
		query := make([]bool, net.NumAtoms())
		for a := range query {
			query[a] = isQuery[net.AtomPred[a]]
		}
		if f.generative {
			src = learn.Examples{{Net: net, Truth: truth, Query: query, Name: f.train}}
			done("%d atoms, %d clauses", net.NumAtoms(), net.NumClauses())
			break
		}
		var key func(int32) int64
		switch f.exType {
		case "none", "":
		case "auto":
			if t, ok := largestQueryType(m, gopt.Query); ok {
				key = constKey(m, net, t)
			}
		default:
			t, ok := m.Type(f.exType)
			if !ok {
				return usagef("-exampleType: unknown type %q", f.exType)
			}
			key = constKey(m, net, t.ID)
		}
		cs := learn.NewComponentSource(net, truth, query, key)
		src = cs
		done("%d atoms, %d clauses, %d examples", net.NumAtoms(), net.NumClauses(), cs.Len())
	}

	var (
		lerr    error
		learned bool // the model holds learned weights (also when interrupted)
	)
	if f.generative {
		done = p.stage("learn PLL")
		st, err := learn.Generative(ctx, m, src, learn.GenerativeSettings{
			PLLOptions:  learn.PLLOptions{Unweighted: f.noEqualWt, Workers: wf.workers},
			PriorStdDev: f.priorSD, NoPrior: f.noPrior, MaxIter: f.maxIter,
		})
		lerr, learned = err, st != nil
		if err == nil {
			done("WPLL %.6g (objective %.6g, gradient %.2g), %d L-BFGS iterations, %d evaluations, %s; %d atoms in %d distinct rows, %d parameters (rows built in %.2fs)",
				st.WPLL, st.Objective, st.GradNorm, st.Iterations, st.Evaluations, st.Status, st.Atoms, st.Rows, st.Params, st.Prepare.Seconds())
		}
	} else {
		lastReport := time.Now()
		set := learn.DiscriminativeSettings{
			PriorStdDev: f.priorSD, NoPrior: f.noPrior, MaxIter: f.maxIter, Samples: f.numSamples,
			Newton: f.newton, Seed: f.seed, Workers: wf.workers,
			Progress: func(pr learn.DiscriminativeProgress) {
				if time.Since(lastReport) < time.Second && !f.verbose {
					return
				}
				lastReport = time.Now()
				if pr.Elapsed < time.Second && !f.verbose {
					return
				}
				fmt.Fprintf(e.stderr, "marple: learn: iteration %d (round %d), gradient %.3g, λ %.3g, predicted gain %.3g%s\n",
					pr.Iter, pr.Round, pr.GradNorm, pr.Lambda, pr.Improvement, map[bool]string{true: ", backtracked"}[pr.Backtracked])
			},
		}
		name := "PSCG"
		if f.newton {
			name = "DN"
		}
		done = p.stage("learn CLL (" + name + ")")
		st, err := learn.Discriminative(ctx, m, src, set)
		lerr, learned = err, st != nil
		if err == nil {
			done("%d iterations, %d MC-SAT rounds of %d steps, %d backtracks, converged %v, gradient %.3g, %d examples, %d parameters",
				st.Iterations, st.Rounds, st.Samples, st.Backtracks, st.Converged, st.GradNorm, st.Examples, st.Params)
		}
	}
	if lerr != nil {
		if errors.Is(lerr, context.Canceled) && f.checkpoint && learned {
			fmt.Fprintln(e.stderr, "marple learn: interrupted; writing the weights so far")
			if werr := atomicfile.Write(f.outFile, func(w io.Writer) error { return mln.WriteModel(w, m) }); werr != nil {
				return werr
			}
		}
		return lerr
	}
	for i, w := range m.Weights {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return fmt.Errorf("learn: weight %d is %v", i, w)
		}
	}
	return atomicfile.Write(f.outFile, func(w io.Writer) error { return mln.WriteModel(w, m) })
}
