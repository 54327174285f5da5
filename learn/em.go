package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/mln"
)

// Defaults of EM.
const (
	// DefaultEMIter is the number of EM rounds (E-step, then M-step).
	DefaultEMIter = 4
	// DefaultEMCompletions is the number of completions of the hidden
	// atoms drawn per example and round.
	DefaultEMCompletions = 10
	// emClamp is the bias that clamps an observed atom in the E-step.
	emClamp = 1e3
)

// EMSettings configure EM.
type EMSettings struct {
	// Iterations is the number of EM rounds (0 means DefaultEMIter).
	Iterations int
	// Completions is the number of completions of the hidden atoms drawn
	// from their marginals per example and round (0 means
	// DefaultEMCompletions).
	Completions int
	// Marginal is the E-step's engine (nil: MC-SAT from the engine
	// registry with engines.DefaultSettings().SplitSamples(): its chains
	// share one chain's budget of samples).
	Marginal infer.Marginal
	// Learn is the M-step's settings. Its PriorStdDev is σ for the
	// examples as given (EM scales it for the completions), KeepInitial
	// applies to the first round only (later rounds start from the last
	// round's weights).
	Learn DiscriminativeSettings
	// Seed seeds the E-step's engine and the draws of the completions.
	Seed int64
	// Progress, when set, is called after every round.
	Progress func(EMProgress)
}

// EMProgress reports a round of EM.
type EMProgress struct {
	Round int
	// Change is the Euclidean distance between the round's weights and
	// the previous round's.
	Change  float64
	Elapsed time.Duration
}

// EMStats summarise a run of EM.
type EMStats struct {
	Rounds, Hidden int
	Change         float64
	Elapsed        time.Duration
}

// set0 returns the settings of EM's initial M-step.
func set0(s DiscriminativeSettings) DiscriminativeSettings {
	s.Workers = 1
	return s
}

// EM learns the weights of model from examples whose truth is partly
// unknown (Alchemy's learnwts -withEM): hidden[i] marks the atoms of
// examples[i] whose truth value is missing (nil: none; their Truth entries
// are ignored). Each round's E-step computes the marginals of the hidden
// atoms given the observed ones under the current weights (s.Marginal,
// with every observed atom clamped by a bias of ±1000), and draws
// s.Completions completions of each example, the hidden atoms set
// independently from their marginals; the M-step is Discriminative on all
// the completions (each weighing 1/Completions: the prior's σ is divided by
// √Completions), maximising the expected conditional log-likelihood
// Σ_e E_q[log P_w(y_e, H_e | x_e)] with the expectation over q estimated
// by the completions. The first E-step uses the model's weights if
// s.Learn.KeepInitial, else the weights Discriminative learns with every
// hidden atom set to its Truth entry; every M-step starts from the last
// weights.
//
// The examples' networks must not be shared with other goroutines; the
// M-step runs its samplers one at a time (the completions of an example
// share its network).
func EM(ctx context.Context, model *mln.Model, examples []*Example, hidden [][]bool, s EMSettings) (*EMStats, error) {
	start := time.Now()
	if model == nil || len(hidden) != len(examples) {
		return nil, errors.New("learn: EM needs a model and one hidden mask per example")
	}
	rounds, k := s.Iterations, s.Completions
	if rounds < 0 || k < 0 {
		return nil, fmt.Errorf("learn: EM: bad settings %+v", s)
	}
	if rounds == 0 {
		rounds = DefaultEMIter
	}
	if k == 0 {
		k = DefaultEMCompletions
	}
	marg := s.Marginal
	if marg == nil {
		var err error
		// The default chains share the default budget of samples.
		if marg, err = engines.NewMarginal("mcsat", engines.DefaultSettings().SplitSamples()); err != nil {
			return nil, err
		}
	}
	st := &EMStats{}
	for i, ex := range examples {
		if err := ex.validate(); err != nil {
			return nil, err
		}
		if hidden[i] != nil && len(hidden[i]) != ex.Net.NumAtoms() {
			return nil, fmt.Errorf("learn: EM: example %d: hidden mask has %d atoms, network %d", i, len(hidden[i]), ex.Net.NumAtoms())
		}
		for _, h := range hidden[i] {
			if h {
				st.Hidden++
			}
		}
	}
	w := make([]float64, len(model.Weights))
	if s.Learn.KeepInitial {
		copy(w, model.Weights)
	} else {
		// Start from the weights learned with every hidden atom at its
		// Truth entry (false when read from a database): with sparse
		// predicates, zero weights would make every hidden atom ½.
		if _, err := Discriminative(ctx, model, Examples(examples), set0(s.Learn)); err != nil {
			return st, err
		}
		w = append(w[:0], model.Weights...)
	}
	rng := rand.New(rand.NewPCG(uint64(s.Seed), 0x9e3779b97f4a7c15))
	sigma := s.Learn.PriorStdDev
	if sigma == 0 {
		sigma = DefaultCLLPriorStdDev
	}
	for st.Rounds < rounds {
		// E-step.
		var comp Examples
		for i, ex := range examples {
			h := hidden[i]
			if !slices.Contains(h, true) {
				for j := 0; j < k; j++ {
					comp = append(comp, ex)
				}
				continue
			}
			ex.Net.SetParamWeights(w)
			bias := make([]float64, len(h))
			for a, hid := range h {
				switch {
				case hid:
				case ex.Truth[a]:
					bias[a] = emClamp
				default:
					bias[a] = -emClamp
				}
			}
			p, err := marg.Marginals(ctx, ex.Net, infer.Options{Bias: bias, Seed: s.Seed + int64(st.Rounds*len(examples)+i)})
			if err != nil {
				return st, fmt.Errorf("learn: EM: example %d: %w", i, err)
			}
			for j := 0; j < k; j++ {
				y := slices.Clone(ex.Truth)
				for a, hid := range h {
					if hid {
						y[a] = rng.Float64() < p[a]
					}
				}
				comp = append(comp, &Example{Net: ex.Net, Truth: y, Query: ex.Query, Name: ex.Name})
			}
		}
		// M-step. Every example appears k times: weigh them 1/k by
		// scaling the prior up k-fold.
		set := s.Learn
		set.Workers = 1
		set.KeepInitial = true
		set.PriorStdDev = sigma / math.Sqrt(float64(k))
		copy(model.Weights, w)
		if _, err := Discriminative(ctx, model, comp, set); err != nil {
			return st, err
		}
		st.Change = 0
		for p, x := range model.Weights[:len(w)] {
			st.Change += (x - w[p]) * (x - w[p])
		}
		st.Change = math.Sqrt(st.Change)
		w = append(w[:0], model.Weights...)
		st.Rounds++
		if s.Progress != nil {
			s.Progress(EMProgress{Round: st.Rounds, Change: st.Change, Elapsed: time.Since(start)})
		}
	}
	st.Elapsed = time.Since(start)
	return st, nil
}
