package mcsat

import (
	"math"
)

// DefaultReplicas is the number of tempered replicas per chain of Run and
// Sampling when Options.Replicas is not set.
const DefaultReplicas = 1

// DefaultMinBeta is the lowest weight scale of the tempered replicas of a
// chain when Options.Replicas > 1 and Options.MinBeta is not set.
const DefaultMinBeta = 0.05

// scaled returns a copy of m whose soft clause weights are multiplied by
// beta (> 0); hard clauses stay hard. The copy shares m's clauses, so the
// clause indices, and a state's true-literal counts, mean the same in both.
func (m *model) scaled(beta float64) *model {
	if beta == 1 {
		return m
	}
	c := &model{n: m.n, lits: m.lits, start: m.start, occStart: m.occStart, occ: m.occ}
	c.w = make([]float64, len(m.w))
	c.sel = make([]float64, len(m.w))
	for i, w := range m.w {
		if !math.IsInf(w, 0) {
			w *= beta
		}
		c.w[i] = w
		c.sel[i] = -math.Expm1(-math.Abs(w))
	}
	c.group()
	return c
}

// softWeights returns m's clause weights with the hard clauses at 0.
func (m *model) softWeights() []float64 {
	w := make([]float64, len(m.w))
	for c, x := range m.w {
		if !math.IsInf(x, 0) {
			w[c] = x
		}
	}
	return w
}

// track makes s keep the sum of w over its true clauses (see state.score).
func (s *state) track(w []float64) {
	s.scoreW = w
	s.score = 0
	for c, x := range w {
		if s.numTrue[c] > 0 {
			s.score += x
		}
	}
}

// betas returns the weight scales of r replicas: geometric from 1 down to
// minBeta.
func betas(r int, minBeta float64) []float64 {
	b := make([]float64, r)
	b[0] = 1
	for i := 1; i < r; i++ {
		b[i] = math.Pow(minBeta, float64(i)/float64(r-1))
	}
	return b
}

// ladder is one chain of a tempered run: replicas of the chain at
// decreasing weight scales, replica 0 at scale 1 (the one recorded). After
// each step, neighbouring replicas propose to exchange their worlds
// (replica exchange, Swendsen and Wang 1986; Geyer 1991), accepted with
// probability min(1, exp((b_i-b_j)(S(x_j)-S(x_i)))), S the soft score at
// scale 1, which leaves the product of the tempered distributions
// invariant. Hard clauses are hard at every scale, so every world a
// replica holds satisfies them.
type ladder struct {
	beta []float64
	reps []*state // each keeps its soft score at scale 1 (state.track)
	step int
	// Swap statistics per neighbouring pair.
	tried, accepted []int
}

// exchange proposes swaps between neighbouring replicas: the even pairs
// (0-1, 2-3, ...) after even steps, the odd pairs after odd ones.
func (l *ladder) exchange() {
	if len(l.reps) < 2 {
		return
	}
	rng := l.reps[0].rng
	for i := l.step & 1; i+1 < len(l.reps); i += 2 {
		j := i + 1
		l.tried[i]++
		a, b := l.reps[i], l.reps[j]
		la := (l.beta[i] - l.beta[j]) * (b.score - a.score)
		if la >= 0 || rng.Float64() < math.Exp(la) {
			l.accepted[i]++
			a.y, b.y = b.y, a.y
			a.numTrue, b.numTrue = b.numTrue, a.numTrue
			a.score, b.score = b.score, a.score
		}
	}
	l.step++
}
