package mcsat

import (
	"math"
	"math/rand/v2"
)

// state is a world with the bookkeeping both samplers share: the number of
// true literals of every clause and, for SampleSAT, the set of active
// (selected) clauses, the atoms fixed in this MC-SAT step, and the list of
// active clauses that are false.
type state struct {
	m   *model
	rng *rand.Rand
	y   []bool

	numTrue []int32

	epoch    int32
	activeAt []int32 // clause active when activeAt[c] == epoch
	visitAt  []int32 // clause seen by selectByAtoms when visitAt[c] == epoch
	fixedOcc int     // occurrences of the atoms fixed in this epoch

	fixedAt  []int32 // atom fixed when fixedAt[a] == epoch
	consAt   []int32 // atom in an active clause when consAt[a] == epoch
	free     []int32 // atoms neither fixed nor in an active clause
	cons     []int32 // atoms in an active clause and not fixed
	unsat    []int32
	unsatPos []int32
	log      []int32
	bits     uint64

	// scoreW, when set (tempered replicas), is the weight at scale 1 of
	// each soft clause (0 for hard ones), and score the sum of scoreW over
	// the true clauses, kept up to date by flip.
	scoreW []float64
	score  float64

	lambda float64
	expTab [2*expMid + 1]float64 // exp(-lambda*(i-expMid))
}

const expMid = 8

// setLambda sets the inverse temperature of the excursion chain.
func (s *state) setLambda(lambda float64) {
	if lambda == s.lambda {
		return
	}
	s.lambda = lambda
	for i := range s.expTab {
		s.expTab[i] = math.Exp(-lambda * float64(i-expMid))
	}
}

func newState(m *model, rng *rand.Rand) *state {
	nc := m.numClauses()
	s := &state{
		m:        m,
		rng:      rng,
		y:        make([]bool, m.n),
		numTrue:  make([]int32, nc),
		activeAt: make([]int32, nc),
		visitAt:  make([]int32, nc),
		fixedAt:  make([]int32, m.n),
		consAt:   make([]int32, m.n),
		unsatPos: make([]int32, nc),
	}
	return s
}

// recount recomputes the true-literal counts from s.y.
func (s *state) recount() {
	for c := range s.numTrue {
		nt := int32(0)
		for _, l := range s.m.clause(c) {
			if l.True(s.y) {
				nt++
			}
		}
		s.numTrue[c] = nt
	}
}

// begin starts a new set of active clauses and fixed atoms.
func (s *state) begin() {
	s.epoch++
	if s.epoch == math.MaxInt32 {
		clear(s.activeAt)
		clear(s.visitAt)
		clear(s.fixedAt)
		clear(s.consAt)
		s.epoch = 1
	}
	s.unsat = s.unsat[:0]
	s.fixedOcc = 0
}

func (s *state) activate(c int) {
	s.activeAt[c] = s.epoch
	for _, l := range s.m.clause(c) {
		s.consAt[l.Atom()] = s.epoch
	}
	if s.numTrue[c] == 0 {
		s.unsatPos[c] = int32(len(s.unsat))
		s.unsat = append(s.unsat, int32(c))
	}
}

// fixFalse fixes every atom of clause c so that its literal is false.
func (s *state) fixFalse(c int) {
	for _, l := range s.m.clause(c) {
		a := l.Atom()
		s.fixedAt[a] = s.epoch
		if l.True(s.y) {
			s.flip(a)
		}
	}
}

// collectFree lists the atoms not fixed in this epoch, separating those
// in some active clause from the others.
func (s *state) collectFree() {
	s.free, s.cons = s.free[:0], s.cons[:0]
	for a := range s.fixedAt {
		switch {
		case s.fixedAt[a] == s.epoch:
		case s.consAt[a] == s.epoch:
			s.cons = append(s.cons, int32(a))
		default:
			s.free = append(s.free, int32(a))
		}
	}
}

// flip flips atom a, keeping the counts and the unsatisfied active clauses.
func (s *state) flip(a int32) {
	s.y[a] = !s.y[a]
	ya := s.y[a]
	for _, o := range s.m.occurrences(a) {
		c := o >> 1
		if ya != (o&1 == 1) {
			s.numTrue[c]++
			if s.numTrue[c] == 1 && s.scoreW != nil {
				s.score += s.scoreW[c]
			}
			if s.numTrue[c] == 1 && s.activeAt[c] == s.epoch {
				i := s.unsatPos[c]
				last := s.unsat[len(s.unsat)-1]
				s.unsat[i] = last
				s.unsatPos[last] = i
				s.unsat = s.unsat[:len(s.unsat)-1]
			}
		} else {
			s.numTrue[c]--
			if s.numTrue[c] == 0 && s.scoreW != nil {
				s.score -= s.scoreW[c]
			}
			if s.numTrue[c] == 0 && s.activeAt[c] == s.epoch {
				s.unsatPos[c] = int32(len(s.unsat))
				s.unsat = append(s.unsat, c)
			}
		}
	}
}

// makeBreak returns the number of active clauses that flipping a would
// make true and break (make false).
func (s *state) makeBreak(a int32) (mk, br int) {
	ya := s.y[a]
	for _, o := range s.m.occurrences(a) {
		c := o >> 1
		if s.activeAt[c] != s.epoch {
			continue
		}
		litTrue := ya != (o&1 == 1)
		switch nt := s.numTrue[c]; {
		case nt == 0:
			mk++
		case nt == 1 && litTrue:
			br++
		}
	}
	return mk, br
}

// mhMove is one Metropolis-Hastings move of the excursion chain, whose
// stationary distribution is proportional to exp(-lambda*E) with E the
// number of false active clauses. The proposal flips one atom: while some
// active clause is false, with probability beta a random atom of a random
// false active clause (a WalkSAT random-walk move), otherwise a random
// constrained atom (an annealing move). The acceptance ratio accounts for
// both the energy change and the proposal probabilities in both
// directions, so the chain is reversible.
func (s *state) mhMove(lambda, beta float64) {
	m := s.m
	nc := float64(len(s.cons))
	u := len(s.unsat)
	var a int32
	if u > 0 && beta > 0 && s.rng.Float64() < beta {
		lits := m.clause(int(s.unsat[s.rng.IntN(u)]))
		a = lits[s.rng.IntN(len(lits))].Atom()
		if s.fixedAt[a] == s.epoch {
			return // not a move: stay
		}
	} else {
		a = s.cons[s.rng.IntN(len(s.cons))]
	}
	ya := s.y[a]
	mk, br := 0, 0
	fm, fb := 0.0, 0.0
	for _, o := range m.occurrences(a) {
		c := o >> 1
		if s.activeAt[c] != s.epoch {
			continue
		}
		switch nt := s.numTrue[c]; {
		case nt == 0:
			mk++
			fm += 1 / float64(m.start[c+1]-m.start[c])
		case nt == 1 && ya != (o&1 == 1):
			br++
			fb += 1 / float64(m.start[c+1]-m.start[c])
		}
	}
	// Forward and reverse proposal probabilities.
	q := func(u int, f float64) float64 {
		if u == 0 || beta == 0 {
			return 1 / nc
		}
		return (1-beta)/nc + beta*f/float64(u)
	}
	var boltz float64
	if d := br - mk + expMid; d >= 0 && d < len(s.expTab) {
		boltz = s.expTab[d]
	} else {
		boltz = math.Exp(-lambda * float64(br-mk))
	}
	ratio := boltz * q(u-mk+br, fb) / q(u, fm)
	if ratio >= 1 || s.rng.Float64() < ratio {
		s.flip(a)
		s.log = append(s.log, a)
	}
}

// walkMove is a WalkSAT step: pick a random false active clause and flip
// one of its free atoms, with probability noise a random one, otherwise one
// that breaks the fewest active clauses.
func (s *state) walkMove(noise float64) {
	c := s.unsat[s.rng.IntN(len(s.unsat))]
	lits := s.m.clause(int(c))
	var chosen int32 = -1
	if s.rng.Float64() < noise {
		nfree := 0
		for _, l := range lits {
			if a := l.Atom(); s.fixedAt[a] != s.epoch {
				nfree++
				if s.rng.IntN(nfree) == 0 {
					chosen = a
				}
			}
		}
	} else {
		best, nbest := math.MaxInt, 0
		for _, l := range lits {
			a := l.Atom()
			if s.fixedAt[a] == s.epoch {
				continue
			}
			_, br := s.makeBreak(a)
			switch {
			case br < best:
				best, chosen, nbest = br, a, 1
			case br == best:
				nbest++
				if s.rng.IntN(nbest) == 0 {
					chosen = a
				}
			}
		}
	}
	if chosen >= 0 {
		s.flip(chosen)
		s.log = append(s.log, chosen)
	}
}

// sampleSAT moves the world, which satisfies the active clauses, to another
// world that satisfies them. The satisfying worlds are the product of those
// over the constrained atoms (the unfixed atoms of active clauses) and all
// assignments of the other unfixed atoms, so the latter are drawn uniformly
// at random. The constrained atoms make steps moves of the chain observed
// only when every active clause holds: from a satisfying world, run the
// reversible excursion chain (mhMove) until all active clauses hold again.
// A reversible chain observed on a subset of its states keeps its
// stationary distribution restricted to that subset, here uniform, so the
// moves leave the uniform distribution over satisfying worlds invariant.
// An excursion longer than maxExc moves is undone.
func (s *state) sampleSAT(steps int, lambda, beta float64, maxExc int) {
	s.setLambda(lambda)
	for i, a := range s.free {
		if i&63 == 0 {
			s.bits = s.rng.Uint64()
		}
		if v := s.bits&1 == 1; v != s.y[a] {
			s.flip(a)
		}
		s.bits >>= 1
	}
	if len(s.cons) == 0 {
		return
	}
	for range steps {
		s.log = s.log[:0]
		s.mhMove(lambda, beta)
		for k := 0; len(s.unsat) > 0; k++ {
			if k >= maxExc {
				for i := len(s.log) - 1; i >= 0; i-- {
					s.flip(s.log[i])
				}
				break
			}
			s.mhMove(lambda, beta)
		}
	}
}

// walkSAT runs WalkSAT on the active clauses until they all hold or
// maxSteps moves are made, and reports whether they all hold.
func (s *state) walkSAT(maxSteps int, noise float64) bool {
	for k := 0; k < maxSteps && len(s.unsat) > 0; k++ {
		s.log = s.log[:0]
		s.walkMove(noise)
	}
	return len(s.unsat) == 0
}
