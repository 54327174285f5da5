package lifted

import (
	"fmt"
	"math"
	"slices"

	"github.com/marple-mln/marple/mln"
)

// NotLiftableError is the error of a model or evidence outside the
// fragment the lifted algorithm handles, or of a lifted computation whose
// work would exceed its bound. Reason says which, in words.
type NotLiftableError struct {
	Reason string
	// OutOfReach is set when the model is in the fragment but the work
	// bound (Options.MaxWork) was exceeded.
	OutOfReach bool
}

func (e *NotLiftableError) Error() string { return "not liftable: " + e.Reason }

func notLiftable(format string, args ...any) error {
	return &NotLiftableError{Reason: fmt.Sprintf(format, args...)}
}

// A clause of the theory: literals over at most two variables, with its
// log-weight when satisfied (soft) or hard.
type clause struct {
	lits    []literal
	varType []mln.TypeID
	w       float64 // log factor of a satisfied grounding (soft clauses)
	hard    bool
	name    string // for messages
}

type literal struct {
	pred    mln.PredID
	builtin mln.Builtin // Eq or Neq when pred < 0
	neg     bool
	args    []mln.Term
}

// theory is the evidence-independent part: the model's clauses checked
// against the fragment.
type theory struct {
	m       *mln.Model
	clauses []clause
	consts  []mln.ConstID // constants written in clauses
	typeOf  map[mln.ConstID]mln.TypeID
}

// compileTheory checks that every clause of m is in the liftable fragment
// and returns its clauses with their weights.
func compileTheory(m *mln.Model) (*theory, error) {
	for _, fm := range m.Formulas {
		if _, ok := fm.Params[""]; !ok && !fm.Hard && len(fm.PlusVars) == 0 {
			return nil, fmt.Errorf("lifted: the model is not compiled (call Compile)")
		}
	}
	th := &theory{m: m, typeOf: make(map[mln.ConstID]mln.TypeID)}
	// Every constant belongs to one type: lifting counts the elements of
	// each type separately.
	for _, t := range m.Types {
		for _, c := range t.Consts {
			if u, ok := th.typeOf[c]; ok && u != t.ID {
				return nil, notLiftable("constant %s belongs to two types, %s and %s", m.ConstName(c), m.Types[u].Name, t.Name)
			}
			th.typeOf[c] = t.ID
		}
	}
	for _, p := range m.Preds {
		if p.Arity() > 2 {
			return nil, notLiftable("predicate %s has %d arguments (at most two are lifted)", p.Name, p.Arity())
		}
	}
	seen := map[mln.ConstID]bool{}
	for ci, c := range m.Clauses {
		fm := m.Formulas[c.Formula]
		name := fmt.Sprintf("clause %d of formula at %s", ci, fm.Pos)
		if len(c.Exist) > 0 {
			return nil, notLiftable("%s has an existential quantifier", name)
		}
		if len(c.Plus) > 0 {
			return nil, notLiftable("%s has per-constant weights (+ variables)", name)
		}
		if len(c.Vars) > 2 {
			return nil, notLiftable("%s has %d logical variables (at most two are lifted)", name, len(c.Vars))
		}
		cl := clause{hard: c.Hard, name: name}
		for _, v := range c.Vars {
			cl.varType = append(cl.varType, v.Type)
		}
		if !c.Hard {
			w := fm.Weight
			if p, ok := fm.Params[""]; ok {
				w = m.Weights[p]
			}
			coef := c.Coef / mln.DomainScale(c, func(t mln.TypeID) int { return m.Types[t].Size() })
			cl.w = w * coef
			if math.IsNaN(cl.w) || math.IsInf(cl.w, 0) {
				return nil, notLiftable("%s has weight %v", name, cl.w)
			}
		}
		for _, l := range c.Lits {
			if l.Pred < 0 {
				if l.Builtin != mln.Eq && l.Builtin != mln.Neq {
					return nil, notLiftable("%s uses an internal predicate other than = and !=", name)
				}
			}
			for _, t := range l.Args {
				if !t.IsVar() && !seen[t.Const()] {
					seen[t.Const()] = true
					th.consts = append(th.consts, t.Const())
				}
			}
			cl.lits = append(cl.lits, literal{pred: l.Pred, builtin: l.Builtin, neg: l.Neg, args: l.Args})
		}
		th.clauses = append(th.clauses, cl)
	}
	for _, c := range th.consts {
		if _, ok := th.typeOf[c]; !ok {
			return nil, notLiftable("constant %s of a formula belongs to no type", m.ConstName(c))
		}
	}
	slices.Sort(th.consts)
	return th, nil
}

// A slot is an atom of one element e (a non-special constant) other than
// a pair atom with another non-special: P(e), R(e,e), R(e,s) or R(s,e)
// for a special constant s. pattern holds the arguments with -1 for e.
type slot struct {
	pred    mln.PredID
	pattern []mln.ConstID
}

// akey identifies an atom of arity at most two (placeholders included).
type akey struct {
	p    mln.PredID
	n    int8
	a, b mln.ConstID
}

func atomKey(p mln.PredID, args []mln.ConstID) akey {
	k := akey{p: p, n: int8(len(args))}
	if len(args) > 0 {
		k.a = args[0]
	}
	if len(args) > 1 {
		k.b = args[1]
	}
	return k
}

// groundKey identifies a ground atom of any arity.
func groundKey(p mln.PredID, args []mln.ConstID) string {
	b := make([]byte, 0, 4+4*len(args))
	for _, x := range append([]mln.ConstID{mln.ConstID(p)}, args...) {
		b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
	}
	return string(b)
}

// relevantSlots returns, per type, the slots that take part in a clause
// grounding between two distinct non-special elements: those split an
// element's cells; the others are summed out into the cell weights.
func (th *theory) relevantSlots() map[mln.TypeID][]slot {
	rel := map[mln.TypeID][]slot{}
	seen := map[string]bool{}
	for _, c := range th.clauses {
		if len(c.varType) != 2 {
			continue
		}
		for _, l := range c.lits {
			if l.pred < 0 {
				continue
			}
			uses := [2]bool{}
			for _, t := range l.args {
				if t.IsVar() {
					uses[t.Var()] = true
				}
			}
			if uses[0] == uses[1] {
				continue // a pair atom, or no variable
			}
			v := 0
			if uses[1] {
				v = 1
			}
			pat := make([]mln.ConstID, len(l.args))
			for i, t := range l.args {
				if t.IsVar() {
					pat[i] = -1
				} else {
					pat[i] = t.Const()
				}
			}
			tp := c.varType[v]
			k := fmt.Sprint(tp, groundKey(l.pred, pat))
			if !seen[k] {
				seen[k] = true
				rel[tp] = append(rel[tp], slot{pred: l.pred, pattern: pat})
			}
		}
	}
	return rel
}
