package hybrid

import (
	"math"
	"math/rand/v2"
)

// The Boolean move of hybrid MC-SAT, in the manner of SampleSAT: with the
// continuous variables fixed, the slice is a satisfiability problem over
// the Boolean variables (every ground hard formula holds; every soft
// feature stays at or above its level), and the move leaves the uniform
// distribution over its solutions invariant while being able to cross
// regions that single flips within the slice cannot (two atoms that a hard
// formula ties, say).
//
// It runs a Metropolis-Hastings chain on all Boolean states, whose target
// is exp(-lambda * the number of violated constraints) (uniform over the
// solutions; lambda is set in newBoolMover), from the current solution until it is at a solution again;
// the state it stops at is the next one. The chain's proposals flip one
// variable: a variable of a violated constraint (with probability walkProb
// while some constraint is violated, as WalkSAT does) or any variable,
// corrected by the ratio of the reverse and forward proposal
// probabilities. The chain watched at the solutions leaves the target
// restricted to them (uniform) invariant; an excursion that does not come
// back within maxExc moves is undone, which keeps the watched chain
// symmetric (the probability of going from one solution to another by an
// excursion of given length is that of the reverse path, the target being
// equal at both ends), so still exact.

// walkProb is the probability of a WalkSAT proposal in the Boolean move
// while a constraint is violated.
const walkProb = 0.5

// vset is a set of ground features with O(1) insertion, removal and
// uniform draw.
type vset struct {
	pos  []int32 // per ground feature: its index in list, or -1
	list []int32
}

func newVset(n int) *vset {
	s := &vset{pos: make([]int32, n)}
	for i := range s.pos {
		s.pos[i] = -1
	}
	return s
}

func (s *vset) has(i int32) bool { return s.pos[i] >= 0 }

func (s *vset) toggle(i int32) {
	if k := s.pos[i]; k >= 0 {
		last := s.list[len(s.list)-1]
		s.list[k] = last
		s.pos[last] = k
		s.list = s.list[:len(s.list)-1]
		s.pos[i] = -1
		return
	}
	s.pos[i] = int32(len(s.list))
	s.list = append(s.list, i)
}

// boolMover makes the Boolean moves of one Sample call.
type boolMover struct {
	p       *Problem
	rng     *rand.Rand
	level   []float64
	viol    *vset
	log     []int32
	changed []int32
	lambda  float64
	maxExc  int
}

func (p *Problem) newBoolMover(rng *rand.Rand, level []float64) *boolMover {
	// lambda balances the proposals: a uniform proposal is about
	// len(Bools) / (mean variables per feature) times less likely than
	// the WalkSAT proposal of the same flip, and with lambda the log of
	// that ratio, breaking one constraint and repairing it are both
	// accepted with probabilities of order 1 in the Metropolis-Hastings
	// correction, whatever the size of the problem.
	feats, vars := 0, 0
	for i := range p.ground {
		if k := len(p.gvars[i]); k > 0 {
			feats++
			vars += k
		}
	}
	lambda := 1 / 0.8
	if vars > 0 {
		lambda = max(lambda, math.Log(float64(len(p.Bools))*float64(feats)/float64(vars)))
	}
	return &boolMover{
		p: p, rng: rng, level: level, viol: newVset(len(p.ground)),
		lambda: lambda,
		maxExc: min(100_000, 100+10*len(p.Bools)),
	}
}

// violated reports whether ground feature f is outside the slice.
func (m *boolMover) violated(f int32, b []bool, x []float64) bool {
	p := m.p
	if gf := &p.ground[f]; gf.hard {
		return !gf.cond.eval(b)
	}
	return p.weighted(f, b, x) < m.level[f]
}

// flip flips Boolean variable v and updates the violated set.
func (m *boolMover) flip(v int32, b []bool, x []float64) {
	b[v] = !b[v]
	m.changed = m.changed[:0]
	for _, f := range m.p.boolOcc[v] {
		if m.violated(f, b, x) != m.viol.has(f) {
			m.viol.toggle(f)
			m.changed = append(m.changed, f)
		}
	}
}

// propose returns the probability of proposing to flip v in the current
// state.
func (m *boolMover) propose(v int32) float64 {
	n := float64(len(m.p.Bools))
	u := len(m.viol.list)
	if u == 0 {
		return 1 / n
	}
	s := 0.0
	for _, f := range m.p.boolOcc[v] {
		if m.viol.has(f) {
			s += 1 / float64(len(m.p.gvars[f]))
		}
	}
	return walkProb*s/float64(u) + (1-walkProb)/n
}

// mh makes one Metropolis-Hastings move.
func (m *boolMover) mh(b []bool, x []float64) {
	p, rng := m.p, m.rng
	u := len(m.viol.list)
	var v int32
	if u > 0 && rng.Float64() < walkProb {
		vs := p.gvars[m.viol.list[rng.IntN(u)]]
		v = vs[rng.IntN(len(vs))]
	} else {
		v = int32(rng.IntN(len(b)))
	}
	fwd := m.propose(v)
	m.flip(v, b, x)
	a := math.Exp(-m.lambda*float64(len(m.viol.list)-u)) * m.propose(v) / fwd
	if a >= 1 || rng.Float64() < a {
		m.log = append(m.log, v)
		return
	}
	b[v] = !b[v]
	for _, f := range m.changed {
		m.viol.toggle(f)
	}
}

// move makes steps watched moves from the current state, which must be in
// the slice (no constraint violated).
func (m *boolMover) move(steps int, b []bool, x []float64) {
	if len(b) == 0 {
		return
	}
	for range steps {
		m.log = m.log[:0]
		m.mh(b, x)
		for k := 0; len(m.viol.list) > 0; k++ {
			if k >= m.maxExc {
				for i := len(m.log) - 1; i >= 0; i-- {
					m.flip(m.log[i], b, x)
				}
				break
			}
			m.mh(b, x)
		}
	}
}

// satisfyHard moves b by WalkSAT on the ground hard formulas until they
// all hold or maxSteps flips are made, and reports whether they all hold.
// A step picks a violated hard formula at random and flips one of its
// atoms: at random with probability noise, else the one leaving the fewest
// violated.
func (p *Problem) satisfyHard(b []bool, rng *rand.Rand, maxSteps int, noise float64) bool {
	viol := newVset(len(p.ground))
	for _, i := range p.hard {
		if !p.ground[i].cond.eval(b) {
			viol.toggle(i)
		}
	}
	for step := 0; step < maxSteps && len(viol.list) > 0; step++ {
		vs := p.gvars[viol.list[rng.IntN(len(viol.list))]]
		v := vs[rng.IntN(len(vs))]
		if rng.Float64() >= noise {
			best, k := math.MaxInt, 0
			for _, u := range vs {
				d := p.hardDelta(u, b)
				if d < best {
					best, v, k = d, u, 1
				} else if d == best {
					if k++; rng.IntN(k) == 0 {
						v = u
					}
				}
			}
		}
		b[v] = !b[v]
		for _, f := range p.boolOcc[v] {
			if p.ground[f].hard && p.ground[f].cond.eval(b) == viol.has(f) {
				viol.toggle(f)
			}
		}
	}
	return len(viol.list) == 0
}
