package learn

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// JointPriorExponents are the exponents t among which
// DiscriminativeSettings.TuneJointPrior chooses, in order of preference: σ
// of a weight linking query atoms is divided by cmax^(1−t)·cmin^t.
var JointPriorExponents = []float64{0, 0.5, 1}

// JointPriorLeaveEachOut makes TuneJointPrior leave each example out in
// turn; by default it leaves out only the example with the most atoms and
// learns from the others, which costs, per exponent, about one run on the
// smaller examples instead of one per example (on Cora's four databases,
// the joint models' whole learning stays within 600 s of CPU).
var JointPriorLeaveEachOut = false

// heldOutSamples is the number of MC-SAT samples (one chain, after
// mcsat.DefaultBurnIn) from which TuneJointPrior takes a held-out
// example's marginals; they are Rao-Blackwellised and the candidates
// share the seed, so their difference is resolved better than either.
const heldOutSamples = 300

// clipProb bounds a probability away from 0 and 1 in a held-out
// conditional log-likelihood, as marple eval does (eval.ClipMin).
const clipProb = 1e-4

// JointPriorChoice reports DiscriminativeSettings.TuneJointPrior's choice.
type JointPriorChoice struct {
	// Exponents are the candidates t, HeldOutCLL their conditional
	// log-likelihood summed over the atoms of the examples each left out
	// in turn (−Inf for a candidate abandoned once its partial sum fell
	// below the best total of a candidate whose runs converged: each term
	// is negative, so it could not win), Converged whether every held-out
	// run of the candidate stopped converged.
	Exponents  []float64
	HeldOutCLL []float64
	Converged  []bool
	// Exponent is the one chosen.
	Exponent float64
	// Examples is the number of examples left out in turn (see
	// JointPriorLeaveEachOut); Elapsed the time of the choice.
	Examples int
	Elapsed  time.Duration
}

// tuneJointPrior chooses the exponent of the joint weights' prior (see
// DiscriminativeSettings.TuneJointPrior), sets pb.scale to it and returns
// the choice; nil when every joint weight has one connection count for all
// its predicates (nothing to choose) or fewer than two examples. w holds
// the independent start of all the examples; it is left unchanged, and so
// are the examples' start probabilities.
func (pb *cllProblem) tuneJointPrior(ctx context.Context, run *cllRun, w []float64) (*JointPriorChoice, error) {
	if len(pb.exs) < 2 || pb.connMax == nil {
		return nil, nil
	}
	differ := false
	for p := range pb.connMax {
		differ = differ || pb.connMax[p] != pb.connMin[p]
	}
	if !differ {
		return nil, nil
	}
	start := time.Now()
	startP := make([][]float64, len(pb.exs))
	for i, e := range pb.exs {
		startP[i] = e.startP
	}
	defer func() {
		for i, e := range pb.exs {
			e.startP = startP[i]
		}
	}()
	// The examples left out: the one with the most atoms, or each in turn.
	heldOut := []int{0}
	for k, e := range pb.exs {
		if e.net.NumAtoms() > pb.exs[heldOut[0]].net.NumAtoms() {
			heldOut[0] = k
		}
	}
	if JointPriorLeaveEachOut {
		heldOut = heldOut[:0]
		for k := range pb.exs {
			heldOut = append(heldOut, k)
		}
	}
	ch := &JointPriorChoice{Exponents: slices.Clone(JointPriorExponents), Examples: len(heldOut)}
	sub := *run
	sub.quiet, sub.stopStalled = true, true
	bestConv := math.Inf(-1) // the best total of an exponent whose runs converged
	for _, t := range ch.Exponents {
		pb.setJointScale(t)
		held, conv, abandoned := 0.0, true, false
		for _, k := range heldOut {
			e := pb.exs[k]
			if held < bestConv {
				// Each example adds a negative CLL: this exponent can no
				// longer win (an exponent whose runs converged is
				// preferred whatever this one's convergence).
				abandoned = true
				break
			}
			train := pb.subset(k)
			ws := make([]float64, pb.np)
			if _, err := train.independentStart(ctx, ws); err != nil {
				return nil, err
			}
			train.startWorlds(run.s.Seed + int64(k)*7919)
			st := &DiscriminativeStats{}
			if err := sub.optimize(ctx, train, ws, st); err != nil {
				return nil, err
			}
			conv = conv && st.Converged
			cll, err := pb.heldOutCLL(ctx, e, ws, run.s.Seed+int64(k))
			if err != nil {
				return nil, err
			}
			held += cll
			if run.s.OnHeldOut != nil {
				st.Elapsed = time.Since(start)
				run.s.OnHeldOut(t, k, cll, st)
			}
		}
		if abandoned {
			held = math.Inf(-1)
		}
		ch.HeldOutCLL = append(ch.HeldOutCLL, held)
		ch.Converged = append(ch.Converged, conv && !abandoned)
		if conv && !abandoned && held > bestConv {
			bestConv = held
		}
	}
	ch.Exponent = chooseExponent(ch)
	pb.setJointScale(ch.Exponent)
	ch.Elapsed = time.Since(start)
	return ch, nil
}

// chooseExponent returns the exponent of the best held-out CLL among those
// whose held-out runs all converged, or among all when none did; the
// earlier one on equal scores. The CLL of weights learning did not
// converge to is a sample of where the run stopped, not of the exponent:
// a run stalled with weights its chains cannot mix can score well on one
// held-out database and badly on another.
func chooseExponent(ch *JointPriorChoice) float64 {
	pick := func(conv bool) (float64, bool) {
		best, t, ok := math.Inf(-1), 0.0, false
		for i, x := range ch.HeldOutCLL {
			if (!conv || ch.Converged[i]) && x > best {
				best, t, ok = x, ch.Exponents[i], true
			}
		}
		return t, ok
	}
	if t, ok := pick(true); ok {
		return t
	}
	t, _ := pick(false)
	return t
}

// subset returns the problem of every example but the one at index out,
// sharing the examples, the prior and the scale.
func (pb *cllProblem) subset(out int) *cllProblem {
	sub := *pb
	sub.tune = false
	sub.exs = nil
	for i, e := range pb.exs {
		if i != out {
			sub.exs = append(sub.exs, e)
		}
	}
	return &sub
}

// heldOutCLL returns Σ_a log P_w(Y_a = y_a | x) over the atoms of e's
// network at weights w, each marginal bounded to [clipProb, 1−clipProb]:
// MC-SAT's marginals (Rao-Blackwellised, small components exact), or,
// with the caller's samplers, the weighted mean of the worlds e's sampler
// draws.
func (pb *cllProblem) heldOutCLL(ctx context.Context, e *cllExample, w []float64, seed int64) (float64, error) {
	setWeights(e.net, w)
	n := e.net.NumAtoms()
	var probs []float64
	if pb.custom {
		probs = make([]float64, n)
		var W float64
		err := e.sampler.Sample(ctx, func(y []bool, p float64) {
			W += p
			for a, v := range y {
				if v {
					probs[a] += p
				}
			}
		})
		if err != nil {
			return 0, err
		}
		for a := range probs {
			probs[a] /= W
		}
	} else {
		eng := mcsat.Engine{Options: mcsat.Options{Samples: heldOutSamples, Chains: 1, Stars: pb.stars, AutoStars: pb.autoStars}, Workers: pb.workers}
		var err error
		if probs, err = eng.Marginals(ctx, e.net, infer.Options{Seed: seed}); err != nil {
			return 0, err
		}
	}
	cll := 0.0
	for a, p := range probs {
		p = min(max(p, clipProb), 1-clipProb)
		if !e.y[a] {
			p = 1 - p
		}
		cll += math.Log(p)
	}
	return cll, nil
}

// unconverged returns the parameters whose gradient entry g is more than
// z standard errors from 0 (or non-zero with no error), the largest ratio
// first.
func (pb *cllProblem) unconverged(g []float64, z float64) []int {
	se2 := pb.se2()
	type far struct {
		p     int
		ratio float64
	}
	var fs []far
	for p, x := range g {
		x = math.Abs(x)
		if x <= adaptiveGradTol {
			continue
		}
		r := math.Inf(1)
		if se2[p] > 0 {
			r = x / math.Sqrt(se2[p])
		}
		if r > z {
			fs = append(fs, far{p, r})
		}
	}
	slices.SortStableFunc(fs, func(a, b far) int { return cmp.Compare(b.ratio, a.ratio) })
	out := make([]int, len(fs))
	for i, f := range fs {
		out[i] = f.p
	}
	return out
}

// se2 returns the squared standard error of every gradient entry from the
// current samples (0 where no example estimates one).
func (pb *cllProblem) se2() []float64 {
	se2 := make([]float64, pb.np)
	for _, e := range pb.exs {
		if e.se2 == nil {
			continue
		}
		for k, p := range e.params {
			se2[p] += e.se2[k]
		}
	}
	return se2
}

// stepNoise returns the standard error of the predicted gain −gᵀs of step
// s from the gradient's standard errors, √(Σ_p s_p²·SE_p²), the entries
// taken as independent.
func (pb *cllProblem) stepNoise(step []float64) float64 {
	se2 := pb.se2()
	v := 0.0
	for p, x := range step {
		v += x * x * se2[p]
	}
	return math.Sqrt(v)
}

// ParamName returns parameter p of model as text: its formula, and for a
// formula with "+" variables their constants ("HasWord(t, +w) => ... [w =
// Learning]").
func ParamName(model *mln.Model, p int) string {
	if p < 0 || p >= len(model.ParamFormula) {
		return ""
	}
	f := model.Formulas[model.ParamFormula[p]]
	var b strings.Builder
	if f.AST != nil {
		b.WriteString(syntax.FormulaString(f.AST))
	}
	if p < len(model.ParamBinding) && len(f.PlusVars) > 0 {
		b.WriteString(" [")
		for i, v := range f.PlusVars {
			if i < len(model.ParamBinding[p]) {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(v + " = " + model.ConstName(model.ParamBinding[p][i]))
			}
		}
		b.WriteString("]")
	}
	return b.String()
}
