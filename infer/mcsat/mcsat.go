// Package mcsat computes marginal probabilities of the atoms of a ground
// Markov network by MC-SAT (Poon and Domingos 2006) and by Gibbs sampling.
//
// MC-SAT is slice sampling: at each step every clause in its preferred state
// (true for a positive weight, false for a negative one) is selected with
// probability 1-exp(-|w|), hard clauses always; the next world is then drawn
// uniformly from the worlds in which every selected clause keeps its
// preferred state, by SampleSAT (Wei, Erenrich and Selman 2004): simulated
// annealing moves mixed with WalkSAT moves. A selected clause of negative
// weight asks for all its literals to be false, which fixes its atoms for
// the step; atoms in no selected clause are drawn uniformly directly.
//
// Unlike the original SampleSAT, whose WalkSAT moves bias the samples
// towards some solutions, the moves here are Metropolis-Hastings corrected
// and the chain is only observed at solutions, so the uniform distribution
// over the solutions is exactly invariant (see Options.Temp).
//
// Each chain starts from a world satisfying the hard clauses, found by an
// exact search (infer.SAT) from a starting world that differs from chain to
// chain (WalkSAT when the search gives up); when the search proves that no
// world satisfies them, the samplers fail with an error wrapping
// infer.ErrInfeasible. Bias terms (infer.Options.Bias) are unit clauses with weight
// Bias[a]. The network is only read, so concurrent calls may share it.
//
// One chain can stay for ever in one mode of a distribution whose large
// weights tie blocks of atoms: leaving it takes every heavy clause holding
// there to go unselected at once. Run (and Sampling, for rounds) runs
// several chains per connected component in parallel, pools them, and
// returns Diagnostics (split R-hat and effective sample size per atom)
// that flag chains which disagree; its chains also make block moves
// (resampling jointly the atoms that heavy clauses tie) and, optionally,
// replica exchange between tempered copies, both of which cross such
// modes.
package mcsat

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// Defaults (Alchemy's where it has one).
const (
	// DefaultSamples is the default number of samples per chain.
	DefaultSamples = 1000
	// DefaultBurnIn is the default number of discarded steps per chain.
	DefaultBurnIn = 100
	// MaxTemp is the highest default SampleSAT temperature (Alchemy's
	// -saTemp 80, in hundredths); see Options.Temp.
	MaxTemp = 0.8
	// DefaultWalkProb is the default probability that a SampleSAT move
	// made while a selected clause is violated is a WalkSAT move (Alchemy's
	// -saRatio 50: half the moves are annealing moves).
	DefaultWalkProb = 0.5
	// DefaultNoise is the default noise of the WalkSAT search for the
	// initial world.
	DefaultNoise = 0.5
	// DefaultInitSteps is the default step limit of the WalkSAT search
	// for a world satisfying the hard clauses.
	DefaultInitSteps = 1000000
	// DefaultExactAtoms is the default size, in atoms, up to which a
	// connected component's marginals are computed exactly, by
	// enumerating its worlds, instead of sampled (see
	// Options.ExactAtoms).
	DefaultExactAtoms = 12
)

// ErrHard is returned when no world satisfying the hard clauses was found.
var ErrHard = errors.New("mcsat: could not satisfy the hard clauses")

// Options are the sampler settings. Zero values select the defaults.
type Options struct {
	infer.Options
	// Samples is the number of samples each chain contributes (default
	// DefaultSamples).
	Samples int
	// BurnIn is the number of steps each chain discards first (default
	// DefaultBurnIn; negative means none).
	BurnIn int
	// Chains is the number of independent chains, each started from its
	// own world satisfying the hard clauses (default 1 for MCSAT and
	// Gibbs, DefaultChains() for Run and Sampling).
	Chains int
	// Replicas, for Run and Sampling, is the number of tempered replicas
	// of each chain (parallel tempering; default 1: none), at weight
	// scales geometric from 1 down to MinBeta (default DefaultMinBeta).
	Replicas int
	MinBeta  float64
	// BlockWeight and MaxBlock, for Run and Sampling, set the block moves:
	// after every step each chain resamples, jointly from their
	// conditional distribution, the atoms of each block that clauses of
	// weight at least BlockWeight in absolute value (default
	// DefaultBlockWeight; negative: no block moves) tie together, blocks
	// of at most MaxBlock atoms (default DefaultMaxBlock); with them, each
	// chain flips together the classes of atoms that pairs of hard binary
	// clauses tie (see Sampling).
	BlockWeight float64
	MaxBlock    int
	// Stars, for MCSAT, Run, Sampling and Chain, adds star moves after every
	// step: each atom in no hard clause with two or more neighbours of at
	// most StarLeafDegree clauses (default DefaultStarLeafDegree), no two
	// of them in one clause, is resampled jointly with those neighbours
	// (its leaves) from their conditional distribution, the leaves summed
	// out exactly (they are independent given the hub). An atom that
	// clauses tie to many otherwise free atoms (a field atom of entity
	// resolution and the citation pairs it links) then changes with them
	// in one move.
	//
	// AutoStars, without Stars, makes the star moves of a network (of
	// each connected component, in Run and Sampling) only when one of its
	// hubs weighs at least StarWeight (default DefaultStarWeight): when a
	// flip of the hub alone, its leaves agreeing with it, would cost that
	// many nats, a state a single-site sampler would not leave. A network
	// without such a hub runs as without star moves, draw for draw. Every star move is an exact block Gibbs
	// move, so neither option changes the distribution sampled, only how
	// fast the chains mix and what a step costs.
	Stars          bool
	AutoStars      bool
	StarLeafDegree int
	StarWeight     float64

	// Flips is the number of SampleSAT moves per MC-SAT step (default:
	// the number of unfixed atoms in selected clauses; the other unfixed
	// atoms are drawn uniformly at random directly).
	Flips int
	// Temp is SampleSAT's temperature: the excursions away from the
	// satisfying worlds sample worlds with probability proportional to
	// exp(-E/Temp), E the number of violated selected clauses. Any
	// temperature gives uniform samples; it only sets how far and how long
	// the excursions go. The default is min(MaxTemp, 1/ln(k)) for k
	// constrained atoms, which keeps excursions short on large networks.
	Temp float64
	// WalkProb is the probability that a SampleSAT move made while some
	// selected clause is violated flips an atom of a random violated
	// clause (a WalkSAT move) rather than a random atom (default
	// DefaultWalkProb; negative means 0). Moves are Metropolis-Hastings
	// corrected, so sampling stays uniform.
	WalkProb float64
	// Noise is the noise of the WalkSAT search for the initial world when
	// the exact search gives up (default DefaultNoise).
	Noise float64
	// InitSteps bounds that WalkSAT search (default DefaultInitSteps).
	InitSteps int

	// HardWeight, when positive, is the weight Gibbs sampling gives hard
	// clauses; by default they are constraints the chain never violates.
	HardWeight float64

	// ExactAtoms, for Components, Engine, Run and Sampling, is the size
	// (in atoms) up to which a connected component's marginals are
	// computed exactly, by enumerating its 2^n worlds, instead of sampled
	// (default DefaultExactAtoms; negative: every component with a clause
	// is sampled). Exact marginals carry no Monte Carlo error, so atoms
	// that clauses of small weight set apart are ranked by those weights,
	// not by sampling noise. A component whose hard clauses no world
	// satisfies is sampled as before.
	ExactAtoms int

	// Indicators, for MC-SAT, estimates each marginal by the fraction of
	// the recorded worlds in which the atom is true. By default the
	// estimate is the mean over the recorded worlds of the atom's
	// probability given the rest of the world (Rao-Blackwellised, as Gibbs
	// sampling always is): the same expectation with less variance, nearly
	// none for an atom that clauses tie only weakly to the others, for a
	// pass over the clauses with at most one true literal per recorded
	// world (on UW-CSE's advisedBy network, a run of 2 chains of 5,000
	// samples took 2.7 s of CPU against 1.2 s).
	Indicators bool

	// selection forces one way of drawing MC-SAT's clause selection (the
	// package's tests and benchmarks compare them); zero chooses per step.
	selection selectMode
}

// selectMode is how an MC-SAT step draws its clause selection.
type selectMode int

const (
	selectAuto  selectMode = iota // skipping or by atoms, whichever visits fewer
	selectSkip                    // group by group, rare ones by geometric skipping
	selectAtoms                   // from the unfixed atoms' occurrences
	selectNaive                   // one draw per clause
)

func (o *Options) defaults() {
	if o.Samples <= 0 {
		o.Samples = DefaultSamples
	}
	if o.BurnIn == 0 {
		o.BurnIn = DefaultBurnIn
	}
	if o.BurnIn < 0 {
		o.BurnIn = 0
	}
	if o.Chains <= 0 {
		o.Chains = 1
	}
	if o.WalkProb == 0 {
		o.WalkProb = DefaultWalkProb
	}
	o.WalkProb = min(max(o.WalkProb, 0), 1)
	if o.Noise <= 0 {
		o.Noise = DefaultNoise
	}
	if o.InitSteps <= 0 {
		o.InitSteps = DefaultInitSteps
	}
}

func prepare(ctx context.Context, net *ground.Network, opt *Options) (*model, error) {
	if opt.Bias != nil && len(opt.Bias) != net.NumAtoms() {
		return nil, errors.New("mcsat: Bias has the wrong length")
	}
	opt.defaults()
	return newModel(ctx, net, opt.Bias)
}

// newChain returns a state for chain k seeded from opt.Seed, in a world
// satisfying the hard clauses (see startChain).
func newChain(m *model, opt *Options, k int) (*state, error) {
	return startChain(m, opt, rand.New(rand.NewPCG(uint64(opt.Seed), 0x6a09e667f3bcc909+uint64(k))), k)
}

// MCSAT returns the marginal probability of each atom of net being true,
// estimated by MC-SAT: the mean over the samples of the atom's probability
// given the rest of the sampled world (Rao-Blackwellised: the same
// expectation as the fraction of samples in which the atom is true, with
// less variance; an atom that clauses tie only weakly to the others gets
// nearly its exact marginal from few samples), or with Options.Indicators
// that fraction.
func MCSAT(ctx context.Context, net *ground.Network, opt Options) ([]float64, error) {
	m, err := prepare(ctx, net, &opt)
	if err != nil {
		return nil, err
	}
	counts := make([]float64, m.n)
	cond, diff, force := make([]float64, m.n), make([]float64, m.n), make([]uint8, m.n)
	stars := m.chooseStars(&opt)
	gain := starScratch(stars)
	for k := 0; k < opt.Chains; k++ {
		s, err := newChain(m, &opt, k)
		if err != nil {
			return nil, err
		}
		for step := 0; step < opt.BurnIn+opt.Samples; step++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			s.mcsatStep(&opt)
			s.starSweep(stars, gain)
			if step >= opt.BurnIn {
				if opt.Indicators {
					for a, v := range s.y {
						if v {
							counts[a]++
						}
					}
					continue
				}
				s.conditionals(cond, diff, force, opt.HardWeight)
				for a, p := range cond {
					counts[a] += p
				}
			}
		}
	}
	total := float64(opt.Chains * opt.Samples)
	for a := range counts {
		counts[a] /= total
	}
	return counts, nil
}

// mcsatStep selects the clauses and moves the world by SampleSAT.
//
// Every clause in its preferred state is selected with its probability,
// independently, so the selections can be drawn in any order. Selected
// units of positive weight and selected clauses of negative weight fix
// their atoms (at their current values) and are drawn first. When few
// atoms remain unfixed, the longer clauses of positive weight are then
// drawn from the occurrences of the unfixed atoms, and only those that can
// constrain the next world (no true literal on a fixed atom; the others
// hold in the whole slice); otherwise they are drawn one by one. Rarely
// selected clauses are drawn by geometric skipping (see selGroup).
func (s *state) mcsatStep(opt *Options) {
	m := s.m
	s.begin()
	if opt.selection == selectNaive {
		s.selectNaive()
	} else {
		for _, c := range m.denseFixing {
			if s.preferred(c) && (m.sel[c] >= 1 || s.rng.Float64() < m.sel[c]) {
				s.fixClause(c)
			}
		}
		for g := range m.sparseFixing {
			grp := &m.sparseFixing[g]
			for i := s.next(grp, 0); i < len(grp.clauses); i = s.next(grp, i+1) {
				if c := grp.clauses[i]; s.preferred(c) && s.keep(grp, c) {
					s.fixClause(c)
				}
			}
		}
		occ := len(m.occ) - s.fixedOcc // occurrences of the unfixed atoms
		if opt.selection == selectAtoms || opt.selection == selectAuto && float64(occ) < m.multiVisits {
			s.selectByAtoms()
		} else {
			for _, c := range m.denseMulti {
				if s.numTrue[c] > 0 && (m.sel[c] >= 1 || s.rng.Float64() < m.sel[c]) {
					s.activate(int(c))
				}
			}
			for g := range m.sparseMulti {
				grp := &m.sparseMulti[g]
				for i := s.next(grp, 0); i < len(grp.clauses); i = s.next(grp, i+1) {
					if c := grp.clauses[i]; s.numTrue[c] > 0 && s.keep(grp, c) {
						s.activate(int(c))
					}
				}
			}
		}
	}
	s.collectFree()
	steps := opt.Flips
	if steps <= 0 {
		steps = len(s.cons)
	}
	maxExc := 100 + 10*len(s.cons)
	if maxExc > 100000 {
		maxExc = 100000
	}
	lambda := 1 / MaxTemp
	if opt.Temp > 0 {
		lambda = 1 / opt.Temp
	} else if k := float64(len(s.cons)); k > 1 && math.Log(k) > lambda {
		lambda = math.Log(k)
	}
	s.sampleSAT(steps, lambda, opt.WalkProb, maxExc)
}

// preferred reports whether the fixing clause c (a unit of positive
// weight or a clause of negative weight) is in its preferred state.
func (s *state) preferred(c int32) bool {
	return (s.numTrue[c] > 0) == (s.m.w[c] > 0)
}

// fixClause fixes the atoms of the selected fixing clause c at their
// current values, counting the occurrences of the fixed atoms.
func (s *state) fixClause(c int32) {
	m := s.m
	for _, l := range m.clause(int(c)) {
		if a := l.Atom(); s.fixedAt[a] != s.epoch {
			s.fixedAt[a] = s.epoch
			s.fixedOcc += int(m.occStart[a+1] - m.occStart[a])
		}
	}
}

// next returns the position, from i on, of the next clause of g to
// visit: i plus a geometric gap of failures with probability g.p
// (len(g.clauses) when the group is done).
func (s *state) next(g *selGroup, i int) int {
	if i >= len(g.clauses) {
		return i
	}
	u := 1 - s.rng.Float64() // in (0, 1]
	gap := math.Log(u) / g.logq
	if gap >= float64(len(g.clauses)-i) {
		return len(g.clauses)
	}
	return i + int(gap)
}

// keep draws whether the visited clause c of group g is selected: with
// probability sel/g.p, so that it is selected with probability sel in all.
func (s *state) keep(g *selGroup, c int32) bool {
	p := s.m.sel[c]
	return p >= g.p || s.rng.Float64()*g.p < p
}

// constrains reports whether the selected longer clause c of positive
// weight is true and has no true literal on a fixed atom, so that it
// constrains the next world.
func (s *state) constrains(c int32) bool {
	if s.numTrue[c] == 0 {
		return false
	}
	for _, l := range s.m.clause(int(c)) {
		if s.fixedAt[l.Atom()] == s.epoch && l.True(s.y) {
			return false
		}
	}
	return true
}

// selectByAtoms draws the selection of the longer clauses of positive
// weight that touch an unfixed atom, visiting each such clause once from
// the occurrences of the unfixed atoms. The other clauses have every atom
// fixed: true ones hold in the whole slice, false ones are not selected.
func (s *state) selectByAtoms() {
	m := s.m
	for a := range s.fixedAt {
		if s.fixedAt[a] == s.epoch {
			continue
		}
		for _, o := range m.occurrences(int32(a)) {
			c := o >> 1
			if !m.multi[c] || s.visitAt[c] == s.epoch {
				continue
			}
			s.visitAt[c] = s.epoch
			if !s.constrains(c) {
				continue
			}
			if p := m.sel[c]; p >= 1 || s.rng.Float64() < p {
				s.activate(int(c))
			}
		}
	}
}

// selectNaive is the textbook selection: one draw per clause in its
// preferred state, kept to measure the skipping selection against.
func (s *state) selectNaive() {
	m := s.m
	rng := s.rng
	for c, w := range m.w {
		switch {
		case w > 0:
			if s.numTrue[c] > 0 && (w > math.MaxFloat64 || rng.Float64() < m.sel[c]) {
				s.activate(c)
			}
		case s.numTrue[c] == 0 && (w < -math.MaxFloat64 || rng.Float64() < m.sel[c]):
			// The clause is false and stays false: fix its atoms.
			for _, l := range m.clause(c) {
				s.fixedAt[l.Atom()] = s.epoch
			}
		}
	}
}

// Gibbs returns the marginal probability of each atom of net being true,
// estimated by Gibbs sampling: each sweep resamples every atom from its
// distribution given the rest of the world. The estimate averages these
// conditional probabilities over the sweeps (Rao-Blackwellised). Hard
// clauses are constraints the chain never violates, unless
// Options.HardWeight gives them a finite weight; with hard constraints the
// chain may be unable to reach every world, so use several chains.
func Gibbs(ctx context.Context, net *ground.Network, opt Options) ([]float64, error) {
	m, err := prepare(ctx, net, &opt)
	if err != nil {
		return nil, err
	}
	sum := make([]float64, m.n)
	for k := 0; k < opt.Chains; k++ {
		s, err := newChain(m, &opt, k)
		if err != nil {
			return nil, err
		}
		s.begin() // nothing active: flips need no clause lists
		for sweep := 0; sweep < opt.BurnIn+opt.Samples; sweep++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			record := sweep >= opt.BurnIn
			for a := range s.y {
				p := s.conditional(int32(a), opt.HardWeight)
				if record {
					sum[a] += p
				}
				if v := s.rng.Float64() < p; v != s.y[a] {
					s.flip(int32(a))
				}
			}
		}
	}
	total := float64(opt.Chains * opt.Samples)
	for a := range sum {
		sum[a] /= total
	}
	return sum, nil
}

// conditional returns the probability that atom a is true given the other
// atoms. Hard clauses weigh hardWeight, or force the atom when hardWeight
// is not positive.
func (s *state) conditional(a int32, hardWeight float64) float64 {
	m := s.m
	ya := s.y[a]
	diff := 0.0 // score(a true) - score(a false)
	var force uint8
	for _, o := range m.occurrences(a) {
		c := o >> 1
		neg := o&1 == 1
		litTrue := ya != neg
		others := s.numTrue[c]
		if litTrue {
			others--
		}
		if others > 0 {
			continue // the clause holds whatever a is
		}
		// The clause is true exactly when a's literal is: when a is true
		// for a positive literal, false for a negative one.
		d, f := pull(m.w[c], neg, hardWeight)
		diff += d
		force |= f
	}
	return condProb(diff, force, ya)
}

// The values a clause can force on an atom (pull, condProb).
const (
	forceT uint8 = 1 << iota
	forceF
)

// pull returns what a clause of weight w that is true exactly when a
// literal of atom a (negative when neg) is adds to score(a true) -
// score(a false), or, for a hard clause, the value it forces on a. Hard
// clauses weigh hardWeight when it is positive.
func pull(w float64, neg bool, hardWeight float64) (diff float64, force uint8) {
	if math.IsInf(w, 0) && hardWeight > 0 {
		w = math.Copysign(hardWeight, w)
	}
	switch {
	case math.IsInf(w, 0) && (w > 0) == neg:
		return 0, forceF // a hard clause true when a is false, or a hard negated one true when it is true
	case math.IsInf(w, 0):
		return 0, forceT
	case neg:
		return -w, 0
	}
	return w, 0
}

// condProb returns the probability that an atom whose current value is ya
// is true, given score(true) - score(false) = diff and the values its
// clauses force (when they force both, it keeps its value).
func condProb(diff float64, force uint8, ya bool) float64 {
	switch force {
	case forceT | forceF:
		if ya {
			return 1
		}
		return 0
	case forceT:
		return 1
	case forceF:
		return 0
	}
	return 1 / (1 + math.Exp(-diff))
}

// Memory is what MCSAT, Gibbs and Components take on top of the network
// (ground.Options.Engine), fitted to the peak live heap on real groundings
// (infer/memory_test.go).
var Memory = ground.EngineCost{PerAtom: 80, PerClause: 150, PerLit: 24}

// conditionals sets dst[a] to the probability that atom a is true given
// the other atoms, for every atom, as conditional does, in one pass over
// the clauses: only a clause with at most one true literal changes when
// one atom flips (every literal of a false clause, the true literal of a
// clause with one), so the clauses with two or more are skipped. diff and
// force are scratch space of the atoms' length.
func (s *state) conditionals(dst, diff []float64, force []uint8, hardWeight float64) {
	m := s.m
	clear(diff)
	clear(force)
	for c := 0; c < m.numClauses(); c++ {
		nt := s.numTrue[c]
		if nt >= 2 {
			continue
		}
		for _, l := range m.clause(c) {
			a := l.Atom()
			neg := l.Neg()
			if nt == 1 && s.y[a] == neg {
				continue // a false literal of a clause another literal holds
			}
			d, f := pull(m.w[c], neg, hardWeight)
			diff[a] += d
			force[a] |= f
		}
	}
	for a := range dst {
		dst[a] = condProb(diff[a], force[a], s.y[a])
	}
}
