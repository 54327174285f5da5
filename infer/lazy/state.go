package lazy

import (
	"math"

	"github.com/marple-mln/marple/ground"
)

// state is an assignment to the atoms built so far with the clauses built
// so far and their counts of true literals. A clause is costly when its
// weight is positive (or hard) and no literal is true, or its weight is
// negative and some literal is true.
type state struct {
	g       *grounder
	val     []bool
	occ     [][]ground.Lit // per atom: its literal in each clause, as clause<<1 | negated
	numTrue []int32
	badPos  []int32 // position in bad, -1 when not costly
	bad     []int32
	hardBad int
	soft    float64
	// sel, when not nil, restricts the costly clauses to the selected
	// ones (MC-SAT's slice), and every selected clause counts 1.
	sel []bool
	// selectNew decides whether a clause built while sel is in use is
	// selected.
	selectNew func(c int32) bool

	// track (MaxWalkSAT only, without sel) keeps each atom's flip gain
	// over the clauses built up to date: dHard and dSoft are the changes
	// of the hard and soft costs if the atom were flipped, xorTrue the
	// xor of the atoms of each clause's true literals, and good holds
	// every atom whose flip lowers the cost (and maybe atoms whose flip
	// no longer does, which the walk drops when it meets them). For an
	// unexpanded atom the gain leaves out the clauses its expansion would
	// build, which only add cost: it is exact once the atom is expanded.
	track   bool
	dHard   []int32
	dSoft   []float64
	xorTrue []int32
	inGood  []bool
	good    []int32
	eps     float64 // soft gains above -eps do not count as improving
}

func newState(g *grounder) *state {
	s := &state{g: g}
	g.onNew = s.addClause
	return s
}

func (s *state) growAtoms() {
	for len(s.val) < len(s.g.atomPred) {
		s.val = append(s.val, false)
		s.occ = append(s.occ, nil)
		if s.track {
			s.dHard = append(s.dHard, 0)
			s.dSoft = append(s.dSoft, 0)
			s.inGood = append(s.inGood, false)
		}
	}
}

// gain adds sign times clause c's weight to atom a's flip gain.
func (s *state) gain(a, c int32, sign float64) {
	if w := s.g.weight[c]; math.IsInf(w, 1) {
		s.dHard[a] += int32(sign)
	} else {
		s.dSoft[a] += sign * w
	}
	s.updGood(a)
}

// improving reports whether flipping a lowers the cost over the clauses
// built.
func (s *state) improving(a int32) bool {
	return s.dHard[a] < 0 || (s.dHard[a] == 0 && s.dSoft[a] < -s.eps)
}

// updGood puts a in the good list if its flip now lowers the cost.
func (s *state) updGood(a int32) {
	if !s.inGood[a] && s.improving(a) {
		s.inGood[a] = true
		s.good = append(s.good, a)
	}
}

// dropGood removes the atom at position i of the good list.
func (s *state) dropGood(i int) {
	a := s.good[i]
	last := len(s.good) - 1
	s.good[i] = s.good[last]
	s.good = s.good[:last]
	s.inGood[a] = false
}

func (s *state) costly(c int32) bool {
	if s.sel != nil && !s.sel[c] {
		return false
	}
	if s.g.weight[c] < 0 {
		return s.numTrue[c] > 0
	}
	return s.numTrue[c] == 0
}

func (s *state) addClause(c int32) {
	s.growAtoms()
	n, x := int32(0), int32(0)
	lits := s.g.lits(c)
	for _, l := range lits {
		a := l.Atom()
		s.occ[a] = append(s.occ[a], ground.MakeLit(c, l.Neg()))
		if l.True(s.val) {
			n++
			x ^= a
		}
	}
	s.numTrue = append(s.numTrue, n)
	if s.track {
		s.xorTrue = append(s.xorTrue, x)
		if w := math.Abs(s.g.weight[c]); !math.IsInf(w, 1) {
			s.eps = max(s.eps, 1e-9*w)
		}
		switch n {
		case 0: // flipping any atom makes it true
			for _, l := range lits {
				s.gain(l.Atom(), c, -1)
			}
		case 1: // flipping x makes it false
			s.gain(x, c, 1)
		}
	}
	s.badPos = append(s.badPos, -1)
	if s.sel != nil {
		s.sel = append(s.sel, s.selectNew != nil && s.selectNew(c))
	}
	s.update(c, false)
}

// update makes c's membership in bad and the cost agree with its counts;
// was is whether it was costly before.
func (s *state) update(c int32, was bool) {
	now := s.costly(c)
	if now == was {
		return
	}
	w := s.g.weight[c]
	sign := 1.0
	if now {
		s.badPos[c] = int32(len(s.bad))
		s.bad = append(s.bad, c)
	} else {
		i := s.badPos[c]
		last := s.bad[len(s.bad)-1]
		s.bad[i] = last
		s.badPos[last] = i
		s.bad = s.bad[:len(s.bad)-1]
		s.badPos[c] = -1
		sign = -1
	}
	if len(s.bad) == 0 {
		// No costly clause: no rounding drift in the running sum.
		s.soft, s.hardBad = 0, 0
		return
	}
	switch {
	case s.sel != nil:
		s.soft += sign
	case math.IsInf(w, 1):
		s.hardBad += int(sign)
	default:
		s.soft += sign * math.Abs(w)
	}
}

// flip flips atom a (which must be expanded).
func (s *state) flip(a int32) {
	v := !s.val[a]
	s.val[a] = v
	for _, o := range s.occ[a] {
		c := o.Atom()
		was := s.badPos[c] >= 0
		nt := s.numTrue[c]
		if v != o.Neg() {
			s.numTrue[c]++
		} else {
			s.numTrue[c]--
		}
		if s.track {
			s.track1(a, c, nt, v != o.Neg())
		}
		s.update(c, was)
	}
}

// track1 updates the flip gains for the flip of a, whose literal in
// clause c (which had nt true literals) became true when up is set.
func (s *state) track1(a, c, nt int32, up bool) {
	if up {
		switch nt {
		case 0: // it was false: now a alone makes it true
			for _, l := range s.g.lits(c) {
				s.gain(l.Atom(), c, 1)
			}
			s.gain(a, c, 1)
		case 1: // the true atom no longer makes it false alone
			s.gain(s.xorTrue[c], c, -1)
		}
		s.xorTrue[c] ^= a
		return
	}
	s.xorTrue[c] ^= a
	switch nt {
	case 1: // it is false now: any flip makes it true
		for _, l := range s.g.lits(c) {
			s.gain(l.Atom(), c, -1)
		}
		s.gain(a, c, -1)
	case 2: // the other true atom makes it false alone
		s.gain(s.xorTrue[c], c, 1)
	}
}

// delta returns the change of the hard and soft costs if a were flipped.
func (s *state) delta(a int32) (dHard int, dSoft float64) {
	v := !s.val[a]
	for _, o := range s.occ[a] {
		c := o.Atom()
		n := s.numTrue[c]
		if v != o.Neg() {
			n++
		} else {
			n--
		}
		was := s.badPos[c] >= 0
		var now bool
		switch {
		case s.sel != nil && !s.sel[c]:
			now = false
		case s.g.weight[c] < 0:
			now = n > 0
		default:
			now = n == 0
		}
		if was == now {
			continue
		}
		d := 1.0
		if was {
			d = -1
		}
		w := s.g.weight[c]
		switch {
		case s.sel != nil:
			dSoft += d
		case math.IsInf(w, 1):
			dHard += int(d)
		default:
			dSoft += d * math.Abs(w)
		}
	}
	return
}

// candidates returns the atoms of costly clause c whose flip changes its
// state.
func (s *state) candidates(c int32, out []int32) []int32 {
	out = out[:0]
	neg := s.g.weight[c] < 0
	for _, l := range s.g.lits(c) {
		if !neg || l.True(s.val) {
			out = append(out, l.Atom())
		}
	}
	return out
}

// expand expands atom a, building its clauses.
func (s *state) expand(a int32) error {
	err := s.g.expand(a)
	s.growAtoms()
	return err
}

// exactSoft returns the soft cost of the current state summed afresh
// (compensated) over the costly clauses, free of the rounding drift the
// running sum s.soft gathers as flips add and remove weights.
func (s *state) exactSoft() float64 {
	var sum, comp float64
	for _, c := range s.bad {
		var x float64
		switch w := s.g.weight[c]; {
		case s.sel != nil:
			x = 1
		case math.IsInf(w, 1):
			continue
		default:
			x = math.Abs(w)
		}
		// Neumaier's summation.
		t := sum + x
		if math.Abs(sum) >= math.Abs(x) {
			comp += (sum - t) + x
		} else {
			comp += (x - t) + sum
		}
		sum = t
	}
	return sum + comp
}
