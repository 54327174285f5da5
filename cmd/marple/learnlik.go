package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/score"
)

// likelihoodFlags are the flags of the likelihood learners (pll, dcll).
type likelihoodFlags struct {
	multi, generative, noPrior, newton, noEqualWt bool
	priorSD                                       float64
	maxIter, numSamples                           int
	vp                                            bool         // the voted perceptron
	extras                                        *learnExtras // learn_alchemy.go
}

// learnLikelihood runs learn -method pll (generative, weighted
// pseudo-log-likelihood: one example per database) or dcll
// (discriminative, conditional log-likelihood: the components of the whole
// grounding, grouped by -exampleType) and writes the learned model.
func learnLikelihood(ctx context.Context, e *env, p *progress, tf *trainFlags, m *mln.Model, dbs []*mln.Database, gopt ground.Options, f likelihoodFlags) error {
	if f.generative && *tf.nonEv == "" {
		// Alchemy's -g without -ne: every predicate's atoms are summed.
		gopt.Query = nil
		for q := range m.Preds {
			gopt.Query = append(gopt.Query, mln.PredID(q))
		}
	}
	if f.extras != nil && f.extras.dTuneJointPrior.on() && (!f.multi || f.priorSD != 0 || f.noPrior) {
		return usagef("-dTuneJointPrior needs -multipleDatabases and the default prior (no -priorStdDev, no -noPrior)")
	}
	var (
		lerr    error
		learned int // iterations learned (also when interrupted)
	)
	if f.generative {
		// pll counts each database's clause groundings by joins: nothing is
		// ground.
		var means []float64
		if f.extras.gAlchemy {
			means = f.extras.priorMeans(m, tf.addedUnits, tf.softened)
			for _, fm := range m.Formulas {
				if fm.Synthetic {
					fmt.Fprintln(e.stderr, "marple: learn PLL: the model declares mutually exclusive arguments (\"!\"): Alchemy's pseudo-likelihood conditions each of their atoms on moving its block's true value, Marple's keeps exactly one value true as a hard constraint, so the weights differ from Alchemy's")
					break
				}
			}
		}
		done := p.stage("learn PLL")
		start, last := time.Now(), time.Now()
		st, err := learn.GenerativeCounts(ctx, m, dbs, gopt.Query, learn.GenerativeSettings{
			// L-BFGS reports its iteration every engines.ProgressEvery
			// (every iteration with -v).
			Progress: func(iter int, obj float64) {
				if time.Since(last) < engines.ProgressEvery && !*tf.verbose {
					return
				}
				last = time.Now()
				fmt.Fprintf(e.stderr, "marple: learn PLL: L-BFGS iteration %d, objective %.6g, %s elapsed\n", iter, obj, time.Since(start).Round(time.Millisecond))
			},
			PLLOptions:  score.PLLOptions{Unweighted: f.noEqualWt, Workers: tf.wf.workers},
			PriorStdDev: f.priorSD, NoPrior: f.noPrior, MaxIter: f.maxIter, OwnDomains: f.multi,
			ListedOnly: f.extras.queryEvidence, ConvThresh: f.extras.gConvThresh,
			TieShared: f.extras.gAlchemy, AlchemySchedule: f.extras.gAlchemy, PriorMeans: means,
		})
		restoreHard(m, tf.softened)
		if lerr = err; st != nil {
			learned = st.Iterations
			for _, g := range st.Shared {
				var names []string
				for _, q := range g {
					names = append(names, learn.ParamName(m, q))
				}
				fmt.Fprintf(e.stderr, "marple: learn PLL: one clause, learned as one weight split evenly (as Alchemy): %s\n", strings.Join(names, "; "))
			}
		}
		if err == nil {
			done("WPLL %.6g (objective %.6g, gradient %.2g), %d L-BFGS iterations, %d evaluations, %s; %d atoms in %d distinct rows, %d parameters (counted in %.2fs)",
				st.WPLL, st.Objective, st.GradNorm, st.Iterations, st.Evaluations, st.Status, st.Atoms, st.Rows, st.Params, st.Prepare.Seconds())
		}
	} else {
		if f.extras.dClauseWeights {
			// Alchemy's learnwts: one weight per clause of a formula's CNF.
			groups, err := splitClauses(m)
			if err != nil {
				return err
			}
			tf.clauseGroups = groups
		}
		eopt, err := tf.exampleOptions(e, p, m, gopt)
		if err != nil {
			return err
		}
		// With -multipleDatabases every database is ground over its own
		// constants, as -g and Alchemy do; each is ground once and kept.
		eopt.MultipleDatabases, eopt.Whole, eopt.ListedQuery = f.multi, true, f.extras.queryEvidence
		if f.extras.queryEvidence && !f.multi && len(dbs) > 0 {
			// One training database, the -t files merged: one example.
			merged := mln.NewDatabase(m)
			for _, db := range dbs {
				merged.Merge(db)
			}
			dbs, eopt.MultipleDatabases = []*mln.Database{merged}, true
		}
		done := p.stage("ground")
		src, _, err := learn.NewExamples(ctx, m, dbs, eopt)
		if err != nil {
			return err
		}
		done("%d examples", src.Len())
		if f.vp {
			return learnVP(ctx, e, p, tf, m, src, f)
		}
		lastReport := time.Now()
		set := learn.DiscriminativeSettings{
			PriorStdDev: f.priorSD, NoPrior: f.noPrior, MaxIter: f.maxIter, Samples: f.numSamples,
			Newton: f.newton, Seed: *tf.seed, Workers: tf.wf.workers,
			// Without -priorStdDev, σ is chosen on the training databases,
			// each left out in turn.
			TunePrior: f.priorSD == 0 && f.multi,
			// So is the narrowing of the joint weights' prior (unless
			// -dTuneJointPrior=false or -dFlatPrior).
			TuneJointPrior: f.extras.dTuneJointPrior.auto() && !f.extras.dFlatPrior && f.priorSD == 0 && !f.noPrior && f.multi,
			Progress: func(pr learn.DiscriminativeProgress) {
				if (time.Since(lastReport) < time.Second || pr.Elapsed < time.Second) && !*tf.verbose {
					return
				}
				lastReport = time.Now()
				noise := ""
				if pr.Noise > 0 {
					noise = fmt.Sprintf(" (%.3g standard errors)", pr.Noise)
				}
				fmt.Fprintf(e.stderr, "marple: learn: iteration %d (round %d), gradient %.3g%s, λ %.3g, predicted gain %.3g, %d MC-SAT steps%s\n",
					pr.Iter, pr.Round, pr.GradNorm, noise, pr.Lambda, pr.Improvement, pr.Samples, map[bool]string{true: ", backtracked"}[pr.Backtracked])
			},
		}
		set.OnStart = func(st *learn.IndependentStart) {
			tuned := ""
			if st.PriorStdDev > 0 {
				tuned = fmt.Sprintf(", prior σ %g chosen by held-out CLL %.6g", st.PriorStdDev, st.HeldOutCLL)
			}
			fmt.Fprintf(e.stderr, "marple: learn: independent start: %d joint parameters held at 0, CLL %.6g over %d atoms, gradient %.2g, %d L-BFGS iterations%s\n",
				st.Joint, st.CLL, st.Atoms, st.GradNorm, st.Iterations, tuned)
		}
		set.OnJointPrior = func(ch *learn.JointPriorChoice) {
			var b strings.Builder
			for i, t := range ch.Exponents {
				fmt.Fprintf(&b, ", t = %g: %.6g", t, ch.HeldOutCLL[i])
				if !ch.Converged[i] {
					b.WriteString(" (a held-out run did not converge)")
				}
			}
			held := "the largest training database held out"
			if ch.Examples > 1 {
				held = fmt.Sprintf("%d databases each left out in turn", ch.Examples)
			}
			how := "chosen by CLL"
			for i, t := range ch.Exponents {
				if t == ch.Exponent && ch.Converged[i] && slices.Max(ch.HeldOutCLL) > ch.HeldOutCLL[i] {
					how = "chosen, the best CLL whose held-out run converged,"
				}
			}
			fmt.Fprintf(e.stderr, "marple: learn: joint weights' prior σ / (cmax^(1-t)·cmin^t), t = %g %s on %s%s (%.1fs)\n",
				ch.Exponent, how, held, b.String(), ch.Elapsed.Seconds())
		}
		set.OnHeldOut = func(t float64, k int, cll float64, st *learn.DiscriminativeStats) {
			fmt.Fprintf(e.stderr, "marple: learn: joint prior t = %g, database %d left out: held-out CLL %.6g (%d iterations, converged %v, %.1fs)\n",
				t, k+1, cll, st.Iterations, st.Converged, st.Elapsed.Seconds())
		}
		f.extras.apply(&set)
		if f.extras.withEM {
			set.TunePrior = false // each M-step would choose its own σ
			set.TuneJointPrior = false
			set.OnJointPrior, set.OnHeldOut = nil, nil
			set.OnStart = nil // one start per M-step
			return learnEM(ctx, e, p, tf, m, dbs, src, set, f.extras.emIter)
		}
		done = p.stage("learn CLL (" + map[bool]string{true: "DN", false: "PSCG"}[f.newton] + ")")
		lctx, cancel := f.extras.limit(ctx)
		st, err := learn.Discriminative(lctx, m, src, set)
		cancel()
		if st != nil {
			learned = st.Iterations
		}
		err = f.extras.timedOut(ctx, err, learned, e.stderr)
		lerr = err
		if st != nil && st.ScaledPriors > 0 {
			fmt.Fprintf(e.stderr, "marple: learn: prior σ of %d weights linking query atoms divided by their connections (up to %g ground clauses through one atom)\n",
				st.ScaledPriors, st.MaxConnections)
		}
		if st != nil && len(st.Unconverged) > 0 {
			fmt.Fprintf(e.stderr, "marple: learn: NOT CONVERGED: %d weights' gradients are beyond the noise of the samples (largest first):\n", len(st.Unconverged))
			for i, p := range st.Unconverged {
				if i == 10 {
					fmt.Fprintf(e.stderr, "marple: learn:   ... and %d more\n", len(st.Unconverged)-10)
					break
				}
				fmt.Fprintf(e.stderr, "marple: learn:   %s\n", learn.ParamName(m, p))
			}
		}
		if err == nil {
			noise := ""
			if set.Adaptive {
				noise = fmt.Sprintf(" (%.3g standard errors)", st.Noise)
				if len(st.Unconverged) > 0 {
					noise += fmt.Sprintf(", %d weights not converged", len(st.Unconverged))
				}
			}
			done("%d iterations, %d MC-SAT rounds (last of %d steps), %d backtracks, converged %v, gradient %.3g%s, %d examples, %d parameters",
				st.Iterations, st.Rounds, st.Samples, st.Backtracks, st.Converged, st.GradNorm, noise, st.Examples, st.Params)
		}
	}
	return tf.finish(e, "learn", m, lerr, learned, "iteration")
}

// learnVP runs learn -method vp, the voted perceptron, on the examples of
// -method dcll and writes the learned model.
func learnVP(ctx context.Context, e *env, p *progress, tf *trainFlags, m *mln.Model, src learn.ExampleSource, f likelihoodFlags) error {
	x := f.extras
	lastReport := time.Now()
	set := learn.VPSettings{
		LearningRate: x.vpRate, Momentum: x.vpMomentum, NoPerWeight: x.vpNoPW, MaxIter: f.maxIter,
		PriorStdDev: f.priorSD, NoPrior: f.noPrior, MAPCounts: x.vpMAP, Samples: f.numSamples,
		ZeroStart: x.dZeroStart, Seed: *tf.seed, Workers: tf.wf.workers,
		Progress: func(pr learn.VPProgress) {
			if (time.Since(lastReport) < time.Second || pr.Elapsed < time.Second) && !*tf.verbose {
				return
			}
			lastReport = time.Now()
			fmt.Fprintf(e.stderr, "marple: learn: iteration %d, largest count difference %.4g\n", pr.Iter, pr.Diff)
		},
	}
	counts := "MC-SAT"
	if x.vpMAP {
		solver, err := tf.ef.mapEngine(1, nil)
		if err != nil {
			return err
		}
		set.Solver, counts = watchedMAP{solver, e.stderr, "learn"}, "MAP, "+solver.Name()
	}
	done := p.stage("learn VP (" + counts + ")")
	st, err := learn.VotedPerceptron(ctx, m, src, set)
	learned := 0
	if st != nil {
		learned = st.Iterations
	}
	if st != nil && st.Start != nil {
		fmt.Fprintf(e.stderr, "marple: learn: independent start: %d joint parameters held at 0, CLL %.6g over %d atoms, gradient %.2g, %d L-BFGS iterations\n",
			st.Start.Joint, st.Start.CLL, st.Start.Atoms, st.Start.GradNorm, st.Start.Iterations)
	}
	if err == nil {
		steps := ""
		if st.Samples > 0 {
			steps = fmt.Sprintf(", %d MC-SAT steps per iteration", st.Samples)
		}
		done("%d iterations%s, last count difference %.4g, %d examples, %d parameters", st.Iterations, steps, st.Diff, st.Examples, st.Params)
	}
	return tf.finish(e, "learn", m, err, learned, "iteration")
}

// learnEM runs learn -d -withEM: the -ne atoms that a training database
// lists as unknown ("?") are hidden, and the weights are learned by
// learn.EM with MC-SAT marginals (the -solver flags' sample counts) and
// the dcll settings set.
func learnEM(ctx context.Context, e *env, p *progress, tf *trainFlags, m *mln.Model, dbs []*mln.Database, src learn.ExampleSource, set learn.DiscriminativeSettings, emIter int) error {
	exs, err := learn.Collect(ctx, src)
	if err != nil {
		return err
	}
	hidden := make([][]bool, len(exs))
	nh := 0
	for i, ex := range exs {
		own := dbs
		if len(exs) == len(dbs) {
			own = dbs[i : i+1] // -multipleDatabases: example i is database i
		}
		h := make([]bool, ex.Net.NumAtoms())
		for a := range h {
			if a >= len(ex.Net.AtomPred) || ex.Net.AtomPred[a] < 0 {
				continue
			}
			for _, db := range own {
				if v, ok := db.Get(ex.Net.AtomPred[a], ex.Net.AtomArgs[a]); ok && v == mln.Unknown {
					h[a] = true
					nh++
					break
				}
			}
		}
		hidden[i] = h
	}
	// The chains of each E-step share one chain's budget of samples.
	marg, err := engines.NewMarginal("mcsat", tf.ef.settings(1, nil).SplitSamples())
	if err != nil {
		return err
	}
	done := p.stage(fmt.Sprintf("learn CLL by EM (%d hidden atoms)", nh))
	st, err := learn.EM(ctx, m, exs, hidden, learn.EMSettings{
		Iterations: emIter, Marginal: marg, Learn: set, Seed: *tf.seed,
		Progress: func(pr learn.EMProgress) {
			if !*tf.verbose {
				return
			}
			fmt.Fprintf(e.stderr, "marple: learn: EM round %d, weights moved %.4g\n", pr.Round, pr.Change)
		},
	})
	learned := 0
	if st != nil {
		learned = st.Rounds
	}
	if err == nil {
		done("%d rounds, last change %.4g, %d examples", st.Rounds, st.Change, len(exs))
	}
	return tf.finish(e, "learn", m, err, learned, "EM round")
}
