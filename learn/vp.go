package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/mln"
)

// Defaults of the voted perceptron (Alchemy's learnwts -d -dVP).
const (
	// DefaultVPLearningRate is η (Alchemy's -dLearningRate default).
	DefaultVPLearningRate = 0.001
	// DefaultVPMaxIter is the number of iterations (Alchemy's -dNumIter).
	DefaultVPMaxIter = 100
)

// VPSettings configure VotedPerceptron.
type VPSettings struct {
	// LearningRate is η (0 means DefaultVPLearningRate).
	LearningRate float64
	// Momentum adds Momentum times the last update to each update
	// (Alchemy's -dMomentum; 0: none).
	Momentum float64
	// NoPerWeight uses η for every weight (Alchemy's -dNoPW); by default
	// weight i's rate is η divided by its count in the training worlds,
	// max(1, Σ_e |n_i(x_e, y_e)|), as Alchemy does.
	NoPerWeight bool
	// MaxIter is the number of iterations (0 means DefaultVPMaxIter).
	MaxIter int
	// Average writes the average of the weights after each iteration
	// also with expected counts (with MAPCounts it is always written);
	// by default, with expected counts, the last weights are.
	Average bool
	// PriorStdDev is σ of the Gaussian prior on the weights, whose
	// gradient −w/σ² is added to every update (0 means
	// DefaultCLLPriorStdDev); NoPrior drops it.
	PriorStdDev float64
	NoPrior     bool
	// MAPCounts takes the counts of the MAP state (found by Solver) for
	// the expected counts, the perceptron of Collins (2002) and of
	// Alchemy's learnwts -dVP -infer -m. By default the expected counts
	// are MC-SAT's, as in Alchemy's learnwts -dVP.
	MAPCounts bool
	// Samples is the number of MC-SAT steps per example and iteration of
	// the expected counts (0 means CLLSamples(model)); each example's
	// chain persists across iterations, as in Discriminative.
	Samples int
	// Sampler, when set, replaces the MC-SAT chains of the expected
	// counts (for example by exact enumeration on tiny networks).
	Sampler SamplerFactory
	// Solver computes the MAP states of MAPCounts (nil: engines.Default()).
	Solver infer.MAP
	// Seed seeds the MC-SAT chains, or the solver with MAPCounts (example
	// i gets Seed+i).
	Seed int64
	// Workers is the number of examples solved concurrently (0 means
	// GOMAXPROCS); examples must then not share a network.
	Workers int
	// KeepInitial starts from the model's weights.
	KeepInitial bool
	// ZeroStart starts from w = 0 (Alchemy's learnwts -dVP). Without it or
	// KeepInitial, learning starts from Discriminative's independent start
	// (see DiscriminativeSettings.ZeroStart): the exact optimum of the
	// conditional log-likelihood with every formula that links query
	// atoms held at 0, the MC-SAT chains from worlds drawn from it.
	ZeroStart bool
	// Progress, when set, is called after every iteration.
	Progress func(VPProgress)
}

// VPProgress reports an iteration of VotedPerceptron.
type VPProgress struct {
	Iter int
	// Diff is the largest |Σ_e n_i(truth) − E[n_i]| over the weights (the
	// MAP state's counts with MAPCounts).
	Diff    float64
	Elapsed time.Duration
}

// VPStats summarise a run of VotedPerceptron.
type VPStats struct {
	Iterations       int
	Examples, Params int
	// Samples is the number of MC-SAT steps per example and iteration (0
	// with MAPCounts or a custom Sampler).
	Samples int
	// Diff is the largest count difference of the last iteration.
	Diff    float64
	Elapsed time.Duration
	// Start describes the independent start (nil with ZeroStart or
	// KeepInitial).
	Start *IndependentStart
}

// mapSampler draws a single world, the MAP state of its network under the
// current weights.
type mapSampler struct {
	solver infer.MAP
	net    *ground.Network
	seed   int64
}

func (s *mapSampler) Sample(ctx context.Context, fn func(y []bool, p float64)) error {
	y, err := solveMAP(ctx, s.solver, s.net, nil, s.seed)
	if err != nil {
		return err
	}
	fn(y, 1)
	return nil
}

// MAPSamplers returns a SamplerFactory whose samplers draw one world, the
// MAP state computed by solver (nil: engines.Default()), example i's solver
// seeded with seed+i. With it, Discriminative's "expected" counts are the
// counts of the MAP state.
func MAPSamplers(solver infer.MAP, seed int64) SamplerFactory {
	solver = engine(solver)
	return func(i int, net *ground.Network) (WorldSampler, error) {
		return &mapSampler{solver: solver, net: net, seed: seed + int64(i)}, nil
	}
}

// VotedPerceptron learns the weights of model with the voted perceptron of
// Collins (2002) as adapted to Markov logic by Singla & Domingos (2005;
// Alchemy's `learnwts -d -dVP`): each iteration estimates, for every
// example, the expected counts E_w[n_i(x_e, Y)] of its query atoms given
// the evidence under the current weights w, and updates
//
//	Δw_i = η_i·(Σ_e n_i(x_e, y_e) − E_w[n_i(x_e, Y)] − w_i/σ²) + Momentum·Δw_i(prev)
//
// where η_i is η, divided by weight i's count in the training worlds
// unless NoPerWeight. Without momentum this is a step of gradient ascent
// on the conditional log-likelihood with the prior. The expected counts
// are the means over s.Samples steps of a persistent MC-SAT chain per
// example (Alchemy's default); with MAPCounts they are the counts of the
// MAP state found by s.Solver (Collins' perceptron). With MAPCounts (or
// Average) the weights written into model.Weights are the average of the
// weights after each iteration (the "voted" part), which damps the
// oscillation of MAP states; with expected counts they are the weights
// after the last iteration, as Alchemy's learnwts writes them (it averages
// only with MaxWalkSAT's MAP states): the steps are then those of
// gradient ascent, and an average would lag behind them. As in Discriminative, every atom of an example's
// network is a query atom, the hard clauses constrain the samples and the
// MAP states, learning starts from w = 0 (from the model's weights with
// KeepInitial), and the examples are ground once.
//
// If ctx is cancelled, the weights so far (or their average) are written
// and ctx's error returned with the stats.
func VotedPerceptron(ctx context.Context, model *mln.Model, examples ExampleSource, s VPSettings) (*VPStats, error) {
	start := time.Now()
	if model == nil || examples == nil {
		return nil, errors.New("learn: VotedPerceptron needs a model and examples")
	}
	eta, sigma, maxIter := s.LearningRate, s.PriorStdDev, s.MaxIter
	bad := func(x float64) bool { return x < 0 || math.IsNaN(x) || math.IsInf(x, 0) }
	if bad(eta) || bad(sigma) || bad(s.Momentum) || maxIter < 0 || s.Workers < 0 || s.Samples < 0 {
		return nil, fmt.Errorf("learn: VotedPerceptron: bad settings %+v", s)
	}
	if eta == 0 {
		eta = DefaultVPLearningRate
	}
	if sigma == 0 {
		sigma = DefaultCLLPriorStdDev
	}
	if maxIter == 0 {
		maxIter = DefaultVPMaxIter
	}
	workers := s.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	prec := 0.0
	if !s.NoPrior {
		prec = 1 / (sigma * sigma)
	}
	st := &VPStats{}
	factory := s.Sampler
	switch {
	case factory != nil:
	case s.MAPCounts:
		factory = MAPSamplers(s.Solver, s.Seed)
	default:
		st.Samples = s.Samples
		if st.Samples == 0 {
			st.Samples = CLLSamples(model)
		}
		o := mcsat.Options{}
		o.Seed = s.Seed
		factory = MCSATSamplers(st.Samples, o)
	}
	pb, err := newCLLProblem(ctx, model, examples, factory, workers, prec)
	if err != nil {
		return nil, err
	}
	np := pb.np
	st.Examples, st.Params = len(pb.exs), np
	w, sum := make([]float64, np), make([]float64, np)
	switch {
	case s.KeepInitial:
		copy(w, model.Weights)
	case !s.ZeroStart && np > 0:
		if st.Start, err = pb.independentStart(ctx, w); err != nil {
			return nil, err
		}
		pb.startWorlds(s.Seed)
	}
	rate := make([]float64, np)
	for p := range rate {
		rate[p] = eta
	}
	if !s.NoPerWeight {
		cnt := make([]float64, np)
		for _, e := range pb.exs {
			for k, p := range e.params {
				cnt[p] += math.Abs(e.truth[k])
			}
		}
		for p := range rate {
			rate[p] = eta / max(1, cnt[p])
		}
	}
	average := s.MAPCounts || s.Average
	finish := func() {
		if average && st.Iterations > 0 {
			for p := range w {
				model.Weights[p] = sum[p] / float64(st.Iterations)
			}
		} else {
			copy(model.Weights, w)
		}
		st.Elapsed = time.Since(start)
	}
	g, prev := make([]float64, np), make([]float64, np)
	for st.Iterations < maxIter {
		if err := pb.sample(ctx, w, false); err != nil {
			finish()
			return st, err
		}
		// g is the gradient of −CLL + prior, E[n] − n(truth) + w/σ², with
		// the sampled (or MAP) counts for the expectation.
		pb.gradient(w, g, nil)
		st.Diff = 0
		for p := range w {
			d := -rate[p]*g[p] + s.Momentum*prev[p]
			st.Diff = max(st.Diff, math.Abs(g[p]-prec*w[p]))
			w[p] += d
			prev[p] = d
			sum[p] += w[p]
		}
		st.Iterations++
		if s.Progress != nil {
			s.Progress(VPProgress{Iter: st.Iterations, Diff: st.Diff, Elapsed: time.Since(start)})
		}
		if err := ctx.Err(); err != nil {
			finish()
			return st, err
		}
	}
	finish()
	return st, nil
}
