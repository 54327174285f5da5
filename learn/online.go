package learn

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/mln"
)

// Settings configure the Online driver.
type Settings struct {
	// Solver computes the (loss-augmented) MAP assignments, each with
	// infer.Options{Bias: the loss terms or nil, Seed: Seed}; nil means
	// the default engine (engines.DefaultMAP with engines.DefaultSettings).
	// Learning assumes it is deterministic: build it with package
	// infer/engines, or take any infer.MAP.
	Solver infer.MAP
	// Loss is the label loss ρ (default Hamming). F1 needs a method with
	// the Prediction label.
	Loss LabelLoss
	// Passes over the examples (0 means 1, as in both papers).
	Passes int
	// Shuffle visits the examples of each pass in a random order drawn
	// from Seed; otherwise in the source's order.
	Shuffle bool
	// Seed seeds the shuffling and is the seed of every solve.
	Seed int64
	// NoAverage writes the last weights w_{T+1} into the model instead of
	// the average (1/T)·Σ_t w_{t+1} the papers predict with.
	NoAverage bool
	// KeepInitial starts from the model's weights (and a parameter the
	// grounder allocates later from its formula's written weight) instead
	// of 0 as the papers do.
	KeepInitial bool
	// StartStep continues a run (with KeepInitial): the learner starts as
	// if StartStep updates had already been made, ending at the model's
	// weights, for the methods that are Continuers; the others start from
	// those weights. The average covers this run's updates only.
	StartStep int
	// Continue, when set, continues the learner whose state a previous
	// run returned in Stats.State, bit for bit: its vectors index the
	// model's parameters in order (parameters the model has beyond them
	// start from the initial weights). It takes precedence over StartStep;
	// the average covers every update since the state's run began. Not
	// with Resume.
	Continue *LearnerState
	// Order, when set, visits the examples of each pass in this order (a
	// permutation of a subset of 0..Len()-1) instead of the source's order
	// or a shuffle.
	Order []int
	// Progress, when set, is called after every example.
	Progress func(Progress)
	// Revise, when set, is called for every example after the label ŷ is
	// computed and before the update (example i of the source, the label
	// the update uses). It may add parameters to the model (a structure
	// learner adding clauses) and returns their count differences
	// n(x,y) − n(x,ŷ), which join the update; new parameters start at 0.
	Revise func(ctx context.Context, i int, ex *Example, yhat []bool) (Sparse, error)
	// ReviseState, with Revise, returns the reviser's state for each
	// Checkpoint: a run that revises the model can be checkpointed and
	// resumed only with it. Revise must add its clauses to the model as
	// the Revision documents; on Resume, Online adds them back and the
	// reviser continues from Resume.Revision.Counts.
	ReviseState func() Revision
	// Checkpoint, when set, receives the run's state every CheckpointEvery
	// examples (0 means 100), e.g. to save it atomically: a run killed at
	// any point continues from the last one (Resume).
	Checkpoint      func(*Checkpoint) error
	CheckpointEvery int
	// Resume continues the run c was taken from: the model must be the
	// one the run started from (same files), the examples and Passes,
	// Shuffle and Seed the same. The parameters are allocated in the
	// checkpoint's order, the learner's state restored, and learning goes
	// on from the checkpoint's position to the uninterrupted run's final
	// weights. With Revise, the checkpoint's Revision clauses are added
	// back to the model (the reviser restores its own state from
	// Resume.Revision first).
	Resume *Checkpoint
}

// Progress reports how learning is going.
type Progress struct {
	Pass     int           // current pass, from 0
	Done     int           // examples processed, over all passes
	Total    int           // examples to process, over all passes
	Elapsed  time.Duration // since Online started
	Rate     float64       // examples per second
	ETA      time.Duration // estimated time to finish
	Loss     float64       // mean label loss ρ(y,ŷ) in this pass so far
	Mistakes int           // examples of this pass whose ŷ differs from the truth on the query atoms
}

// Stats summarise a run of Online.
type Stats struct {
	Method string
	// Steps is the number of updates done (examples processed).
	Steps int
	// PassLoss and PassMistakes hold, per pass (the last one possibly
	// partial), the mean label loss ρ(y,ŷ) and the number of examples
	// whose ŷ differed from the truth. ŷ is the label the update used:
	// the prediction for PL methods, the loss-augmented label for ML.
	PassLoss     []float64
	PassMistakes []int
	// Hinge is the sum of the hinge losses l_t the updates computed.
	Hinge float64
	// Last holds the weights after the last update (w_{T+1}); the model
	// receives the average unless Settings.NoAverage.
	Last    []float64
	Elapsed time.Duration
	// State is the learner's state at the end (for the rules that can be
	// checkpointed): Settings.Continue takes it to go on exactly.
	State *LearnerState

	// The fields below are set by Batch (max-margin) only; PassLoss and
	// PassMistakes then hold one entry per cutting-plane round.

	// Iterations is the number of cutting-plane rounds.
	Iterations int
	// Violation holds, per round, how much the round's cutting plane was
	// violated by that round's weights: b − ⟨w,a⟩ − ξ.
	Violation []float64
	// Constraints is the size of the final working set, Slack its ξ and
	// Objective ½‖w‖² + C·ξ over it.
	Constraints int
	Slack       float64
	Objective   float64
	// Converged is set when the last round's violation was at most ε.
	Converged bool
	// CachedRounds counts the planes Batch took from its constraint cache
	// (MaxMargin.Cache) without calling the MAP solver; Iterations counts
	// only the rounds of loss-augmented MAP.
	CachedRounds int
}

// Online learns the weights of model from examples with the update rule
// method, one example at a time, and writes the learned weights into
// model.Weights (averaged unless settings.NoAverage). The examples' ground
// networks must refer to model's parameters (Network.Param indexes
// model.Weights, which may grow while examples are ground); clauses
// without a parameter (hard ones) are not learned.
//
// If ctx is cancelled, Online stops between examples (or when the solver
// returns), writes the weights learned so far into the model and returns
// the Stats with ctx's error.
func Online(ctx context.Context, model *mln.Model, examples ExampleSource, method Method, settings Settings) (*Stats, error) {
	start := time.Now()
	if model == nil || examples == nil || method == nil {
		return nil, errors.New("learn: Online needs a model, examples and a method")
	}
	solver := engine(settings.Solver)
	label := method.Label()
	if label == MaxLoss && settings.Loss != Hamming {
		return nil, fmt.Errorf("learn: %s needs a decomposable loss; %v only works with the prediction-based label", method.Name(), settings.Loss)
	}
	passes := settings.Passes
	if passes < 0 {
		return nil, fmt.Errorf("learn: negative number of passes %d", passes)
	}
	if passes == 0 {
		passes = 1
	}
	initial := func() []float64 {
		init := make([]float64, len(model.Weights))
		if settings.KeepInitial {
			copy(init, model.Weights)
		}
		return init
	}
	n := examples.Len()
	res := settings.Resume
	if res != nil {
		switch {
		case settings.Revise != nil && (res.Revision == nil || settings.ReviseState == nil):
			return nil, errors.New("learn: Settings.Resume continues a run that revises the model only from a checkpoint with its Revision and with Settings.ReviseState")
		case settings.Revise == nil && res.Revision != nil:
			return nil, errors.New("learn: the checkpoint is of a run that revised the model")
		}
		if err := res.check(method.Name(), n, passes, settings); err != nil {
			return nil, err
		}
		if err := res.allocate(model); err != nil {
			return nil, err
		}
	}
	var learner Learner
	var err error
	if c, ok := method.(Continuer); ok && settings.StartStep > 0 {
		learner, err = c.NewLearnerAt(initial(), settings.StartStep)
	} else {
		learner, err = method.NewLearner(initial())
	}
	if err != nil {
		return nil, err
	}
	st := &Stats{Method: method.Name()}
	every := settings.CheckpointEvery
	if every <= 0 {
		every = 100
	}
	sf, canSave := learner.(stateful)
	if (res != nil || settings.Checkpoint != nil || settings.Continue != nil) && !canSave {
		return nil, fmt.Errorf("learn: %s cannot be checkpointed or continued", method.Name())
	}
	if settings.Checkpoint != nil && settings.Revise != nil && settings.ReviseState == nil {
		return nil, errors.New("learn: a run that revises the model is checkpointed only with Settings.ReviseState")
	}
	if c := settings.Continue; c != nil {
		if res != nil {
			return nil, errors.New("learn: Settings.Continue and Settings.Resume together")
		}
		if err := sf.restore(c.clone()); err != nil {
			return nil, err
		}
		if learner.Len() > len(model.Weights) {
			return nil, fmt.Errorf("learn: the continued learner has %d parameters, the model %d", learner.Len(), len(model.Weights))
		}
	}
	start0 := 0 // examples already processed (resumed)
	if res != nil {
		if err := sf.restore(res.State); err != nil {
			return nil, err
		}
		if learner.Len() != len(model.Weights) {
			return nil, fmt.Errorf("learn: the checkpoint's learner has %d parameters, its model %d", learner.Len(), len(model.Weights))
		}
		start0 = res.Steps
		st.Steps, st.Hinge = res.Steps, res.Hinge
		st.PassLoss, st.PassMistakes = slices.Clone(res.PassLoss), slices.Clone(res.PassMistakes)
	}
	finish := func() {
		if learner.Len() < len(model.Weights) {
			learner.Grow(initial())
		}
		if sf != nil {
			// Before Final, which may bring lazy updates up to date.
			state := sf.state()
			st.State = &state
		}
		st.Last = make([]float64, learner.Len())
		learner.Final(st.Last, false)
		if settings.NoAverage {
			copy(model.Weights, st.Last)
		} else {
			learner.Final(model.Weights, true)
		}
		st.Elapsed = time.Since(start)
	}

	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if settings.Order != nil {
		for _, i := range settings.Order {
			if i < 0 || i >= n {
				return nil, fmt.Errorf("learn: Settings.Order names example %d of %d", i, n)
			}
		}
		order = append(order[:0], settings.Order...)
		n = len(order)
	}
	total := passes * n
	rng := rand.New(rand.NewPCG(uint64(settings.Seed), 0x6c6561726e))
	var (
		d    differ
		bias []float64
	)
	var ws []float64 // the learner's weights, for the networks
	for pass := 0; pass < passes; pass++ {
		if settings.Shuffle {
			rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		if (pass+1)*n <= start0 {
			continue // done before the checkpoint
		}
		skip := max(start0-pass*n, 0)
		if len(st.PassLoss) <= pass {
			st.PassLoss = append(st.PassLoss, 0)
			st.PassMistakes = append(st.PassMistakes, 0)
		}
		lossSum := st.PassLoss[pass] * float64(skip)
		for k, i := range order {
			if k < skip {
				continue
			}
			if err := ctx.Err(); err != nil {
				finish()
				return st, err
			}
			ex, err := examples.Example(ctx, i)
			if err == nil {
				err = ex.validate()
			}
			if err != nil {
				finish()
				if ctx.Err() != nil {
					return st, ctx.Err()
				}
				return st, fmt.Errorf("learn: example %d: %w", i, err)
			}
			if learner.Len() < len(model.Weights) {
				learner.Grow(initial())
			}
			net := ex.Net
			if p := net.MaxParam(); int(p) >= learner.Len() {
				finish()
				return st, fmt.Errorf("learn: example %d (%s): a clause has parameter %d, model has %d", i, ex.Name, p, learner.Len())
			}
			ws = ws[:0]
			for p := 0; p < learner.Len(); p++ {
				ws = append(ws, learner.Weight(p))
			}
			net.SetParamWeights(ws)
			var b []float64
			if label == MaxLoss {
				bias = HammingBias(bias, ex.Truth, ex.Query)
				b = bias
			}
			yhat, err := solveMAP(ctx, solver, net, b, settings.Seed)
			if err != nil {
				finish()
				if ctx.Err() != nil {
					return st, ctx.Err()
				}
				return st, fmt.Errorf("learn: example %d (%s): %w", i, ex.Name, err)
			}
			rho := settings.Loss.Loss(ex.Truth, yhat, ex.Query)
			diff := d.diff(net, ex.Truth, yhat, learner.Len())
			if settings.Revise != nil {
				extra, err := settings.Revise(ctx, i, ex, yhat)
				if err != nil {
					finish()
					return st, fmt.Errorf("learn: example %d (%s): %w", i, ex.Name, err)
				}
				if learner.Len() < len(model.Weights) {
					learner.Grow(initial())
				}
				diff.Idx = append(diff.Idx, extra.Idx...)
				diff.Val = append(diff.Val, extra.Val...)
			}
			st.Hinge += learner.Step(diff, rho)
			st.Steps++
			lossSum += rho
			st.PassLoss[pass] = lossSum / float64(k+1)
			if HammingLoss(ex.Truth, yhat, ex.Query) > 0 {
				st.PassMistakes[pass]++
			}
			if settings.Checkpoint != nil && st.Steps%every == 0 && st.Steps < total {
				c := &Checkpoint{Method: method.Name(), Examples: n, Passes: passes, Shuffle: settings.Shuffle, Seed: settings.Seed,
					Steps: st.Steps, Hinge: st.Hinge, PassLoss: slices.Clone(st.PassLoss), PassMistakes: slices.Clone(st.PassMistakes),
					Params: checkpointParams(model), State: sf.state()}
				if settings.Revise != nil {
					r := settings.ReviseState()
					c.Revision = r.clone()
				}
				if err := settings.Checkpoint(c); err != nil {
					finish()
					return st, fmt.Errorf("learn: checkpoint: %w", err)
				}
			}
			if settings.Progress != nil {
				el := time.Since(start)
				pr := Progress{Pass: pass, Done: st.Steps, Total: total, Elapsed: el,
					Loss: st.PassLoss[pass], Mistakes: st.PassMistakes[pass]}
				if s := el.Seconds(); s > 0 {
					pr.Rate = float64(st.Steps-start0) / s
					pr.ETA = time.Duration(float64(total-st.Steps) / pr.Rate * float64(time.Second))
				}
				settings.Progress(pr)
			}
		}
	}
	finish()
	return st, nil
}
