package mcsat

import (
	"math"
)

// Defaults of the star moves (Options.Stars).
const (
	// DefaultStarLeafDegree is the largest number of clauses of a star's
	// leaf: an atom in more is a leaf of no star.
	DefaultStarLeafDegree = 16
	// starMinLeaves is the fewest leaves of a star: a hub with fewer
	// makes no star move (a single leaf is a block of two atoms, which the
	// block moves cover).
	starMinLeaves = 2
	// DefaultStarWeight is the weight W of a hub from which
	// Options.AutoStars makes the star moves of its network (its connected
	// component in Run): W is the most that flipping the hub alone can
	// lower the log-potential of its clauses to its leaves, the leaves
	// agreeing with it (see starWeight). Undoing the leaves one at a time
	// first costs about as much (each against the hub), so a single-site
	// sampler leaves such a state about once in e^W moves: at W = 10 once
	// in 22,000, more than the steps of a run. Once one hub is that
	// heavy, every hub gets its move: lighter hubs that share leaves or
	// clauses with the heavy ones are held with them (on Cora's
	// field-only joint model, moving only the hubs of 10, 5 or 3 nats or
	// more left 367, 72 and 19 query atoms whose chains disagreed, every
	// hub none). The Smokes atoms of friends and smokers weigh 1.5 + 1.1
	// per friend that is no friend of another (under 10 below 8 such
	// friends); the field atoms of Cora's field ⇔ citation rules, tied to
	// up to 165 citation pairs by 0.2-0.6 each, weigh up to hundreds.
	DefaultStarWeight = 10.0
)

// star is a hub atom with leaves: soft atoms sharing a clause with the
// hub, no two of them in one clause, so that given the hub and the rest
// of the world the leaves are independent of each other.
type star struct {
	hub    int32
	leaves []int32
}

// stars returns the stars of the model's soft atoms (atoms in no hard
// clause): for every atom, in index order, its neighbours of at most
// maxDeg clauses taken greedily in the order of its clauses, each kept
// when no clause of it holds a leaf already kept; atoms with fewer than
// starMinLeaves leaves are hubs of no star. The result depends only on
// the model's clauses.
func (m *model) stars(maxDeg int) []star {
	hard := make([]bool, m.n)
	for c := range m.numClauses() {
		if math.IsInf(m.w[c], 0) {
			for _, l := range m.clause(c) {
				hard[l.Atom()] = true
			}
		}
	}
	deg := func(a int32) int { return int(m.occStart[a+1] - m.occStart[a]) }
	// mark[a] == stamp: a is the hub, a leaf of this hub, or shares a
	// clause with one of its leaves (so it cannot be a leaf: the relation
	// is symmetric, so an unmarked atom shares no clause with a leaf).
	mark := make([]int32, m.n)
	stamp := int32(0)
	var out []star
	var leaves []int32
	for h := range int32(m.n) {
		if hard[h] || deg(h) < starMinLeaves {
			continue
		}
		stamp++
		mark[h] = stamp
		leaves = leaves[:0]
		for _, o := range m.occurrences(h) {
			for _, lt := range m.clause(int(o >> 1)) {
				a := lt.Atom()
				if mark[a] == stamp || hard[a] || deg(a) > maxDeg {
					continue
				}
				leaves = append(leaves, a)
				mark[a] = stamp
				for _, oa := range m.occurrences(a) {
					for _, lb := range m.clause(int(oa >> 1)) {
						mark[lb.Atom()] = stamp
					}
				}
			}
		}
		if len(leaves) >= starMinLeaves {
			out = append(out, star{hub: h, leaves: append([]int32(nil), leaves...)})
		}
	}
	return out
}

// starWeight returns the weight that holds the star's hub when its
// leaves agree with it: the largest drop of the log-potential that
// flipping the hub alone can cause, over the hub's two values and the
// leaves' values, counting the clauses that hold the hub and a leaf (no
// clause holds two leaves) with their other literals false. A
// single-site sampler leaves such a state about once in e^weight moves of
// the hub.
func (m *model) starWeight(st *star) float64 {
	leaf := make(map[int32]int, len(st.leaves))
	for i, l := range st.leaves {
		leaf[l] = i
	}
	// cost[h][2i+y]: the drop of leaf i's clauses when the hub flips from
	// h with the leaf at y.
	var cost [2][]float64
	cost[0], cost[1] = make([]float64, 2*len(st.leaves)), make([]float64, 2*len(st.leaves))
	b := func(x bool) float64 {
		if x {
			return 1
		}
		return 0
	}
	for _, o := range m.occurrences(st.hub) {
		c := int(o >> 1)
		hubNeg := o&1 == 1
		for _, lt := range m.clause(c) {
			i, ok := leaf[lt.Atom()]
			if !ok {
				continue
			}
			for h := range 2 {
				for y := range 2 {
					leafTrue := (y == 1) != lt.Neg()
					before := leafTrue || (h == 1) != hubNeg
					after := leafTrue || (h == 0) != hubNeg
					cost[h][2*i+y] += m.w[c] * (b(before) - b(after))
				}
			}
			break
		}
	}
	w := math.Inf(-1)
	for h := range 2 {
		sum := 0.0
		for i := range st.leaves {
			sum += max(cost[h][2*i], cost[h][2*i+1])
		}
		w = max(w, sum)
	}
	return w
}

// chooseStars returns the stars of the star moves o asks for: every star
// with Stars; with AutoStars, every star when one hub weighs at least
// StarWeight (default DefaultStarWeight), else none; none otherwise.
func (m *model) chooseStars(o *Options) []star {
	if !o.Stars && !o.AutoStars {
		return nil
	}
	all := m.stars(o.starLeafDegree())
	if o.Stars {
		return all
	}
	min := o.StarWeight
	if min <= 0 {
		min = DefaultStarWeight
	}
	for i := range all {
		if m.starWeight(&all[i]) >= min {
			return all
		}
	}
	return nil
}

// flipGain returns the change of the world's log-potential that flipping
// the soft atom a would make (a in no hard clause), without flipping it.
func (s *state) flipGain(a int32) float64 {
	m := s.m
	ya := s.y[a]
	d := 0.0
	for _, o := range m.occurrences(a) {
		c := o >> 1
		litTrue := ya != (o&1 == 1)
		switch {
		case litTrue && s.numTrue[c] == 1:
			d -= m.w[c]
		case !litTrue && s.numTrue[c] == 0:
			d += m.w[c]
		}
	}
	return d
}

// softplus returns log(1+exp(x)) without overflow.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// sigmoid returns 1/(1+exp(-x)).
func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// starMove resamples the star's hub and leaves jointly from their
// distribution given the rest of the world (a block Gibbs move over the
// star): the hub from its conditional with the leaves summed out, which
// the leaves' independence given the hub makes a product of two-term
// sums, then every leaf from its conditional given the new hub. An atom
// tied by many clauses to atoms that are otherwise free (a field atom and
// the citation pairs it decides) thus changes with them in one move,
// where single-atom moves would each be held back by the others. The
// move leaves the distribution invariant. No clause may be active (call
// begin first); gain is scratch of at least 2·len(leaves) entries.
func (s *state) starMove(st *star, gain []float64) {
	k := len(st.leaves)
	g0, g1 := gain[:k], gain[k:2*k]
	a0 := 0.0
	for i, l := range st.leaves {
		g0[i] = s.flipGain(l)
		a0 += softplus(g0[i])
	}
	dx, _ := s.flipDelta(st.hub, 0)
	a1 := 0.0
	for i, l := range st.leaves {
		g1[i] = s.flipGain(l)
		a1 += softplus(g1[i])
	}
	// log P(hub flipped)/P(hub kept), the leaves summed out.
	g := g1
	if lo := dx + a1 - a0; s.rng.Float64() >= sigmoid(lo) {
		s.flipDelta(st.hub, 0)
		g = g0
	}
	for i, l := range st.leaves {
		if s.rng.Float64() < sigmoid(g[i]) {
			s.flipDelta(l, 0)
		}
	}
}

// starSweep makes the move of every star in turn.
func (s *state) starSweep(stars []star, gain []float64) {
	if len(stars) == 0 {
		return
	}
	s.begin()
	for i := range stars {
		s.starMove(&stars[i], gain)
	}
}

// starScratch returns the scratch starSweep needs for stars.
func starScratch(stars []star) []float64 {
	k := 0
	for _, st := range stars {
		k = max(k, len(st.leaves))
	}
	return make([]float64, 2*k)
}

// starLeafDegree returns StarLeafDegree or its default.
func (o *Options) starLeafDegree() int {
	if o.StarLeafDegree > 0 {
		return o.StarLeafDegree
	}
	return DefaultStarLeafDegree
}
