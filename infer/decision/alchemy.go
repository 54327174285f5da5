package decision

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// Meaning says which atoms are the actions of a decision problem and how
// they are searched (Options.Meaning).
type Meaning int

const (
	// MarpleMeaning, the default: the action predicates named to
	// NewProblem are the actions (their unknown atoms, free and unweighted),
	// and Solve searches the network's parts exhaustively up to
	// SolveOptions.MaxExact action atoms, by greedy flips with restarts
	// beyond.
	MarpleMeaning Meaning = iota
	// AlchemyMeaning is the meaning of Alchemy 2.0's infer -decision:
	// every formula with a utility that is a single literal ("w:u P(x)",
	// ":u !P(x)") makes each of its groundings' unknown atoms an action,
	// whatever predicates the caller names (they are only open world);
	// Alchemy gives that literal's clause the weight 20 on the chosen value
	// of the atom, which NewProblem takes as the atom fixed to its value
	// (as for MarpleMeaning) and which makes every other weight of that
	// unit clause moot. Solve runs Alchemy's search: from no action, flip
	// the action atoms one at a time in Problem.Order, keep a flip unless
	// the expected utility falls and undo it otherwise, until a round of
	// flips and one more has not raised the best utility, or after 100
	// rounds. The expected utilities are Marple's, exact where the parts
	// are small enough (see Solve), not Alchemy's BP estimates.
	AlchemyMeaning
)

// String returns the meaning's name: "marple" or "alchemy".
func (m Meaning) String() string {
	switch m {
	case MarpleMeaning:
		return "marple"
	case AlchemyMeaning:
		return "alchemy"
	}
	return fmt.Sprintf("Meaning(%d)", int(m))
}

// ParseMeaning returns the meaning named by s ("marple" or "alchemy").
func ParseMeaning(s string) (Meaning, error) {
	for _, m := range []Meaning{MarpleMeaning, AlchemyMeaning} {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("decision: unknown meaning %q (marple or alchemy)", s)
}

// AlchemyActionWeight is the weight Alchemy gives the one-literal clause
// of an action on the action's chosen value (its ACTION_WT): the other
// value keeps a probability of about e^-20 (2e-9), which NewProblem takes
// as 0.
const AlchemyActionWeight = 20.0

// alchemyActions are the actions of a problem under AlchemyMeaning.
type alchemyActions struct {
	preds []mln.PredID
	keys  []string        // the action atoms (atomKey), in Alchemy's order
	isKey map[string]bool // the same, as a set
}

// findAlchemyActions returns the actions under AlchemyMeaning: the atoms of
// the groundings of the utility formulas util that are single literals of
// open-world predicates (open), ordered as Alchemy lists its action
// factors (by its clauses, the formulas' one-literal clauses merged with
// the same literal written earlier, then by grounding).
func findAlchemyActions(ctx context.Context, m *mln.Model, util []int, open []bool) (*alchemyActions, error) {
	type unit struct {
		fi, first int
		c         *mln.Clause
	}
	var units []unit
	for _, fi := range util {
		f := m.Formulas[fi]
		c := literalClause(m, f)
		if c == nil {
			n := 0
			for _, ci := range f.Clauses {
				if cl := m.Clauses[ci]; len(cl.Lits) == 1 && len(cl.Exist) == 0 {
					n++
				}
			}
			if n == 1 {
				return nil, syntax.Errorf(f.Pos, "decision: under Alchemy's meaning the one clause of this utility formula that is a single literal would be an action, carrying the utility of the whole formula; write the literal as a formula of its own")
			}
			continue
		}
		if !open[c.Lits[0].Pred] {
			continue // closed world: every atom is evidence
		}
		key := literalKey(f.AST)
		first := fi
		for gi := range fi {
			if g := m.Formulas[gi]; g.AST != nil && literalKey(g.AST) == key {
				first = gi
				break
			}
		}
		units = append(units, unit{fi, first, c})
	}
	if len(units) == 0 {
		return nil, fmt.Errorf("decision: under Alchemy's meaning the actions are the atoms of the utility formulas that are single literals (\":u P(x)\"), and there is none of an open-world predicate: nothing to decide")
	}
	slices.SortStableFunc(units, func(a, b unit) int { return a.first - b.first })
	al := &alchemyActions{isKey: map[string]bool{}}
	for _, u := range units {
		lit := u.c.Lits[0]
		if !slices.Contains(al.preds, lit.Pred) {
			al.preds = append(al.preds, lit.Pred)
		}
		args := make([]mln.ConstID, len(lit.Args))
		err := forBindings(ctx, m, u.c.Vars, func(vals []mln.ConstID) {
			for i, t := range lit.Args {
				if t.IsVar() {
					args[i] = vals[t.Var()]
				} else {
					args[i] = t.Const()
				}
			}
			if k := atomKey(lit.Pred, args); !al.isKey[k] {
				al.isKey[k] = true
				al.keys = append(al.keys, k)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return al, nil
}

// literalKey identifies a formula that is a single literal up to the names
// of its variables ("" for any other formula): Alchemy merges the clauses
// of such formulas into one.
func literalKey(f syntax.Formula) string {
	neg := ""
	if n, ok := f.(*syntax.Not); ok {
		neg, f = "!", n.X
	}
	a, ok := f.(*syntax.Atom)
	if !ok || a.Star {
		return ""
	}
	var b strings.Builder
	b.WriteString(neg + a.Pred + "(")
	vars := map[string]int{}
	for i, t := range a.Args {
		if i > 0 {
			b.WriteByte(',')
		}
		switch t.Kind {
		case syntax.VarTerm:
			v, ok := vars[t.Name]
			if !ok {
				v = len(vars)
				vars[t.Name] = v
			}
			fmt.Fprintf(&b, "$%d", v)
		case syntax.ConstTerm:
			b.WriteString(t.Name)
		default:
			return ""
		}
	}
	b.WriteByte(')')
	return b.String()
}

// Order returns the order in which the action atoms are listed and, under
// AlchemyMeaning, searched: indices into Actions (network order under
// MarpleMeaning; Alchemy's order of its action factors under
// AlchemyMeaning).
func (p *Problem) Order() []int {
	if p.order != nil {
		return slices.Clone(p.order)
	}
	out := make([]int, len(p.Actions))
	for i := range out {
		out[i] = i
	}
	return out
}

// worse reports whether utility v falls below u by more than rounding.
func worse(v, u float64) bool {
	if math.IsInf(u, -1) {
		return false
	}
	return v < u-1e-12*math.Max(1, math.Abs(u))
}

// alchemy runs Alchemy's search (infer -decision, BP::runDecisionBP) over
// every part at once: from no action (or, when that is infeasible, from a
// feasible assignment), evaluation i flips action order[i mod n] after
// the previous evaluation; a flip that lowers the expected utility is
// undone before the next one; the best assignment met is kept; the search
// stops when n+1 evaluations have passed without a new best, or after
// 100n+1 evaluations. Ties are kept as Alchemy keeps them: a flip that
// leaves the utility unchanged stays, and the best is replaced only by a
// larger utility. It returns the scaled expected utility of the best
// assignment, left in s.cur.
func (s *searcher) alchemy(parts []*part, evals []partEval, res *Result) (float64, error) {
	p := s.p
	n := len(p.Actions)
	order := p.Order()
	partOf := make([]int, n)
	vals := make([][]bool, len(parts))
	for i, pt := range parts {
		vals[i] = make([]bool, len(pt.actions))
		for _, a := range pt.actions {
			partOf[a] = i
		}
	}
	for a := range s.cur {
		s.cur[a] = false
	}
	if ok, err := p.Feasible(s.cur); err != nil {
		return 0, err
	} else if !ok {
		copy(s.cur, s.feasible)
	}
	pu := make([]float64, len(parts))
	for i, pt := range parts {
		u, err := s.evalAt(pt, evals[i], vals[i])
		if err != nil {
			return 0, err
		}
		pu[i] = u
	}
	total := func() float64 {
		t := p.Const
		for _, u := range pu {
			t += u
		}
		return t
	}
	s.prog = Progress{Part: 1, Parts: 1, Actions: n, Restart: 1, Restarts: 1}
	best := make([]bool, n)
	prevUtil, maxUtil, maxItr := math.Inf(-1), math.Inf(-1), 0
	flipped, oldU := -1, 0.0 // the action flipped last, its part's utility before
	i := 0
	for ; i < 100*n+1; i++ {
		if flipped >= 0 {
			pi := partOf[flipped]
			oldU = pu[pi]
			u, err := s.evalAt(parts[pi], evals[pi], vals[pi])
			if err != nil {
				return 0, err
			}
			pu[pi] = u
		}
		util := total()
		if flipped >= 0 && worse(util, prevUtil) {
			s.cur[flipped] = !s.cur[flipped]
			pu[partOf[flipped]] = oldU
		} else {
			prevUtil = util
		}
		if better(util, maxUtil) {
			maxUtil, maxItr = util, i
			copy(best, s.cur)
		}
		if i%16 == 15 {
			s.report(maxUtil)
		}
		flipped = order[i%n]
		s.cur[flipped] = !s.cur[flipped]
		if i-maxItr > n {
			break
		}
	}
	res.Flips = min(i+1, 100*n+1)
	copy(s.cur, best)
	s.report(maxUtil)
	// The best assignment's utility, every part evaluated again at it (as
	// Alchemy runs BP once more on it).
	u := p.Const
	for pi, pt := range parts {
		v, err := s.evalAt(pt, evals[pi], vals[pi])
		if err != nil {
			return 0, err
		}
		u += v
	}
	return u, nil
}
