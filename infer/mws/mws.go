// Package mws implements MaxWalkSAT (Kautz, Selman and Jiang 1997) for MAP
// inference in a ground Markov network, with the tabu heuristic Alchemy
// uses by default.
//
// A clause step picks a random "bad" clause (a false clause of positive
// weight or a true clause of negative weight) and flips one of its atoms:
// with probability Noise a random one, otherwise the one whose flip lowers
// the cost most, skipping atoms flipped within the last Tabu steps unless
// the flip would beat the best cost of the try. Hard clauses weigh more
// than all soft clauses together, so fewer hard violations always win.
//
// Options.Classic runs exactly that, as Alchemy does. By default the walk
// is refined in four ways, which make it leave no hard clause violated on
// real networks and come much closer to the optimum (on the CiteSeer Face
// topic, within 0.1% of the exact MAP cost where the classic walk leaves
// thousands of hard clauses violated):
//   - hard-aware moves: steps do not break satisfied hard clauses, and
//     violated hard clauses are repaired first (Options.BreakHard);
//   - improving flips first: a step flips an atom whose flip lowers the
//     cost when there is one, and takes a clause step only in a local
//     minimum (Options.NoGreedy);
//   - one walk per connected component, each keeping its own best state
//     (Options.NoSplit);
//   - the first try starts from all atoms false (Options.RandomInit).
//
// The per-clause true-literal counts, the bad-clause lists, each atom's
// flip gain and hard break count, and the list of improving atoms are kept
// up to date incrementally: a flip costs time proportional to the atom's
// occurrences. Bias terms (infer.Options.Bias) enter the walk as unit
// clauses. The network is only read, so concurrent calls may share it.
package mws

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// Defaults of the settings.
const (
	// DefaultMaxSteps is the default number of steps per try (Alchemy's).
	DefaultMaxSteps = 1000000
	// DefaultTries is the default number of tries (Alchemy's).
	DefaultTries = 1
	// DefaultTabu is the default tabu length (Alchemy's).
	DefaultTabu = 10
	// DefaultNoise is the default random-walk probability of the classic
	// walk (Alchemy's).
	DefaultNoise = 0.5
	// DefaultGreedyNoise is the default random-walk probability when
	// improving flips come first: the walk only takes a random-walk or
	// clause step in a local minimum.
	DefaultGreedyNoise = 0.1
	// DefaultHardFirst is the probability with which a clause step of the
	// hard-aware walk repairs a violated hard clause, when there is one,
	// rather than picking any costly clause.
	DefaultHardFirst = 0.9
	// greedySamples is the number of improving atoms a greedy step looks
	// at (best from multiple selections).
	greedySamples = 15
)

// Options are the MaxWalkSAT settings. Zero values select the defaults.
//
// By default Solve refines Alchemy's MaxWalkSAT in four ways, each of which
// an option turns off: the walk spares hard clauses (BreakHard), flips an
// improving atom whenever there is one (NoGreedy), walks each connected
// component of the network on its own (NoSplit), and starts from all atoms
// false (RandomInit). Classic turns all four off, for Alchemy's algorithm.
type Options struct {
	infer.Options
	// MaxSteps is the number of steps per try (default DefaultMaxSteps).
	// With the split into components, each component receives a share in
	// proportion to its atoms, and the steps a component leaves unused by
	// reaching a state where every clause is in its preferred state go
	// to the components that did not.
	MaxSteps int
	// Tries is the number of tries; each but the first restarts from a
	// random assignment (default DefaultTries).
	Tries int
	// Tabu is the number of steps during which a flipped atom may not be
	// flipped back unless that beats the try's best cost (default
	// DefaultTabu; negative disables tabu).
	Tabu int
	// Noise is the probability of a random-walk step (default
	// DefaultGreedyNoise, or DefaultNoise with NoGreedy; negative means
	// no noise).
	Noise float64

	// BreakHard restores the original MaxWalkSAT moves, which treat hard
	// clauses like heavy soft clauses: a random-walk step flips any atom
	// of the chosen clause, even one whose flip violates a satisfied hard
	// clause. By default the walk spares hard clauses, in the spirit of
	// Alchemy's -hard: a clause step repairs a violated hard clause, when
	// there is one, with probability DefaultHardFirst, and both random
	// and greedy steps flip only atoms that violate no satisfied hard
	// clause, unless every candidate of the chosen clause does, in which
	// case the step takes the greedy choice (the least costly flip; see
	// StrictHard).
	BreakHard bool
	// StrictHard makes the hard-aware walk never break a satisfied hard
	// clause: a step on a soft clause whose every candidate would break
	// one does nothing. Once every hard clause is satisfied, they all stay
	// satisfied. It forbids the two-step swaps (break a hard clause, then
	// repair it by flipping another of its atoms) by which the default
	// walk moves, say, a token from one field to another, and so finds
	// slightly costlier states. Ignored with BreakHard.
	StrictHard bool
	// NoGreedy restores the original MaxWalkSAT step, which always picks
	// a random costly clause and flips one of its atoms. By default a
	// step first looks for an atom whose flip lowers the cost (the best
	// of a few sampled from the list of such atoms, which the walk keeps
	// up to date, skipping tabu atoms) and takes the clause step only
	// when there is none, in a local minimum.
	NoGreedy bool
	// NoSplit walks the whole network as one. By default Solve splits it
	// into connected components (atoms linked by clauses) and walks each
	// on its own, keeping the best state of each: the best states of
	// independent parts combine, where a single walk's best state is only
	// as good as the moment all parts were good at once.
	NoSplit bool
	// RandomInit starts the first try from a random assignment, as
	// Alchemy does, instead of all atoms false. Init overrides it.
	RandomInit bool
	// Classic sets BreakHard, NoGreedy, NoSplit and RandomInit: Alchemy's
	// MaxWalkSAT.
	Classic bool

	// Target, when positive, stops the search as soon as the best state
	// violates no hard clause and costs (as infer.BiasedCost) at most
	// Target (Alchemy's -targetWt, with its tolerance of 1e-4); the
	// network is then walked as one (NoSplit). Zero stops only when every
	// clause is in its preferred state.
	Target float64

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
// best assignment so far together with ctx.Err() (a nil result when it is
// cancelled while the network is being indexed, before the walk starts).
func Solve(ctx context.Context, net *ground.Network, opt Options) (*infer.Result, error) {
	wk, err := NewWalker(ctx, net, opt)
	if err != nil {
		return nil, err
	}
	return wk.Run(ctx, opt.MaxSteps, opt.Init)
}

// Engine is MaxWalkSAT as an infer.MAP: Solve runs Solve with Options,
// whose infer.Options part each call replaces.
type Engine struct {
	Options Options
}

// Name returns "mws".
func (Engine) Name() string { return "mws" }

// Solve runs MaxWalkSAT on net with the engine's options and the call's
// bias and seed (see the package function Solve).
func (e Engine) Solve(ctx context.Context, net *ground.Network, opt infer.Options) (*infer.Result, error) {
	o := e.Options
	o.Options = opt
	return Solve(ctx, net, o)
}

// A Walker is a network indexed once for several runs of MaxWalkSAT (see
// Run), as when a short descent and a longer walk from its end alternate
// with other work on the same network. It is not safe for concurrent use.
type Walker struct {
	net    *ground.Network
	opt    Options
	p      *problem
	perm   []int32 // the split's renumbering (nil: none)
	starts [2][]int32
	w      *walker
	offset float64
}

// NewWalker indexes net for runs of MaxWalkSAT under opt; opt.MaxSteps
// and opt.Init are ignored (Run takes them). It returns ctx.Err() when ctx
// is cancelled while the network is being indexed.
func NewWalker(ctx context.Context, net *ground.Network, opt Options) (*Walker, error) {
	n := net.NumAtoms()
	if opt.Init != nil && len(opt.Init) != n {
		return nil, errors.New("mws: Init has the wrong length")
	}
	if opt.Bias != nil && len(opt.Bias) != n {
		return nil, errors.New("mws: Bias has the wrong length")
	}
	if err := infer.CheckWeights(net, opt.Bias); err != nil {
		return nil, fmt.Errorf("mws: %w", err)
	}
	if opt.Classic {
		opt.BreakHard, opt.NoGreedy, opt.NoSplit, opt.RandomInit = true, true, true, true
	}
	if opt.Target > 0 {
		// The target bounds the whole network's cost: one walk sees it.
		opt.NoSplit = true
	}
	if opt.Tries <= 0 {
		opt.Tries = DefaultTries
	}
	if opt.Tabu == 0 {
		opt.Tabu = DefaultTabu
	}
	opt.Tabu = min(opt.Tabu, 1<<30)
	if opt.Noise == 0 {
		opt.Noise = DefaultGreedyNoise
		if opt.NoGreedy {
			opt.Noise = DefaultNoise
		}
	}
	p0, err := newProblemCtx(ctx, net, opt.Bias)
	if err != nil {
		return nil, err
	}
	wk := &Walker{net: net, opt: opt, offset: p0.constCost - p0.biasOffset(opt.Bias)}
	if opt.NoSplit {
		wk.p, wk.starts = p0, [2][]int32{{0, int32(n)}, {0, int32(p0.numClauses())}}
	} else {
		wk.p, wk.perm, wk.starts[0], wk.starts[1] = p0.split()
	}
	w := newWalker(wk.p)
	w.hardAware = !opt.BreakHard
	w.track = !opt.NoGreedy
	w.strict = w.hardAware && opt.StrictHard
	wk.w = w
	return wk, nil
}

// Run is Solve with the Walker's network and options, maxSteps steps per
// try (DefaultMaxSteps when not positive) and the first try starting from
// init (nil: as Options.Init nil).
func (wk *Walker) Run(ctx context.Context, maxSteps int, init []bool) (*infer.Result, error) {
	net, w, perm := wk.net, wk.w, wk.perm
	n := net.NumAtoms()
	if init != nil && len(init) != n {
		return nil, errors.New("mws: Init has the wrong length")
	}
	opt := wk.opt
	opt.MaxSteps, opt.Init = maxSteps, init
	if opt.MaxSteps <= 0 {
		opt.MaxSteps = DefaultMaxSteps
	}
	p, offset := wk.p, wk.offset
	atomStart, clauseStart := wk.starts[0], wk.starts[1]
	var err error
	rng := rand.New(rand.NewPCG(uint64(opt.Seed), 0x9e3779b97f4a7c15))

	// The first try starts from Init, or the default initial state.
	y := w.y
	switch {
	case opt.Init != nil && perm != nil:
		for a := range y {
			y[a] = opt.Init[perm[a]]
		}
	case opt.Init != nil:
		copy(y, opt.Init)
	case opt.RandomInit:
		for a := range y {
			y[a] = rng.Uint64()&1 == 1
		}
	default:
		clear(y)
	}
	w.reset(0, int32(n), 0, int32(p.numClauses()))
	se := &search{
		ctx: ctx, opt: &opt, w: w, rng: rng,
		best:     append([]bool(nil), y...),
		bestHard: w.hardBad, bestSoft: w.softCost,
		offset: offset,
	}
	se.report()
	se.reached = opt.Target > 0 && se.bestHard == 0 && se.bestSoft+se.offset <= opt.Target+1e-4
	comps := make([]component, len(atomStart)-1)
	nUsed := max(int64(atomStart[len(atomStart)-1]), 1)
	budget := int64(opt.MaxSteps) * int64(opt.Tries)
	used := int64(0)
	for k := range comps {
		cp := &comps[k]
		*cp = component{a0: atomStart[k], a1: atomStart[k+1], c0: clauseStart[k], c1: clauseStart[k+1]}
		// The component's share of the steps of a try.
		steps := (int64(opt.MaxSteps)*int64(cp.a1-cp.a0) + nUsed - 1) / nUsed
		for try := 0; try < opt.Tries && !cp.optimal && se.err == nil && !se.reached; try++ {
			if try > 0 {
				for a := cp.a0; a < cp.a1; a++ {
					y[a] = rng.Uint64()&1 == 1
				}
			}
			used += se.walk(cp, steps, try == 0)
		}
	}
	// Steps left by components that reached a state with no costly clause
	// go to the others, which continue from their best state.
	for pass := 0; pass < 3 && se.err == nil && !se.reached; pass++ {
		left := budget - used
		var open int64
		for k := range comps {
			if !comps[k].optimal {
				open += int64(comps[k].a1 - comps[k].a0)
			}
		}
		if open == 0 || left < budget/100 || left < open {
			break
		}
		for k := range comps {
			cp := &comps[k]
			if cp.optimal || se.err != nil || se.reached {
				continue
			}
			copy(y[cp.a0:cp.a1], se.best[cp.a0:cp.a1])
			used += se.walk(cp, left*int64(cp.a1-cp.a0)/open, false)
		}
	}
	optimal := true
	for k := range comps {
		optimal = optimal && comps[k].optimal
	}
	err = se.err
	best := se.best
	assign := best
	if perm != nil {
		assign = make([]bool, n)
		for a, b := range best {
			assign[perm[a]] = b
		}
	}
	cost, hard := infer.BiasedCost(net, opt.Bias, assign)
	res := &infer.Result{Assign: assign, Cost: cost, HardViolated: hard, Bound: infer.NoBound}
	if optimal && err == nil && hard == 0 {
		res.Optimal = true
		res.Bound = cost
	}
	return res, err
}

// component is a connected component of the problem: atoms a0:a1 and
// clauses c0:c1, with the cost of its best state so far.
type component struct {
	a0, a1, c0, c1 int32
	hard           int
	soft           float64
	started        bool // hard and soft are set
	optimal        bool // the best state has no costly clause
}

// search is the state of Solve: the walker and the best state of every
// component.
type search struct {
	ctx    context.Context
	opt    *Options
	w      *walker
	rng    *rand.Rand
	offset float64 // turns the walk's soft cost into a biased cost
	err    error

	// best holds the best state of each component; bestHard and
	// bestSoft sum their costs.
	best     []bool
	bestHard int
	bestSoft float64
	total    int // steps so far
	// reached is set once the best state meets Options.Target.
	reached bool
}

// report passes the best cost to the Progress callback.
func (se *search) report() {
	if se.opt.Progress != nil {
		c := math.Inf(1)
		if se.bestHard == 0 {
			c = se.bestSoft + se.offset
		}
		se.opt.Progress(se.total, c)
	}
}

// walk runs one try of at most steps steps on component cp, from the
// current state of its atoms, and keeps the try's best state when it beats
// the component's (or always when first is set, for the component's first
// try). It returns the number of steps taken.
func (se *search) walk(cp *component, steps int64, first bool) int64 {
	w, opt := se.w, se.opt
	w.reset(cp.a0, cp.a1, cp.c0, cp.c1)
	if !cp.started {
		cp.hard, cp.soft, cp.started = w.hardBad, w.softCost, true
	}
	// The try's best is the current state with the atoms in log flipped
	// back; improved says it beats the component's best.
	log := w.log[:0]
	tryHard, trySoft := w.hardBad, w.softCost
	improved := first
	update := func() {
		if tryHard < cp.hard || (tryHard == cp.hard && trySoft < cp.soft) {
			se.bestHard += tryHard - cp.hard
			se.bestSoft += trySoft - cp.soft
			cp.hard, cp.soft, improved = tryHard, trySoft, true
			se.report()
			se.reached = opt.Target > 0 && se.bestHard == 0 && se.bestSoft+se.offset <= opt.Target+1e-4
		}
	}
	update()
	step := int64(0)
	for ; step < steps && w.numBad() > 0 && !se.reached; step++ {
		if se.total&255 == 0 && se.ctx.Err() != nil {
			se.err = se.ctx.Err()
			break
		}
		se.total++
		a := w.pick(se.rng, opt.Noise, opt.Tabu, step, tryHard, trySoft)
		if a < 0 {
			continue
		}
		w.flip(a)
		w.at[a].last = uint32(step)
		log = append(log, a)
		if w.hardBad < tryHard || (w.hardBad == tryHard && w.softCost < trySoft-1e-9*math.Abs(trySoft)) || w.numBad() == 0 {
			tryHard, trySoft = w.hardBad, w.softCost
			log = log[:0]
			update()
		}
	}
	for _, a := range log {
		w.y[a] = !w.y[a]
	}
	if improved {
		copy(se.best[cp.a0:cp.a1], w.y[cp.a0:cp.a1])
		// A try that reaches a state with no costly clause stops there,
		// so its log is empty.
		cp.optimal = tryHard == 0 && len(log) == 0 && w.numBad() == 0
	}
	w.log = log
	return step
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

// atomState is the walk's per-atom data, 16 bytes.
type atomState struct {
	delta float64 // cost change if the atom is flipped
	// last is the step of the atom's last flip, modulo 2^32.
	last uint32
	// brk is the number of hard clauses in their preferred state that
	// flipping the atom would take out of it, plus inGood when the atom
	// is in walker.good.
	brk uint32
}

// inGood is the bit of atomState.brk that marks atoms in walker.good.
const inGood = 1 << 31

// breaks reports whether flipping the atom would break a hard clause.
func (as *atomState) breaks() bool { return as.brk&^inGood != 0 }

// tabu reports whether the atom was flipped less than tabu steps before
// step.
func (as *atomState) tabu(step int64, tabu int) bool {
	return tabu > 0 && uint32(step)-as.last < uint32(tabu)
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
	// strict makes a step on a soft clause whose every candidate would
	// break a hard clause a null step (see Options.StrictHard).
	strict bool

	// track keeps good up to date: it holds every atom whose flip lowers
	// the cost by more than -eps (eps < 0), and maybe atoms whose flip no
	// longer does, which pick drops when it meets them.
	track bool
	eps   float64
	good  []int32
	sink  int32 // keeps flip's prefetching loop from being optimised away
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
		track:     true,
		eps:       -1e-9 * p.hardW,
	}
	for c := range w.cl {
		w.cl[c] = clauseState{s: p.s[c], start: p.start[c], end: p.start[c+1], hard: p.hard[c]}
	}
	return w
}

// numBad returns the number of clauses in a costly state.
func (w *walker) numBad() int { return len(w.badHard) + len(w.badSoft) }

// reset recomputes the bookkeeping of atoms a0:a1 and clauses c0:c1 from
// w.y, and empties the lists: the clauses must be the clauses of those
// atoms.
func (w *walker) reset(a0, a1, c0, c1 int32) {
	p := w.p
	for a := a0; a < a1; a++ {
		w.at[a] = atomState{last: 1 << 31}
	}
	w.good = w.good[:0]
	w.badHard, w.badSoft = w.badHard[:0], w.badSoft[:0]
	w.hardBad, w.softCost = 0, 0
	for c := c0; c < c1; c++ {
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
			w.addBad(c)
		}
	}
	if w.track {
		for a := a0; a < a1; a++ {
			w.upd(a)
		}
	}
}

// upd puts atom b in the good list if its flip now lowers the cost. Atoms
// whose flip no longer does leave the list lazily, when pick samples them.
func (w *walker) upd(b int32) {
	if as := &w.at[b]; as.delta < w.eps && as.brk&inGood == 0 {
		as.brk |= inGood
		w.good = append(w.good, b)
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
		for t := 0; t < greedySamples && len(w.good) > 0; {
			i := rng.IntN(len(w.good))
			a := w.good[i]
			as := &w.at[a]
			d := as.delta
			if !(d < w.eps) { // no longer improving: drop it
				last := len(w.good) - 1
				w.good[i] = w.good[last]
				w.good = w.good[:last]
				as.brk &^= inGood
				continue
			}
			t++
			if as.tabu(step, tabu) && !(cur+d < bestTotal) {
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
		if !w.hardAware || !w.at[a].breaks() {
			return a
		}
		// A random candidate that breaks no hard clause, if any.
		chosen, n := int32(-1), 0
		for _, l := range lits {
			if neg && !l.True(w.y) {
				continue
			}
			if b := l.Atom(); !w.at[b].breaks() {
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
		if as.tabu(step, tabu) && !(cur+d < bestTotal) {
			continue
		}
		brk := w.hardAware && as.breaks()
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
	if bestBrk && w.strict && !cs.hard {
		return -1
	}
	return chosen
}

// Memory is what Solve takes on top of the network (ground.Options.Engine),
// fitted to the peak live heap on real groundings (infer/memory_test.go).
var Memory = ground.EngineCost{PerAtom: 40, PerClause: 100, PerLit: 24}
