package structure

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"

	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/score"
)

// countScorer is the Scorer of LearnBatch: the counts-based WPLL
// (score.PLLData, score.Scorer), with the counts of every clause cached by
// its CanonicalKey. A set of clauses is scored as a base (all but the last,
// kept for the next calls) plus its last clause as the candidate. With atom
// sampling, loose scores (candidates) use the sampled atoms and tight
// scores all of them, as Alchemy's learnstruct does.
type countScorer struct {
	exact, sampled *score.PLLData
	sc             Scoring

	mu    sync.Mutex
	bases map[string]*score.Scorer // by the keys of their clauses, per data
	order []string
	keys  sync.Map // *mln.Clause -> its CanonicalKey (clauses are not modified)
}

// key returns c's CanonicalKey, computed once per clause.
func (cs *countScorer) key(c *mln.Clause) string {
	if k, ok := cs.keys.Load(c); ok {
		return k.(string)
	}
	k := CanonicalKey(c)
	cs.keys.Store(c, k)
	return k
}

// maxBases bounds the bases kept (each holds the merged rows of every
// atom). The searches screen, refit and re-score against the current
// model's clauses (Replace), on the sampled and the exact data: two
// bases per model. (UW-CSE from the KB: peak RSS 1.05 GB with 4, 1.30 GB
// with 12, same model and speed.)
const maxBases = 4

func newCountScorer(m *mln.Model, dbs []*mln.Database, nonEv []mln.PredID, sc Scoring, maxGroundings int64, scoredAt func(*mln.Clause) []mln.PredID) (*countScorer, error) {
	// The exact and the sampled data share their counts (a sample keeps
	// rows of the exact counts), and with the scorers of the other
	// searches over the same databases when sc has a shared cache.
	shared := sc.counts
	if shared == nil {
		shared = score.NewCountCache()
	}
	cs := &countScorer{sc: sc, bases: map[string]*score.Scorer{}}
	// The data key clauses as the scorer does, each clause's key computed
	// once.
	opt := score.CountOptions{Key: cs.key, MaxGroundings: maxGroundings, Seed: uint64(sc.Seed), OwnDomains: !sc.SharedDomains, ListedOnly: sc.ListedOnly, ScoredAt: scoredAt, Shared: shared}
	opt.Unweighted = sc.NoWtPredsEqually
	exact, err := score.NewPLLData(m, dbs, nonEv, opt)
	if err != nil {
		return nil, err
	}
	cs.exact, cs.sampled = exact, exact
	if !sc.NoSampleAtoms && sc.FractAtoms < 1 {
		opt.FractAtoms, opt.MinAtomSamples, opt.MaxAtomSamples = sc.FractAtoms, sc.MinAtomSamples, sc.MaxAtomSamples
		if cs.sampled, err = score.NewPLLData(m, dbs, nonEv, opt); err != nil {
			return nil, err
		}
	}
	return cs, nil
}

func (cs *countScorer) base(d *score.PLLData, clauses []*mln.Clause) (*score.Scorer, error) {
	var b strings.Builder
	if d == cs.sampled && d != cs.exact {
		b.WriteString("s|")
	}
	for _, c := range clauses {
		b.WriteString(cs.key(c))
		b.WriteByte('|')
	}
	key := b.String()
	cs.mu.Lock()
	if s, ok := cs.bases[key]; ok {
		cs.mu.Unlock()
		return s, nil
	}
	cs.mu.Unlock()
	s, err := d.NewScorer(clauses)
	if err != nil {
		return nil, err
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if old, ok := cs.bases[key]; ok {
		return old, nil
	}
	cs.bases[key] = s
	cs.order = append(cs.order, key)
	if len(cs.order) > maxBases {
		delete(cs.bases, cs.order[0])
		cs.order = cs.order[1:]
	}
	return s, nil
}

// Replace implements Screener with score.Scorer.ScoreReplace on the base
// of all the clauses.
func (cs *countScorer) Replace(ctx context.Context, clauses []*mln.Clause, w []float64, remove int, cand *mln.Clause, tight bool) (float64, []float64, error) {
	d, opt := cs.fitOptions(w, tight)
	b, err := cs.base(d, clauses)
	if err != nil {
		return 0, nil, err
	}
	var rm []int
	if remove >= 0 {
		rm = []int{remove}
	}
	var cands []*mln.Clause
	if cand != nil {
		cands = []*mln.Clause{cand}
	}
	f, err := b.ScoreReplace(ctx, rm, cands, opt)
	if errors.Is(err, score.ErrTooManyGroundings) {
		return math.Inf(-1), make([]float64, len(clauses)+len(cands)), nil
	}
	if err != nil {
		return 0, nil, err
	}
	return f.Objective, f.Weights, nil
}

// fitOptions returns the data and fit options of a tight or loose fit
// starting from init.
func (cs *countScorer) fitOptions(init []float64, tight bool) (*score.PLLData, score.FitOptions) {
	d := cs.exact
	opt := score.TightFit(init)
	opt.MaxIter, opt.ConvThresh = cs.sc.TightMaxIter, cs.sc.TightConvThresh
	if !tight {
		d = cs.sampled
		opt = score.LooseFit(init)
		opt.MaxIter, opt.ConvThresh = cs.sc.LooseMaxIter, cs.sc.LooseConvThresh
	}
	opt.PriorStdDev, opt.NoPrior = cs.sc.PriorStdDev, cs.sc.NoPrior
	return d, opt
}

// Score implements Scorer. A candidate whose counting would examine more
// than the bound on groundings scores -Inf (it is skipped).
func (cs *countScorer) Score(ctx context.Context, clauses []*mln.Clause, init []float64, tight bool) (float64, []float64, error) {
	d, opt := cs.fitOptions(init, tight)
	n := len(clauses)
	if n == 0 {
		b, err := cs.base(d, nil)
		if err != nil {
			return 0, nil, err
		}
		f, err := b.Fit(ctx, opt)
		if err != nil {
			return 0, nil, err
		}
		return f.Objective, f.Weights, nil
	}
	b, err := cs.base(d, clauses[:n-1])
	if err != nil {
		return 0, nil, err
	}
	f, err := b.Score(ctx, clauses[n-1:], opt)
	if errors.Is(err, score.ErrTooManyGroundings) {
		return math.Inf(-1), make([]float64, n), nil
	}
	if err != nil {
		return 0, nil, err
	}
	return f.Objective, f.Weights, nil
}

// Screen implements Screener with score.Screen on the data loose scores
// use.
func (cs *countScorer) Screen(ctx context.Context, clauses []*mln.Clause, w []float64) (ScreenFunc, float64, error) {
	f, _, obj, err := cs.screenBound(ctx, clauses, w)
	return f, obj, err
}

// boundFunc returns an upper bound on the gain the ScreenFunc of the same
// model returns for candidate cand with the model clause at remove (-1:
// none) dropped, without counting the candidate.
type boundFunc func(remove int, cand *mln.Clause) (float64, error)

// boundScreener is a Screener whose screen also bounds the gains before
// counting (countScorer: score.Screen.Bound).
type boundScreener interface {
	screenBound(ctx context.Context, clauses []*mln.Clause, w []float64) (ScreenFunc, boundFunc, float64, error)
}

// screenBound returns Screen's function and objective, and the bound on
// its gains.
func (cs *countScorer) screenBound(ctx context.Context, clauses []*mln.Clause, w []float64) (ScreenFunc, boundFunc, float64, error) {
	b, err := cs.base(cs.sampled, clauses)
	if err != nil {
		return nil, nil, 0, err
	}
	sc, err := b.Screen(w, score.FitOptions{PriorStdDev: cs.sc.PriorStdDev, NoPrior: cs.sc.NoPrior})
	if err != nil {
		return nil, nil, 0, err
	}
	bound := func(remove int, cand *mln.Clause) (float64, error) {
		var rm []int
		if remove >= 0 {
			rm = []int{remove}
		}
		return sc.Bound(rm, cand)
	}
	f := func(ctx context.Context, remove int, cand *mln.Clause) (float64, float64, error) {
		var rm []int
		if remove >= 0 {
			rm = []int{remove}
		}
		g, wt, err := sc.Gain(ctx, rm, cand)
		if errors.Is(err, score.ErrTooManyGroundings) {
			return math.Inf(-1), 0, nil
		}
		return g, wt, err
	}
	return f, bound, sc.Objective(), nil
}
