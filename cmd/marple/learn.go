package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/rrf"
	"github.com/marple-mln/marple/score"
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
of its constant and those without an argument of that type, and, as in
Alchemy, its domains are the constants its atoms mention (plus the model's):
a citation's positions are those of its tokens. A model whose
clauses link two constants of that type (two variables of the type in one
clause, say) is ground whole instead, and its examples are the independent
components of the ground network grouped by such a constant, as with
-exampleType none (every component an example). With -multipleDatabases
each file is one example, over its own constants.

With -checkpoint the online methods save their state every -checkpointEvery
examples to OUT.checkpoint (atomically); after a crash or kill, the same
command with -resume continues to the weights the uninterrupted run gives.

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
dcll starts from the exact optimum of the model with the formulas that link
query atoms at weight 0 (where the query atoms are independent given the
evidence), its chains from worlds drawn from it (-dZeroStart: from zero
weights and random worlds, as Alchemy). Both put a Gaussian prior N(0, σ²)
on the weights (-priorStdDev, Alchemy's defaults 100 for pll and 2 for dcll;
-noPrior drops it); with -multipleDatabases and no -priorStdDev, dcll
chooses σ among 0.25, 0.5, 1, 2, 4 by the conditional log-likelihood of
that start on each training database left out in turn. dcll divides σ of a
weight whose clauses link query atoms by its connections, the most ground
clauses through one atom (-dFlatPrior: one σ for every weight, as Alchemy);
with -multipleDatabases, how much (through its most or least connected
predicate) is chosen by held-out CLL on the largest training database
(-dTuneJointPrior=false: through the most connected). Its MC-SAT chains
make star moves (an atom resampled jointly with the atoms its clauses tie
it to; -dStars=false: none). A dcll run that ends
unconverged names the weights whose gradients stayed beyond the noise of
the samples.

vp is Alchemy's voted perceptron (learnwts -d -dVP): every iteration
estimates the expected counts of the -ne atoms' formulas with MC-SAT
(-numSamples steps per iteration, default as for dcll, persistent chains;
-dMAPCounts: the counts of the MAP state found by the -solver engine, as
Alchemy's -dVP -infer -m) and moves the weights by -dLearningRate times the
difference between the counts of the training world and those expected
(each weight's rate divided by its count in the training world unless
-dNoPW; -dMomentum; the dcll prior's gradient); the result is the weights
of the last of the -maxIter iterations, with -dMAPCounts their average over
the iterations (as Alchemy). It starts as dcll does (-dZeroStart: from
zero weights, as Alchemy).

With -d -withEM (Alchemy's learnwts -withEM) the -ne atoms a training
database lists as unknown ("?Smokes(Anna)") are hidden, and the weights are
learned by EM: -emIter rounds of MC-SAT marginals of the hidden atoms given
the rest, then dcll on completions drawn from them. Unlisted -ne atoms are
false, as without -withEM.

With -hybrid (a model with numeric terms) every -t file is one example with
-multipleDatabases, else the merged files are one; dcll (the default) learns
the conditional log-likelihood with hybrid MC-SAT expectations, and -method
mm the 1-slack max-margin weights, its loss-augmented inference hybrid
MaxWalkSAT with the Hamming loss of the Boolean -ne atoms (real-valued -ne
atoms add no loss); -C auto and -tuneHoldout (a fraction of the -t files)
choose C as for mm.`

func runLearn(ctx context.Context, e *env, args []string) error {
	fs, tf := newTrainFlags(e, "learn", learnSynopsis,
		"one example per constant of this type, each ground on its own over its own constants; auto: the query predicates' argument type with the most constants; none: ground everything, every component is an example",
		"save the learner's state every -checkpointEvery examples (OUT.checkpoint, for -resume); on Ctrl-C, still write the weights learned so far")
	var (
		multi      = fs.Bool("multipleDatabases", false, "each -t file is one example, with its own constants")
		method     = fs.String("method", "cda-ml", learnMethodNames())
		gen        = fs.Bool("g", false, "generative weight learning: -method pll (Alchemy's learnwts -g)")
		disc       = fs.Bool("d", false, "discriminative weight learning: -method dcll (Alchemy's learnwts -d)")
		priorSD    = fs.Float64("priorStdDev", 0, fmt.Sprintf("pll, dcll: standard deviation of the Gaussian prior on the weights (0: Alchemy's default, %g for pll, %g for dcll; dcll with -multipleDatabases, without -withEM, chooses it on the training databases)", float64(score.DefaultPLLPriorStdDev), float64(learn.DefaultCLLPriorStdDev)))
		noPrior    = fs.Bool("noPrior", false, "pll, dcll: no prior on the weights")
		numSamples = fs.Int("numSamples", 0, fmt.Sprintf("dcll, vp: MC-SAT steps per example and iteration (0: Alchemy's rule, %d / groundings of the smallest clause, at least %d)", learn.CLLSampleBudget, learn.CLLMinSamples))
		dNewton    = fs.Bool("dNewton", false, "dcll: diagonal Newton instead of preconditioned scaled conjugate gradient")
		noEqualWt  = fs.Bool("gNoEqualPredWt", false, "pll: weight every atom 1 instead of 1/(atoms of its predicate)")
		loss       = fs.String("loss", "hamming", "label loss: hamming or f1 (f1 with prediction-based methods only)")
		sigmaFlag  = fs.String("sigma", "auto", fmt.Sprintf("CDA, subgradient: the strong-convexity constant σ; auto: chosen from %v by F1 (see -tuneHoldout)", learn.SigmaGrid))
		cFlag      = fs.String("C", "auto", fmt.Sprintf("mira: clip the step at C (0 or auto: the paper's unclipped rule); mm: the SVM's margin/slack trade-off C (auto: chosen from %v by F1, see -tuneHoldout)", learn.CGrid))
		holdout    = fs.Float64("tuneHoldout", learn.DefaultTuneHoldout, "-sigma auto, -C auto: score each value on this fraction of the examples held out from its training (0: on the training examples)")
		epsilon    = fs.Float64("epsilon", 0, fmt.Sprintf("mm: stop when the most violated constraint is violated by at most ε, in Hamming loss per example (0: the default, %g)", learn.DefaultMaxMarginEpsilon))
		maxIter    = fs.Int("maxIter", 0, fmt.Sprintf("mm: maximum cutting-plane rounds (0: the default, %d); pll: maximum L-BFGS iterations (0: %d); dcll: iterations (0: %d)", learn.DefaultMaxMarginIter, score.DefaultPLLMaxIter, learn.DefaultCLLMaxIter))
		rrfL       = fs.Bool("rrf", false, "recursive random field (nested weights): every weight at every level by pseudo-likelihood and L-BFGS (-maxIter, -priorStdDev, -noPrior, -gNoEqualPredWt, -multipleDatabases)")
		hybridL    = fs.Bool("hybrid", false, "hybrid MLN (numeric terms): learn the conditional log-likelihood of the -ne atoms with hybrid MC-SAT expectations (-maxIter steps, 0: 100; -numSamples per step, 0: 50; -priorStdDev, 0: 10); with -method mm, the max-margin learner with loss-augmented hybrid MaxWalkSAT (-C, -epsilon, -maxIter, -tuneHoldout as for mm)")
	)
	var lx learnExtras // -gConvThresh, -cg*, -timeLimit, -addUnitClauses: learn_alchemy.go
	lx.register(fs, tf)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := tf.check(); err != nil {
		return err
	}
	e.resultsToStdout(*tf.outFile)
	if *rrfL {
		return runLearnRRF(ctx, e, fs, rrf.LearnConfig{Models: splitList(*tf.modelFiles), Train: splitList(*tf.train), NonEvidence: splitList(*tf.nonEv), Multiple: *multi,
			Options: rrf.LearnOptions{PriorStdDev: *priorSD, NoPrior: *noPrior, MaxIter: *maxIter, EqualAtomWeight: *noEqualWt}}, *tf.outFile)
	}
	if *hybridL {
		hf := hybridFlags{multi: *multi, iters: *maxIter, samples: *numSamples, priorSD: *priorSD,
			c: *cFlag, epsilon: *epsilon, holdout: *holdout}
		if err := hf.check(fs, *method, *gen, *disc); err != nil {
			return err
		}
		return runLearnHybrid(ctx, e, tf, hf)
	}
	sigma, sigmaAuto, err := autoFloat("sigma", *sigmaFlag, learn.DefaultSigma)
	if err != nil {
		return err
	}
	c, cAuto, err := autoFloat("C", *cFlag, 0)
	if err != nil {
		return err
	}
	if err := checkFinite(map[string]float64{"sigma": sigma, "C": c, "epsilon": *epsilon, "priorStdDev": *priorSD}); err != nil {
		return err
	}
	if err := firstErr(positive("sigma", sigma), nonNegative("C", c)); err != nil {
		return err
	}
	if *holdout < 0 || *holdout >= 1 {
		return usagef("-tuneHoldout must be in [0, 1)")
	}
	methodSet, solverSet := false, false
	fs.Visit(func(f *flag.Flag) {
		methodSet = methodSet || f.Name == "method"
		solverSet = solverSet || f.Name == "solver"
	})
	switch {
	case *gen && *disc:
		return usagef("-g and -d exclude each other")
	case *gen || *disc:
		want := map[bool]string{true: "pll", false: "dcll"}[*gen]
		if *disc && *method == "vp" {
			break // the voted perceptron is discriminative too (Alchemy's -d -dVP)
		}
		if methodSet && *method != want {
			return usagef("-%s means -method %s, not %s", map[bool]string{true: "g", false: "d"}[*gen], want, *method)
		}
		*method = want
	}
	switch {
	case *method == "vp" && solverSet && !lx.vpMAP:
		return usagef("-solver with -method vp needs -dMAPCounts: the voted perceptron's expected counts come from MC-SAT")
	case *method == "vp" && *numSamples != 0 && lx.vpMAP:
		return usagef("-numSamples does not apply to -dMAPCounts: the counts are those of one MAP state")
	}
	likelihood, batch := *method == "pll" || *method == "dcll" || *method == "vp", *method == "mm"
	if err := lx.check(*method); err != nil {
		return err
	}
	if err := needPreds("ne", *tf.nonEv); err != nil && *method != "pll" {
		return err
	}
	if *priorSD < 0 || *numSamples < 0 || c < 0 || *epsilon < 0 || *maxIter < 0 {
		return usagef("-priorStdDev, -numSamples, -C, -epsilon and -maxIter must not be negative")
	}
	if (likelihood || batch) && *tf.resume {
		return usagef("-resume applies to the online methods only")
	}
	var meth learn.Method
	if !likelihood && !batch {
		var err error
		var usesSigma bool
		if meth, usesSigma, err = learnMethod(*method, sigma, c, *tf.lambda, *tf.eta, *tf.delta); err != nil {
			return err
		}
		sigmaAuto = sigmaAuto && usesSigma
	}
	lossFn := learn.Hamming
	switch *loss {
	case "hamming", "hm":
	case "f1":
		lossFn = learn.F1
		if batch || likelihood || meth.Label() == learn.MaxLoss {
			return usagef("-loss f1 does not decompose over atoms: use a prediction-based method (cda-pl, mira, adagrad)")
		}
	default:
		return usagef("-loss must be hamming or f1, not %q", *loss)
	}

	p := newProgress(e.stderr, *tf.verbose)
	tf.softenHard = lx.gAlchemy // Alchemy's -g learns the hard formulas' weights too
	m, dbs, gopt, err := tf.load(ctx, e, p, *multi)
	if err == nil && m.IsHybrid() {
		return usagef("the model has numeric terms (a hybrid MLN): give -hybrid")
	}
	if err != nil {
		return err
	}
	if likelihood {
		return learnLikelihood(ctx, e, p, tf, m, dbs, gopt, likelihoodFlags{
			multi: *multi, generative: *method == "pll", priorSD: *priorSD, noPrior: *noPrior, maxIter: *maxIter,
			numSamples: *numSamples, newton: *dNewton, noEqualWt: *noEqualWt, extras: &lx, vp: *method == "vp",
		})
	}
	eopt, err := tf.exampleOptions(e, p, m, gopt)
	if err != nil {
		return err
	}
	eopt.MultipleDatabases = *multi
	done := p.stage("examples")
	src, _, err := learn.NewExamples(ctx, m, dbs, eopt)
	if err == nil && batch {
		// The batch learner visits every example every round: ground each once.
		src, err = learn.Collect(ctx, src)
	}
	if err != nil {
		return err
	}
	done("%d examples", src.Len())
	tuneLabel := "" // while σ or C is tuned: the value being learned
	settings, err := tf.settings(e, "learn", func() string { return tuneLabel })
	if err != nil {
		return err
	}
	settings.Loss = lossFn
	var stats *learn.Stats
	mm := learn.MaxMargin{C: c, Epsilon: *epsilon, MaxIter: *maxIter, Workers: tf.wf.workers}
	if batch && cAuto || !batch && sigmaAuto {
		// The papers' tuning: learn with each grid value, keep the best by
		// F1 (on held-out examples, then relearn on all of them).
		name, grid := "σ", learn.SigmaGrid
		if batch {
			name, grid = "C", learn.CGrid
		}
		done = p.stage("tune " + name)
		tuning := learn.Tuning{Grid: grid, Holdout: *holdout, Seed: *tf.seed, Solver: settings.Solver}
		var res *learn.TuneResult
		if batch {
			res, err = learn.TuneMaxMargin(ctx, m, src, mm, settings, tuning)
		} else {
			k := 0
			res, err = learn.TuneOnline(ctx, m, src, func(v float64) learn.Method {
				if k++; k <= len(grid) {
					tuneLabel = fmt.Sprintf(", tuning %s = %g (%d of %d)", name, v, k, len(grid))
				} else {
					tuneLabel = fmt.Sprintf(", %s = %g on all examples", name, v)
				}
				meth, _, _ := learnMethod(*method, v, c, *tf.lambda, *tf.eta, *tf.delta)
				return meth
			}, settings, tuning)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "marple: learn: %s\n", res.Describe(name, tuning))
		done("%s = %g", name, res.Value)
		return tf.finish(e, "learn", m, nil, 1, "example")
	}
	if batch {
		done = p.stage("learn MM-HM")
		stats, err = learn.Batch(ctx, m, src, mm, settings)
		if err == nil {
			done("%d rounds of %d examples, %d planes, ξ %.4g, converged %v, %d parameters",
				stats.Iterations, src.Len(), stats.Constraints, stats.Slack, stats.Converged, len(m.Weights))
		}
	} else {
		done = p.stage("learn " + meth.Name())
		stats, err = learn.Online(ctx, m, src, meth, settings)
		if err == nil {
			done("%d examples, %d parameters", stats.Steps, len(m.Weights))
		}
	}
	if stats != nil && len(stats.PassLoss) > 0 && err == nil {
		n := len(stats.PassLoss)
		p.logf("learn: last pass mean loss %.4f, %d mistakes", stats.PassLoss[n-1], stats.PassMistakes[n-1])
	}
	learned := 0
	if stats != nil {
		learned = stats.Steps
	}
	return tf.finish(e, "learn", m, err, learned, "example")
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

// learnMethodNames lists -method's values: the online update rules, then
// the batch learners.
func learnMethodNames() string {
	return engines.List(append(learn.MethodNames(), "mm", "pll", "dcll", "vp"))
}

// learnMethod builds the online update rule named by -method with the
// flags' parameters: σ for CDA and subgradient (usesSigma), the step clip C
// for MIRA, λ, η, δ for AdaGrad-FB.
func learnMethod(name string, sigma, c, lambda, eta, delta float64) (m learn.Method, usesSigma bool, err error) {
	m, err = learn.ParseMethod(name)
	if err != nil {
		return nil, false, usagef("-method must be %s, not %q", learnMethodNames(), name)
	}
	switch m := m.(type) {
	case *learn.CDA:
		m.Sigma, usesSigma = sigma, true
	case *learn.Subgradient:
		m.Sigma, usesSigma = sigma, true
	case *learn.MIRA:
		m.C = c
	case *learn.AdaGradFB:
		m.Lambda, m.Eta, m.Delta = lambda, eta, delta
	}
	return m, usesSigma, nil
}
