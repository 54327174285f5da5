package learn

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/mln"
)

// SigmaGrid is the grid σ is chosen from when it is tuned (CDA,
// Subgradient): Huynh & Mooney (SDM 2011, §4.2) choose σ "based on the
// performance on the validation set" for CiteSeer, and 1, 0.1, 0.01, 0.001
// span the values that matter there.
var SigmaGrid = []float64{1, 0.1, 0.01, 0.001}

// CGrid is the grid the max-margin learner's C is chosen from: the slides
// of Huynh & Mooney (ECML-PKDD 2009) train with C in {1, 10, 100, 1000,
// 10000} and test with the value that does best on the training data.
var CGrid = []float64{1, 10, 100, 1000, 10000}

// Tuning configures Tune: the grid of a regularisation parameter and how
// each value is scored.
type Tuning struct {
	// Grid holds the candidate values, in order of preference: on equal
	// scores the earlier one wins. Required.
	Grid []float64
	// Holdout, when in (0, 1), holds out that fraction of the examples
	// (drawn from Seed): each value is learned on the others and scored on
	// them, and the chosen value is then learned on all the examples. 0
	// scores each value on the training examples it was learned from, as
	// the papers do, and keeps the weights learned with the best one.
	Holdout float64
	// Seed draws the held-out examples.
	Seed int64
	// Solver predicts the scored examples (MAP without loss
	// augmentation, with Seed); nil means the default engine
	// (engines.DefaultMAP with engines.DefaultSettings).
	Solver infer.MAP
	// Progress, when set, is called after each value is scored.
	Progress func(value, f1 float64)
}

// TuneResult is what Tune chose.
type TuneResult struct {
	// Value is the chosen grid value.
	Value float64
	// F1 holds the score (F1 in percent over the query atoms of the scored
	// examples) of each grid value, in grid order.
	F1 []float64
	// Scored is the number of examples each value was scored on.
	Scored int
}

// Tune chooses a regularisation value from t.Grid: for each value it calls
// train to learn the model's weights from a set of examples (all of them,
// or all but the held-out ones), predicts the scored examples with
// t.Solver and the learned weights, and keeps the value with the best F1
// over their query atoms. On return model.Weights holds the weights
// learned from all the examples with the chosen value.
//
// train must learn from scratch (the learners of this package start from
// 0 unless Settings.KeepInitial).
func Tune(ctx context.Context, model *mln.Model, examples ExampleSource, t Tuning,
	train func(ctx context.Context, examples ExampleSource, value float64) error) (*TuneResult, error) {
	if len(t.Grid) == 0 {
		return nil, errors.New("learn: Tune needs a grid")
	}
	if t.Holdout < 0 || t.Holdout >= 1 {
		return nil, fmt.Errorf("learn: held-out fraction %g is not in [0, 1)", t.Holdout)
	}
	n := examples.Len()
	fit, scored := ExampleSource(examples), ExampleSource(examples)
	if t.Holdout > 0 {
		k := int(t.Holdout*float64(n) + 0.5)
		if k < 1 || k >= n {
			return nil, fmt.Errorf("learn: cannot hold out %g of %d examples", t.Holdout, n)
		}
		perm := rand.New(rand.NewPCG(uint64(t.Seed), 0x74756e65)).Perm(n)
		held := perm[:k]
		rest := perm[k:]
		slices.Sort(held)
		slices.Sort(rest)
		fit, scored = Subset{examples, rest}, Subset{examples, held}
	}
	res := &TuneResult{Scored: scored.Len()}
	var best []float64
	bestF1 := -1.0
	for _, v := range t.Grid {
		if err := train(ctx, fit, v); err != nil {
			return nil, err
		}
		f1, err := ScoreF1(ctx, model, scored, t.Solver, t.Seed)
		if err != nil {
			return nil, err
		}
		res.F1 = append(res.F1, f1)
		if t.Progress != nil {
			t.Progress(v, f1)
		}
		if f1 > bestF1 {
			bestF1, res.Value = f1, v
			best = append(best[:0], model.Weights...)
		}
	}
	if t.Holdout > 0 {
		return res, train(ctx, examples, res.Value)
	}
	// The parameters allocated after the best run was learned never met
	// an example of it: 0, as a learner starting from 0 leaves them.
	copy(model.Weights, best)
	for i := len(best); i < len(model.Weights); i++ {
		model.Weights[i] = 0
	}
	return res, nil
}

// TuneOnline is Tune for an online update rule whose regularisation is
// the argument of newMethod (σ for CDA and Subgradient).
func TuneOnline(ctx context.Context, model *mln.Model, examples ExampleSource, newMethod func(value float64) Method, settings Settings, t Tuning) (*TuneResult, error) {
	return Tune(ctx, model, examples, t, func(ctx context.Context, ex ExampleSource, v float64) error {
		_, err := Online(ctx, model, ex, newMethod(v), settings)
		return err
	})
}

// TuneMaxMargin is Tune for the batch max-margin learner's C (mm.C is
// replaced by each grid value).
func TuneMaxMargin(ctx context.Context, model *mln.Model, examples ExampleSource, mm MaxMargin, settings Settings, t Tuning) (*TuneResult, error) {
	return Tune(ctx, model, examples, t, func(ctx context.Context, ex ExampleSource, v float64) error {
		mm.C = v
		_, err := Batch(ctx, model, ex, mm, settings)
		return err
	})
}

// ScoreF1 predicts every example with solver (nil: the default engine)
// and the model's weights, each solve seeded with seed, and returns the F1
// (in percent) of the predictions over the examples' query atoms (all
// atoms for an example without a Query mask).
func ScoreF1(ctx context.Context, model *mln.Model, examples ExampleSource, solver infer.MAP, seed int64) (float64, error) {
	solver = engine(solver)
	var tp, fp, fn int
	for i := 0; i < examples.Len(); i++ {
		ex, err := examples.Example(ctx, i)
		if err != nil {
			return 0, err
		}
		net := ex.Net
		net.SetParamWeights(model.Weights)
		y, err := solveMAP(ctx, solver, net, nil, seed)
		if err != nil {
			return 0, fmt.Errorf("learn: example %d (%s): %w", i, ex.Name, err)
		}
		for a, truth := range ex.Truth {
			if ex.Query != nil && !ex.Query[a] {
				continue
			}
			switch {
			case y[a] && truth:
				tp++
			case y[a]:
				fp++
			case truth:
				fn++
			}
		}
	}
	if tp == 0 {
		return 0, nil
	}
	return 100 * 2 * float64(tp) / float64(2*tp+fp+fn), nil
}

// Subset is the examples of Source at the indices Index, in that order.
type Subset struct {
	Source ExampleSource
	Index  []int
}

// Len returns len(s.Index).
func (s Subset) Len() int { return len(s.Index) }

// Example returns example s.Index[i] of the source.
func (s Subset) Example(ctx context.Context, i int) (*Example, error) {
	return s.Source.Example(ctx, s.Index[i])
}

// DefaultTuneHoldout is the held-out fraction the command line's -sigma
// auto and -C auto use by default: 0, scoring on the training examples as
// the papers do (on CiteSeer, leave one topic out, it chooses better than
// a held-out fifth; see the README).
const DefaultTuneHoldout = 0.0

// Describe says what was chosen and how, for a user: the parameter's name,
// the chosen value and the score of every grid value.
func (r *TuneResult) Describe(name string, t Tuning) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s auto: chose %s = %g by F1 on ", name, name, r.Value)
	if t.Holdout > 0 {
		fmt.Fprintf(&b, "%d held-out examples (%g of them; then learned on all)", r.Scored, t.Holdout)
	} else {
		fmt.Fprintf(&b, "the %d training examples", r.Scored)
	}
	b.WriteString(" (")
	for i, v := range t.Grid {
		if i > 0 {
			b.WriteString(", ")
		}
		if i < len(r.F1) {
			fmt.Fprintf(&b, "%g: %.2f", v, r.F1[i])
		}
	}
	b.WriteString(")")
	return b.String()
}
