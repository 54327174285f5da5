package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/internal/atomicfile"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

const learnSynopsis = `-i model.mln -o learned.mln -t a.db,b.db -ne Pred1,Pred2 [-method cda-ml]

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
apply).`

func runLearn(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "learn", learnSynopsis)
	var (
		modelFiles = fs.String("i", "", "input model file(s) (.mln), comma-separated")
		outFile    = fs.String("o", "", "output model file (required)")
		train      = fs.String("t", "", "training database file(s) (.db), comma-separated")
		nonEv      = fs.String("ne", "", "non-evidence (query) predicates, comma-separated")
		multi      = fs.Bool("multipleDatabases", false, "each -t file is one example")
		exType     = fs.String("exampleType", "auto", "one example per constant of this type, each ground on its own; auto: the query predicates' argument type with the most constants; none: ground everything, every component is an example")
		method     = fs.String("method", "cda-ml", "cda-pl, cda-ml, mira, subgradient, adagrad or mm")
		loss       = fs.String("loss", "hamming", "label loss: hamming or f1 (f1 with prediction-based methods only)")
		sigma      = fs.Float64("sigma", 1, "CDA, subgradient: the strong-convexity constant σ")
		c          = fs.Float64("C", 0, fmt.Sprintf("mira: clip the step at C (0: the paper's unclipped rule); mm: the SVM's margin/slack trade-off C (0: the default, %g)", float64(learn.DefaultMaxMarginC)))
		epsilon    = fs.Float64("epsilon", 0, fmt.Sprintf("mm: stop when the most violated constraint is violated by at most ε, in Hamming loss per example (0: the default, %g)", learn.DefaultMaxMarginEpsilon))
		maxIter    = fs.Int("maxIter", 0, fmt.Sprintf("mm: maximum cutting-plane rounds (0: the default, %d)", learn.DefaultMaxMarginIter))
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
	if *nonEv == "" {
		return usagef("no non-evidence predicates: give -ne Pred1,Pred2")
	}
	batch := *method == "mm"
	var meth learn.Method
	if !batch {
		var err error
		meth, err = learnMethod(*method, *sigma, *c, *lambda, *eta, *delta)
		if err != nil {
			return err
		}
	} else if *c < 0 || *epsilon < 0 || *maxIter < 0 {
		return usagef("-C, -epsilon and -maxIter must not be negative")
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
	if batch {
		done = p.stage("learn MM-HM")
		stats, err = learn.Batch(ctx, m, src, learn.MaxMargin{C: *c, Epsilon: *epsilon, MaxIter: *maxIter, Workers: wf.workers}, settings)
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
	return nil, usagef("-method must be cda-pl, cda-ml, mira, subgradient, adagrad or mm, not %q", name)
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
