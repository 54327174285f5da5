package experiment

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

// CurveLearner is one of the three online learners of Huynh & Mooney's
// (SDM 2011) Figures 1 and 2.
type CurveLearner struct {
	Name string
	New  func() learn.Method
}

// CurveLearners are CDA (maximal loss), 1-best MIRA and the subgradient
// method, all with Hamming loss; σ is the value the citeseer experiment
// chooses on training F1 on every topic (CDA-ML-HM 0.001, Subgradient-HM
// 0.01).
var CurveLearners = []CurveLearner{
	{"CDA-ML-HM", func() learn.Method { return &learn.CDA{Sigma: 0.001, Inference: learn.MaxLoss} }},
	{"1-best-MIRA-HM", func() learn.Method { return &learn.MIRA{Inference: learn.Prediction} }},
	{"Subgradient-HM", func() learn.Method { return &learn.Subgradient{Sigma: 0.01, Inference: learn.MaxLoss} }},
}

// CurvesConfig configures RunCurves.
type CurvesConfig struct {
	// Dir is the CiteSeer folder.
	Dir string
	// Sizes are the numbers of training examples of the learning curve
	// (default 10, 25, 50, 100, 200, 400, 700, 1000: every fold has at
	// least 1,049 training citations).
	Sizes []int
	// Noise are the label-noise levels p (default 0, 0.1, ..., 0.5).
	Noise []float64
	// Orders is the number of example orders (shuffles) each point is
	// averaged over, per fold (default 3).
	Orders int
	// Seed seeds the orders and the noise.
	Seed int64
	// FoldWorkers is the number of folds run at once (0: GOMAXPROCS).
	FoldWorkers int
	// Progress receives a line per fold (optional).
	Progress io.Writer
	// Journal, when set, records each completed fold and gives back the
	// folds a killed run completed.
	Journal *Journal
}

// CurvesResult holds both figures: test F1 (percent, averaged over folds
// and orders) per learner and x value.
type CurvesResult struct {
	Sizes   []int
	Noise   []float64
	Orders  int
	Curve   map[string][]float64 // learner -> F1 per size
	Noisy   map[string][]float64 // learner -> F1 per noise level
	Seconds float64
}

// RunCurves reproduces Figures 1 and 2 of Huynh & Mooney (SDM 2011) on
// CiteSeer (their figures are on CoNLL 2005, which is not available): for
// each test topic and example order, each learner makes one pass over the
// first n training citations (learning curve) or over all of them with a
// fraction p of the token labels replaced (label noise: with probability p
// a token's gold field is replaced by one of the other two fields, drawn
// uniformly, the analogue of the paper's argument-role swaps), and is
// tested with exact MPE on the test topic.
func RunCurves(ctx context.Context, cfg CurvesConfig) (*CurvesResult, error) {
	start := time.Now()
	if err := checkCiteSeer(cfg.Dir); err != nil {
		return nil, err
	}
	if len(cfg.Sizes) == 0 {
		cfg.Sizes = []int{10, 25, 50, 100, 200, 400, 700, 1000}
	}
	if len(cfg.Noise) == 0 {
		cfg.Noise = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5}
	}
	if cfg.Orders <= 0 {
		cfg.Orders = 3
	}
	res := &CurvesResult{Sizes: cfg.Sizes, Noise: cfg.Noise, Orders: cfg.Orders,
		Curve: map[string][]float64{}, Noisy: map[string][]float64{}}
	for _, l := range CurveLearners {
		res.Curve[l.Name] = make([]float64, len(cfg.Sizes))
		res.Noisy[l.Name] = make([]float64, len(cfg.Noise))
	}
	// The folds are independent: run them FoldWorkers at a time, each
	// into its own sums, added in topic order.
	parts := make([]*CurvesResult, len(Topics))
	errs := eachFold(len(Topics), cfg.FoldWorkers, func(k int) (err error) {
		parts[k], err = unit(cfg.Journal, "curves/"+Topics[k], func() (*CurvesResult, error) {
			return runCurvesFold(ctx, cfg, Topics[k])
		})
		return err
	})
	runs := float64(len(Topics) * cfg.Orders)
	for k, part := range parts {
		if errs[k] != nil {
			return nil, fmt.Errorf("curves: test %s: %w", Topics[k], errs[k])
		}
		for _, l := range CurveLearners {
			for i, v := range part.Curve[l.Name] {
				res.Curve[l.Name][i] += v / runs
			}
			for i, v := range part.Noisy[l.Name] {
				res.Noisy[l.Name][i] += v / runs
			}
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// runCurvesFold returns the sums over the orders of the test F1 on one
// topic.
func runCurvesFold(ctx context.Context, cfg CurvesConfig, topic string) (*CurvesResult, error) {
	t0 := time.Now()
	f, err := loadFold(ctx, CiteSeerConfig{Dir: cfg.Dir}, topic)
	if err != nil {
		return nil, err
	}
	res, err := f.curves(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Progress != nil {
		fmt.Fprintf(cfg.Progress, "curves: test %s done (%.1fs)\n", topic, time.Since(t0).Seconds())
	}
	return res, nil
}

// curves returns the sums over the orders of the test F1 on fold f.
func (f *fold) curves(ctx context.Context, cfg CurvesConfig) (*CurvesResult, error) {
	res := &CurvesResult{Curve: map[string][]float64{}, Noisy: map[string][]float64{}}
	for _, l := range CurveLearners {
		res.Curve[l.Name] = make([]float64, len(cfg.Sizes))
		res.Noisy[l.Name] = make([]float64, len(cfg.Noise))
	}
	// Each training citation's clean truth and its tokens.
	clean := make([][]bool, len(f.src))
	tokens := make([][][]int32, len(f.src))
	for i, ex := range f.src {
		clean[i] = ex.Truth
		tokens[i] = citeseerTokens(ex.Net, f.trainMask[i])
	}
	for o := 0; o < cfg.Orders; o++ {
		seed := cfg.Seed + int64(o)
		order := rand.New(rand.NewPCG(uint64(seed), 0x6f72646572)).Perm(f.src.Len())
		for _, l := range CurveLearners {
			for i, n := range cfg.Sizes {
				n = min(n, len(order))
				f1, err := f.learnTest(ctx, l.New(), learn.Subset{Source: f.src, Index: order[:n]}, seed)
				if err != nil {
					return nil, err
				}
				res.Curve[l.Name][i] += f1
			}
			for i, p := range cfg.Noise {
				// One stream of draws over the citations in example
				// order, the clean truth restored after the run.
				r := rand.New(rand.NewPCG(uint64(seed), 0x6e6f697365))
				for k, ex := range f.src {
					ex.Truth = noisyLabels(clean[k], tokens[k], p, r)
				}
				f1, err := f.learnTest(ctx, l.New(), learn.Subset{Source: f.src, Index: order}, seed)
				for k, ex := range f.src {
					ex.Truth = clean[k]
				}
				if err != nil {
					return nil, err
				}
				res.Noisy[l.Name][i] += f1
			}
		}
	}
	return res, nil
}

// learnTest learns from scratch with one pass of m over examples (exact MPE
// inside training) and returns the test F1.
func (f *fold) learnTest(ctx context.Context, m learn.Method, examples learn.ExampleSource, seed int64) (float64, error) {
	for i := range f.train.Weights {
		f.train.Weights[i] = 0
	}
	if _, err := learn.Online(ctx, f.train, examples, m, learn.Settings{Solver: exactMAP(1), Loss: learn.Hamming, Seed: seed}); err != nil {
		return 0, err
	}
	copyWeights(f.test, f.train, f.train.Weights)
	f.testNet.SetWeights()
	y, err := predict(ctx, exactMAP(0), f.testNet, seed)
	if err != nil {
		return 0, err
	}
	f1, _, _ := maskedF1(y, f.testTruth, f.testMask)
	return f1, nil
}

// citeseerTokens groups the masked InField(bib,field,position) atoms of a
// CiteSeer network by token (citation and position): each group holds a
// token's atoms, one per field.
func citeseerTokens(net *ground.Network, mask []bool) [][]int32 {
	type key struct{ b, p mln.ConstID }
	idx := map[key]int{}
	var groups [][]int32
	for a, m := range mask {
		if !m {
			continue
		}
		k := key{net.AtomArgs[a][0], net.AtomArgs[a][2]}
		g, ok := idx[k]
		if !ok {
			g = len(groups)
			idx[k] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], int32(a))
	}
	return groups
}

// noisyLabels returns a copy of truth in which, with probability p, each
// token with one gold field gets one of its other fields instead, drawn
// uniformly with r (tokens without a gold field keep none).
func noisyLabels(truth []bool, tokens [][]int32, p float64, r *rand.Rand) []bool {
	out := slices.Clone(truth)
	if p == 0 {
		return out
	}
	for _, tok := range tokens {
		if r.Float64() >= p {
			continue
		}
		gold := -1
		for i, a := range tok {
			if truth[a] {
				if gold >= 0 {
					gold = -2
					break
				}
				gold = i
			}
		}
		if gold < 0 || len(tok) < 2 {
			continue
		}
		other := r.IntN(len(tok) - 1)
		if other >= gold {
			other++
		}
		out[tok[gold]], out[tok[other]] = false, true
	}
	return out
}

// WriteMarkdown writes both figures' numbers as tables.
func (r *CurvesResult) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### Learning curve: CiteSeer test F1 against training citations seen (one pass; average of 4 folds × %d orders)\n\n| learner |", r.Orders)
	for _, n := range r.Sizes {
		fmt.Fprintf(&b, " %d |", n)
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(r.Sizes)) + "\n")
	for _, l := range CurveLearners {
		fmt.Fprintf(&b, "| %s |", l.Name)
		for _, v := range r.Curve[l.Name] {
			fmt.Fprintf(&b, " %.2f |", v)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n### Label noise: CiteSeer test F1 against the fraction p of training tokens whose field is replaced (one pass over all training citations; average of 4 folds × %d orders)\n\n| learner |", r.Orders)
	for _, p := range r.Noise {
		fmt.Fprintf(&b, " %g%% |", 100*p)
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(r.Noise)) + "\n")
	for _, l := range CurveLearners {
		fmt.Fprintf(&b, "| %s |", l.Name)
		for _, v := range r.Noisy[l.Name] {
			fmt.Fprintf(&b, " %.2f |", v)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nWhole run: %.0f s.\n", r.Seconds)
	_, err := io.WriteString(w, b.String())
	return err
}

// Charts returns the two figures.
func (r *CurvesResult) Charts() (curve, noise *LineChart) {
	curve = &LineChart{Title: "CiteSeer: test F1 against training citations seen (one pass)", XLabel: "training citations", YLabel: "F1 (%)"}
	for _, n := range r.Sizes {
		curve.X = append(curve.X, fmt.Sprint(n))
	}
	noise = &LineChart{Title: "CiteSeer: test F1 against label noise (one pass)", XLabel: "fraction of training tokens relabelled", YLabel: "F1 (%)"}
	for _, p := range r.Noise {
		noise.X = append(noise.X, fmt.Sprintf("%g%%", 100*p))
	}
	for _, l := range CurveLearners {
		curve.Series = append(curve.Series, Series{Name: l.Name, Y: r.Curve[l.Name]})
		noise.Series = append(noise.Series, Series{Name: l.Name, Y: r.Noisy[l.Name]})
	}
	return curve, noise
}
