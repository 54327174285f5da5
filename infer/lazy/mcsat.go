package lazy

import (
	"context"
	"math"
	"math/rand"

	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/mln"
)

// MCSATOptions are the settings of lazy MC-SAT.
type MCSATOptions struct {
	// Samples is the number of samples (default mcsat.DefaultSamples);
	// BurnIn the steps discarded first (default mcsat.DefaultBurnIn,
	// negative: none).
	Samples, BurnIn int
	// SASteps is the number of simulated-annealing moves of SampleSAT per
	// sample (default DefaultSASteps); each picks an unknown atom
	// uniformly among all of them (built or not), as Alchemy's lazy
	// SampleSAT does, and expands it.
	SASteps int
	// WalkProb is the probability of a WalkSAT move while a selected
	// clause is violated (default mcsat.DefaultWalkProb); Temp the
	// annealing temperature (default mcsat.MaxTemp).
	WalkProb, Temp float64
	// MaxSteps bounds the SampleSAT moves of one sample (default
	// 100*SASteps) and InitSteps the WalkSAT search for a state
	// satisfying the hard clauses (default mcsat.DefaultInitSteps).
	MaxSteps, InitSteps int
	// Seed seeds the chain.
	Seed int64
}

// DefaultSASteps is the default number of annealing moves per sample.
const DefaultSASteps = 100

// Marginals runs lazy MC-SAT on pr: the result's Marginals give each of
// its network's atoms the fraction of samples in which it is true (atoms
// never built were false in every sample).
func Marginals(ctx context.Context, pr Problem, opt MCSATOptions) (*Result, error) {
	if opt.Samples <= 0 {
		opt.Samples = mcsat.DefaultSamples
	}
	switch {
	case opt.BurnIn == 0:
		opt.BurnIn = mcsat.DefaultBurnIn
	case opt.BurnIn < 0:
		opt.BurnIn = 0
	}
	if opt.SASteps <= 0 {
		opt.SASteps = DefaultSASteps
	}
	if opt.WalkProb == 0 {
		opt.WalkProb = mcsat.DefaultWalkProb
	}
	if opt.Temp <= 0 {
		opt.Temp = mcsat.MaxTemp
	}
	if opt.MaxSteps <= 0 {
		opt.MaxSteps = 100 * opt.SASteps
	}
	if opt.InitSteps <= 0 {
		opt.InitSteps = mcsat.DefaultInitSteps
	}
	g, err := newGrounder(ctx, pr)
	if err != nil {
		return nil, err
	}
	s := newState(g)
	if err := g.init(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewSource(opt.Seed))
	u := newUniverse(g)
	// A state satisfying the hard clauses: select them alone.
	s.sel = make([]bool, g.numClauses())
	s.selectNew = func(c int32) bool { return math.IsInf(g.weight[c], 1) }
	s.resetSelection(func(c int32) bool { return math.IsInf(g.weight[c], 1) })
	w := &walk{s: s, rng: rng, opt: MWSOptions{Noise: mcsat.DefaultNoise, Tabu: -1}}
	for i := 0; i < opt.InitSteps && len(s.bad) > 0; i++ {
		if i&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		a, err := w.pick(int64(i))
		if err != nil {
			return nil, err
		}
		s.flip(a)
	}
	if len(s.bad) > 0 {
		return nil, mcsat.ErrHard
	}
	var counts []float64
	for step := 0; step < opt.BurnIn+opt.Samples; step++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// The slice: every satisfied clause with probability 1-e^-|w|
		// (hard clauses always); clauses built during SampleSAT were
		// satisfied by the false default of the atom that built them.
		selectOne := func(c int32) bool {
			wt := g.weight[c]
			return math.IsInf(wt, 1) || rng.Float64() < -math.Expm1(-math.Abs(wt))
		}
		s.selectNew = selectOne
		s.resetSelection(func(c int32) bool {
			sat := s.numTrue[c] > 0
			if g.weight[c] < 0 {
				sat = !sat // a negative-weight clause must stay false
			}
			return sat && selectOne(c)
		})
		if err := sampleSAT(ctx, s, w, u, rng, opt); err != nil {
			return nil, err
		}
		if step >= opt.BurnIn {
			for len(counts) < len(s.val) {
				counts = append(counts, 0)
			}
			for a, v := range s.val {
				if v {
					counts[a]++
				}
			}
		}
	}
	res, idx := g.result(pr, nil, false)
	res.Marginals = make([]float64, res.Net.NumAtoms())
	for a, c := range counts {
		res.Marginals[idx[a]] = c / float64(opt.Samples)
	}
	return res, nil
}

// resetSelection selects the clauses for which sel returns true.
func (s *state) resetSelection(sel func(c int32) bool) {
	for c := range s.sel {
		was := s.badPos[c] >= 0
		s.sel[c] = sel(int32(c))
		s.update(int32(c), was)
	}
}

// sampleSAT moves s towards a uniformly drawn solution of the selected
// clauses: WalkSAT moves while one is violated (with probability
// WalkProb), annealing (heat-bath) moves otherwise, until SASteps annealing moves are
// made and every selected clause holds.
func sampleSAT(ctx context.Context, s *state, w *walk, u *universe, rng *rand.Rand, opt MCSATOptions) error {
	sa := 0
	for i := 0; i < opt.MaxSteps; i++ {
		if len(s.bad) == 0 && sa >= opt.SASteps {
			return nil
		}
		if i&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if len(s.bad) > 0 && rng.Float64() < opt.WalkProb {
			a, err := w.pick(int64(i))
			if err != nil {
				return err
			}
			s.flip(a)
			continue
		}
		sa++
		a, ok := u.random(rng)
		if !ok {
			continue
		}
		if err := s.expand(a); err != nil {
			return err
		}
		// A heat-bath move: flip with probability 1/(1+e^(d/Temp)), d the
		// change in violated selected clauses (always-flipping Metropolis
		// moves at d = 0 would make the parity of an atom's flips fixed).
		_, d := s.delta(a)
		if rng.Float64()*(1+math.Exp(d/opt.Temp)) < 1 {
			s.flip(a)
		}
	}
	return nil
}

// universe draws unknown atoms uniformly, built or not.
type universe struct {
	g      *grounder
	preds  []mln.PredID
	cum    []float64 // cumulative tuple counts (open preds) or listed unknowns
	listed [][][]mln.ConstID
	args   []mln.ConstID
}

func newUniverse(g *grounder) *universe {
	u := &universe{g: g}
	total := 0.0
	for p, pd := range g.m.Preds {
		var n float64
		var listed [][]mln.ConstID
		if g.open[p] {
			n = 1
			for _, t := range pd.Args {
				n *= float64(len(g.m.Types[t].Consts))
			}
		} else {
			g.db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
				if v == mln.Unknown {
					listed = append(listed, append([]mln.ConstID(nil), args...))
				}
			})
			n = float64(len(listed))
		}
		if n == 0 {
			continue
		}
		total += n
		u.preds = append(u.preds, mln.PredID(p))
		u.cum = append(u.cum, total)
		u.listed = append(u.listed, listed)
	}
	return u
}

// random returns a uniformly drawn unknown atom (false when a few draws
// hit only evidence).
func (u *universe) random(rng *rand.Rand) (int32, bool) {
	if len(u.cum) == 0 {
		return -1, false
	}
	for try := 0; try < 64; try++ {
		x := rng.Float64() * u.cum[len(u.cum)-1]
		i := 0
		for i < len(u.cum)-1 && u.cum[i] <= x {
			i++
		}
		p := u.preds[i]
		if l := u.listed[i]; l != nil {
			args := l[rng.Intn(len(l))]
			return u.g.atom(p, args), true
		}
		pd := u.g.m.Preds[p]
		u.args = u.args[:0]
		for _, t := range pd.Args {
			cs := u.g.m.Types[t].Consts
			u.args = append(u.args, cs[rng.Intn(len(cs))])
		}
		if u.g.truth(p, u.args) == mln.Unknown {
			return u.g.atom(p, u.args), true
		}
	}
	return -1, false
}
