package decision

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/internal/unionfind"
)

// Feasibility: an assignment of the action atoms is feasible when some
// world of the other unknown atoms satisfies every hard clause of the
// network with the action atoms at their values (the evidence is already
// in the network). This is decided exactly, by DPLL (unit propagation and
// backtracking, infer.SAT) on the hard clauses, before any marginal engine is asked:
// a sampler given an infeasible assignment would return marginals of
// worlds that violate hard clauses.
//
// The hard clauses are split into the connected components of their
// unknown non-action atoms. A component without action atoms is decided
// once; one with action atoms is decided per assignment of its own action
// atoms, and the answers are cached.

// MaxSATNodes bounds the DPLL decisions of one feasibility check; beyond
// it the check fails with an error rather than guess.
const MaxSATNodes = infer.MaxSATNodes

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
	parent := unionfind.New[int32](n)
	find := parent.Find
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
	s := infer.NewSAT(p.feas.all)
	s.MaxNodes = MaxSATNodes
	ok, err := s.Solve()
	if err != nil {
		return nil, fmt.Errorf("decision: %w", err)
	}
	if !ok {
		return nil, ErrInfeasible
	}
	out := make([]bool, len(p.Actions))
	for i, a := range p.Actions {
		out[i], _ = s.Value(a)
	}
	return out, nil
}

// satisfiable decides the hard clauses cls with the action atoms at
// actions (nil: no action atom occurs in cls), by the shared DPLL search
// (infer.SAT).
func (p *Problem) satisfiable(cls [][]ground.Lit, actions []bool) (bool, error) {
	s := infer.NewSAT(cls)
	s.MaxNodes = MaxSATNodes
	for i, v := range actions {
		if !s.Assume(ground.MakeLit(p.Actions[i], !v)) {
			return false, nil
		}
	}
	ok, err := s.Solve()
	if err != nil {
		return false, fmt.Errorf("decision: %w", err)
	}
	return ok, nil
}
