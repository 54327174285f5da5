package lazy

import (
	"context"
	"errors"
	"math"
	"math/rand"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/mws"
	"github.com/marple-mln/marple/mln"
)

// MWSOptions are the settings of lazy MaxWalkSAT (LazySAT).
type MWSOptions struct {
	// MaxSteps is the number of flips per try (default
	// mws.DefaultMaxSteps); Tries the number of tries (default
	// mws.DefaultTries), each starting with every unknown atom false.
	MaxSteps, Tries int
	// Tabu is the number of steps during which a flipped atom is not
	// flipped back by a greedy step unless that beats the try's best
	// cost (default mws.DefaultTabu; negative: none).
	Tabu int
	// Noise is the probability of a random-walk clause step (default
	// mws.DefaultGreedyNoise, or mws.DefaultNoise with NoGreedy;
	// negative: none).
	Noise float64
	// NoGreedy restores Alchemy's step, which always picks a random
	// costly clause and flips one of its atoms. By default, as in
	// mws.Solve, a step first flips an atom whose flip lowers the cost
	// over the clauses built (the best of a few sampled from the list of
	// such atoms, kept up to date as atoms flip and clauses are built,
	// skipping tabu atoms), expanding it first so that the gain counts
	// every clause the flip changes, and takes the clause step only in a
	// local minimum.
	NoGreedy bool
	// Target stops the walk as soon as no hard clause is violated and the
	// cost is at most Target (Alchemy's -targetWt); 0 stops only when
	// every clause is in its preferred state.
	Target float64
	// TimeLimit, when positive, bounds the walk (not the grounding of the
	// clauses it starts from): when it expires MAP returns the best state
	// found, without an error.
	TimeLimit time.Duration
	// Seed seeds the walk.
	Seed int64
}

// Result is what a lazy run leaves: a network of its atoms (every unknown
// query atom first, as ground.Ground orders them, then the other atoms it
// built; the clauses it built are not copied into it) and, for MAP, the
// assignment to its atoms.
type Result struct {
	Net *ground.Network
	// Assign is the MAP state (MAP runs) over Net's atoms.
	Assign []bool
	// Marginals are the probabilities of Net's atoms (marginal runs).
	Marginals []float64
	// Cost is the cost of Assign over the clauses built, which equals its
	// cost over the eager grounding's clauses (ground.Network.Cost);
	// HardViolated counts the hard clauses it violates.
	Cost         float64
	HardViolated int
	// Optimal is set when every clause is in its preferred state.
	Optimal bool
	// Expanded counts the atoms expanded, Clauses the clauses built.
	Expanded, Clauses int
	// HardFalse counts the hard clauses the evidence alone falsifies.
	HardFalse int
}

// MAP runs lazy MaxWalkSAT on pr. When ctx is cancelled during the walk it
// returns the best state so far with ctx.Err().
func MAP(ctx context.Context, pr Problem, opt MWSOptions) (*Result, error) {
	g, err := newGrounder(ctx, pr)
	if err != nil {
		return nil, err
	}
	s := newState(g)
	s.track = !opt.NoGreedy
	if err := g.init(); err != nil {
		return nil, err
	}
	w := &walk{s: s, rng: rand.New(rand.NewSource(opt.Seed)), opt: opt}
	if w.opt.MaxSteps <= 0 {
		w.opt.MaxSteps = mws.DefaultMaxSteps
	}
	if w.opt.Tries <= 0 {
		w.opt.Tries = mws.DefaultTries
	}
	if w.opt.Tabu == 0 {
		w.opt.Tabu = mws.DefaultTabu
	}
	if w.opt.Noise == 0 {
		w.opt.Noise = mws.DefaultGreedyNoise
		if opt.NoGreedy {
			w.opt.Noise = mws.DefaultNoise
		}
	}
	wctx := ctx
	if opt.TimeLimit > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, opt.TimeLimit)
		defer cancel()
	}
	best, bestHard, bestSoft, err := w.run(wctx)
	if err != nil && (best == nil || wctx.Err() == nil) {
		return nil, err
	}
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		err = nil // the time limit
	}
	res, _ := g.result(pr, best, true)
	res.Cost, res.HardViolated = bestSoft, bestHard
	res.Optimal = err == nil && bestHard == 0 && bestSoft == 0
	return res, err
}

// walk is a run of MaxWalkSAT over a lazily built state.
type walk struct {
	s    *state
	rng  *rand.Rand
	opt  MWSOptions
	last []int64 // step of each atom's last flip
	cand []int32
	// tryHard and trySoft are the costs of the try's best state, which a
	// tabu atom's flip must beat.
	tryHard int
	trySoft float64
}

// greedySamples is the number of improving atoms a greedy step looks at
// (as in mws).
const greedySamples = 15

func (w *walk) done(hard int, soft float64) bool {
	return len(w.s.bad) == 0 || (w.opt.Target > 0 && hard == 0 && soft <= w.opt.Target+1e-4)
}

func better(h1 int, s1 float64, h2 int, s2 float64) bool {
	return h1 < h2 || (h1 == h2 && s1 < s2-1e-9*math.Max(1, math.Abs(s2)))
}

// run returns the true atoms of the best state found and its costs.
func (w *walk) run(ctx context.Context) ([]int32, int, float64, error) {
	s := w.s
	best := []int32{}
	bestHard, bestSoft := s.hardBad, s.soft
	var step int64
	var err error
	for try := 0; try < w.opt.Tries && err == nil; try++ {
		if try > 0 {
			for a, v := range s.val {
				if v {
					s.flip(int32(a))
				}
			}
		}
		var trail []int32 // flips since the try's best state
		tryHard, trySoft := s.hardBad, s.soft
		w.tryHard, w.trySoft = tryHard, trySoft
		for i := 0; i < w.opt.MaxSteps && !w.done(s.hardBad, s.soft); i++ {
			step++
			if step&1023 == 0 {
				if err = ctx.Err(); err != nil {
					break
				}
			}
			a, perr := w.pick(step)
			if perr != nil {
				return nil, 0, 0, perr
			}
			if a < 0 {
				continue
			}
			s.flip(a)
			for len(w.last) < len(s.val) {
				w.last = append(w.last, math.MinInt64/2)
			}
			w.last[a] = step
			trail = append(trail, a)
			if better(s.hardBad, s.soft, tryHard, trySoft) {
				tryHard, trySoft = s.hardBad, s.soft
				w.tryHard, w.trySoft = tryHard, trySoft
				trail = trail[:0]
			}
		}
		for i := len(trail) - 1; i >= 0; i-- {
			s.flip(trail[i])
		}
		// The state is the try's best: its cost summed afresh.
		s.soft = s.exactSoft()
		trySoft = s.soft
		if try == 0 || better(tryHard, trySoft, bestHard, bestSoft) {
			bestHard, bestSoft = tryHard, trySoft
			best = best[:0]
			for a, v := range s.val {
				if v {
					best = append(best, int32(a))
				}
			}
		}
		if w.done(bestHard, bestSoft) && (bestHard == 0 && (bestSoft == 0 || w.opt.Target > 0)) {
			break
		}
	}
	return best, bestHard, bestSoft, err
}

// tabu reports whether atom a, whose flip changes the costs by dh and
// ds, was flipped in the last Tabu steps and its flip does not beat the
// try's best state.
func (w *walk) tabu(a int32, step int64, dh int, ds float64) bool {
	if w.opt.Tabu <= 0 || step-w.last[a] > int64(w.opt.Tabu) {
		return false
	}
	return !better(w.s.hardBad+dh, w.s.soft+ds, w.tryHard, w.trySoft)
}

// pickGreedy returns the best of a few sampled atoms whose flip lowers
// the cost, not tabu, or -1 when there is none. It expands the atoms it
// samples, so their gains count every clause their flip changes.
func (w *walk) pickGreedy(step int64) (int32, error) {
	s := w.s
	chosen, bh, bs := int32(-1), 0, 0.0
	for t := 0; t < greedySamples && len(s.good) > 0; {
		i := w.rng.Intn(len(s.good))
		a := s.good[i]
		if s.improving(a) && !s.g.expanded[a] {
			if err := s.expand(a); err != nil {
				return -1, err
			}
		}
		if !s.improving(a) {
			s.dropGood(i)
			continue
		}
		t++
		for len(w.last) < len(s.val) {
			w.last = append(w.last, math.MinInt64/2)
		}
		dh, ds := int(s.dHard[a]), s.dSoft[a]
		if w.tabu(a, step, dh, ds) {
			continue
		}
		if chosen < 0 || better(dh, ds, bh, bs) {
			chosen, bh, bs = a, dh, ds
		}
	}
	return chosen, nil
}

// pick chooses the atom to flip: with the gains tracked, an improving
// atom when there is one (pickGreedy); else, from a random costly clause,
// a random candidate with probability Noise, else the candidate whose
// flip costs least (not flipped in the last Tabu steps unless it beats
// the try's best).
func (w *walk) pick(step int64) (int32, error) {
	s := w.s
	if s.track {
		a, err := w.pickGreedy(step)
		if a >= 0 || err != nil {
			return a, err
		}
	}
	c := s.bad[w.rng.Intn(len(s.bad))]
	w.cand = s.candidates(c, w.cand)
	cand := append([]int32(nil), w.cand...)
	for _, a := range cand {
		if err := s.expand(a); err != nil {
			return -1, err
		}
	}
	for len(w.last) < len(s.val) {
		w.last = append(w.last, math.MinInt64/2)
	}
	if w.rng.Float64() < w.opt.Noise {
		return cand[w.rng.Intn(len(cand))], nil
	}
	besta, bh, bs, n := int32(-1), 0, 0.0, 0
	for _, a := range cand {
		dh, ds := s.delta(a)
		if w.tabu(a, step, dh, ds) {
			continue
		}
		switch {
		case besta < 0 || better(dh, ds, bh, bs):
			besta, bh, bs, n = a, dh, ds, 1
		case !better(bh, bs, dh, ds):
			n++ // a tie: keep one uniformly
			if w.rng.Intn(n) == 0 {
				besta = a
			}
		}
	}
	if besta < 0 {
		besta = cand[w.rng.Intn(len(cand))]
	}
	return besta, nil
}

// result builds the network of the atoms, every unknown query atom first,
// and maps the true atoms onto it.
// It also returns each built atom's index in the network.
func (g *grounder) result(pr Problem, trueAtoms []int32, assign bool) (*Result, []int32) {
	net := ground.NewNetwork(0)
	net.Model = g.m
	ids := make([]int32, len(g.atomPred))
	for i := range ids {
		ids[i] = -1
	}
	for _, p := range pr.Query {
		g.eachAtom(p, func(args []mln.ConstID) {
			if g.truth(p, args) != mln.Unknown {
				return
			}
			id := net.AddAtom(p, append([]mln.ConstID(nil), args...))
			if a := g.lookup(p, args); a >= 0 {
				ids[a] = id
			}
		})
	}
	for a := range ids {
		if ids[a] < 0 {
			ids[a] = net.AddAtom(g.atomPred[a], g.atomArgs[a])
		}
	}
	res := &Result{Net: net, Clauses: g.numClauses(), HardFalse: g.HardFalse}
	for _, e := range g.expanded {
		if e {
			res.Expanded++
		}
	}
	if assign {
		res.Assign = make([]bool, net.NumAtoms())
		for _, a := range trueAtoms {
			res.Assign[ids[a]] = true
		}
	}
	net.HardFalse = g.HardFalse
	return res, ids
}
