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
	"os"
	"strconv"

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
	// DefaultHardFirst is the default probability with which a step of
	// the hard-aware walk repairs a violated hard clause, when there is
	// one, rather than picking any costly clause.
	DefaultHardFirst = 0.9
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
	// BreakHard restores the original MaxWalkSAT moves, which treat hard
	// clauses like heavy soft clauses: a random-walk step flips any atom
	// of the chosen clause, even one whose flip violates a satisfied hard
	// clause. By default (BreakHard false) the walk spares hard clauses,
	// like Alchemy's -hard: a step repairs a violated hard clause, when
	// there is one, with probability DefaultHardFirst, and both random
	// and greedy steps flip only atoms that violate no satisfied hard
	// clause, unless every candidate of the chosen clause does, in which
	// case the step takes the greedy choice (the least costly flip).
	BreakHard bool
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
	w.hardAware = !opt.BreakHard
	w.track = os.Getenv("MWS_GOOD") != ""
	w.samples = 15
	if v := os.Getenv("MWS_BMS"); v != "" {
		w.samples, _ = strconv.Atoi(v)
	}
	w.eps = -1e-9 * p.hardW
	if v := os.Getenv("MWS_HF"); v != "" {
		w.hardFirst, _ = strconv.ParseFloat(v, 64)
	}
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
		if os.Getenv("MWS_INIT") == "false" {
			for a := range w.y {
				w.y[a] = false
			}
			w.reset()
		}
		if os.Getenv("MWS_DESC0") != "" {
			println("init descend", w.descend(), w.hardBad, w.softCost)
		}
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
		for step := 0; step < opt.MaxSteps && w.numBad() > 0; step++ {
			if step&4095 == 0 && ctx.Err() != nil {
				err = ctx.Err()
				break
			}
			total++
			if dbg && step%20000 == 0 {
				println("step", step, "hard", w.hardBad, "soft", int(w.softCost), "good", len(w.good), "best", int(trySoft))
			}
			a := w.pick(rng, opt.Noise, opt.Tabu, int64(step), tryHard, trySoft)
			if a < 0 {
				continue
			}
			w.flip(a)
			w.at[a].last = int64(step)
			log = append(log, a)
			if w.hardBad < tryHard || (w.hardBad == tryHard && w.softCost < trySoft-1e-9*math.Abs(trySoft)) || w.numBad() == 0 {
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
		if os.Getenv("MWS_DESC1") != "" {
			w.reset()
			println("final descend", w.descend(), w.hardBad, w.softCost, tryHard, trySoft)
			tryHard, trySoft = w.hardBad, w.softCost
			log = log[:0]
		}
		if !haveBest || tryHard < bestHard || (tryHard == bestHard && trySoft < bestSoft) {
			copy(best, w.y)
			bestHard, bestSoft, haveBest = tryHard, trySoft, true
			// A try that reaches a state with no bad clause stops there,
			// so its log is empty.
			optimal = tryHard == 0 && len(log) == 0 && w.numBad() == 0
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

var dbg = os.Getenv("MWS_DBG") != ""

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
	// brk is the number of hard clauses in their preferred state that
	// flipping the atom would take out of it.
	brk int32
	// good is the atom's position in walker.good, -1 if not there.
	good int32
}

// walker is the incremental state of one walk.
type walker struct {
	p  *problem
	y  []bool
	cl []clauseState
	at []atomState
	// badHard and badSoft list the hard and soft clauses in a costly
	// state; clauseState.badPos is a position in one of them.
	badHard []int32
	badSoft []int32
	log     []int32

	hardBad  int // len(badHard)
	softCost float64

	// hardAware selects the moves that spare hard clauses (see
	// Options.BreakHard); hardFirst is the probability of repairing a
	// violated hard clause when there is one, instead of picking any
	// costly clause.
	hardAware bool
	hardFirst float64

	// track keeps good, the list of atoms whose flip lowers the cost by
	// more than -eps (eps < 0), up to date.
	track bool
	eps   float64
	good  []int32
	// samples is the number of good atoms a greedy step samples.
	samples int
	sink    int32 // keeps flip's prefetching loop from being optimised away
}

func newWalker(p *problem) *walker {
	nc := p.numClauses()
	w := &walker{
		p:         p,
		y:         make([]bool, p.n),
		cl:        make([]clauseState, nc),
		at:        make([]atomState, p.n),
		hardAware: true,
		hardFirst: DefaultHardFirst,
	}
	for c := range w.cl {
		w.cl[c] = clauseState{s: p.s[c], start: p.start[c], end: p.start[c+1], hard: p.hard[c]}
	}
	return w
}

// numBad returns the number of clauses in a costly state.
func (w *walker) numBad() int { return len(w.badHard) + len(w.badSoft) }

// reset recomputes all bookkeeping from w.y.
func (w *walker) reset() {
	p := w.p
	for a := range w.at {
		w.at[a] = atomState{last: math.MinInt64 / 2, good: -1}
	}
	w.good = w.good[:0]
	w.badHard, w.badSoft = w.badHard[:0], w.badSoft[:0]
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
				if cs.hard && cs.s < 0 {
					w.at[l.Atom()].brk++
				}
			}
		case 1:
			w.at[x].delta += cs.s
			if cs.hard && cs.s > 0 {
				w.at[x].brk++
			}
		}
		cs.badPos = -1
		if (cs.s > 0) == (nt == 0) {
			w.addBad(int32(c))
		}
	}
	if w.track {
		for a := range w.at {
			w.upd(int32(a))
		}
	}
}

// upd puts atom b in the good list or takes it out, as its delta says.
func (w *walker) upd(b int32) {
	as := &w.at[b]
	if as.delta < w.eps {
		if as.good < 0 {
			as.good = int32(len(w.good))
			w.good = append(w.good, b)
		}
	} else if i := as.good; i >= 0 {
		last := w.good[len(w.good)-1]
		w.good[i] = last
		w.at[last].good = i
		w.good = w.good[:len(w.good)-1]
		as.good = -1
	}
}

func (w *walker) addBad(c int32) {
	cs := &w.cl[c]
	if cs.hard {
		cs.badPos = int32(len(w.badHard))
		w.badHard = append(w.badHard, c)
		w.hardBad++
	} else {
		cs.badPos = int32(len(w.badSoft))
		w.badSoft = append(w.badSoft, c)
		w.softCost += math.Abs(cs.s)
	}
}

func (w *walker) removeBad(c int32) {
	cs := &w.cl[c]
	list := &w.badSoft
	if cs.hard {
		list = &w.badHard
		w.hardBad--
	} else {
		w.softCost -= math.Abs(cs.s)
	}
	bad := *list
	i := cs.badPos
	last := bad[len(bad)-1]
	bad[i] = last
	w.cl[last].badPos = i
	*list = bad[:len(bad)-1]
	cs.badPos = -1
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
					if w.track {
						w.upd(int32(l >> 1))
					}
				}
				at[a].delta += s
				if w.track {
					w.upd(a)
				}
				if s > 0 {
					w.removeBad(c)
					if cs.hard { // a is now critical
						at[a].brk++
					}
				} else {
					w.addBad(c)
					if cs.hard { // no flip can break it any more
						for _, l := range p.lits[cs.start:cs.end] {
							at[l>>1].brk--
						}
					}
				}
			case 1:
				at[cs.xorTrue].delta -= s
				if w.track {
					w.upd(cs.xorTrue)
				}
				if cs.hard && s > 0 {
					at[cs.xorTrue].brk--
				}
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
					if w.track {
						w.upd(int32(l >> 1))
					}
				}
				if s > 0 {
					w.addBad(c)
					if cs.hard {
						at[a].brk--
					}
				} else {
					w.removeBad(c)
					if cs.hard { // any flip breaks it now
						for _, l := range p.lits[cs.start:cs.end] {
							at[l>>1].brk++
						}
					}
				}
			case 2:
				at[x].delta += s
				if w.track {
					w.upd(x)
				}
				if cs.hard && s > 0 {
					at[x].brk++
				}
			}
		}
	}
}

// pick chooses the atom to flip at this step, or -1 for a null step.
func (w *walker) pick(rng *rand.Rand, noise float64, tabu int, step int64, bestHard int, bestSoft float64) int32 {
	p := w.p
	cur := float64(w.hardBad)*p.hardW + w.softCost
	bestTotal := float64(bestHard)*p.hardW + bestSoft
	if w.track && len(w.good) > 0 {
		// Best of a few sampled improving flips.
		chosen, bd := int32(-1), math.Inf(1)
		for range w.samples {
			a := w.good[rng.IntN(len(w.good))]
			as := &w.at[a]
			d := as.delta
			if tabu > 0 && step-as.last < int64(tabu) && !(cur+d < bestTotal) {
				continue
			}
			if d < bd {
				chosen, bd = a, d
			}
		}
		if chosen >= 0 {
			return chosen
		}
	}
	var c int32
	nh := len(w.badHard)
	if w.hardAware && nh > 0 && (w.hardFirst >= 1 || rng.Float64() < w.hardFirst) {
		c = w.badHard[rng.IntN(nh)]
	} else if k := rng.IntN(nh + len(w.badSoft)); k < nh {
		c = w.badHard[k]
	} else {
		c = w.badSoft[k-nh]
	}
	cs := &w.cl[c]
	lits := p.lits[cs.start:cs.end]
	neg := cs.s < 0 // a true clause of negative weight: flip a true literal
	if noise > 0 && rng.Float64() < noise {
		var a int32
		if !neg {
			a = lits[rng.IntN(len(lits))].Atom()
		} else {
			k := rng.IntN(int(cs.numTrue))
			for _, l := range lits {
				if l.True(w.y) {
					if k == 0 {
						a = l.Atom()
						break
					}
					k--
				}
			}
		}
		if !w.hardAware || w.at[a].brk == 0 {
			return a
		}
		// A random candidate that breaks no hard clause, if any.
		chosen, n := int32(-1), 0
		for _, l := range lits {
			if neg && !l.True(w.y) {
				continue
			}
			if b := l.Atom(); w.at[b].brk == 0 {
				n++
				if rng.IntN(n) == 0 {
					chosen = b
				}
			}
		}
		if chosen >= 0 {
			return chosen
		}
		// Every candidate breaks a hard clause: take the least damaging.
	}
	chosen, nbest := int32(-1), 0
	bestDelta := math.Inf(1)
	bestBrk := true
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
		brk := w.hardAware && as.brk > 0
		switch {
		case brk != bestBrk:
			if brk {
				continue
			}
			bestBrk, bestDelta, chosen, nbest = brk, d, a, 1
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
