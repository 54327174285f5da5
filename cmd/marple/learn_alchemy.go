package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/score"
	"github.com/marple-mln/marple/syntax"
)

// learnExtras are marple learn's flags for the settings of Alchemy's
// learnwts that the likelihood learners take: L-BFGS's convergence
// threshold (pll), the trust region of PSCG (dcll), a time limit (dcll),
// and Alchemy's unit clauses.
type learnExtras struct {
	gConvThresh           float64
	cgLambda, cgMaxLambda float64
	cgMinLLChange         float64
	cgNoPrecond           bool
	timeLimit             time.Duration
	vpRate, vpMomentum    float64  // vp: -dLearningRate, -dMomentum
	vpNoPW                bool     // vp: -dNoPW
	vpMAP                 bool     // vp: -dMAPCounts
	withEM                bool     // dcll: EM over the "?" atoms
	emIter                int      // -emIter
	queryEvidence         bool     // pll, dcll, vp: only the listed -ne atoms are query atoms
	dFixed                bool     // dcll: Alchemy's fixed samples, no noise-aware stop
	dMaxSamples           int      // dcll: largest MC-SAT steps per round of the schedule
	dZeroStart            bool     // dcll: start from w = 0, chains from random worlds
	dFlatPrior            bool     // dcll: one σ for every weight, not divided by connections
	dTuneJointPrior       autoBool // dcll: choose the joint prior's narrowing by held-out CLL (unset: where it applies)
	dStars                bool     // dcll: star moves in the MC-SAT chains
	gAlchemy              bool     // pll: Alchemy's objective and L-BFGS-B (learnwts -g)
	priorMean             float64  // pll with -gAlchemy: prior mean of formulas without a weight
	dClauseWeights        bool     // dcll, vp: one weight per clause of a formula's CNF
	dDataHessian          bool     // dcll: the Hessian products leave the prior out
	dMinSamples           int      // dcll: floor of the default MC-SAT steps per iteration
}

// register declares the flags; -addUnitClauses sets tf's.
func (x *learnExtras) register(fs *flag.FlagSet, tf *trainFlags) {
	fs.Float64Var(&x.gConvThresh, "gConvThresh", 0, fmt.Sprintf("pll: stop L-BFGS when an iteration improves the objective by less than this fraction (0: %g)", float64(score.DefaultPLLConvThresh)))
	fs.Float64Var(&x.cgLambda, "cgLambda", 0, fmt.Sprintf("dcll: initial trust-region parameter λ of PSCG (0: %g)", float64(learn.DefaultCLLLambda)))
	fs.Float64Var(&x.cgMaxLambda, "cgMaxLambda", 0, "dcll: largest λ (0: no limit)")
	fs.Float64Var(&x.cgMinLLChange, "cgMinLLChange", 0, fmt.Sprintf("dcll: stop when a step's predicted gain in conditional log-likelihood is below this (0: %g)", float64(learn.DefaultCLLMinLLChange)))
	fs.BoolVar(&x.cgNoPrecond, "cgNoPrecond", false, "dcll: no diagonal preconditioner in PSCG")
	fs.DurationVar(&x.timeLimit, "learnTimeLimit", 0, "dcll: stop learning after this long, keeping the weights of the last iteration (0: no limit)")
	fs.Float64Var(&x.vpRate, "dLearningRate", 0, fmt.Sprintf("vp: learning rate η (0: %g)", float64(learn.DefaultVPLearningRate)))
	fs.Float64Var(&x.vpMomentum, "dMomentum", 0, "vp: momentum, the fraction of the last update added to each update")
	fs.BoolVar(&x.vpNoPW, "dNoPW", false, "vp: one learning rate for every weight, not η divided by the weight's count in the training world")
	fs.BoolVar(&x.vpMAP, "dMAPCounts", false, "vp: the counts of the MAP state found by -solver instead of MC-SAT's expected counts (Alchemy's learnwts -dVP -infer -m)")
	fs.BoolVar(&x.withEM, "withEM", false, "dcll: the -ne atoms a training database lists as unknown (\"?\") are hidden: learn by EM, alternating MC-SAT marginals of the hidden atoms with dcll on completions drawn from them (unlisted -ne atoms stay false)")
	fs.IntVar(&x.emIter, "emIter", 0, fmt.Sprintf("-withEM: EM rounds (0: %d)", learn.DefaultEMIter))
	fs.BoolVar(&x.dFixed, "dFixedSamples", false, "dcll: Alchemy's schedule: -numSamples MC-SAT steps every iteration, stopping only on -cgMinLLChange or -maxIter (default: double the steps whenever the gradient is within the noise of the samples, stop converged when it is at -dMaxSamples)")
	fs.BoolVar(&x.dZeroStart, "dZeroStart", false, "dcll, vp: start from zero weights and random worlds (Alchemy's learnwts -d; default: from the exact optimum with the formulas that link query atoms at weight 0, the chains from worlds drawn from it)")
	fs.BoolVar(&x.dFlatPrior, "dFlatPrior", false, "dcll: one prior σ for every weight, as Alchemy (default: σ of a weight whose clauses link query atoms is divided by its connections, the most ground clauses through one atom)")
	fs.Var(&x.dTuneJointPrior, "dTuneJointPrior", "dcll: choose how far the connections narrow a joint weight's prior, σ / (cmax^(1-t)·cmin^t) for t = 0, 1/2, 1 (cmax, cmin: connections through its most and least connected predicate), by the CLL of the largest training database held out; needs -multipleDatabases with two or more databases and the default prior (default: on where it applies; -dTuneJointPrior=false: t = 0)")
	fs.BoolVar(&x.dStars, "dStars", true, "dcll: after every MC-SAT step of the learning chains (and of the held-out runs of -dTuneJointPrior), resample each atom that clauses tie to two or more atoms of few clauses jointly with them, those summed out exactly (star moves; see marple infer -stars); -dStars=false: none")
	fs.IntVar(&x.dMaxSamples, "dMaxSamples", 0, "dcll: largest number of MC-SAT steps per example and iteration the schedule reaches (0: 8 × -numSamples, doubled up to 64 × whenever the gradient stalls there beyond the noise)")
	fs.BoolVar(&x.queryEvidence, "queryEvidence", false, "pll, dcll, vp: only the -ne atoms a training database lists (true or false) are query atoms; its unlisted -ne atoms are false evidence (Alchemy's learnwts -queryEvidence; without -multipleDatabases, dcll and vp make the merged -t files one example)")
	fs.BoolVar(&x.gAlchemy, "gAlchemy", false, "pll: learn as Alchemy's learnwts -g: the prior's mean of each weight is the weight written in the .mln (-priorMean for formulas without one and for the unit clauses -addUnitClauses adds), hard formulas learned too (each clause's mean 10) and written hard, formulas that are the same clause learn one weight, split evenly among them, and L-BFGS runs as Alchemy's L-BFGS-B (5 corrections, its line search and its stop on -gConvThresh and -maxIter); default: every prior's mean 0, one weight per formula, gonum's L-BFGS")
	fs.Float64Var(&x.priorMean, "priorMean", 0, "pll with -gAlchemy: the prior's mean of the formulas written without a weight and of the added unit clauses (Alchemy's learnwts -priorMean)")
	fs.BoolVar(&x.dClauseWeights, "dClauseWeights", false, "dcll, vp: learn one weight for each clause of a formula's CNF, as Alchemy's learnwts (formulas without quantifiers or \"+\" variables); each clause is written as its own formula, after a comment with the formula and the sum of its clauses' weights, as Alchemy writes them (default: one weight per formula)")
	fs.BoolVar(&x.dDataHessian, "dDataHessian", false, "dcll: PSCG's step length and trust region use the Hessian of the conditional log-likelihood alone, without the prior's precision, as Alchemy's learnwts -d (the optimum is the same; default: the Hessian of the objective)")
	fs.IntVar(&x.dMinSamples, "dMinSamples", 0, fmt.Sprintf("dcll: the fewest MC-SAT steps per iteration of the default -numSamples rule (0: %d; Alchemy's learnwts: 100)", learn.CLLMinSamples))
	fs.BoolVar(&tf.addUnits, "addUnitClauses", false, "add a unit clause P(a1,...,an) of weight 0 for every predicate without one (Alchemy's learnwts does unless -noAddUnitClauses); they are learned and written")
}

// check validates the flags for method.
func (x *learnExtras) check(method string) error {
	if err := checkFinite(map[string]float64{"priorMean": x.priorMean, "dLearningRate": x.vpRate, "dMomentum": x.vpMomentum, "gConvThresh": x.gConvThresh, "cgLambda": x.cgLambda, "cgMaxLambda": x.cgMaxLambda, "cgMinLLChange": x.cgMinLLChange}); err != nil {
		return err
	}
	switch {
	case x.gConvThresh < 0 || x.gConvThresh >= 1:
		return usagef("-gConvThresh must be in [0, 1), not %v", x.gConvThresh)
	case x.cgLambda < 0 || x.cgMaxLambda < 0:
		return usagef("-cgLambda and -cgMaxLambda must not be negative")
	case x.vpRate < 0 || x.vpMomentum < 0:
		return usagef("-dLearningRate and -dMomentum must not be negative")
	case x.vpMAP && method != "vp":
		return usagef("-dMAPCounts applies to -method vp only")
	case x.withEM && method != "dcll":
		return usagef("-withEM applies to -method dcll (-d) only")
	case x.queryEvidence && method != "pll" && method != "dcll" && method != "vp":
		return usagef("-queryEvidence applies to -g, -d and -method vp only")
	case x.dMaxSamples < 0 || x.dMinSamples < 0:
		return usagef("-dMaxSamples and -dMinSamples must not be negative")
	case (x.dDataHessian || x.dMinSamples > 0) && method != "dcll":
		return usagef("-dDataHessian and -dMinSamples apply to -method dcll (-d) only")
	case x.dClauseWeights && method != "dcll" && method != "vp":
		return usagef("-dClauseWeights applies to -method dcll (-d) and vp only")
	case (x.dFixed || x.dMaxSamples > 0) && method != "dcll":
		return usagef("-dFixedSamples and -dMaxSamples apply to -method dcll (-d) only")
	case x.dZeroStart && method != "dcll" && method != "vp":
		return usagef("-dZeroStart applies to -method dcll (-d) and vp only")
	case x.dFlatPrior && method != "dcll":
		return usagef("-dFlatPrior applies to -method dcll (-d) only")
	case x.dTuneJointPrior.on() && (method != "dcll" || x.dFlatPrior):
		return usagef("-dTuneJointPrior applies to -method dcll (-d) without -dFlatPrior")
	case x.gAlchemy && method != "pll":
		return usagef("-gAlchemy applies to -method pll (-g) only")
	case x.priorMean != 0 && !x.gAlchemy:
		return usagef("-priorMean applies with -gAlchemy only")
	case x.emIter < 0:
		return usagef("-emIter must not be negative")
	case x.timeLimit < 0:
		return usagef("-learnTimeLimit must not be negative, not %v", x.timeLimit)
	case x.timeLimit > 0 && method != "dcll":
		return usagef("-learnTimeLimit applies to -method dcll (-d) only")
	}
	return nil
}

// apply sets the dcll settings.
func (x *learnExtras) apply(s *learn.DiscriminativeSettings) {
	s.Lambda, s.MaxLambda, s.NoPrecondition = x.cgLambda, x.cgMaxLambda, x.cgNoPrecond
	s.Adaptive, s.MaxSamples = !x.dFixed, x.dMaxSamples
	s.ZeroStart = x.dZeroStart
	s.Stars = x.dStars
	s.ScaleJointPrior = !x.dFlatPrior
	s.DataHessian, s.MinSamples = x.dDataHessian, x.dMinSamples
	if x.cgMinLLChange != 0 {
		s.MinLLChange = x.cgMinLLChange
	}
}

// limit returns ctx with the -learnTimeLimit deadline.
func (x *learnExtras) limit(ctx context.Context) (context.Context, context.CancelFunc) {
	if x.timeLimit <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, x.timeLimit)
}

// timedOut turns the expiry of -learnTimeLimit (not an interruption) into
// success, saying so on w.
func (x *learnExtras) timedOut(ctx context.Context, err error, iterations int, w io.Writer) error {
	if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	fmt.Fprintf(w, "marple learn: -learnTimeLimit %v reached after %d iterations; writing the weights of the last one\n", x.timeLimit, iterations)
	return nil
}

// addUnitClauses adds to the compiled model a positive unit clause of
// weight 0 over distinct variables for every predicate (but functions'
// auxiliary predicates) that has no unit clause of either sign, as
// Alchemy's learnwts does, and returns how many it added.
func addUnitClauses(m *mln.Model) (int, error) {
	has := make([]bool, len(m.Preds))
	for _, c := range m.Clauses {
		// The "exactly one value" constraint of a "!" argument is no unit
		// clause of the predicate's (Alchemy adds one).
		if len(c.Lits) != 1 || c.Lits[0].Pred < 0 || len(c.Exist) > 0 || m.Formulas[c.Formula].Synthetic {
			continue
		}
		seen := map[mln.Term]bool{}
		distinct := true
		for _, t := range c.Lits[0].Args {
			if !t.IsVar() || seen[t] {
				distinct = false
			}
			seen[t] = true
		}
		if distinct {
			has[c.Lits[0].Pred] = true
		}
	}
	n := 0
	for p, pr := range m.Preds {
		if has[p] || strings.HasPrefix(pr.Name, mln.AuxPrefix) {
			continue
		}
		atom := pr.Name
		if pr.Arity() > 0 {
			args := make([]string, pr.Arity())
			for i := range args {
				args[i] = fmt.Sprintf("a%d", i+1)
			}
			atom += "(" + strings.Join(args, ",") + ")"
		}
		f, err := m.ParseFormula("0 " + atom)
		if err != nil {
			return n, err
		}
		if _, err := m.AddFormula(f); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// alchemyHardWeight is the weight Alchemy's parser gives each clause of a
// hard formula (its HARD_WEIGHT); learnwts -g takes it as the prior's mean
// of the clause's weight, which it learns like the others.
const alchemyHardWeight = 10

// softenHard makes the model's hard formulas soft, before compiling, so
// that -gAlchemy learns their weights as Alchemy's learnwts -g does, and
// returns their indices (restoreHard makes them hard again).
func softenHard(m *mln.Model) []int {
	var idx []int
	for i, f := range m.Formulas {
		if f.Hard && !f.Synthetic {
			f.Hard = false
			idx = append(idx, i)
		}
	}
	return idx
}

// restoreHard makes the softened formulas hard again (their learned
// weights are not written, as Alchemy writes hard formulas without one).
func restoreHard(m *mln.Model, idx []int) {
	for _, i := range idx {
		m.Formulas[i].Hard = true
	}
}

// priorMeans returns, for -gAlchemy, each parameter's prior mean as
// Alchemy's learnwts takes it: the weight written for its formula,
// -priorMean for a formula written without one and for the last added
// unit clauses (the model's last formulas), and for a softened hard
// formula alchemyHardWeight per clause.
func (x *learnExtras) priorMeans(m *mln.Model, added int, softened []int) []float64 {
	means := make([]float64, len(m.Weights))
	for p := range means {
		f := m.ParamFormula[p]
		fm := m.Formulas[f]
		if slices.Contains(softened, f) {
			means[p] = alchemyHardWeight * float64(len(fm.Clauses))
		} else if fm.HasWeight && f < len(m.Formulas)-added {
			means[p] = fm.Weight
		} else {
			means[p] = x.priorMean
		}
	}
	return means
}

// clauseGroup is a formula that splitClauses replaced by one formula per
// clause of its CNF: its text, and the indices of the clause formulas.
type clauseGroup struct {
	text     string
	formulas []int
}

// splitClauses gives each clause of a formula's CNF its own weight, as
// Alchemy's learnwts learns them: every soft formula of two or more
// clauses without "+" variables, quantifiers, a utility or a
// domain-size-aware weight is replaced, in place, by one formula per
// clause (weighted by its share of the formula's weight), and the model
// is compiled again. It returns the formulas replaced (for
// writeClauseWeights). Alchemy ties the clauses of an existential formula,
// and so does Marple (of any quantified one); Alchemy also unties those
// of a "+" formula's per-constant formulas, which Marple keeps tied.
func splitClauses(m *mln.Model) ([]clauseGroup, error) {
	var (
		groups   []clauseGroup
		formulas []*mln.Formula
		old      = make([]int, 0, len(m.Formulas)) // per new formula: the one it keeps (-1: a clause)
	)
	for fi, f := range m.Formulas {
		split := !f.Hard && !f.Synthetic && f.AST != nil && len(f.PlusVars) == 0 && !f.DomainScaled && !f.HasUtility && len(f.Clauses) > 1 && !quantified(f.AST)
		for _, ci := range f.Clauses {
			if c := m.Clauses[ci]; len(c.Exist) > 0 || len(c.Plus) > 0 || c.Coef <= 0 {
				split = false
			}
		}
		if !split {
			formulas = append(formulas, f)
			old = append(old, fi)
			continue
		}
		g := clauseGroup{text: syntax.FormulaString(f.AST)}
		for _, ci := range f.Clauses {
			c := m.Clauses[ci]
			g.formulas = append(g.formulas, len(formulas))
			formulas = append(formulas, &mln.Formula{Pos: f.Pos, AST: m.ClauseFormula(c), Weight: f.Weight * c.Coef, HasWeight: f.HasWeight})
			old = append(old, -1)
		}
		groups = append(groups, g)
	}
	if len(groups) == 0 {
		return nil, nil
	}
	// The parameters again, in the order of the new formulas: those kept
	// keep their weights and bindings.
	weights, pf, pb := m.Weights, m.ParamFormula, m.ParamBinding
	m.Weights, m.ParamFormula, m.ParamBinding = nil, nil, nil
	for nf, f := range formulas {
		if old[nf] < 0 || len(f.Params) == 0 {
			f.Params = nil
			continue
		}
		params := make([]int, 0, len(f.Params))
		for _, p := range f.Params {
			params = append(params, p)
		}
		slices.Sort(params)
		f.Params = map[string]int{}
		for _, p := range params {
			if pf[p] != old[nf] {
				return nil, fmt.Errorf("internal error: parameter %d of formula %d belongs to formula %d", p, old[nf], pf[p])
			}
			f.Params[mln.BindingKey(pb[p])] = len(m.Weights)
			m.Weights = append(m.Weights, weights[p])
			m.ParamFormula = append(m.ParamFormula, nf)
			m.ParamBinding = append(m.ParamBinding, pb[p])
		}
	}
	m.Formulas = formulas
	if err := m.Compile(); err != nil {
		return nil, err
	}
	return groups, nil
}

// quantified reports whether f has a quantifier: an existential one (or a
// universal one under a negation) expands into one clause per grounding of
// its variables, whose weights Alchemy ties.
func quantified(f syntax.Formula) bool {
	switch f := f.(type) {
	case *syntax.Quant:
		return true
	case *syntax.Not:
		return quantified(f.X)
	case *syntax.Binary:
		return quantified(f.X) || quantified(f.Y)
	}
	return false
}

// writeClauseWeights writes m as mln.WriteModel does, each group of clause
// formulas preceded, as in Alchemy's output, by the comment
// "// w formula" (the formula it came from with the sum of its clauses'
// weights) and followed by a blank line.
func writeClauseWeights(w io.Writer, m *mln.Model, groups []clauseGroup) error {
	var buf bytes.Buffer
	if err := mln.WriteModel(&buf, m); err != nil {
		return err
	}
	// Each formula without "+" variables is one line of the "// formulas"
	// section, in the order of m.Formulas (synthetic ones are skipped).
	at := map[int]clauseGroup{} // line number in the section -> group
	line := 0
	gi := 0
	for fi, f := range m.Formulas {
		if f.Synthetic || f.AST == nil {
			continue
		}
		if gi < len(groups) && groups[gi].formulas[0] == fi {
			at[line] = groups[gi]
			gi++
		}
		if len(f.PlusVars) > 0 && len(f.Params) > 0 {
			line += len(f.Params)
		} else {
			line++
		}
	}
	if gi != len(groups) {
		return fmt.Errorf("internal error: %d of %d clause groups placed", gi, len(groups))
	}
	text, section, found := strings.Cut(buf.String(), "// formulas\n")
	if !found {
		return fmt.Errorf("internal error: no formulas written")
	}
	var b strings.Builder
	b.WriteString(text)
	b.WriteString("// formulas\n")
	end := -1 // the last line of the current group
	for i, l := range strings.SplitAfter(section, "\n") {
		if g, ok := at[i]; ok {
			end = i + len(g.formulas) - 1
			sum := 0.0
			for _, fi := range g.formulas {
				if p, ok := m.Formulas[fi].Params[""]; ok {
					sum += m.Weights[p]
				}
			}
			fmt.Fprintf(&b, "// %s %s\n", syntax.FormatWeight(sum), g.text)
		}
		b.WriteString(l)
		if i == end {
			b.WriteString("\n") // a blank line closes the group, as in Alchemy's output
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
