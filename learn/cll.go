package learn

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/mln"
)

// Defaults of discriminative (conditional likelihood) weight learning,
// Alchemy's `learnwts -d` where it has one.
const (
	// DefaultCLLPriorStdDev is σ of the Gaussian prior on the weights
	// (Alchemy's DISC_DEFAULT_STD_DEV, the default of -priorStdDev with
	// -d).
	DefaultCLLPriorStdDev = 2
	// DefaultCLLMaxIter is the number of iterations (Alchemy's -dNumIter).
	DefaultCLLMaxIter = 100
	// DefaultCLLLambda is the initial trust-region parameter λ of the
	// step length (Alchemy's -cgLambda).
	DefaultCLLLambda = 100
	// DefaultCLLMinLLChange stops learning when the predicted improvement
	// of the conditional log-likelihood falls below it (Alchemy's
	// -cgMinLLChange).
	DefaultCLLMinLLChange = 1e-5
	// CLLSampleBudget and CLLMinSamples give the default number of MC-SAT
	// steps per iteration (see CLLSamples).
	CLLSampleBudget = 10000
	CLLMinSamples   = 25
)

// WorldSampler draws the worlds from which Discriminative estimates one
// example's expected counts E_w[n(x,Y)] under the clause weights currently
// set on the example's network.
type WorldSampler interface {
	// Sample calls fn with each world y it draws and its weight p > 0;
	// the estimate is the p-weighted mean over the worlds of a call (and,
	// after a backtrack, over the calls at the same weights). fn must
	// neither keep nor modify y.
	Sample(ctx context.Context, fn func(y []bool, p float64)) error
}

// SamplerFactory returns the WorldSampler of example i, whose network is
// net; Discriminative calls it once per example, before the first
// iteration, and then reuses the sampler (a sampler may keep state, such
// as a persistent Markov chain, between iterations).
type SamplerFactory func(i int, net *ground.Network) (WorldSampler, error)

// MCSATSamplers returns a SamplerFactory of persistent MC-SAT chains
// (infer/mcsat.Chain): example i's chain starts from a random world
// satisfying the hard clauses, seeded by opt.Seed+i, and each call takes
// steps MC-SAT steps from where the last one stopped, without burn-in, each
// world weighing 1 (Alchemy's inference inside -d: MC-SAT, no burn-in, the
// chain's state kept across iterations).
func MCSATSamplers(steps int, opt mcsat.Options) SamplerFactory {
	return func(i int, net *ground.Network) (WorldSampler, error) {
		o := opt
		o.Seed = opt.Seed + int64(i)
		ch, err := mcsat.NewChain(net, o)
		if err != nil {
			return nil, err
		}
		return &chainSampler{ch: ch, steps: steps}, nil
	}
}

type chainSampler struct {
	ch    *mcsat.Chain
	steps int
}

// SetSteps changes the number of MC-SAT steps of the next calls (the
// adaptive schedule of Discriminative).
func (s *chainSampler) SetSteps(n int) { s.steps = n }

// stepSampler is a WorldSampler whose draws are the successive states of a
// Markov chain and whose number of steps per call can be changed: the
// adaptive schedule grows it, and the standard errors of its estimates are
// taken by batch means.
type stepSampler interface {
	WorldSampler
	SetSteps(n int)
}

// SetWorld moves the chain to world y.
func (s *chainSampler) SetWorld(y []bool) { s.ch.SetWorld(y) }

func (s *chainSampler) Sample(ctx context.Context, fn func(y []bool, p float64)) error {
	return s.ch.Sample(ctx, s.steps, func(y []bool) { fn(y, 1) })
}

// CLLSamples returns the default number of MC-SAT steps per iteration of
// discriminative learning for model, Alchemy's rule: CLLSampleBudget
// divided by the number of groundings of the clause with the fewest (the
// product of the domain sizes of its universally quantified variables),
// so that every clause gets at least 10,000 sampled groundings per
// iteration, and at least CLLMinSamples, so that the batch means of the
// adaptive schedule (ten batches) hold two or more steps each. Lowd &
// Domingos (2007) floor the rule at 5 steps, Alchemy's code at 100; with
// the adaptive schedule, which doubles the steps whenever the gradient is
// within their noise (up to 8 times the start by default), the start only
// needs to resolve the first, large gradients, and a floor of 100 made
// the last rounds of a model with large domains (800 steps of millions of
// ground clauses) resolve a gradient the held-out scores do not follow.
func CLLSamples(model *mln.Model) int {
	return cllSamples(model, CLLMinSamples)
}

// cllSamples is CLLSamples with floor least.
func cllSamples(model *mln.Model, least int) int {
	fewest := math.MaxFloat64
	for _, c := range model.Clauses {
		exist := make(map[int]bool, len(c.Exist))
		for _, v := range c.Exist {
			exist[v] = true
		}
		g := 1.0
		for v, cv := range c.Vars {
			if !exist[v] {
				g *= float64(model.Types[cv.Type].Size())
			}
		}
		if g >= 1 {
			fewest = min(fewest, g)
		}
	}
	if fewest == math.MaxFloat64 {
		return least
	}
	return max(least, int(CLLSampleBudget/fewest))
}

// DiscriminativeSettings configure Discriminative.
type DiscriminativeSettings struct {
	// PriorStdDev is σ of the Gaussian prior N(0, σ²) on every weight (0
	// means DefaultCLLPriorStdDev).
	PriorStdDev float64
	// NoPrior drops the prior (Alchemy's -noPrior).
	NoPrior bool
	// MaxIter is the number of iterations (weight updates; 0 means
	// DefaultCLLMaxIter).
	MaxIter int
	// Samples is the number of MC-SAT steps per example and iteration (0
	// means CLLSamples(model)). Ignored with Sampler.
	Samples int
	// Newton uses diagonal Newton (Alchemy's -dNewton) instead of
	// preconditioned scaled conjugate gradient.
	Newton bool
	// Lambda is the initial trust-region parameter λ (0 means
	// DefaultCLLLambda); MaxLambda bounds it (0: no bound).
	Lambda, MaxLambda float64
	// MinLLChange stops learning when the predicted improvement of the
	// conditional log-likelihood of a step is below it (0 means
	// DefaultCLLMinLLChange; negative: never).
	MinLLChange float64
	// NoPrecondition uses the identity instead of the inverse diagonal
	// Hessian as PSCG's preconditioner (Alchemy's -cgNoPrecond).
	NoPrecondition bool
	// DataHessian leaves the prior's precision out of the Hessian-vector
	// products of the step length and of the trust region's predicted
	// change, as Alchemy's learnwts -d does (its products are the
	// covariance of the sampled counts; its preconditioner keeps the
	// prior). The objective and its optimum are the same; the steps are
	// longer for weights the prior holds more than the data.
	DataHessian bool
	// MinSamples is the least number of MC-SAT steps per iteration of the
	// default rule (0 means CLLMinSamples; Alchemy's learnwts floors its
	// rule at 100). Ignored when Samples is set.
	MinSamples int
	// Seed seeds the MC-SAT chains (example i's chain uses Seed+i).
	Seed int64
	// Workers is the number of examples sampled concurrently (0 means
	// GOMAXPROCS). Examples must then not share a network. The result
	// does not depend on it.
	Workers int
	// KeepInitial starts from the model's weights.
	KeepInitial bool
	// ZeroStart starts from w = 0 (Alchemy's learnwts -d). Without it or
	// KeepInitial, learning starts from the independent start: the exact
	// optimum of the conditional log-likelihood (with the prior) when
	// every parameter with a ground clause of two or more unknown atoms is
	// held at 0, so that the atoms are independent given the evidence
	// and the problem is a convex logistic regression. A model without
	// such formulas thus starts at its optimum, and a joint model at the
	// best model without its joint formulas, where the chains mix at once.
	ZeroStart bool
	// TunePrior chooses the prior's σ (instead of PriorStdDev) among
	// TunedPriorStdDevs by the held-out conditional log-likelihood of the
	// independent start, each example left out in turn and the others
	// fitted (with two or more examples, and not with ZeroStart,
	// KeepInitial or NoPrior); the σ chosen then holds for the whole run.
	// It guards per-constant weights ("+w") against fitting the words of
	// the training databases only.
	TunePrior bool
	// Sampler, when set, replaces the MC-SAT chains (for example by exact
	// enumeration on tiny networks).
	Sampler SamplerFactory
	// Adaptive turns on the sample schedule and the stopping rule that
	// make learning converge on sampled expectations: the standard error
	// of every gradient entry is estimated from the samples (batch means
	// over each chain's steps); when no entry exceeds Significance
	// standard errors, or the mean squared ratio of the entries to their
	// standard errors is what noise alone gives (within three standard
	// errors of its expectation under Student t errors), the gradient is
	// within the noise of the samples, and the number of MC-SAT steps per
	// round is doubled, up to MaxSamples, at which learning stops and has
	// converged. A step the
	// trust region rejects also doubles the samples of the next rounds.
	// Without it (Alchemy's learnwts -d) every round takes Samples steps
	// and only MinLLChange or MaxIter stop learning.
	Adaptive bool
	// MaxSamples bounds the MC-SAT steps per example and round of the
	// adaptive schedule. 0 means 8×Samples, raised (doubled, up to
	// 64×Samples) whenever the gradient stalls there beyond the noise: the
	// chains then mix too slowly for the batch means of the largest
	// sample to resolve the gradient.
	MaxSamples int
	// Significance is the number of standard errors from which a gradient
	// entry counts as non-zero (0 means √(2 ln 2P) + 1 for P parameters:
	// the largest of P standard normal errors rarely exceeds it).
	Significance float64
	// ScaleJointPrior divides σ of the prior on every weight with a
	// ground clause of two or more atoms (a formula that links query
	// atoms) by its connections: the largest number of its ground clauses
	// through one atom of one example (Mittal, Bhardwaj & Singla 2019's
	// scale of domain-size-aware weights). Such a weight pulls an atom by
	// about that many times itself (transitivity: once per third
	// constant), so the prior then bounds the pull, as it bounds a unit
	// clause's, and does not let the weight grow with the domain.
	ScaleJointPrior bool
	// TuneJointPrior (with ScaleJointPrior, two or more examples and the
	// independent start) chooses how the connections narrow the prior of
	// the weights linking query atoms, by the held-out conditional
	// log-likelihood of a held-out example (see JointPriorLeaveEachOut): for each
	// exponent t of JointPriorExponents, σ of such a weight is divided by
	// cmax^(1−t)·cmin^t, cmax and cmin the connections through one atom of
	// its most and least connected predicate; the other examples are
	// learned from their own independent start, and the left-out one is
	// scored with MC-SAT's marginals (or, with Sampler, its worlds'). On
	// equal scores the earlier exponent wins, and an exponent whose held-out
	// runs all converged wins over one whose runs did not (the CLL of
	// weights a run stalled at says little of the exponent); only when
	// none converged does the best score win. A rule from a field to a
	// citation meets one clause per citation atom and thousands per field
	// atom: t = 0 holds its weight near 0, t = 1 lets it carry the
	// citations when the held-out databases support it.
	TuneJointPrior bool
	// Stars adds star moves (mcsat.Options.Stars) to the default MC-SAT
	// chains and to TuneJointPrior's held-out inference: an atom tied to
	// many atoms of few clauses (a field atom and the citation pairs it
	// links) is resampled jointly with them. AutoStars, without Stars,
	// makes them only in the rounds whose weights give an example's
	// network a hub of mcsat.DefaultStarWeight or more
	// (mcsat.Options.AutoStars): none while the joint weights are small.
	Stars, AutoStars bool
	// OnJointPrior, when set, is called with TuneJointPrior's choice.
	OnJointPrior func(*JointPriorChoice)
	// OnHeldOut, when set, is called after each held-out run of
	// TuneJointPrior: the exponent, the example left out, its CLL and the
	// run's stats.
	OnHeldOut func(t float64, example int, cll float64, st *DiscriminativeStats)
	// Progress, when set, is called after every sampling round.
	Progress func(DiscriminativeProgress)
	// OnStart, when set, is called with the independent start once it is
	// computed, before the first sampling round.
	OnStart func(*IndependentStart)
}

// DiscriminativeProgress reports a sampling round of Discriminative.
type DiscriminativeProgress struct {
	Iter        int     // weight updates so far
	Round       int     // sampling rounds so far (updates and backtracks)
	GradNorm    float64 // largest entry of the gradient of −CLL + prior
	Lambda      float64 // trust-region parameter after the round
	Improvement float64 // predicted improvement of the round's step (0 when none)
	Backtracked bool    // the round rejected the last step
	Samples     int     // MC-SAT steps per example of the next round
	Noise       float64 // Adaptive: largest gradient entry in standard errors
	Elapsed     time.Duration
}

// DiscriminativeStats summarise a run of Discriminative.
type DiscriminativeStats struct {
	Method string // "PSCG" or "DN"
	// Iterations counts weight updates, Rounds sampling rounds, Backtracks
	// the rejected steps (each costs one more round).
	Iterations, Rounds, Backtracks int
	// Samples is the number of MC-SAT steps per example and round (0 with
	// a custom Sampler); with Adaptive, that of the last round.
	Samples int
	// Noise is the largest ratio of a gradient entry to its standard
	// error in the last round (Adaptive only; +Inf when a standard error
	// is 0 and its entry is not).
	Noise float64
	// Unconverged lists, when learning with Adaptive stopped without
	// converging, the parameters whose gradient entry was more than
	// Significance standard errors from 0 in the last round, the largest
	// ratio first.
	Unconverged []int
	// JointPrior is TuneJointPrior's choice (nil when none was made).
	JointPrior *JointPriorChoice
	// Converged is set when the predicted improvement fell below
	// MinLLChange, the gradient vanished, or (Adaptive) the gradient was
	// within the noise of the samples at MaxSamples steps.
	Converged bool
	// GradNorm is the largest gradient entry of the last round, Lambda the
	// final trust-region parameter.
	GradNorm, Lambda float64
	Examples, Params int
	Elapsed          time.Duration
	// Start describes the independent start (nil with ZeroStart or
	// KeepInitial).
	Start *IndependentStart
	// ScaledPriors counts the weights whose prior ScaleJointPrior
	// narrowed, and MaxConnections is the largest divisor of σ.
	ScaledPriors   int
	MaxConnections float64
}

// cllExample holds one example's network, its local parameters and the
// count vectors of its sampled worlds.
type cllExample struct {
	net     *ground.Network
	params  []int32   // local -> model parameter
	truth   []float64 // local counts of the gold world
	y       []bool    // the gold world
	startP  []float64 // per atom, P(true) at the independent start (-1: left out); nil without one
	sampler WorldSampler

	rows, prevRows []float64 // sampled count vectors, len(params) each
	wts, prevWts   []float64 // their weights
	mean, vari     []float64 // p-weighted mean and variance of the rows
	se2            []float64 // squared standard error of mean (batch means; nil: exact)
	batched        bool      // the sampler is a chain: estimate se2
	batches        int       // the number of batch means behind se2
	out            []float64 // scratch for Hessian products

	// Counts are kept as integer numbers of satisfied clauses per slot
	// (a local parameter and a coefficient) and turned into a row by one
	// formula, so that the count from the changed atoms and the full count
	// of a world agree to the bit (see countNext).
	slot     []int32   // per clause: its slot, or -1
	slotK    []int32   // per slot: the local parameter
	slotCoef []float64 // per slot: the coefficient
	slotN    []int64   // scratch: satisfied clauses per slot
	last     []bool    // the world counted last in the sampler's call
	lastN    []int64   // its satisfied clauses per slot
	hasLast  bool      // last holds a world of this call
	nTrue    []int32   // per clause of a slot: its true literals in last
	occStart []int32   // per atom: where its occurrences start in occ
	occ      []uint32  // literal occurrences in clauses of a slot: clause<<1 | negated
	changed  []int32   // scratch: the atoms on which two worlds differ
}

func newCLLExample(ex *Example) *cllExample {
	net := ex.Net
	e := &cllExample{net: net, slot: make([]int32, net.NumClauses())}
	index := map[int32]int32{}
	type slotKey struct {
		p    int32
		coef float64
	}
	slots := map[slotKey]int32{}
	last, lastSlot := slotKey{p: -1}, int32(-1) // clauses come in runs of one parameter and coefficient
	for c := range e.slot {
		p := net.Param(c)
		if p < 0 {
			e.slot[c] = -1
			continue
		}
		sk := slotKey{p, net.Coef(c)}
		if sk == last {
			e.slot[c] = lastSlot
			continue
		}
		k, ok := index[p]
		if !ok {
			k = int32(len(e.params))
			index[p] = k
			e.params = append(e.params, p)
		}
		s, ok := slots[sk]
		if !ok {
			s = int32(len(e.slotK))
			slots[sk] = s
			e.slotK = append(e.slotK, k)
			e.slotCoef = append(e.slotCoef, sk.coef)
		}
		e.slot[c] = s
		last, lastSlot = sk, s
	}
	e.slotN = make([]int64, len(e.slotK))
	e.lastN = make([]int64, len(e.slotK))
	e.truth = make([]float64, len(e.params))
	e.y = ex.Truth
	e.count(ex.Truth, e.truth)
	e.occStart = make([]int32, net.NumAtoms()+1)
	for c, sl := range e.slot {
		if sl >= 0 {
			for _, l := range net.Clause(c) {
				e.occStart[l.Atom()+1]++
			}
		}
	}
	for a := 1; a < len(e.occStart); a++ {
		e.occStart[a] += e.occStart[a-1]
	}
	e.occ = make([]uint32, e.occStart[len(e.occStart)-1])
	fill := slices.Clone(e.occStart)
	for c, sl := range e.slot {
		if sl >= 0 {
			for _, l := range net.Clause(c) {
				a := l.Atom()
				e.occ[fill[a]] = uint32(c)<<1 | uint32(l&1)
				fill[a]++
			}
		}
	}
	return e
}

// count adds the local counts of world y into dst.
func (e *cllExample) count(y []bool, dst []float64) {
	e.countSlots(y, e.slotN)
	e.addSlots(e.slotN, dst)
}

// countSlots stores in n the number of satisfied clauses of each slot
// under world y.
func (e *cllExample) countSlots(y []bool, n []int64) {
	clear(n)
	net := e.net
	for c, s := range e.slot {
		if s >= 0 && net.Satisfied(c, y) {
			n[s]++
		}
	}
}

// addSlots adds the local counts of the slot counts n into dst.
func (e *cllExample) addSlots(n []int64, dst []float64) {
	for s, x := range n {
		if x != 0 {
			dst[e.slotK[s]] += e.slotCoef[s] * float64(x)
		}
	}
}

// countNext adds into dst the local counts of world y, the next world of
// the sampler's current call. Successive states of a chain differ in few
// atoms: when the changed atoms occur in fewer than half the literals of
// the counted clauses, the counts are those of the last world updated
// through the true literals of each clause that those atoms touch (a
// clause turns satisfied or not as its number of true literals leaves or
// reaches 0); otherwise, and for the first world of a call, every clause
// is counted. Both give the same integer counts per slot, hence the same
// row.
func (e *cllExample) countNext(y []bool, dst []float64) {
	if e.hasLast && len(y) == len(e.last) {
		e.changed = e.changed[:0]
		work, limit := 0, len(e.occ)/2
		for a, v := range y {
			if v != e.last[a] {
				e.changed = append(e.changed, int32(a))
				if work += int(e.occStart[a+1] - e.occStart[a]); work > limit {
					break
				}
			}
		}
		if work <= limit {
			for _, a := range e.changed {
				v := y[a]
				for _, o := range e.occ[e.occStart[a]:e.occStart[a+1]] {
					c := o >> 1
					if v != (o&1 == 1) { // the literal turned true
						if e.nTrue[c]++; e.nTrue[c] == 1 {
							e.lastN[e.slot[c]]++
						}
					} else if e.nTrue[c]--; e.nTrue[c] == 0 {
						e.lastN[e.slot[c]]--
					}
				}
				e.last[a] = v
			}
			e.addSlots(e.lastN, dst)
			return
		}
	}
	// Count every clause, keeping its true literals.
	net := e.net
	if e.nTrue == nil {
		e.nTrue = make([]int32, len(e.slot))
	}
	clear(e.lastN)
	for c, s := range e.slot {
		if s < 0 {
			continue
		}
		k := int32(0)
		for _, l := range net.Clause(c) {
			if l.True(y) {
				k++
			}
		}
		e.nTrue[c] = k
		if k > 0 {
			e.lastN[s]++
		}
	}
	e.addSlots(e.lastN, dst)
	if len(e.last) != len(y) {
		e.last = make([]bool, len(y))
	}
	copy(e.last, y)
	e.hasLast = true
}

// sample draws worlds under weights w (appending to the rows already held
// when accumulate is set) and recomputes their mean and variance.
func (e *cllExample) sample(ctx context.Context, w []float64, accumulate bool) error {
	setWeights(e.net, w)
	if !accumulate {
		e.rows, e.wts = e.rows[:0], e.wts[:0]
	}
	L := len(e.params)
	e.hasLast = false // count the call's first world in full
	err := e.sampler.Sample(ctx, func(y []bool, p float64) {
		n := len(e.rows)
		e.rows = append(e.rows, make([]float64, L)...)
		e.countNext(y, e.rows[n:])
		e.wts = append(e.wts, p)
	})
	if err != nil {
		return err
	}
	if len(e.wts) == 0 {
		return errors.New("the sampler drew no world")
	}
	e.mean = resize(e.mean, L)
	e.vari = resize(e.vari, L)
	var W float64
	for s, p := range e.wts {
		W += p
		row := e.rows[s*L : (s+1)*L]
		for k, v := range row {
			e.mean[k] += p * v
		}
	}
	for k := range e.mean {
		e.mean[k] /= W
	}
	for s, p := range e.wts {
		row := e.rows[s*L : (s+1)*L]
		for k, v := range row {
			d := v - e.mean[k]
			e.vari[k] += p * d * d
		}
	}
	for k := range e.vari {
		e.vari[k] /= W
	}
	e.batchMeans(L, W)
	return nil
}

// batchMeans estimates the squared standard error of e.mean by batch
// means: the rows, successive states of a chain, are cut into (at most)
// ten contiguous batches, and the spread of the batch means around the
// mean gives the error of the mean, autocorrelation within a batch
// included.
func (e *cllExample) batchMeans(L int, W float64) {
	if !e.batched {
		e.se2 = nil
		return
	}
	e.se2 = resize(e.se2, L)
	n := len(e.wts)
	B := min(10, n)
	e.batches = B
	if B < 2 {
		for k := range e.se2 {
			e.se2[k] = max(e.vari[k], 1) // one sample: no estimate of the error
		}
		return
	}
	bm := make([]float64, L)
	for b := 0; b < B; b++ {
		lo, hi := b*n/B, (b+1)*n/B
		clear(bm)
		var Wb float64
		for s := lo; s < hi; s++ {
			p := e.wts[s]
			Wb += p
			row := e.rows[s*L : (s+1)*L]
			for k, v := range row {
				bm[k] += p * v
			}
		}
		if Wb == 0 {
			continue
		}
		f := (Wb / W) * (Wb / W)
		for k := range bm {
			d := bm[k]/Wb - e.mean[k]
			e.se2[k] += f * d * d
		}
	}
	// A count that did not change over n samples is known to about one
	// part in n, no better.
	floor := 1 / float64(n*n)
	for k := range e.se2 {
		e.se2[k] = max(e.se2[k]*float64(B)/float64(B-1), floor)
	}
}

// hess stores in e.out the local part of Cov_w(n)·d (d over model
// parameters), estimated from the rows.
func (e *cllExample) hess(d []float64) {
	L := len(e.params)
	e.out = resize(e.out, L)
	if L == 0 {
		return
	}
	var W, tbar float64
	t := make([]float64, len(e.wts))
	for s, p := range e.wts {
		row := e.rows[s*L : (s+1)*L]
		v := 0.0
		for k, x := range row {
			v += (x - e.mean[k]) * d[e.params[k]]
		}
		t[s] = v
		W += p
		tbar += p * v
	}
	tbar /= W
	for s, p := range e.wts {
		row := e.rows[s*L : (s+1)*L]
		f := p * (t[s] - tbar) / W
		for k, x := range row {
			e.out[k] += f * (x - e.mean[k])
		}
	}
}

// resize returns s with length n, zeroed.
func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// cllProblem is the conditional log-likelihood of a set of examples with
// a Gaussian prior, as seen through the samplers.
type cllProblem struct {
	exs     []*cllExample
	np      int
	prec    float64   // 1/σ², 0 without prior
	scale   []float64 // per parameter: the prior's precision is prec·scale[p]² (nil: 1)
	tune    bool      // the independent start chooses prec
	workers int

	connMax, connMin []float64 // per parameter: connections (scaleJointPrior)
	stars, autoStars bool      // held-out inference with star moves (Stars, AutoStars)
	custom           bool      // the samplers are the caller's (DiscriminativeSettings.Sampler)
	meanSq           float64   // noise's last mean squared ratio of a gradient entry to its standard error
}

// newCLLProblem grounds (asks for) every example once and creates its
// sampler.
func newCLLProblem(ctx context.Context, model *mln.Model, examples ExampleSource, factory SamplerFactory, workers int, prec float64) (*cllProblem, error) {
	pb := &cllProblem{workers: workers, prec: prec}
	for i := 0; i < examples.Len(); i++ {
		ex, err := examples.Example(ctx, i)
		if err == nil {
			err = ex.validate()
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("learn: example %d: %w", i, err)
		}
		e := newCLLExample(ex)
		sm, err := factory(i, ex.Net)
		if err != nil {
			return nil, fmt.Errorf("learn: example %d (%s): %w", i, ex.Name, err)
		}
		e.sampler = sm
		_, e.batched = sm.(stepSampler)
		pb.exs = append(pb.exs, e)
	}
	pb.np = len(model.Weights)
	for i, e := range pb.exs {
		for _, p := range e.params {
			if int(p) >= pb.np {
				return nil, fmt.Errorf("learn: example %d has parameter %d, the model %d", i, p, pb.np)
			}
		}
	}
	return pb, nil
}

// each runs fn on every example, workers at a time, and returns the error
// of the first example that failed.
func (pb *cllProblem) each(fn func(i int, e *cllExample) error) error {
	n := len(pb.exs)
	errs := make([]error, n)
	if pb.workers <= 1 || n <= 1 {
		for i, e := range pb.exs {
			if errs[i] = fn(i, e); errs[i] != nil {
				return errs[i]
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for k := 0; k < min(pb.workers, n); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = fn(i, pb.exs[i])
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// sample draws every example's worlds under w.
func (pb *cllProblem) sample(ctx context.Context, w []float64, accumulate bool) error {
	return pb.each(func(i int, e *cllExample) error {
		if err := e.sample(ctx, w, accumulate); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("learn: example %d: %w", i, err)
		}
		return nil
	})
}

// gradient stores in g the gradient of −CLL(w) + Σ w²/(2σ²) from the
// current samples, Σ_e (E[n_e] − n_e(truth)) + w/σ², and in v the
// diagonal of its Hessian, Σ_e Var[n_e] + 1/σ². Either may be nil.
func (pb *cllProblem) gradient(w, g, v []float64) {
	if g != nil {
		for p := range g {
			g[p] = pb.precOf(p) * w[p]
		}
	}
	if v != nil {
		for p := range v {
			v[p] = pb.precOf(p)
		}
	}
	for _, e := range pb.exs {
		for k, p := range e.params {
			if g != nil {
				g[p] += e.mean[k] - e.truth[k]
			}
			if v != nil {
				v[p] += e.vari[k]
			}
		}
	}
}

// precOf returns the prior's precision on parameter p.
func (pb *cllProblem) precOf(p int) float64 {
	if pb.scale == nil {
		return pb.prec
	}
	return pb.prec * pb.scale[p] * pb.scale[p]
}

// scaleJointPrior sets the prior of every parameter with a ground clause
// of two or more atoms to N(0, (σ/c)²), c the largest number of its
// ground clauses through one atom of one example (its connections, as in
// Mittal, Bhardwaj & Singla 2019), so that the prior bounds the weight's
// pull on one atom, c·w, as it bounds a unit clause's; other parameters
// keep N(0, σ²).
func (pb *cllProblem) scaleJointPrior() {
	np := pb.np
	pb.connMax, pb.connMin = make([]float64, np), make([]float64, np)
	type key struct {
		p, atom int32
	}
	type predKey struct {
		p    int32
		pred int32
	}
	// per parameter and predicate: the most clauses through one atom
	byPred := map[predKey]int{}
	var atoms []int32
	for _, e := range pb.exs {
		net := e.net
		conn := map[key]int{}
		for c := 0; c < net.NumClauses(); c++ {
			p := net.Param(c)
			if p < 0 {
				continue
			}
			atoms = atoms[:0]
			for _, l := range net.Clause(c) {
				if !slices.Contains(atoms, l.Atom()) {
					atoms = append(atoms, l.Atom())
				}
			}
			if len(atoms) < 2 {
				continue
			}
			for _, a := range atoms {
				k := key{p, a}
				conn[k]++
				pred := int32(-1)
				if int(a) < len(net.AtomPred) {
					pred = int32(net.AtomPred[a])
				}
				pk := predKey{p, pred}
				byPred[pk] = max(byPred[pk], conn[k])
			}
		}
	}
	for p := range pb.connMax {
		pb.connMax[p], pb.connMin[p] = 1, math.Inf(1)
	}
	for pk, n := range byPred {
		pb.connMax[pk.p] = max(pb.connMax[pk.p], float64(n))
		pb.connMin[pk.p] = min(pb.connMin[pk.p], float64(n))
	}
	for p := range pb.connMin {
		if math.IsInf(pb.connMin[p], 1) {
			pb.connMin[p] = 1
		}
	}
	pb.setJointScale(0)
}

// setJointScale sets the divisor of σ of each parameter to
// cmax^(1−t)·cmin^t, cmax and cmin the largest and the smallest over the
// predicates of its atoms of the connections through one atom of that
// predicate (see scaleJointPrior): t = 0 bounds the pull on the most
// connected atom, t = 1 on the least (for a rule from one field atom to
// each of many citation atoms, one clause per citation atom: no
// narrowing).
func (pb *cllProblem) setJointScale(t float64) {
	pb.scale = make([]float64, pb.np)
	for p := range pb.scale {
		switch t {
		case 0:
			pb.scale[p] = pb.connMax[p]
		case 1:
			pb.scale[p] = pb.connMin[p]
		default:
			pb.scale[p] = math.Pow(pb.connMax[p], 1-t) * math.Pow(pb.connMin[p], t)
		}
	}
}

// noise returns the largest ratio |g_p| / SE_p of a gradient entry to its
// standard error, the entries below tol counting as zero (+Inf when an
// entry of zero standard error is not), and whether the gradient as a
// whole is within the noise of the samples (aggregateWithinNoise over the
// entries with a standard error).
func (pb *cllProblem) noise(g []float64, tol float64) (worst float64, within bool) {
	se2 := make([]float64, len(g))
	batches := 0 // the fewest batch means of an example
	for _, e := range pb.exs {
		if e.se2 == nil {
			continue
		}
		if batches == 0 || e.batches < batches {
			batches = e.batches
		}
		for k, p := range e.params {
			se2[p] += e.se2[k]
		}
	}
	var sum float64
	count := 0
	for p, x := range g {
		x = math.Abs(x)
		if se2[p] > 0 {
			sum += x * x / se2[p]
			count++
		}
		if x <= tol {
			continue
		}
		if se2[p] == 0 {
			return math.Inf(1), false
		}
		worst = max(worst, x/math.Sqrt(se2[p]))
	}
	if count > 0 {
		pb.meanSq = sum / float64(count)
	}
	return worst, aggregateWithinNoise(sum, count, batches-1)
}

// aggregateWithinNoise reports whether sum, the sum over count gradient
// entries of (entry / standard error)², is what sampling noise alone
// gives when each standard error comes from batch means with nu degrees
// of freedom: each term is then the square of a Student t variable, of
// mean ν/(ν−2) and variance 2ν²(ν−1)/((ν−2)²(ν−4)), and the mean of
// count of them rarely exceeds its expectation by three of its standard
// errors (the terms are taken as independent). Needs ν > 4 (a finite
// variance) and at least aggregateMinEntries entries, for the mean to be
// about normal (with fewer, one entry far out is within the bound).
func aggregateWithinNoise(sum float64, count, nu int) bool {
	if nu <= 4 || count < aggregateMinEntries {
		return false
	}
	v := float64(nu)
	mean := v / (v - 2)
	sd := math.Sqrt(2 * v * v * (v - 1) / ((v - 2) * (v - 2) * (v - 4)))
	return sum/float64(count) <= mean+3*sd/math.Sqrt(float64(count))
}

// setSteps sets the number of steps of every example's chain.
func (pb *cllProblem) setSteps(n int) {
	for _, e := range pb.exs {
		if sm, ok := e.sampler.(stepSampler); ok {
			sm.SetSteps(n)
		}
	}
}

// hessVec stores in out the Hessian of −CLL + prior times d (without
// prior, of −CLL alone: DiscriminativeSettings.DataHessian).
func (pb *cllProblem) hessVec(d, out []float64, prior bool) {
	pb.each(func(_ int, e *cllExample) error { e.hess(d); return nil })
	for p := range out {
		out[p] = 0
		if prior {
			out[p] = pb.precOf(p) * d[p]
		}
	}
	for _, e := range pb.exs {
		for k, p := range e.params {
			out[p] += e.out[k]
		}
	}
}

// saveRows keeps the current samples as the ones of the weights before the
// next step; restoreRows brings them back after a rejected step.
func (pb *cllProblem) saveRows() {
	for _, e := range pb.exs {
		e.prevRows, e.rows = e.rows, e.prevRows[:0]
		e.prevWts, e.wts = e.wts, e.prevWts[:0]
	}
}

func (pb *cllProblem) restoreRows() {
	for _, e := range pb.exs {
		e.prevRows, e.rows = e.rows[:0], e.prevRows
		e.prevWts, e.wts = e.wts[:0], e.prevWts
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// adaptiveGradTol is the size below which a gradient entry counts as zero
// in the noise test of the adaptive schedule.
const adaptiveGradTol = 1e-6

// aggregateMinEntries is the fewest gradient entries on which the
// adaptive schedule's aggregate noise test is made.
const aggregateMinEntries = 30

// varFloor keeps the diagonal Hessian positive for parameters whose count
// does not vary in the samples (only without a prior); the trust region
// then bounds their step.
const varFloor = 1e-8

// Discriminative learns the weights of model by maximising the conditional
// log-likelihood of the examples' true worlds given their evidence,
// Σ_e log P_w(Y_e = y_e | x_e), minus a Gaussian prior (Singla & Domingos
// 2005; Lowd & Domingos 2007; Alchemy's `learnwts -d`), and writes them
// into model.Weights. The gradient is
//
//	∂CLL/∂w_i = n_i(x,y) − E_w[n_i(x,Y)] − w_i/σ²,
//
// the expectation estimated each iteration from the worlds the examples'
// samplers draw (by default a persistent MC-SAT chain per example taking
// Samples steps; examples are sampled concurrently). Every atom of an
// example's network is a query atom whose value is Example.Truth (the
// Query mask is not used); hard clauses stay constraints of the sampler
// and carry no parameter. All examples are ground once and kept in memory.
//
// The optimiser is preconditioned scaled conjugate gradient (Lowd &
// Domingos 2007, Alchemy's default for -d): with g the gradient of
// f = −CLL + prior and M = diag(Var_w[n_i] + 1/σ²)⁻¹ the inverse diagonal
// Hessian from the samples' variances, the direction is Polak-Ribière
//
//	d = −M·g + β·d_prev,   β = gᵀM(g − g_prev) / g_prevᵀM·g_prev,
//
// (restarted at −M·g when it does not descend), the step is α·d with
// α = −dᵀg / (dᵀHd + λ·dᵀd), H = Cov_w[n] + I/σ² from the samples, and λ
// is a trust-region parameter adjusted from the ratio of the actual change,
// bounded by g_newᵀΔw, to the predicted change (g + HΔw/2)ᵀΔw: halved
// above 0.75; below 0 (the step overshot) quadrupled, the step undone and
// the next round samples again at the old weights, adding to their
// samples. Learning stops after MaxIter updates, or when the predicted
// improvement −gᵀΔw of a step is below MinLLChange. With Newton the
// direction is diagonal Newton's −M·g, with the same step length rule.
//
// With Adaptive, learning also stops, converged, when the gradient is
// within the noise of the samples at the largest sample size: each round
// estimates the standard error of every gradient entry by batch means over
// the chains' steps; when no entry exceeds Significance standard errors,
// or the entries' mean squared ratio to them is at the level of noise
// (a joint model's many weights keep a few entries beyond Significance
// long after the gradient as a whole has stopped falling),
// the steps per round are doubled (up to MaxSamples) to resolve the
// gradient further, and a step the trust region rejects doubles them too.
// Early rounds are cheap and the last ones precise; Stats.Converged says
// whether the stop was reached within MaxIter.
// Parameters in no example's network are only pulled by the prior.
//
// Learning starts, unless ZeroStart or KeepInitial say otherwise, from the
// independent start (see ZeroStart; Stats.Start), computed exactly from
// the ground networks before the first MC-SAT step.
//
// If ctx is cancelled, the weights reached so far are written into the
// model and ctx's error is returned with the Stats.
func Discriminative(ctx context.Context, model *mln.Model, examples ExampleSource, s DiscriminativeSettings) (*DiscriminativeStats, error) {
	start := time.Now()
	if model == nil || examples == nil {
		return nil, errors.New("learn: Discriminative needs a model and examples")
	}
	sigma, maxIter, lambda, maxLambda, minLL := s.PriorStdDev, s.MaxIter, s.Lambda, s.MaxLambda, s.MinLLChange
	if sigma < 0 || math.IsNaN(sigma) || math.IsInf(sigma, 0) || maxIter < 0 || s.Samples < 0 || s.MaxSamples < 0 || s.MinSamples < 0 ||
		s.Significance < 0 || math.IsNaN(s.Significance) ||
		lambda < 0 || math.IsNaN(lambda) || maxLambda < 0 || math.IsNaN(maxLambda) || math.IsNaN(minLL) || s.Workers < 0 {
		return nil, fmt.Errorf("learn: Discriminative: bad settings %+v", s)
	}
	if sigma == 0 {
		sigma = DefaultCLLPriorStdDev
	}
	if maxIter == 0 {
		maxIter = DefaultCLLMaxIter
	}
	if lambda == 0 {
		lambda = DefaultCLLLambda
	}
	if maxLambda == 0 {
		maxLambda = math.Inf(1)
	}
	if minLL == 0 {
		minLL = DefaultCLLMinLLChange
	}
	workers := s.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	st := &DiscriminativeStats{Method: "PSCG", Lambda: lambda}
	if s.Newton {
		st.Method = "DN"
	}
	factory := s.Sampler
	if factory == nil {
		st.Samples = s.Samples
		if st.Samples == 0 {
			st.Samples = cllSamples(model, cmp.Or(s.MinSamples, CLLMinSamples))
		}
		o := mcsat.Options{Stars: s.Stars, AutoStars: s.AutoStars}
		o.Seed = s.Seed
		factory = MCSATSamplers(st.Samples, o)
	}
	maxSamples, ceiling := s.MaxSamples, s.MaxSamples
	if maxSamples == 0 {
		maxSamples, ceiling = 8*st.Samples, 64*st.Samples
	}
	maxSamples = max(maxSamples, st.Samples)
	ceiling = max(ceiling, maxSamples)

	prec := 0.0
	if !s.NoPrior {
		prec = 1 / (sigma * sigma)
	}
	pb, err := newCLLProblem(ctx, model, examples, factory, workers, prec)
	if err != nil {
		return nil, err
	}
	np := pb.np
	st.Examples, st.Params = len(pb.exs), np
	pb.custom = s.Sampler != nil
	pb.stars, pb.autoStars = s.Stars, s.AutoStars
	if s.ScaleJointPrior && prec > 0 {
		pb.scaleJointPrior()
	}
	z := s.Significance
	if z == 0 {
		z = math.Sqrt(2*math.Log(2*float64(max(np, 1)))) + 1
	}
	growable := false // some example's sampler takes more steps when asked
	for _, e := range pb.exs {
		growable = growable || e.batched
	}
	run := &cllRun{s: s, maxIter: maxIter, lambda: lambda, maxLambda: maxLambda, minLL: minLL, z: z,
		samples: st.Samples, maxSamples: maxSamples, ceiling: ceiling, growable: growable, start: start}

	w := make([]float64, np)
	switch {
	case s.KeepInitial:
		copy(w, model.Weights)
	case !s.ZeroStart && np > 0:
		pb.tune = s.TunePrior && !s.NoPrior
		if st.Start, err = pb.independentStart(ctx, w); err != nil {
			return nil, err
		}
		if s.OnStart != nil {
			s.OnStart(st.Start)
		}
		if s.TuneJointPrior && pb.scale != nil {
			if st.JointPrior, err = pb.tuneJointPrior(ctx, run, w); err != nil {
				copy(model.Weights, w)
				return st, err
			}
			if s.OnJointPrior != nil && st.JointPrior != nil {
				s.OnJointPrior(st.JointPrior)
			}
		}
		pb.startWorlds(s.Seed)
	}
	if pb.scale != nil {
		st.ScaledPriors, st.MaxConnections = 0, 0
		for _, c := range pb.scale {
			if c > 1 {
				st.ScaledPriors++
			}
			st.MaxConnections = max(st.MaxConnections, c)
		}
	}
	if np == 0 || len(pb.exs) == 0 {
		st.Converged = true
		copy(model.Weights, w)
		st.Elapsed = time.Since(start)
		return st, nil
	}
	err = run.optimize(ctx, pb, w, st)
	copy(model.Weights, w)
	st.Elapsed = time.Since(start)
	return st, err
}

// cllRun holds the settings of one optimisation of the conditional
// log-likelihood (the main run, or one of the held-out runs of
// TuneJointPrior).
type cllRun struct {
	s                        DiscriminativeSettings
	maxIter                  int
	lambda, maxLambda, minLL float64
	z                        float64 // Significance
	samples, maxSamples      int     // MC-SAT steps of the first round, and the most
	ceiling                  int     // the most maxSamples may be raised to
	growable                 bool
	start                    time.Time
	quiet                    bool // no Progress reports (held-out runs)
	// stopStalled ends the run, unconverged, when the gradient stalls at
	// the largest sample (held-out runs: their score stands for the
	// prior as learned, and a prior that lets the chains stop mixing
	// would otherwise take every iteration).
	stopStalled bool
}

// stallRounds is the number of successive updates without a new smallest
// mean squared ratio of the gradient's entries to their standard errors
// after which the adaptive schedule takes
// more samples: the steps then follow the noise of the estimates rather
// than the gradient, as in stochastic approximation, where the sample
// grows once the iterates stop improving.
const stallRounds = 5

// optimize runs PSCG (or diagonal Newton) from w on pb, updating w and st.
func (r *cllRun) optimize(ctx context.Context, pb *cllProblem, w []float64, st *DiscriminativeStats) error {
	s := r.s
	np := pb.np
	lambda := r.lambda
	st.Samples = r.samples
	st.Lambda = lambda
	pb.setSteps(st.Samples)
	// grow doubles the steps per round of the adaptive schedule, and
	// reports false at MaxSamples.
	maxSamples := r.maxSamples
	grow := func() bool {
		if !r.growable || st.Samples >= maxSamples {
			return false
		}
		st.Samples = min(2*st.Samples, maxSamples)
		pb.setSteps(st.Samples)
		return true
	}
	defer func() { st.Lambda = lambda }()

	var (
		g, v, d, hd = make([]float64, np), make([]float64, np), make([]float64, np), make([]float64, np)
		mInv        = make([]float64, np)
		step        = make([]float64, np)
		wPrev       []float64     // weights before the last step
		gPrev       []float64     // gradient there
		dPrev       []float64     // direction of the last step
		deltaPred   []float64     // H·Δw at the last step
		accumulate  bool          // the round adds to the samples held
		retries     int           // consecutive rounds without a usable step
		bestNoise   = math.Inf(1) // smallest mean squared ratio of a gradient entry to its standard error
		stalled     int           // updates since bestNoise last fell
	)
	const maxRetries = 10
	unconverged := func() {
		st.Unconverged = pb.unconverged(g, r.z)
	}
	for st.Iterations < r.maxIter {
		if err := pb.sample(ctx, w, accumulate); err != nil {
			return err
		}
		st.Rounds++
		redo := accumulate
		accumulate = false
		pb.gradient(w, g, v)
		st.GradNorm = 0
		for _, x := range g {
			st.GradNorm = max(st.GradNorm, math.Abs(x))
		}
		report := func(impr float64, back bool) {
			if s.Progress != nil && !r.quiet {
				s.Progress(DiscriminativeProgress{Iter: st.Iterations, Round: st.Rounds, GradNorm: st.GradNorm,
					Lambda: lambda, Improvement: impr, Backtracked: back, Samples: st.Samples, Noise: st.Noise,
					Elapsed: time.Since(r.start)})
			}
		}

		// Trust region: compare the change the last step brought with the
		// change the quadratic model predicted.
		if deltaPred != nil && !redo {
			var pred, act float64
			for p := range w {
				dist := w[p] - wPrev[p]
				pred += (gPrev[p] + deltaPred[p]/2) * dist
				act += g[p] * dist
			}
			ratio := act / pred
			if pred == 0 {
				lambda /= 4
			} else if ratio > 0.75 {
				lambda /= 2
			}
			if ratio < 0 {
				if s.Adaptive {
					grow() // the samples misled the step: take more
				}
				lambda = min(4*lambda, r.maxLambda)
				copy(w, wPrev)
				pb.restoreRows()
				accumulate = true
				st.Backtracks++
				report(0, true)
				if err := ctx.Err(); err != nil {
					return err
				}
				continue
			}
		}
		if st.GradNorm == 0 {
			st.Converged = true
			st.Unconverged = nil
			report(0, false)
			return nil
		}
		within := false
		if s.Adaptive {
			// The gradient is within the noise of the samples: sample more
			// precisely, or stop at the largest sample.
			st.Noise, within = pb.noise(g, adaptiveGradTol)
			within = within || st.Noise <= r.z
			if within && !grow() {
				st.Converged = true
				st.Unconverged = nil
				report(0, false)
				return nil
			}
			// The gradient stopped falling (the mean squared ratio of its
			// entries to their standard errors): its noise dominates the
			// steps.
			if !redo && r.growable && pb.meanSq > 0 {
				if pb.meanSq < bestNoise {
					bestNoise, stalled = pb.meanSq, 0
				} else if stalled++; stalled >= stallRounds {
					if !r.stopStalled && st.Samples >= maxSamples && maxSamples < r.ceiling {
						maxSamples = min(2*maxSamples, r.ceiling) // stalled at the largest sample: raise it
					}
					if grow() {
						bestNoise, stalled = pb.meanSq, 0
					} else if r.stopStalled {
						unconverged()
						report(0, false)
						return nil
					}
				}
			}
		}

		// Direction.
		for p := range v {
			v[p] = max(v[p], varFloor)
			mInv[p] = 1 / v[p]
			if s.NoPrecondition && !s.Newton {
				mInv[p] = 1
			}
		}
		steepest := func() {
			for p := range d {
				d[p] = -mInv[p] * g[p]
			}
		}
		switch {
		case s.Newton:
			for p := range d {
				if math.Abs(g[p]) < 1e-8 {
					d[p] = 0
				} else {
					d[p] = -g[p] * mInv[p]
				}
			}
		case gPrev == nil:
			steepest()
		default:
			var num, den float64
			for p := range g {
				num += g[p] * mInv[p] * (g[p] - gPrev[p])
				den += gPrev[p] * mInv[p] * gPrev[p]
			}
			beta := 0.0
			if den > 0 {
				beta = num / den
			}
			for p := range d {
				d[p] = -mInv[p]*g[p] + beta*dPrev[p]
			}
		}
		if dot(d, d) == 0 {
			st.Converged = true // diagonal Newton: every gradient entry negligible
			st.Unconverged = nil
			report(0, false)
			return nil
		}
		alpha := func() float64 {
			pb.hessVec(d, hd, !s.DataHessian)
			return -dot(d, g) / (dot(d, hd) + lambda*dot(d, d))
		}
		a := alpha()
		if !s.Newton && !(a >= 0) {
			steepest()
			a = alpha()
		}
		if !(a > 0) || math.IsInf(a, 0) {
			// No usable step (the direction does not descend or the
			// gradient vanished in the direction): sample more at the
			// same weights.
			retries++
			if retries > maxRetries {
				unconverged()
				report(0, false)
				return nil
			}
			accumulate = true
			report(0, false)
			continue
		}
		retries = 0
		for p := range step {
			step[p] = a * d[p]
		}
		impr := -dot(g, step)
		report(impr, false)
		if impr < r.minLL {
			// A negligible step. With the adaptive schedule it only ends
			// learning, converged, when the gradient is within the noise;
			// otherwise the samples are too few to point the way, so take
			// more, and stop unconverged at the largest sample.
			if !s.Adaptive || !r.growable || within {
				st.Converged = true
				st.Unconverged = nil
				return nil
			}
			if !grow() {
				unconverged()
				return nil
			}
			continue
		}
		if s.Adaptive && !within && pb.stepNoise(step) > impr {
			// The predicted gain is within its own sampling error (the
			// gradient's standard errors along the step): take the step,
			// and more samples for the next rounds.
			grow()
		}
		if wPrev == nil {
			wPrev, gPrev, dPrev, deltaPred = make([]float64, np), make([]float64, np), make([]float64, np), make([]float64, np)
		}
		copy(wPrev, w)
		copy(gPrev, g)
		copy(dPrev, d)
		pb.hessVec(step, deltaPred, !s.DataHessian)
		for p := range w {
			w[p] += step[p]
		}
		pb.saveRows()
		st.Iterations++
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if s.Adaptive {
		unconverged()
	}
	return nil
}
