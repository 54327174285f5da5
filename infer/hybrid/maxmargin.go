package hybrid

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

// MaxMarginOptions configures LearnMaxMargin. C, Epsilon and MaxIter
// default to the Boolean max-margin learner's (learn.MaxMargin).
type MaxMarginOptions struct {
	// Query lists the predicates to predict (Boolean or real-valued).
	Query []mln.PredID
	// C is the trade-off between the margin and the slack (0:
	// learn.DefaultMaxMarginC).
	C float64
	// Epsilon is the stopping tolerance, in Hamming loss per database (0:
	// learn.DefaultMaxMarginEpsilon).
	Epsilon float64
	// MaxIter bounds the cutting-plane rounds (0:
	// learn.DefaultMaxMarginIter).
	MaxIter int
	// MAP configures the loss-augmented hybrid MaxWalkSAT; its Seed is
	// offset by the round and the database.
	MAP MAPOptions
	// Log, if set, is called after each round with the round number (from
	// 1), the round's mean loss and the violation of its plane.
	Log func(iter int, loss, violation float64)
}

// MaxMarginResult is what LearnMaxMargin learned.
type MaxMarginResult struct {
	// Weights holds one weight per feature (Problem.Features order; hard
	// formulas at HardWeight).
	Weights []float64
	// Slack is the 1-slack solution's ξ, in Hamming loss per database.
	Slack float64
	// Iterations counts the rounds of loss-augmented inference, Planes the
	// cutting planes of the working set.
	Iterations, Planes int
	// Converged reports that the last round's plane was violated by at
	// most Epsilon.
	Converged bool
	// Loss is the mean loss of the last round's loss-augmented labels and
	// Violation its plane's violation b − ⟨w,a⟩ − ξ.
	Loss, Violation float64
}

// example is a training database ground for learning: the Problem of its
// query atoms given the rest, and its true state.
type example struct {
	p     *Problem
	truth State
}

// groundExamples grounds every database with its query atoms as
// variables and reads their true values (unlisted Boolean atoms false).
func groundExamples(ctx context.Context, m *mln.Model, dbs []*mln.Database, query []mln.PredID) ([]example, error) {
	if len(dbs) == 0 {
		return nil, fmt.Errorf("hybrid: no training database")
	}
	var exs []example
	for _, db := range dbs {
		p, err := Ground(ctx, m, db.Without(query...), Options{Query: query})
		if err != nil {
			return nil, err
		}
		s := State{Bools: make([]bool, len(p.Bools)), Reals: make([]float64, len(p.Reals))}
		for i, a := range p.Bools {
			v, _ := db.Get(a.Pred, a.Args)
			s.Bools[i] = v == mln.True
		}
		for i, a := range p.Reals {
			v, ok := db.Real(a.Pred, a.Args)
			if !ok {
				return nil, fmt.Errorf("hybrid: the training data gives no value for %s", m.AtomString(a.Pred, a.Args))
			}
			s.Reals[i] = v
		}
		if h := p.HardFalse + p.HardViolated(s.Bools); h > 0 {
			return nil, fmt.Errorf("hybrid: training database %d violates %d ground hard formulas: the model gives it probability 0", len(exs)+1, h)
		}
		exs = append(exs, example{p: p, truth: s})
	}
	return exs, nil
}

// LearnMaxMargin fits the weights of the model's features to the databases
// with the 1-slack structural SVM that learn.Batch trains (margin
// rescaling, Hamming loss, cutting planes, the dual QP of
// learn.CuttingPlanes):
//
//	min_{w,ξ≥0} ½‖w‖² + C·ξ
//	s.t. ∀(ŷ_1..ŷ_n): (1/n)·Σ_i ⟨w, n(x_i,y_i) − n(x_i,ŷ_i)⟩ ≥ (1/n)·Σ_i Δ(y_i,ŷ_i) − ξ
//
// over the n databases, where n(x,y) holds each feature's sum of ground
// feature values, a grounding's value being its formula's indicator times
// its numeric term, with the evidence x (Boolean and real-valued) fixed.
// A labelling y is the values of the query atoms: Boolean ones and, for
// real-valued query predicates, real ones. The loss Δ is the Hamming loss
// over the Boolean query atoms only: a real-valued query atom adds no loss
// (a squared-error loss would make the loss-augmented problem unbounded as
// soon as the learned curvature of a numeric term fell below the loss's),
// so its value in ŷ is the one maximising the score given the Boolean
// atoms, as in MAP inference. The loss-augmented labelling
// argmax_y ⟨w, n(x_i,y)⟩ + Δ(y_i,y) is found by hybrid MaxWalkSAT
// (Problem.MAP, opt.MAP) on the Problem with one extra ground feature of
// weight 1 per Boolean query atom, true when the atom differs from the
// data; its first try starts from the true labelling (from random ones,
// the walk often ends below the truth's score once the numeric terms'
// weights are large, and the round would then find no violated
// constraint), and the true labelling is taken when the search returns a
// worse one. When the continuous part has no maximum under the current
// weights, the labelling is a state far along a direction in which it
// grows (lossAugmentedMAP), whose plane moves the weights back. A numeric
// term over real-valued query atoms alone keeps weight 0: with a positive
// weight its maximum scores above the data, with a negative one the model
// is unbounded, and no loss pays for either (learn such terms with Learn).
// Hard formulas keep HardWeight: their count differences move into the
// planes' offsets. The first round uses w = 0; training stops when a
// round's plane is violated by at most opt.Epsilon, or after opt.MaxIter
// rounds.
func LearnMaxMargin(ctx context.Context, m *mln.Model, dbs []*mln.Database, opt MaxMarginOptions) (*MaxMarginResult, error) {
	C, eps, maxIter := opt.C, opt.Epsilon, opt.MaxIter
	if C < 0 || eps < 0 || maxIter < 0 || math.IsNaN(C) || math.IsInf(C, 0) || math.IsNaN(eps) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("hybrid: max-margin learning needs finite C >= 0, epsilon >= 0 and MaxIter >= 0, have %v, %v and %d", C, eps, maxIter)
	}
	if C == 0 {
		C = learn.DefaultMaxMarginC
	}
	if eps == 0 {
		eps = learn.DefaultMaxMarginEpsilon
	}
	if maxIter == 0 {
		maxIter = learn.DefaultMaxMarginIter
	}
	exs, err := groundExamples(ctx, m, dbs, opt.Query)
	if err != nil {
		return nil, err
	}
	feats := exs[0].p.Features
	k := len(feats)
	// w: the weights the inference uses (hard ones at HardWeight); the
	// QP's solution holds the free ones.
	w := make([]float64, k)
	hard := make([]bool, k)
	for i, f := range feats {
		if f.Hard {
			w[i], hard[i] = HardWeight, true
		}
	}
	// Features whose values reach 2^21 or stay below 2^-20 enter the
	// planes rescaled by a power of two (featureScales), the QP's solution
	// u holding w·2^k for them.
	ks := featureScales(exs)
	u := make([]float64, k)
	aug := make([]*Problem, len(exs))
	data := make([][]float64, len(exs))
	for i, ex := range exs {
		aug[i] = ex.p.lossAugmented(ex.truth.Bools)
		data[i] = ex.p.countsScaled(ex.truth.Bools, ex.truth.Reals, ks)
	}
	planes := learn.NewCuttingPlanes(C)
	res := &MaxMarginResult{}
	n := float64(len(exs))
	xi := 0.0
	sol := make([]float64, k)
	for iter := 0; iter < maxIter; iter++ {
		dense := make([]float64, k)
		b, loss := 0.0, 0.0
		for i, ex := range exs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			mopt := opt.MAP
			mopt.Seed += uint64(iter*len(exs) + i)
			yhat, dl, err := aug[i].lossAugmentedMAP(ctx, w, ex.truth, xi, mopt)
			if err != nil {
				return nil, err
			}
			c := ex.p.countsScaled(yhat.Bools, yhat.Reals, ks)
			for t := range k {
				d := data[i][t] - c[t]
				if hard[t] {
					b -= HardWeight * d
				} else {
					dense[t] += d
				}
			}
			b += dl
			loss += dl
		}
		a := learn.Sparse{}
		for t, v := range dense {
			if v != 0 {
				a.Idx = append(a.Idx, int32(t))
				a.Val = append(a.Val, v/n)
			}
		}
		b /= n
		if !finite(b) {
			return nil, fmt.Errorf("hybrid: max-margin learning diverged in round %d: the plane's offset is beyond float64's range", iter+1)
		}
		wa := 0.0
		for j, t := range a.Idx {
			if !finite(a.Val[j]) {
				return nil, fmt.Errorf("%s: max-margin learning diverged in round %d: the feature's count difference is beyond float64's range", feats[t].Pos, iter+1)
			}
			wa += u[t] * a.Val[j]
		}
		viol := b - wa - xi
		res.Iterations++
		res.Loss, res.Violation = loss/n, viol
		if opt.Log != nil {
			opt.Log(iter+1, loss/n, viol)
		}
		if viol <= eps {
			res.Converged = true
			break
		}
		planes.Add(a, b)
		planes.Weights(sol)
		xi = planes.Slack()
		if !finite(xi) {
			return nil, fmt.Errorf("hybrid: max-margin learning diverged in round %d: the slack is %v", iter+1, xi)
		}
		for t := range k {
			if !hard[t] {
				if !finite(sol[t]) {
					return nil, fmt.Errorf("%s: max-margin learning diverged in round %d: the weight is %v", feats[t].Pos, iter+1, sol[t])
				}
				u[t], w[t] = sol[t], math.Ldexp(sol[t], -ks[t])
			}
		}
	}
	for t, f := range feats {
		if !hard[t] && !representable(u[t], w[t], ks[t]) {
			return nil, fmt.Errorf("%s: the learned weight %g·2^%d is beyond float64's range (the feature's values reach 2^%d)", f.Pos, u[t], -ks[t], ks[t])
		}
	}
	res.Weights, res.Slack, res.Planes = w, xi, planes.Len()
	return res, nil
}

// lossAugmented returns a copy of p with one more ground feature per
// Boolean variable, true when the variable differs from truth, of template
// len(p.Weights) (weight 1): its log-weight is p's plus the Hamming loss.
// Only its MAP is meaningful (Counts and Sample do not know the extra
// template).
func (p *Problem) lossAugmented(truth []bool) *Problem {
	q := *p
	lt := int32(len(p.Weights))
	q.Weights = append(slices.Clone(p.Weights), 1)
	q.ground = slices.Clip(slices.Clone(p.ground))
	q.boolOcc = make([][]int32, len(p.boolOcc))
	q.gvars = slices.Clip(slices.Clone(p.gvars))
	for v, t := range truth {
		e := &bexpr{op: 'v', v: int32(v)}
		if t {
			e = &bexpr{op: '!', kids: []*bexpr{e}}
		}
		q.boolOcc[v] = append(slices.Clip(p.boolOcc[v]), int32(len(q.ground)))
		q.ground = append(q.ground, gfeat{tmpl: lt, cond: e})
		q.gvars = append(q.gvars, []int32{int32(v)})
	}
	return &q
}

// lossAugmentedMAP sets the weights of the loss-augmented Problem q to w
// (and 1 for the loss) and returns the state hybrid MaxWalkSAT finds, or
// truth when that scores higher, and its Hamming loss against truth. When
// the continuous part has no maximum under w, it returns instead a state
// along a direction in which it grows, far enough that its score beats
// truth's by 1 + xi: a finite constraint that w violates (every labelling
// gives a valid constraint), which moves the next weights away from the
// unbounded ones.
func (q *Problem) lossAugmentedMAP(ctx context.Context, w []float64, truth State, xi float64, opt MAPOptions) (State, float64, error) {
	copy(q.Weights, w)
	opt.Start = truth.Bools
	s, score, err := q.search(ctx, opt)
	var ue *unboundedError
	if errors.As(err, &ue) {
		s, err = q.farState(ue, q.logWeight(truth.Bools, truth.Reals)+1+xi)
		score = math.Inf(1)
	}
	if err != nil {
		return State{}, 0, err
	}
	if q.logWeight(truth.Bools, truth.Reals) >= score {
		return truth, 0, nil
	}
	loss := 0
	for v, t := range truth.Bools {
		if s.Bools[v] != t {
			loss++
		}
	}
	return s, float64(loss), nil
}

// farState returns a state with ue's Boolean values whose log-weight
// reaches target: the continuous variables at from + t·d for the first t
// in 1, 2, 4, ... (up to 2^60) that does, d being to − from scaled to a
// largest coordinate of 1, else each
// coordinate direction ±e_i in turn; ue itself if there is none.
func (q *Problem) farState(ue *unboundedError, target float64) (State, error) {
	n := len(ue.from)
	x := make([]float64, n)
	try := func(d func(i int) float64) bool {
		for t := 1.0; t <= 1<<60; t *= 2 {
			for i := range x {
				x[i] = ue.from[i] + t*d(i)
			}
			if v := q.logWeight(ue.bools, x); !math.IsNaN(v) && v >= target {
				return true
			}
		}
		return false
	}
	// The direction scaled to a largest coordinate of 1, so that the
	// state found is no farther than it needs to be (its counts enter the
	// next plane).
	scale := 0.0
	for i := range n {
		scale = max(scale, math.Abs(ue.to[i]-ue.from[i]))
	}
	if scale > 0 && finite(scale) && try(func(i int) float64 { return (ue.to[i] - ue.from[i]) / scale }) {
		return State{Bools: ue.bools, Reals: x}, nil
	}
	for j := range 2 * n {
		sign := float64(1 - 2*(j%2))
		if try(func(i int) float64 {
			if i == j/2 {
				return sign
			}
			return 0
		}) {
			return State{Bools: ue.bools, Reals: x}, nil
		}
	}
	return State{}, ue
}

// TuneMaxMargin chooses C from grid (learn.CGrid when nil) as the Boolean
// max-margin learner's -C auto does (learn.Tune): it learns with each
// value and keeps the one whose MAP predictions (opt.MAP) have the best F1
// over the Boolean query atoms, earlier values winning ties. With holdout
// in (0, 1) that fraction of the databases (drawn from seed) is held out:
// each value is learned on the others and scored on them, and the chosen
// value is then learned on all the databases; with 0 each value is scored
// on the databases it was learned from. It returns the result learned with
// the chosen C, that C, and the F1 (in percent) of every grid value.
func TuneMaxMargin(ctx context.Context, m *mln.Model, dbs []*mln.Database, opt MaxMarginOptions, grid []float64, holdout float64, seed uint64) (*MaxMarginResult, float64, []float64, error) {
	if grid == nil {
		grid = learn.CGrid
	}
	if len(grid) == 0 {
		return nil, 0, nil, fmt.Errorf("hybrid: TuneMaxMargin needs a grid")
	}
	if holdout < 0 || holdout >= 1 {
		return nil, 0, nil, fmt.Errorf("hybrid: held-out fraction %g is not in [0, 1)", holdout)
	}
	fit, scored := dbs, dbs
	if holdout > 0 {
		nh := int(holdout*float64(len(dbs)) + 0.5)
		if nh < 1 || nh >= len(dbs) {
			return nil, 0, nil, fmt.Errorf("hybrid: cannot hold out %g of %d databases", holdout, len(dbs))
		}
		perm := rand.New(rand.NewPCG(seed, 0x74756e65)).Perm(len(dbs))
		held, rest := perm[:nh], perm[nh:]
		slices.Sort(held)
		slices.Sort(rest)
		fit, scored = nil, nil
		for _, i := range rest {
			fit = append(fit, dbs[i])
		}
		for _, i := range held {
			scored = append(scored, dbs[i])
		}
	}
	exs, err := groundExamples(ctx, m, scored, opt.Query)
	if err != nil {
		return nil, 0, nil, err
	}
	var best *MaxMarginResult
	bestC, bestF1 := 0.0, -1.0
	var f1s []float64
	for _, c := range grid {
		o := opt
		o.C = c
		r, err := LearnMaxMargin(ctx, m, fit, o)
		if err != nil {
			return nil, 0, nil, err
		}
		f1, err := mapF1(ctx, exs, r.Weights, opt.MAP)
		if err != nil {
			return nil, 0, nil, err
		}
		f1s = append(f1s, f1)
		if f1 > bestF1 {
			best, bestC, bestF1 = r, c, f1
		}
	}
	if holdout > 0 {
		o := opt
		o.C = bestC
		if best, err = LearnMaxMargin(ctx, m, dbs, o); err != nil {
			return nil, 0, nil, err
		}
	}
	return best, bestC, f1s, nil
}

// mapF1 returns the F1 (in percent) of the MAP states of the examples'
// Boolean query atoms under weights w against their true values.
func mapF1(ctx context.Context, exs []example, w []float64, opt MAPOptions) (float64, error) {
	var tp, fp, fn int
	for _, ex := range exs {
		copy(ex.p.Weights, w)
		s, _, err := ex.p.search(ctx, opt)
		if err != nil {
			return 0, err
		}
		for v, t := range ex.truth.Bools {
			switch {
			case s.Bools[v] && t:
				tp++
			case s.Bools[v]:
				fp++
			case t:
				fn++
			}
		}
	}
	if tp == 0 {
		return 0, nil
	}
	return 100 * 2 * float64(tp) / float64(2*tp+fp+fn), nil
}
