// Package mws implements MaxWalkSAT (Kautz, Selman and Jiang 1997) for MAP
// inference in a ground Markov network, with the tabu heuristic Alchemy
// uses by default.
//
// Each step picks a random "bad" clause (a false clause of positive weight
// or a true clause of negative weight) and flips one of its atoms: with
// probability Noise a random one, otherwise the one whose flip lowers the
// cost most, skipping atoms flipped within the last Tabu steps unless the
// flip would beat the best cost of the try. Hard clauses weigh more than
// all soft clauses together, so fewer hard violations always win. The
// per-clause true-literal counts, the bad-clause list and each atom's flip
// gain are kept up to date incrementally: a flip costs time proportional to
// the atom's occurrences. Bias terms (infer.Options.Bias) enter the walk as
// unit clauses. The network is only read, so concurrent calls may share it.
package mws

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// Alchemy's MaxWalkSAT defaults.
const (
	// DefaultMaxSteps is the default number of flips per try.
	DefaultMaxSteps = 1000000
	// DefaultTries is the default number of tries (restarts).
	DefaultTries = 1
	// DefaultTabu is the default tabu length.
	DefaultTabu = 10
	// DefaultNoise is the default random-walk probability.
	DefaultNoise = 0.5
)

// Options are the MaxWalkSAT settings. Zero values select the defaults.
type Options struct {
	infer.Options
	// MaxSteps is the number of steps per try (default DefaultMaxSteps).
	MaxSteps int
	// Tries is the number of tries; each restarts from a random
	// assignment (default DefaultTries).
	Tries int
	// Tabu is the number of steps during which a flipped atom may not be
	// flipped back unless that beats the try's best cost (default
	// DefaultTabu; negative disables tabu).
	Tabu int
	// Noise is the probability of a random-walk step (default
	// DefaultNoise; negative means no noise).
	Noise float64
	// Init, when not nil, is the assignment the first try starts from.
	Init []bool
	// Progress, when not nil, is called each time the best assignment
	// improves, with the total number of steps so far and the best cost
	// (as infer.BiasedCost, +Inf while hard clauses are violated).
	Progress func(step int, cost float64)
}

// Solve runs MaxWalkSAT on net and returns the best assignment found. The
// result is Optimal only when every clause is in its preferred state (so
// the cost is the least possible). When ctx is cancelled Solve returns the
// best assignment so far together with ctx.Err().
func Solve(ctx context.Context, net *ground.Network, opt Options) (*infer.Result, error) {
	n := net.NumAtoms()
	if opt.Init != nil && len(opt.Init) != n {
		return nil, errors.New("mws: Init has the wrong length")
	}
	if opt.Bias != nil && len(opt.Bias) != n {
		return nil, errors.New("mws: Bias has the wrong length")
	}
	if opt.MaxSteps <= 0 {
		opt.MaxSteps = DefaultMaxSteps
	}
	if opt.Tries <= 0 {
		opt.Tries = DefaultTries
	}
	if opt.Tabu == 0 {
		opt.Tabu = DefaultTabu
	}
	if opt.Noise == 0 {
		opt.Noise = DefaultNoise
	}
	p := newProblem(net, opt.Bias)
	rng := rand.New(rand.NewPCG(uint64(opt.Seed), 0x9e3779b97f4a7c15))
	w := newWalker(p)
	offset := p.constCost - p.biasOffset(opt.Bias)

	best := make([]bool, n)
	bestHard, bestSoft := math.MaxInt, math.Inf(1)
	haveBest := false
	optimal := false
	total := 0
	var err error

	for try := 0; try < opt.Tries && !optimal && err == nil; try++ {
		if try == 0 && opt.Init != nil {
			copy(w.y, opt.Init)
		} else {
			for a := range w.y {
				w.y[a] = rng.Uint64()&1 == 1
			}
		}
		w.reset()
		// The try's best is the current state with the atoms in log
		// flipped back.
		log := w.log[:0]
		tryHard, trySoft := w.hardBad, w.softCost
		report := func() {
			if !haveBest || tryHard < bestHard || (tryHard == bestHard && trySoft < bestSoft) {
				if opt.Progress != nil {
					c := math.Inf(1)
					if tryHard == 0 {
						c = trySoft + offset
					}
					opt.Progress(total, c)
				}
			}
		}
		report()
		for step := 0; step < opt.MaxSteps && len(w.bad) > 0; step++ {
			if step&4095 == 0 && ctx.Err() != nil {
				err = ctx.Err()
				break
			}
			total++
			a := w.pick(rng, opt.Noise, opt.Tabu, int64(step), tryHard, trySoft)
			if a < 0 {
				continue
			}
			w.flip(a)
			w.at[a].last = int64(step)
			log = append(log, a)
			if w.hardBad < tryHard || (w.hardBad == tryHard && w.softCost < trySoft-1e-9*math.Abs(trySoft)) || len(w.bad) == 0 {
				tryHard, trySoft = w.hardBad, w.softCost
				log = log[:0]
				report()
			}
		}
		if len(log) > 0 {
			for _, a := range log {
				w.y[a] = !w.y[a]
			}
		}
		if !haveBest || tryHard < bestHard || (tryHard == bestHard && trySoft < bestSoft) {
			copy(best, w.y)
			bestHard, bestSoft, haveBest = tryHard, trySoft, true
			// A try that reaches a state with no bad clause stops there,
			// so its log is empty.
			optimal = tryHard == 0 && len(log) == 0 && len(w.bad) == 0
		}
		w.log = log
	}

	cost, hard := infer.BiasedCost(net, opt.Bias, best)
	res := &infer.Result{Assign: best, Cost: cost, HardViolated: hard, Bound: infer.NoBound}
	if optimal && hard == 0 {
		res.Optimal = true
		res.Bound = cost
	}
	return res, err
}

// biasOffset returns the constant that turns the walk's cost of the bias
// unit clauses into infer.BiasedCost's bias term: the sum of the positive
// bias terms.
func (p *problem) biasOffset(bias []float64) float64 {
	s := 0.0
	for _, b := range bias {
		if b > 0 {
			s += b
		}
	}
	return s
}

// clauseState is the walk's per-clause data, packed so that visiting a
// clause touches one cache line.
type clauseState struct {
	s       float64 // signed weight
	start   int32   // first literal in problem.lits
	end     int32
	numTrue int32
	xorTrue int32 // xor of the atoms of the true literals
	badPos  int32 // position in walker.bad, -1 if not there
	hard    bool
}

// atomState is the walk's per-atom data.
type atomState struct {
	delta float64 // cost change if the atom is flipped
	last  int64   // step of the atom's last flip
}

// walker is the incremental state of one walk.
type walker struct {
	p   *problem
	y   []bool
	cl  []clauseState
	at  []atomState
	bad []int32 // clauses in a costly state
	log []int32

	hardBad  int
	softCost float64
	sink     int32 // keeps flip's prefetching loop from being optimised away
}

func newWalker(p *problem) *walker {
	nc := p.numClauses()
	w := &walker{
		p:  p,
		y:  make([]bool, p.n),
		cl: make([]clauseState, nc),
		at: make([]atomState, p.n),
	}
	for c := range w.cl {
		w.cl[c] = clauseState{s: p.s[c], start: p.start[c], end: p.start[c+1], hard: p.hard[c]}
	}
	return w
}

// reset recomputes all bookkeeping from w.y.
func (w *walker) reset() {
	p := w.p
	for a := range w.at {
		w.at[a] = atomState{last: math.MinInt64 / 2}
	}
	w.bad = w.bad[:0]
	w.hardBad, w.softCost = 0, 0
	for c := range w.cl {
		cs := &w.cl[c]
		nt, x := int32(0), int32(0)
		lits := p.lits[cs.start:cs.end]
		for _, l := range lits {
			if l.True(w.y) {
				nt++
				x ^= l.Atom()
			}
		}
		cs.numTrue, cs.xorTrue = nt, x
		switch nt {
		case 0:
			for _, l := range lits {
				w.at[l.Atom()].delta -= cs.s
			}
		case 1:
			w.at[x].delta += cs.s
		}
		cs.badPos = -1
		if (cs.s > 0) == (nt == 0) {
			w.addBad(int32(c))
		}
	}
}

func (w *walker) addBad(c int32) {
	cs := &w.cl[c]
	cs.badPos = int32(len(w.bad))
	w.bad = append(w.bad, c)
	if cs.hard {
		w.hardBad++
	} else {
		w.softCost += math.Abs(cs.s)
	}
}

func (w *walker) removeBad(c int32) {
	cs := &w.cl[c]
	i := cs.badPos
	last := w.bad[len(w.bad)-1]
	w.bad[i] = last
	w.cl[last].badPos = i
	w.bad = w.bad[:len(w.bad)-1]
	cs.badPos = -1
	if cs.hard {
		w.hardBad--
	} else {
		w.softCost -= math.Abs(cs.s)
	}
}

// flip flips atom a and updates the bookkeeping.
func (w *walker) flip(a int32) {
	p := w.p
	w.y[a] = !w.y[a]
	ya := w.y[a]
	at := w.at
	occ := p.occ[p.occStart[a]:p.occStart[a+1]]
	// Touch the clauses first: independent loads overlap their cache misses.
	var sum int32
	for _, o := range occ {
		sum += w.cl[o>>1].numTrue
	}
	w.sink += sum
	for _, o := range occ {
		c := o >> 1
		cs := &w.cl[c]
		s := cs.s
		nt := cs.numTrue
		if ya != (o&1 == 1) { // literal became true
			switch nt {
			case 0:
				for _, l := range p.lits[cs.start:cs.end] {
					at[l>>1].delta += s
				}
				at[a].delta += s
				if s > 0 {
					w.removeBad(c)
				} else {
					w.addBad(c)
				}
			case 1:
				at[cs.xorTrue].delta -= s
			}
			cs.numTrue = nt + 1
			cs.xorTrue ^= a
		} else { // literal became false
			cs.numTrue = nt - 1
			x := cs.xorTrue ^ a
			cs.xorTrue = x
			switch nt {
			case 1:
				at[a].delta -= s
				for _, l := range p.lits[cs.start:cs.end] {
					at[l>>1].delta -= s
				}
				if s > 0 {
					w.addBad(c)
				} else {
					w.removeBad(c)
				}
			case 2:
				at[x].delta += s
			}
		}
	}
}

// pick chooses the atom to flip at this step, or -1 for a null step.
func (w *walker) pick(rng *rand.Rand, noise float64, tabu int, step int64, bestHard int, bestSoft float64) int32 {
	p := w.p
	c := w.bad[rng.IntN(len(w.bad))]
	cs := &w.cl[c]
	lits := p.lits[cs.start:cs.end]
	neg := cs.s < 0 // a true clause of negative weight: flip a true literal
	if noise > 0 && rng.Float64() < noise {
		if !neg {
			return lits[rng.IntN(len(lits))].Atom()
		}
		k := rng.IntN(int(cs.numTrue))
		for _, l := range lits {
			if l.True(w.y) {
				if k == 0 {
					return l.Atom()
				}
				k--
			}
		}
	}
	cur := float64(w.hardBad)*p.hardW + w.softCost
	bestTotal := float64(bestHard)*p.hardW + bestSoft
	chosen, nbest := int32(-1), 0
	bestDelta := math.Inf(1)
	for _, l := range lits {
		if neg && !l.True(w.y) {
			continue
		}
		a := l.Atom()
		as := &w.at[a]
		d := as.delta
		if tabu > 0 && step-as.last < int64(tabu) && !(cur+d < bestTotal) {
			continue
		}
		switch {
		case d < bestDelta:
			bestDelta, chosen, nbest = d, a, 1
		case d == bestDelta:
			nbest++
			if rng.IntN(nbest) == 0 {
				chosen = a
			}
		}
	}
	return chosen
}
