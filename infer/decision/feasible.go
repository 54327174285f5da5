package decision

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/marple-mln/marple/ground"
)

// Feasibility: an assignment of the action atoms is feasible when some
// world of the other unknown atoms satisfies every hard clause of the
// network with the action atoms at their values (the evidence is already
// in the network). This is decided exactly, by DPLL (unit propagation and
// backtracking) on the hard clauses, before any marginal engine is asked:
// a sampler given an infeasible assignment would return marginals of
// worlds that violate hard clauses.
//
// The hard clauses are split into the connected components of their
// unknown non-action atoms. A component without action atoms is decided
// once; one with action atoms is decided per assignment of its own action
// atoms, and the answers are cached.

// MaxSATNodes bounds the DPLL decisions of one feasibility check; beyond
// it the check fails with an error rather than guess.
const MaxSATNodes = 1_000_000

// ErrInfeasible is wrapped by the error of Solve when no assignment of the
// action atoms satisfies the hard clauses given the evidence.
var ErrInfeasible = errors.New("decision: no assignment of the action atoms satisfies the hard clauses given the evidence")

// hardPart is a component of the hard clauses.
type hardPart struct {
	clauses [][]ground.Lit
	actions []int // the action atoms (indices into Problem.Actions) it has
	cache   map[string]bool
}

// feasibility holds the hard clauses for the feasibility checks.
type feasibility struct {
	mu    sync.Mutex // guards the parts' caches
	never string     // set when no assignment is feasible: why
	parts []*hardPart
	all   [][]ground.Lit // every hard clause (to find a feasible assignment)
}

// initFeasibility splits the hard clauses of the network into components
// and decides those without action atoms.
func (p *Problem) initFeasibility() error {
	f := &feasibility{}
	p.feas = f
	net := p.Net
	if net.HardFalse > 0 {
		f.never = fmt.Sprintf("the evidence alone falsifies %d ground hard clauses", net.HardFalse)
		return nil
	}
	n := net.NumAtoms()
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	var find func(a int32) int32
	find = func(a int32) int32 {
		for parent[a] != a {
			parent[a] = parent[parent[a]]
			a = parent[a]
		}
		return a
	}
	var hard []int
	for c := range net.NumClauses() {
		if !net.IsHard(c) {
			continue
		}
		hard = append(hard, c)
		first := int32(-1)
		for _, l := range net.Clause(c) {
			a := l.Atom()
			if p.isAction[a] >= 0 {
				continue
			}
			if first < 0 {
				first = a
			} else if ra, rb := find(first), find(a); ra != rb {
				parent[ra] = rb
			}
		}
	}
	byRoot := map[int32]*hardPart{}
	var solo []*hardPart // clauses over action atoms alone: each its own part
	for _, c := range hard {
		lits := net.Clause(c)
		f.all = append(f.all, lits)
		root := int32(-1)
		for _, l := range lits {
			if p.isAction[l.Atom()] < 0 {
				root = find(l.Atom())
				break
			}
		}
		var part *hardPart
		if root < 0 {
			part = &hardPart{}
			solo = append(solo, part)
		} else if part = byRoot[root]; part == nil {
			part = &hardPart{}
			byRoot[root] = part
			f.parts = append(f.parts, part)
		}
		part.clauses = append(part.clauses, lits)
		for _, l := range lits {
			if i := p.isAction[l.Atom()]; i >= 0 && !containsInt(part.actions, i) {
				part.actions = append(part.actions, i)
			}
		}
	}
	f.parts = append(f.parts, solo...)
	kept := f.parts[:0]
	for _, part := range f.parts {
		if len(part.actions) > 0 {
			part.cache = map[string]bool{}
			kept = append(kept, part)
			continue
		}
		ok, err := p.satisfiable(part.clauses, nil)
		if err != nil {
			return err
		}
		if !ok {
			f.never = fmt.Sprintf("%d hard clauses over atoms that are not actions cannot all hold", len(part.clauses))
			return nil
		}
	}
	f.parts = kept
	return nil
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Feasible reports whether some world satisfies every hard clause with
// the action atoms at actions (and the evidence). It fails only when a
// check exceeds MaxSATNodes decisions.
func (p *Problem) Feasible(actions []bool) (bool, error) {
	f := p.feas
	if f.never != "" {
		return false, nil
	}
	return p.feasibleIn(f.parts, actions)
}

// feasibleIn reports whether the hard parts hold with the action atoms at
// actions.
func (p *Problem) feasibleIn(parts []*hardPart, actions []bool) (bool, error) {
	f := p.feas
	if f.never != "" {
		return false, nil
	}
	if len(parts) == 0 {
		return true, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var key strings.Builder
	for _, part := range parts {
		key.Reset()
		for _, i := range part.actions {
			if actions[i] {
				key.WriteByte('1')
			} else {
				key.WriteByte('0')
			}
		}
		ok, seen := part.cache[key.String()]
		if !seen {
			var err error
			if ok, err = p.satisfiable(part.clauses, actions); err != nil {
				return false, err
			}
			part.cache[key.String()] = ok
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// feasibleActions returns an assignment of the action atoms that is
// feasible, or an error wrapping ErrInfeasible when there is none.
func (p *Problem) feasibleActions() ([]bool, error) {
	if p.feas.never != "" {
		return nil, fmt.Errorf("%w: %s", ErrInfeasible, p.feas.never)
	}
	s := newSAT(p.feas.all)
	ok, err := s.solve()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrInfeasible
	}
	out := make([]bool, len(p.Actions))
	for i, a := range p.Actions {
		out[i] = s.val[a] > 0
	}
	return out, nil
}

// satisfiable decides the hard clauses cls with the action atoms at
// actions (nil: no action atom occurs in cls).
func (p *Problem) satisfiable(cls [][]ground.Lit, actions []bool) (bool, error) {
	s := newSAT(cls)
	for i, v := range actions {
		a := p.Actions[i]
		if len(s.occ[ground.MakeLit(a, false)]) == 0 && len(s.occ[ground.MakeLit(a, true)]) == 0 {
			continue
		}
		if !s.assign(ground.MakeLit(a, !v)) || !s.propagate() {
			return false, nil
		}
	}
	return s.solve()
}

// sat is a small DPLL solver over a clause set: unit propagation by
// scanning the clauses of the falsified literal, branching on a literal
// of a shortest open clause.
type sat struct {
	cls   [][]ground.Lit
	occ   map[ground.Lit][]int32 // clauses of each literal
	val   map[int32]int8         // atom values: 1 true, -1 false, absent unknown
	trail []int32
	queue []ground.Lit // assigned literals whose negation is to propagate
	nodes int
}

func newSAT(cls [][]ground.Lit) *sat {
	s := &sat{cls: cls, occ: map[ground.Lit][]int32{}, val: map[int32]int8{}}
	for c, lits := range cls {
		for _, l := range lits {
			s.occ[l] = append(s.occ[l], int32(c))
		}
	}
	return s
}

// litVal returns 1 when l is true, -1 false, 0 unknown.
func (s *sat) litVal(l ground.Lit) int8 {
	v := s.val[l.Atom()]
	if l.Neg() {
		return -v
	}
	return v
}

// assign makes l true; false on a conflict with its current value.
func (s *sat) assign(l ground.Lit) bool {
	switch s.litVal(l) {
	case 1:
		return true
	case -1:
		return false
	}
	v := int8(1)
	if l.Neg() {
		v = -1
	}
	s.val[l.Atom()] = v
	s.trail = append(s.trail, l.Atom())
	s.queue = append(s.queue, l)
	return true
}

// propagate runs unit propagation; false on a conflict.
func (s *sat) propagate() bool {
	for len(s.queue) > 0 {
		l := s.queue[len(s.queue)-1]
		s.queue = s.queue[:len(s.queue)-1]
		for _, c := range s.occ[l.Not()] {
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
func (s *sat) undo(k int) {
	for _, a := range s.trail[k:] {
		delete(s.val, a)
	}
	s.trail = s.trail[:k]
}

// solve reports whether the clauses can all hold, extending the current
// assignment (left in val when they can).
func (s *sat) solve() (bool, error) {
	// Unit clauses first.
	for _, lits := range s.cls {
		if len(lits) == 1 && (!s.assign(lits[0]) || !s.propagate()) {
			return false, nil
		}
	}
	return s.search()
}

func (s *sat) search() (bool, error) {
	// A shortest open clause.
	best, bestOpen := -1, 0
	for c, lits := range s.cls {
		open, sat := 0, false
		for _, l := range lits {
			switch s.litVal(l) {
			case 1:
				sat = true
			case 0:
				open++
			}
		}
		if sat {
			continue
		}
		if open == 0 {
			return false, nil
		}
		if best < 0 || open < bestOpen {
			best, bestOpen = c, open
		}
	}
	if best < 0 {
		return true, nil
	}
	if s.nodes++; s.nodes > MaxSATNodes {
		return false, fmt.Errorf("decision: deciding whether the hard clauses can hold took more than %d branchings", MaxSATNodes)
	}
	for _, l := range s.cls[best] {
		if s.litVal(l) != 0 {
			continue
		}
		for _, try := range []ground.Lit{l, l.Not()} {
			k := len(s.trail)
			if s.assign(try) && s.propagate() {
				ok, err := s.search()
				if ok || err != nil {
					return ok, err
				}
			}
			s.undo(k)
		}
		return false, nil // both values of l fail
	}
	return false, nil
}
