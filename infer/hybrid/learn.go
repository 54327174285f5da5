package hybrid

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"

	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// LearnOptions configures Learn.
type LearnOptions struct {
	// Query lists the predicates to predict (Boolean or real-valued): the
	// conditional log-likelihood is of their atoms given the rest of each
	// database.
	Query      []mln.PredID
	Iterations int     // gradient steps (default 100)
	Burn       int     // MC-SAT iterations discarded per step (default 10)
	Samples    int     // MC-SAT iterations per step (default 50)
	Sigma      float64 // standard deviation of the Gaussian prior on the weights, centred on 0 (default 10)
	Seed       uint64
	// Log, if set, is called after each step with the step number and the
	// largest weight change.
	Log func(iter int, maxChange float64)
}

// Learn fits the weights of the model's features (Problem.Features order;
// hard formulas keep HardWeight) to the databases, maximising the
// conditional log-likelihood of the query atoms given the other atoms,
// with a Gaussian prior. The feature value of a grounding is its formula's
// indicator times its numeric term; the gradient for a weight is the
// feature's count in the data minus its expected count, estimated by
// hybrid MC-SAT chains that continue from step to step; each step is a
// damped diagonal Newton step, the curvature being the counts' sample
// variance plus the prior's, and no step moves a feature's term by more
// than two of its standard deviations. It returns the weights.
func Learn(ctx context.Context, m *mln.Model, dbs []*mln.Database, opt LearnOptions) ([]float64, error) {
	if opt.Iterations <= 0 {
		opt.Iterations = 100
	}
	if opt.Burn <= 0 {
		opt.Burn = 10
	}
	if opt.Samples <= 0 {
		opt.Samples = 50
	}
	if opt.Sigma <= 0 {
		opt.Sigma = 10
	}
	if len(dbs) == 0 {
		return nil, fmt.Errorf("hybrid: no training database")
	}
	type example struct {
		p     *Problem
		data  []float64
		state State
	}
	var exs []example
	for _, db := range dbs {
		p, err := Ground(m, db.Without(opt.Query...), Options{Query: opt.Query})
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
		exs = append(exs, example{p: p, data: p.Counts(s.Bools, s.Reals), state: s})
	}
	feats := exs[0].p.Features
	w := append([]float64(nil), exs[0].p.Weights...)
	for i, f := range feats {
		if !f.Hard {
			w[i] = 0
		}
	}
	k := len(w)
	for it := 0; it < opt.Iterations; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		grad := make([]float64, k)
		curv := make([]float64, k)
		for e := range exs {
			ex := &exs[e]
			copy(ex.p.Weights, w)
			sum := make([]float64, k)
			sum2 := make([]float64, k)
			n := 0
			res, err := ex.p.Sample(ctx, SampleOptions{
				Seed: opt.Seed + uint64(it*len(exs)+e), Burn: opt.Burn, Samples: opt.Samples, Start: &ex.state,
				Each: func(s *State) {
					for i, c := range ex.p.Counts(s.Bools, s.Reals) {
						sum[i] += c
						sum2[i] += c * c
					}
					copy(ex.state.Bools, s.Bools)
					copy(ex.state.Reals, s.Reals)
					n++
				},
			})
			if err != nil {
				return nil, err
			}
			for i := range k {
				grad[i] += ex.data[i] - res.Counts[i]
				mean := sum[i] / float64(n)
				curv[i] += max(0, sum2[i]/float64(n)-mean*mean)
			}
		}
		maxChange := 0.0
		for i := range k {
			if feats[i].Hard {
				continue
			}
			g := grad[i] - w[i]/(opt.Sigma*opt.Sigma)
			h := curv[i] + 1/(opt.Sigma*opt.Sigma)
			d := 0.5 * g / h
			if lim := 2 / math.Sqrt(h); math.Abs(d) > lim {
				d = math.Copysign(lim, d)
			}
			w[i] += d
			maxChange = max(maxChange, math.Abs(d))
		}
		if opt.Log != nil {
			opt.Log(it+1, maxChange)
		}
	}
	return w, nil
}

// WriteModel writes the model in Alchemy syntax with the given weights
// (one per feature of m.Features, in order): its declarations and Boolean
// formulas as mln.WriteModel writes them, then its hybrid formulas. It sets
// the weights of m's Boolean formulas.
func WriteModel(out io.Writer, m *mln.Model, weights []float64) error {
	fs, err := m.Features()
	if err != nil {
		return err
	}
	if len(fs) != len(weights) {
		return fmt.Errorf("hybrid: %d weights for %d features", len(weights), len(fs))
	}
	for i, f := range fs {
		if f.Decl != nil || f.Hard {
			continue
		}
		fm := m.Formulas[f.Formula]
		fm.Weight, fm.HasWeight = weights[i], true
		if p, ok := fm.Params[""]; ok {
			m.Weights[p] = weights[i]
		}
	}
	if err := mln.WriteModel(out, m); err != nil {
		return err
	}
	bw := bufio.NewWriter(out)
	for i, f := range fs {
		if f.Decl == nil {
			continue
		}
		d := *f.Decl
		d.Weight, d.HasWeight = weights[i], true
		if err := syntax.Fprint(bw, &d); err != nil {
			return err
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
