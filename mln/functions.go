package mln

import (
	"fmt"

	"github.com/marple-mln/marple/syntax"
)

// Functions in formulas are compiled away as LoMRF does: each declared
// function "ret f(a1, ..., an)" used in a formula gets an auxiliary
// predicate AUXf(ret!, a1, ..., an) whose first argument is the function's
// value, with the functional constraint that exactly one value is true for
// each binding of the arguments (Alchemy's "!", a hard constraint). The
// predicate is closed world: its atoms are evidence, given in .db files as
// Alchemy writes function values, "Value = f(A1, ..., An)" (or directly as
// AUXf(Value, A1, ..., An)).
//
// A formula F[f(t)] becomes, at an atom or comparison that holds the term,
//
//	FORALL v (AUXf(v, t) => F[v])    where the atom occurs positively,
//	EXIST v (AUXf(v, t) ^ F[v])      where it occurs negatively,
//
// which under the functional constraint both mean F[f(t)]; the choice
// keeps the variable universal once negations are pushed inwards, so the
// clause form is that of F with one more literal per function term and no
// existential expansion (a "<=>" with a function term is first written as
// two implications, so that every atom has one polarity). Nested terms f(g(x)) are flattened innermost
// first.

// AuxPrefix starts the names of the auxiliary predicates of functions.
const AuxPrefix = "AUX"

// FuncPred returns the auxiliary predicate of function fn, declaring it
// the first time.
func (m *Model) FuncPred(fn *Function) *Predicate {
	name := AuxPrefix + fn.Name
	if p, ok := m.Pred(name); ok {
		return p
	}
	args := append([]TypeID{fn.Ret}, fn.Args...)
	p := &Predicate{Name: name, Args: args, Closed: true, Pos: fn.Pos, Unique: make([]bool, len(args))}
	p.Unique[0] = true
	return m.AddPred(p)
}

// funcDef is one function term replaced by a variable.
type funcDef struct {
	v       string
	fn      *Function // a declared function, or nil for
	builtin Builtin   // an internal function (succ, plus, ...)
	name    string
	args    []syntax.Term
	pos     syntax.Pos
}

// funcRewriter replaces the function terms of one formula.
type funcRewriter struct {
	m    *Model
	has  map[syntax.Formula]bool // whether a subformula holds a function term (expandedSize)
	used map[string]bool         // variable names of the formula
	n    int
	errs syntax.ErrorList
}

// compileFunctions returns f with its terms of declared functions compiled
// away (f itself when it has none). Terms of undeclared functions are left
// for analyze to report.
//
// Alchemy's internal functions (succ, plus, minus, times, dividedBy, mod,
// and the infix operators the parser reads as them) are compiled the same
// way, with the comparison "v = plus(x, y)" (a builtin literal, see Plus)
// in place of the auxiliary atom: the value is computed, not looked up,
// and a grounding whose value is not a constant is satisfied.
func (m *Model) compileFunctions(f syntax.Formula) (syntax.Formula, syntax.ErrorList) {
	if f == nil {
		return f, nil
	}
	r := &funcRewriter{m: m, used: map[string]bool{}, has: map[syntax.Formula]bool{}}
	limit := min(MaxCNFLiterals, maxRewrittenNodes)
	if n, has := r.expandedSize(f, limit); !has {
		return f, nil
	} else if n > limit {
		r.errs.Add(f.Pos(), "formula too large once its function terms are compiled: each '<=>' around a function term doubles it (more than %d nodes)", limit)
		return f, r.errs
	}
	syntax.Walk(f, func(g syntax.Formula) bool {
		var terms []syntax.Term
		switch g := g.(type) {
		case *syntax.Atom:
			terms = g.Args
		case *syntax.Compare:
			terms = []syntax.Term{g.X, g.Y}
		case *syntax.Quant:
			for _, v := range g.Vars {
				r.used[v.Name] = true
			}
		}
		r.names(terms)
		return true
	})
	out := r.formula(f, 1)
	return out, r.errs
}

// names records the variable names among terms.
func (r *funcRewriter) names(terms []syntax.Term) {
	for _, t := range terms {
		if t.Kind == syntax.VarTerm {
			r.used[t.Name] = true
		}
		r.names(t.Args)
	}
}

// fresh returns a variable name the formula does not use.
func (r *funcRewriter) fresh(fn string) string {
	for {
		r.n++
		v := fmt.Sprintf("%s_%d", "v"+fn, r.n)
		if !r.used[v] {
			r.used[v] = true
			return v
		}
	}
}

// terms replaces the declared function terms among ts by fresh variables
// and returns the definitions, innermost first.
func (r *funcRewriter) terms(ts []syntax.Term, defs []funcDef) ([]syntax.Term, []funcDef) {
	var out []syntax.Term
	for i, t := range ts {
		if t.Kind != syntax.FuncTerm {
			continue
		}
		fn := r.m.funcByName(t.Name)
		b := NoBuiltin
		if fn == nil {
			if b = InternalFunctions[t.Name]; b == NoBuiltin {
				continue
			}
			if len(t.Args) != b.Arity()-1 {
				r.errs.Add(t.TermPos, "internal function %s has %d argument(s), found %d", t.Name, b.Arity()-1, len(t.Args))
				continue
			}
		} else if len(t.Args) != len(fn.Args) {
			r.errs.Add(t.TermPos, "function %s has %d argument(s), found %d", fn.Name, len(fn.Args), len(t.Args))
			continue
		}
		if out == nil {
			out = append([]syntax.Term(nil), ts...)
		}
		var args []syntax.Term
		args, defs = r.terms(t.Args, defs)
		v := r.fresh(t.Name)
		defs = append(defs, funcDef{v: v, fn: fn, builtin: b, name: t.Name, args: args, pos: t.TermPos})
		out[i] = syntax.Term{TermPos: t.TermPos, Kind: syntax.VarTerm, Name: v}
	}
	if out == nil {
		return ts, defs
	}
	return out, defs
}

// formula rewrites f occurring with polarity pol (1 positive, -1 negative,
// 0 both).
func (r *funcRewriter) formula(f syntax.Formula, pol int) syntax.Formula {
	switch f := f.(type) {
	case *syntax.Atom:
		args, defs := r.terms(f.Args, nil)
		if defs == nil {
			return f
		}
		a := *f
		a.Args = args
		return r.wrap(&a, defs, pol)
	case *syntax.Compare:
		if r.m.isArithDef(f) {
			return f // v = plus(x, 1), as written by ClauseFormula
		}
		xy, defs := r.terms([]syntax.Term{f.X, f.Y}, nil)
		if defs == nil {
			return f
		}
		c := *f
		c.X, c.Y = xy[0], xy[1]
		return r.wrap(&c, defs, pol)
	case *syntax.Not:
		return &syntax.Not{NotPos: f.NotPos, X: r.formula(f.X, -pol)}
	case *syntax.Binary:
		if f.Op == syntax.OpIff && (r.hasFunc(f.X) || r.hasFunc(f.Y)) {
			// X <=> Y as (X => Y) ^ (Y => X): each atom gets one polarity.
			return r.formula(&syntax.Binary{Op: syntax.OpAnd, OpPos: f.OpPos,
				X: &syntax.Binary{Op: syntax.OpImplies, OpPos: f.OpPos, X: f.X, Y: f.Y},
				Y: &syntax.Binary{Op: syntax.OpImplies, OpPos: f.OpPos, X: f.Y, Y: f.X}}, pol)
		}
		px, py := pol, pol
		switch f.Op {
		case syntax.OpImplies:
			px = -pol
		case syntax.OpIff:
			px, py = 0, 0
		}
		return &syntax.Binary{Op: f.Op, OpPos: f.OpPos, X: r.formula(f.X, px), Y: r.formula(f.Y, py)}
	case *syntax.Quant:
		q := *f
		q.Body = r.formula(f.Body, pol)
		return &q
	}
	return f
}

// maxRewrittenNodes bounds the size of a formula once its function terms
// are compiled away.
const maxRewrittenNodes = 1 << 20

// expandedSize returns the number of nodes f has once rewritten (each
// "<=>" around a function term becomes two implications, doubling it),
// capped at limit+1, and whether f holds a function term; it records the
// latter for every subformula in r.has.
func (r *funcRewriter) expandedSize(f syntax.Formula, limit int) (int, bool) {
	var n int
	var has bool
	switch g := f.(type) {
	case *syntax.Atom, *syntax.Compare:
		n, has = 1, r.hasFunc(g)
	case *syntax.Not:
		n, has = r.expandedSize(g.X, limit)
		n++
	case *syntax.Quant:
		n, has = r.expandedSize(g.Body, limit)
		n++
	case *syntax.Binary:
		nx, hx := r.expandedSize(g.X, limit)
		ny, hy := r.expandedSize(g.Y, limit)
		n, has = nx+ny+1, hx || hy
		if g.Op == syntax.OpIff && has {
			n = 2*(nx+ny) + 3
		}
	default:
		return 1, false
	}
	r.has[f] = has
	return min(n, limit+1), has
}

// hasFunc reports whether f holds a term of a declared function.
func (r *funcRewriter) hasFunc(f syntax.Formula) bool {
	if has, ok := r.has[f]; ok {
		return has
	}
	found := false
	var terms func(ts []syntax.Term)
	terms = func(ts []syntax.Term) {
		for _, t := range ts {
			found = found || t.Kind == syntax.FuncTerm && (r.m.funcByName(t.Name) != nil || InternalFunctions[t.Name] != NoBuiltin)
			terms(t.Args)
		}
	}
	syntax.Walk(f, func(g syntax.Formula) bool {
		switch g := g.(type) {
		case *syntax.Atom:
			terms(g.Args)
		case *syntax.Compare:
			terms([]syntax.Term{g.X, g.Y})
		}
		return !found
	})
	return found
}

// wrap puts the definitions around the atom or comparison f.
func (r *funcRewriter) wrap(f syntax.Formula, defs []funcDef, pol int) syntax.Formula {
	var aux syntax.Formula
	q := &syntax.Quant{QuantPos: defs[0].pos, Exist: pol < 0}
	for _, d := range defs {
		var a syntax.Formula
		v := syntax.Term{TermPos: d.pos, Kind: syntax.VarTerm, Name: d.v}
		if d.fn == nil {
			a = &syntax.Compare{Op: syntax.CmpEq, OpPos: d.pos, X: v,
				Y: syntax.Term{TermPos: d.pos, Kind: syntax.FuncTerm, Name: d.name, Args: d.args}}
		} else {
			p := r.m.FuncPred(d.fn)
			a = &syntax.Atom{AtomPos: d.pos, Pred: p.Name, PredPos: d.pos,
				Args: append([]syntax.Term{v}, d.args...)}
		}
		if aux == nil {
			aux = a
		} else {
			aux = &syntax.Binary{Op: syntax.OpAnd, OpPos: d.pos, X: aux, Y: a}
		}
		q.Vars = append(q.Vars, syntax.Ident{NamePos: d.pos, Name: d.v})
	}
	if q.Exist {
		q.Body = &syntax.Binary{Op: syntax.OpAnd, OpPos: defs[0].pos, X: aux, Y: f}
	} else {
		q.Body = &syntax.Binary{Op: syntax.OpImplies, OpPos: defs[0].pos, X: aux, Y: f}
	}
	return q
}

// isArithDef reports whether c is "v = f(a1, ...)" for a variable v and an
// internal function f (not shadowed by a declared function) whose
// arguments are variables or constants: the builtin literal itself.
func (m *Model) isArithDef(c *syntax.Compare) bool {
	if c.Op != syntax.CmpEq || c.X.Kind != syntax.VarTerm || c.Y.Kind != syntax.FuncTerm ||
		m.funcByName(c.Y.Name) != nil || InternalFunctions[c.Y.Name] == NoBuiltin {
		return false
	}
	if len(c.Y.Args) != InternalFunctions[c.Y.Name].Arity()-1 {
		return false
	}
	for _, a := range c.Y.Args {
		if a.Kind == syntax.FuncTerm || a.Plus {
			return false
		}
	}
	return true
}
