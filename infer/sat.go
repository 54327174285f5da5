package infer

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/marple-mln/marple/ground"
)

// MaxSATNodes bounds the branchings of one SAT search (SAT.Solve); beyond
// it the search fails with an error wrapping ErrSATBudget rather than
// guess.
const MaxSATNodes = 1_000_000

// ErrSATBudget is wrapped by the error of a SAT search that needed more
// than its budget of branchings.
var ErrSATBudget = errors.New("the search exceeded its budget")

// SAT decides a set of clauses (the hard clauses of a network, or a part
// of them) by DPLL: unit propagation by scanning the clauses of the
// falsified literal, branching on an atom of a shortest open clause. The
// atoms are those of the clauses, under their network indices; a literal
// over an atom in no clause is ignored.
type SAT struct {
	cls   [][]ground.Lit
	local map[int32]int32 // network atom -> local index
	atoms []int32         // local index -> network atom
	occ   [][]int32       // per local literal (2*local + neg): its clauses
	val   []int8          // per local atom: 1 true, -1 false, 0 unknown
	trail []int32
	queue []ground.Lit // assigned network literals whose negation is to propagate
	nodes int

	// MaxNodes bounds the branchings of Solve (0: MaxSATNodes).
	MaxNodes int
	// Phase, when not nil, gives the value an atom takes first when the
	// search branches on it (indexed by network atom); otherwise false,
	// or, with Rand set, a random value.
	Phase []bool
	// Rand, when not nil, chooses the branching atom among the open ones
	// of the clause at random (and draws its first value when Phase is
	// nil).
	Rand *rand.Rand
}

// NewSAT returns a solver for the clauses cls, none assigned.
func NewSAT(cls [][]ground.Lit) *SAT {
	s := &SAT{cls: cls, local: map[int32]int32{}}
	for _, lits := range cls {
		for _, l := range lits {
			if _, ok := s.local[l.Atom()]; !ok {
				s.local[l.Atom()] = int32(len(s.atoms))
				s.atoms = append(s.atoms, l.Atom())
			}
		}
	}
	s.occ = make([][]int32, 2*len(s.atoms))
	s.val = make([]int8, len(s.atoms))
	for c, lits := range cls {
		for _, l := range lits {
			k := s.litIndex(l)
			s.occ[k] = append(s.occ[k], int32(c))
		}
	}
	return s
}

// litIndex returns the index of l's occurrence list.
func (s *SAT) litIndex(l ground.Lit) int {
	i := int(s.local[l.Atom()]) << 1
	if l.Neg() {
		i++
	}
	return i
}

// Has reports whether atom a occurs in the clauses.
func (s *SAT) Has(a int32) bool {
	_, ok := s.local[a]
	return ok
}

// Value returns atom a's value and whether it is assigned.
func (s *SAT) Value(a int32) (v, assigned bool) {
	i, ok := s.local[a]
	if !ok || s.val[i] == 0 {
		return false, false
	}
	return s.val[i] > 0, true
}

// Fill sets y[a] to the value of every assigned atom a (indexed by
// network atom), leaving the others as they are.
func (s *SAT) Fill(y []bool) {
	for i, a := range s.atoms {
		if s.val[i] != 0 {
			y[a] = s.val[i] > 0
		}
	}
}

// litVal returns 1 when l is true, -1 false, 0 unknown.
func (s *SAT) litVal(l ground.Lit) int8 {
	v := s.val[s.local[l.Atom()]]
	if l.Neg() {
		return -v
	}
	return v
}

// assign makes l true; false on a conflict with its current value.
func (s *SAT) assign(l ground.Lit) bool {
	switch s.litVal(l) {
	case 1:
		return true
	case -1:
		return false
	}
	i := s.local[l.Atom()]
	s.val[i] = 1
	if l.Neg() {
		s.val[i] = -1
	}
	s.trail = append(s.trail, i)
	s.queue = append(s.queue, l)
	return true
}

// Assume makes l true and propagates; false on a conflict (the clauses
// cannot all hold with l). A literal over an atom in no clause is ignored.
func (s *SAT) Assume(l ground.Lit) bool {
	if !s.Has(l.Atom()) {
		return true
	}
	return s.assign(l) && s.propagate()
}

// propagate runs unit propagation; false on a conflict.
func (s *SAT) propagate() bool {
	for len(s.queue) > 0 {
		l := s.queue[len(s.queue)-1]
		s.queue = s.queue[:len(s.queue)-1]
		for _, c := range s.occ[s.litIndex(l.Not())] {
			var unit ground.Lit
			open, sat := 0, false
			for _, m := range s.cls[c] {
				switch s.litVal(m) {
				case 1:
					sat = true
				case 0:
					open++
					unit = m
				}
				if sat {
					break
				}
			}
			if sat {
				continue
			}
			if open == 0 || open == 1 && !s.assign(unit) {
				s.queue = s.queue[:0]
				return false
			}
		}
	}
	return true
}

// undo unassigns the atoms assigned after trail position k.
func (s *SAT) undo(k int) {
	for _, i := range s.trail[k:] {
		s.val[i] = 0
	}
	s.trail = s.trail[:k]
}

// Solve reports whether the clauses can all hold, extending the current
// assignment (left in place when they can: Value gives it). It fails with
// an error wrapping ErrSATBudget after MaxNodes branchings.
func (s *SAT) Solve() (bool, error) {
	for _, lits := range s.cls {
		if len(lits) == 0 {
			return false, nil
		}
		if len(lits) == 1 && (!s.assign(lits[0]) || !s.propagate()) {
			return false, nil
		}
	}
	return s.search(0)
}

func (s *SAT) search(from int) (bool, error) {
	// A shortest open clause (a binary one cannot be beaten: unit clauses
	// are propagated). The clauses before from hold: the assignments only
	// grow below a branching.
	best, bestOpen, next := -1, 0, len(s.cls)
	for c := from; c < len(s.cls); c++ {
		open, sat := 0, false
		for _, l := range s.cls[c] {
			switch s.litVal(l) {
			case 1:
				sat = true
			case 0:
				open++
			}
			if sat {
				break
			}
		}
		if sat {
			continue
		}
		if open == 0 {
			return false, nil
		}
		next = min(next, c)
		if best < 0 || open < bestOpen {
			best, bestOpen = c, open
		}
		if bestOpen == 2 {
			break
		}
	}
	if best < 0 {
		return true, nil
	}
	limit := s.MaxNodes
	if limit <= 0 {
		limit = MaxSATNodes
	}
	if s.nodes++; s.nodes > limit {
		return false, fmt.Errorf("deciding whether the hard clauses can hold took more than %d branchings: %w", limit, ErrSATBudget)
	}
	// Branch on an open atom of the clause, its first value by Phase.
	var open []ground.Lit
	for _, l := range s.cls[best] {
		if s.litVal(l) == 0 {
			open = append(open, l)
		}
	}
	l := open[0]
	if s.Rand != nil {
		l = open[s.Rand.IntN(len(open))]
	}
	a := l.Atom()
	first := false
	switch {
	case s.Phase != nil:
		first = s.Phase[a]
	case s.Rand != nil:
		first = s.Rand.Uint64()&1 == 1
	default:
		first = !l.Neg() // the literal true first
	}
	for _, v := range []bool{first, !first} {
		k := len(s.trail)
		if s.assign(ground.MakeLit(a, !v)) && s.propagate() {
			ok, err := s.search(next)
			if ok || err != nil {
				return ok, err
			}
		}
		s.undo(k)
	}
	return false, nil
}
