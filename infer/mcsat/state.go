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
	fixedAt  []int32 // atom fixed when fixedAt[a] == epoch
	consAt   []int32 // atom in an active clause when consAt[a] == epoch
	free     []int32 // atoms neither fixed nor in an active clause
	cons     []int32 // atoms in an active clause and not fixed
	unsat    []int32
	unsatPos []int32
	log      []int32
	bits     uint64
}

func newState(m *model, rng *rand.Rand) *state {
	nc := m.numClauses()
	s := &state{
		m:        m,
		rng:      rng,
		y:        make([]bool, m.n),
		numTrue:  make([]int32, nc),
		activeAt: make([]int32, nc),
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
		clear(s.fixedAt)
		clear(s.consAt)
		s.epoch = 1
	}
	s.unsat = s.unsat[:0]
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
			if s.numTrue[c] == 1 && s.activeAt[c] == s.epoch {
				i := s.unsatPos[c]
				last := s.unsat[len(s.unsat)-1]
				s.unsat[i] = last
				s.unsatPos[last] = i
				s.unsat = s.unsat[:len(s.unsat)-1]
			}
		} else {
			s.numTrue[c]--
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

// saMove proposes flipping a random constrained atom and accepts by the
// Metropolis rule for the energy "number of false active clauses" at
// temperature temp.
func (s *state) saMove(temp float64) {
	a := s.cons[s.rng.IntN(len(s.cons))]
	s.saFlip(a, temp)
}

func (s *state) saFlip(a int32, temp float64) {
	mk, br := s.makeBreak(a)
	if d := br - mk; d <= 0 || s.rng.Float64() < math.Exp(-float64(d)/temp) {
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
// world that satisfies them. The solutions are the product of the
// solutions over the constrained atoms and all assignments of the free
// ones, so the free atoms are drawn uniformly at random. The constrained
// ones make steps moves of the chain that, from a satisfying world,
// proposes a simulated-annealing flip of a random constrained atom and,
// when that breaks clauses, walks (WalkSAT moves with probability walkProb,
// SA moves otherwise) until all active clauses hold again. The world is
// only observed when every active clause holds, so with walkProb 0 the
// moves leave the uniform distribution over the satisfying worlds invariant
// (a reversible chain observed on a subset of its states keeps the
// restricted stationary distribution). An excursion longer than maxExc
// moves is undone.
func (s *state) sampleSAT(steps int, temp, walkProb, noise float64, maxExc int) {
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
		s.saMove(temp)
		for k := 0; len(s.unsat) > 0; k++ {
			if k >= maxExc {
				for i := len(s.log) - 1; i >= 0; i-- {
					s.flip(s.log[i])
				}
				break
			}
			if walkProb > 0 && s.rng.Float64() < walkProb {
				s.walkMove(noise)
			} else {
				s.saMove(temp)
			}
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
