package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/marple-mln/marple/eval"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/mln"
)

func init() {
	register.DoFn3x1[context.Context, Example, func(Predicted), error](&inferFn{})
	register.Combiner3[Scores, Predicted, Scores](&scoreFn{})
	register.DoFn2x2[context.Context, Scores, Scores, error](&writeScoresFn{})
	register.Emitter1[Predicted]()
	register.Function2x0(keyByID)
	register.Function3x0(mergeGroup)
	register.Emitter2[string, Example]()
}

// keyByID keys an example part by its example's ID.
func keyByID(ex Example, emit func(string, Example)) { emit(ex.ID, ex) }

// mergeGroup merges the parts of one example (MergeParts).
func mergeGroup(_ string, iter func(*Example) bool, emit func(Example)) {
	var exs []Example
	var ex Example
	for iter(&ex) {
		exs = append(exs, ex)
	}
	for _, m := range MergeParts(exs) {
		emit(m)
	}
}

// InferConfig configures distributed inference and evaluation.
type InferConfig struct {
	// Data holds the model (with weights) and the test files; their query
	// atoms, when listed, are the truth the predictions are scored against
	// (unlisted: false).
	Data Data
	// Solver and Seed choose the MAP engine (Learner.Solver, Learner.Seed).
	Solver Learner
	// Marginals computes MC-SAT marginals (the chains of marple infer -ms,
	// Samples per chain of each component, default
	// engines.DefaultSettings') instead of MAP.
	Marginals bool
	Samples   int
}

// Predicted is one example's inference: its result lines and its counts.
type Predicted struct {
	Key    string
	Lines  []string
	Scores Scores
}

// PredScores are the counts of one query predicate.
type PredScores struct {
	Name           string
	TP, FP, FN, TN int
	// Probs and Gold list the marginal of every query atom and its truth
	// (marginal inference only).
	Probs []float64
	Gold  []bool
}

// Scores accumulate predictions: the counts per query predicate, and the
// result lines. Adding and merging is associative and commutative; the
// lines are sorted when written.
type Scores struct {
	Preds    []PredScores // sorted by name
	Lines    []string
	Examples int
	Marginal bool
}

// Merge adds y to x.
func (x Scores) Merge(y Scores) Scores {
	out := Scores{Examples: x.Examples + y.Examples, Marginal: x.Marginal || y.Marginal}
	out.Lines = append(append([]string(nil), x.Lines...), y.Lines...)
	i, j := 0, 0
	for i < len(x.Preds) || j < len(y.Preds) {
		switch {
		case j == len(y.Preds) || i < len(x.Preds) && x.Preds[i].Name < y.Preds[j].Name:
			out.Preds = append(out.Preds, x.Preds[i])
			i++
		case i == len(x.Preds) || y.Preds[j].Name < x.Preds[i].Name:
			out.Preds = append(out.Preds, y.Preds[j])
			j++
		default:
			a, b := x.Preds[i], y.Preds[j]
			out.Preds = append(out.Preds, PredScores{Name: a.Name, TP: a.TP + b.TP, FP: a.FP + b.FP, FN: a.FN + b.FN, TN: a.TN + b.TN,
				Probs: append(append([]float64(nil), a.Probs...), b.Probs...), Gold: append(append([]bool(nil), a.Gold...), b.Gold...)})
			i++
			j++
		}
	}
	return out
}

// Metrics are the scores of one predicate (or all pooled).
type Metrics struct {
	Name              string
	Precision, Recall float64
	F1                float64
	Hamming           int
	Atoms             int
	CLL, AUCPR        float64 `json:",omitempty"`
}

// Metrics returns the metrics per predicate and pooled ("micro"), with the
// conventions of package eval (a ratio with a zero denominator is 0; CLL
// and AUC-PR as eval.CLL and eval.AUCPR).
func (x Scores) Metrics() []Metrics {
	var out []Metrics
	var all PredScores
	all.Name = "micro"
	for _, p := range append(append([]PredScores(nil), x.Preds...), all) {
		if p.Name == "micro" {
			p = all
		} else {
			all.TP += p.TP
			all.FP += p.FP
			all.FN += p.FN
			all.TN += p.TN
			all.Probs = append(all.Probs, p.Probs...)
			all.Gold = append(all.Gold, p.Gold...)
		}
		m := Metrics{Name: p.Name, Hamming: p.FP + p.FN, Atoms: p.TP + p.FP + p.FN + p.TN}
		if p.TP+p.FP > 0 {
			m.Precision = float64(p.TP) / float64(p.TP+p.FP)
		}
		if p.TP+p.FN > 0 {
			m.Recall = float64(p.TP) / float64(p.TP+p.FN)
		}
		if m.Precision+m.Recall > 0 {
			m.F1 = 2 * m.Precision * m.Recall / (m.Precision + m.Recall)
		}
		if x.Marginal && len(p.Probs) > 0 {
			probs, gold := sortedPairs(p.Probs, p.Gold)
			m.CLL = eval.CLL(probs, gold)
			m.AUCPR = eval.AUCPR(probs, gold)
		}
		out = append(out, m)
	}
	return out
}

// sortedPairs orders (probability, truth) pairs so that the ranking
// metrics do not depend on the order in which examples were combined.
func sortedPairs(probs []float64, gold []bool) ([]float64, []bool) {
	idx := make([]int, len(probs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		pa, pb := probs[idx[a]], probs[idx[b]]
		if pa != pb {
			return pa > pb
		}
		return !gold[idx[a]] && gold[idx[b]]
	})
	p := make([]float64, len(idx))
	g := make([]bool, len(idx))
	for i, k := range idx {
		p[i], g[i] = probs[k], gold[k]
	}
	return p, g
}

// InferExample grounds ex, runs inference and scores it against the
// example's query atoms.
func InferExample(ctx context.Context, g *Grounder, cfg InferConfig, ex Example) (Predicted, error) {
	le, _, err := g.Ground(ctx, ex)
	if err != nil {
		return Predicted{}, err
	}
	net := le.Net
	m := g.Model
	var probs []float64
	if cfg.Marginals {
		s := engineSettings()
		s.Samples = cfg.Samples
		var sampler infer.Marginal
		if sampler, err = engines.NewMarginal(engines.DefaultMarginal, s); err == nil {
			probs, err = sampler.Marginals(ctx, net, infer.Options{Seed: cfg.Solver.Seed})
		}
	} else {
		var (
			engine infer.MAP
			res    *infer.Result
		)
		if engine, err = cfg.Solver.engine(); err == nil {
			res, err = engine.Solve(ctx, net, infer.Options{Seed: cfg.Solver.Seed})
		}
		if err == nil {
			probs = make([]float64, len(res.Assign))
			for a, v := range res.Assign {
				if v {
					probs[a] = 1
				}
			}
		}
	}
	if err != nil {
		return Predicted{}, fmt.Errorf("%s: %w", ex.Name, err)
	}
	out := Predicted{Key: ex.Key, Scores: Scores{Examples: 1, Marginal: cfg.Marginals}}
	byPred := map[string]*PredScores{}
	for a := range probs {
		if !le.Query[a] {
			continue
		}
		name := m.Preds[net.AtomPred[a]].Name
		text := atomText(m, net.AtomPred[a], net.AtomArgs[a], mln.True)
		switch {
		case cfg.Marginals:
			out.Lines = append(out.Lines, text+" "+strconv.FormatFloat(probs[a], 'g', -1, 64))
		case probs[a] >= 0.5:
			out.Lines = append(out.Lines, text)
		}
		ps := byPred[name]
		if ps == nil {
			ps = &PredScores{Name: name}
			byPred[name] = ps
		}
		pred, gold := probs[a] >= 0.5, le.Truth[a]
		switch {
		case pred && gold:
			ps.TP++
		case pred:
			ps.FP++
		case gold:
			ps.FN++
		default:
			ps.TN++
		}
		if cfg.Marginals {
			ps.Probs = append(ps.Probs, probs[a])
			ps.Gold = append(ps.Gold, gold)
		}
	}
	for _, ps := range byPred {
		out.Scores.Preds = append(out.Scores.Preds, *ps)
	}
	sort.Slice(out.Scores.Preds, func(i, j int) bool { return out.Scores.Preds[i].Name < out.Scores.Preds[j].Name })
	out.Scores.Lines = out.Lines
	return out, nil
}

// inferFn runs InferExample.
type inferFn struct {
	Config InferConfig
	g      *Grounder
}

func (f *inferFn) ProcessElement(ctx context.Context, ex Example, emit func(Predicted)) error {
	if f.g == nil {
		g, err := NewGrounder(f.Config.Data)
		if err != nil {
			return err
		}
		f.g = g
	}
	p, err := InferExample(ctx, f.g, f.Config, ex)
	if err != nil {
		return err
	}
	p.Lines = nil // they travel in p.Scores
	emit(p)
	return nil
}

// scoreFn combines the examples' predictions.
type scoreFn struct{}

func (scoreFn) CreateAccumulator() Scores             { return Scores{} }
func (scoreFn) AddInput(x Scores, p Predicted) Scores { return x.Merge(p.Scores) }
func (scoreFn) MergeAccumulators(x, y Scores) Scores  { return x.Merge(y) }
func (scoreFn) ExtractOutput(x Scores) Scores         { sort.Strings(x.Lines); return x }

// InferOutputs names the files Infer writes (empty: not written).
type InferOutputs struct {
	// Result receives the result in Alchemy's format: the true query atoms
	// (MAP) or every query atom with its probability (marginals), sorted.
	Result string
	// Metrics receives the metrics per predicate and pooled, as JSON.
	Metrics string
}

// writeScoresFn writes the result and metrics files.
type writeScoresFn struct {
	Out InferOutputs
}

func (f *writeScoresFn) ProcessElement(ctx context.Context, x Scores) (Scores, error) {
	if f.Out.Result != "" {
		err := WritePath(ctx, f.Out.Result, func(w io.Writer) error {
			_, err := io.WriteString(w, strings.Join(x.Lines, "\n")+"\n")
			return err
		})
		if err != nil {
			return x, err
		}
	}
	if f.Out.Metrics != "" {
		err := WritePath(ctx, f.Out.Metrics, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", " ")
			return enc.Encode(struct {
				Examples int
				Metrics  []Metrics
			}{x.Examples, x.Metrics()})
		})
		if err != nil {
			return x, err
		}
	}
	return x, nil
}

// Infer adds distributed inference and evaluation to the pipeline: every
// example of cfg.Data is ground and solved on its own (in parallel across
// workers), the predictions are combined and scored, and the result and
// metrics files of out are written. It returns the combined Scores (one
// element).
func Infer(s beam.Scope, cfg InferConfig, out InferOutputs) beam.PCollection {
	s = s.Scope("marple.Infer")
	idx := make([]int, len(cfg.Data.Files))
	for i := range idx {
		idx[i] = i
	}
	// The Reshuffle breaks fusion (see Train); the grouping by example
	// spreads the examples, so that inference fans out.
	parts := beam.ParDo(s, &readFn{Data: cfg.Data}, beam.Reshuffle(s, beam.CreateList(s, idx)))
	exs := beam.ParDo(s, mergeGroup, beam.GroupByKey(s, beam.ParDo(s, keyByID, parts)))
	preds := beam.ParDo(s, &inferFn{Config: cfg}, exs)
	scores := beam.Combine(s, scoreFn{}, preds)
	return beam.ParDo(s, &writeScoresFn{Out: out}, scores)
}
