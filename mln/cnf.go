package mln

import (
	"context"
	"fmt"
	"strconv"

	"github.com/marple-mln/marple/syntax"
)

// MaxCNFClauses bounds the number of clauses one formula may compile to
// (existential quantifiers over conjunctions are expanded over the domain,
// which can blow up).
var MaxCNFClauses = 100000

// Compile compiles every formula to first-order clauses (Model.Clauses),
// the way Alchemy does:
//
//   - each formula is put in conjunctive normal form; its weight is split
//     evenly over its k clauses (Clause.Coef = 1/k; hard formulas have
//     Hard set and Coef 1);
//   - a soft formula whose CNF is a conjunction of k > 1 single literals is
//     kept as one clause, the disjunction of the negated literals, with
//     Coef -1 (the score then differs from w·[conjunction] by a constant);
//   - an existential quantifier whose body is (after moving negations
//     inward) a single clause stays in the clause (Clause.Exist: the ground
//     clause is the disjunction over the variable's domain); otherwise it
//     is expanded over the domain, which must then be final;
//   - clauses that contain a literal and its negation are dropped;
//     identical literals are merged;
//   - comparisons become literals with Pred -1 and a Builtin; they are
//     never negated (the operator is flipped instead);
//   - every clause of a formula with "+" variables lists, in Clause.Plus,
//     its variables bound to Formula.PlusVars (in that order); such a
//     variable is in the clause's Vars even if no literal uses it, and
//     grounders enumerate its domain like any other;
//   - each predicate argument declared with "!" gets a Synthetic hard
//     formula (added to Model.Formulas once) with two clauses: at least one
//     value (the argument an Exist variable) and at most one
//     (!P(..,y,..) v !P(..,z,..) v y = z).
//
// Compile can be run again after constants are added: it rebuilds
// Model.Clauses (and Formula.Clauses) and keeps the parameters already
// allocated. It allocates the parameter of each soft formula without "+"
// variables (binding nil); hard formulas have no parameter.
//
// A model whose soft weights add up to more than MaxWeightSum is refused.
// A formula whose CNF would exceed MaxCNFClauses clauses or MaxCNFLiterals
// literals is refused before it is expanded, with an error naming it and
// the connective or quantifier that multiplies its clauses.
func (m *Model) Compile() error {
	return m.CompileContext(context.Background())
}

// CompileContext is Compile, stopping with ctx's error when ctx is
// cancelled.
func (m *Model) CompileContext(ctx context.Context) error {
	if err := m.checkWeightSum(); err != nil {
		return err
	}
	m.Clauses = nil
	m.addUniqueFormulas()
	var errs syntax.ErrorList
	for fi := range m.Formulas {
		if err := ctx.Err(); err != nil {
			return err
		}
		cls, err := m.compileFormula(ctx, fi)
		if ce, ok := err.(ctxError); ok {
			return ce.err
		}
		if err != nil {
			errs = appendErr(errs, err)
			m.Formulas[fi].Clauses = nil
			continue
		}
		m.install(fi, cls)
	}
	errs.Sort()
	return errs.Err()
}

// AddFormula checks and compiles one new formula (for instance from
// ParseFormula, or built by a structure learner with ClauseFormula) against
// the current domains, appends it to Model.Formulas and its clauses to
// Model.Clauses, without recompiling the others. It returns the indices of
// the new clauses. On error the model is unchanged (except for constants
// the formula names, which are added to their types).
func (m *Model) AddFormula(f *Formula) ([]int, error) {
	if f.AST == nil {
		return nil, fmt.Errorf("mln: AddFormula: formula has no AST")
	}
	if f.Hard && f.HasWeight {
		return nil, syntax.Errorf(f.Pos, "weight on a hard formula")
	}
	if f.Hard && f.DomainScaled {
		return nil, syntax.Errorf(f.Pos, "domain-size-aware weight on a hard formula")
	}
	fi := len(m.Formulas)
	m.Formulas = append(m.Formulas, f)
	cls, err := m.compileFormula(context.Background(), fi)
	if err != nil {
		m.Formulas = m.Formulas[:fi]
		return nil, err
	}
	m.install(fi, cls)
	return f.Clauses, nil
}

func appendErr(errs syntax.ErrorList, err error) syntax.ErrorList {
	switch e := err.(type) {
	case syntax.ErrorList:
		return append(errs, e...)
	case *syntax.Error:
		return append(errs, e)
	}
	return append(errs, &syntax.Error{Msg: err.Error()})
}

// install appends the clauses of formula fi to the model.
func (m *Model) install(fi int, cls []*Clause) {
	f := m.Formulas[fi]
	f.Clauses = nil
	for _, c := range cls {
		c.Formula = fi
		f.Clauses = append(f.Clauses, len(m.Clauses))
		m.Clauses = append(m.Clauses, c)
	}
	if !f.Hard && len(f.PlusVars) == 0 {
		m.Param(fi, nil)
	}
}

// addUniqueFormulas adds the synthetic formulas of "!" arguments that are
// not there yet.
func (m *Model) addUniqueFormulas() {
	have := map[[2]int]bool{}
	for _, f := range m.Formulas {
		if f.Synthetic {
			have[[2]int{int(f.uniquePred), f.uniqueArg}] = true
		}
	}
	for _, p := range m.Preds {
		for a, u := range p.Unique {
			if u && !have[[2]int{int(p.ID), a}] {
				m.Formulas = append(m.Formulas, &Formula{Pos: p.Pos, Hard: true, Synthetic: true,
					uniquePred: p.ID, uniqueArg: a})
			}
		}
	}
}

func (m *Model) uniqueClauses(f *Formula) []*Clause {
	p := m.Preds[f.uniquePred]
	n := len(p.Args)
	vars := make([]Var, n, n+1)
	args := make([]Term, n)
	for i, t := range p.Args {
		vars[i] = Var{Name: "a" + strconv.Itoa(i+1), Type: t}
		args[i] = VarTerm(i)
	}
	a := f.uniqueArg
	least := &Clause{
		Lits:  []Literal{{Pred: p.ID, Args: args}},
		Vars:  vars,
		Exist: []int{a},
		Coef:  1,
		Hard:  true,
	}
	vars2 := append(append([]Var(nil), vars...), Var{Name: vars[a].Name + "b", Type: p.Args[a]})
	args2 := append([]Term(nil), args...)
	args2[a] = VarTerm(n)
	most := &Clause{
		Lits: []Literal{
			{Pred: p.ID, Neg: true, Args: append([]Term(nil), args...)},
			{Pred: p.ID, Neg: true, Args: args2},
			{Pred: -1, Builtin: Eq, Args: []Term{VarTerm(a), VarTerm(n)}},
		},
		Vars: vars2,
		Coef: 1,
		Hard: true,
	}
	return []*Clause{least, most}
}

// compiler holds the state of compiling one formula.
type compiler struct {
	m     *Model
	vars  []fvar
	pos   syntax.Pos
	ctx   context.Context
	steps int
}

// ctxError carries the context's error out of compileFormula.
type ctxError struct{ err error }

func (e ctxError) Error() string { return e.err.Error() }

// cl is a clause under construction.
type cl struct {
	lits  []Literal
	exist []int
}

// compileError is panicked to abandon a formula: err, or the context's
// error ctx.
type compileError struct {
	err *syntax.Error
	ctx error
}

func (m *Model) compileFormula(ctx context.Context, fi int) (cls []*Clause, err error) {
	f := m.Formulas[fi]
	if f.Synthetic {
		return m.uniqueClauses(f), nil
	}
	var errs syntax.ErrorList
	an := m.analyze(f.AST, &errs)
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	if f.PlusVars == nil {
		f.PlusVars = an.plusVars()
	}
	c := &compiler{m: m, vars: an.vars, pos: f.Pos, ctx: ctx}
	if err := c.checkSize(f, an.root); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			ce, ok := r.(compileError)
			if !ok {
				panic(r)
			}
			if ce.ctx != nil {
				cls, err = nil, ctxError{ce.ctx}
				return
			}
			cls, err = nil, ce.err
		}
	}()
	raw := c.cnf(c.nnf(an.root, false))
	if m.Dialect == syntax.Pracmln && !f.Hard {
		return c.wholeFormula(f, an.root, raw), nil
	}
	return c.finish(f, raw), nil
}

func (c *compiler) fail(format string, args ...any) {
	panic(compileError{err: syntax.Errorf(c.pos, format, args...)})
}

// fresh returns a new variable like v.
func (c *compiler) fresh(v int) int {
	n := len(c.vars)
	fv := c.vars[v]
	c.vars = append(c.vars, fv)
	return n
}

// negBuiltin returns the comparison that is true exactly when b is false.
func negBuiltin(b Builtin) Builtin {
	switch b {
	case Eq:
		return Neq
	case Neq:
		return Eq
	case Lt:
		return Ge
	case Ge:
		return Lt
	case Le:
		return Gt
	case Gt:
		return Le
	}
	return b
}

// negLit returns the negation of a literal (builtins flip their operator).
func negLit(l Literal) Literal {
	if l.Pred < 0 && !l.Builtin.IsArith() {
		l.Builtin = negBuiltin(l.Builtin)
		return l
	}
	l.Neg = !l.Neg
	return l
}

// copyNode copies n, giving every quantified variable inside a fresh index
// and replacing variables by sub.
func (c *compiler) copyNode(n *node, sub map[int]Term) *node {
	switch n.kind {
	case nLit:
		l := n.lit
		l.Args = make([]Term, len(n.lit.Args))
		for i, t := range n.lit.Args {
			if t.IsVar() {
				if s, ok := sub[t.Var()]; ok {
					t = s
				}
			}
			l.Args[i] = t
		}
		return &node{kind: nLit, lit: l}
	case nExist, nForall:
		sub2 := make(map[int]Term, len(sub)+len(n.vars))
		for k, v := range sub {
			sub2[k] = v
		}
		out := &node{kind: n.kind}
		for _, v := range n.vars {
			nv := c.fresh(v)
			sub2[v] = VarTerm(nv)
			out.vars = append(out.vars, nv)
		}
		out.kids = []*node{c.copyNode(n.kids[0], sub2)}
		return out
	}
	out := &node{kind: n.kind, kids: make([]*node, len(n.kids))}
	for i, k := range n.kids {
		out.kids[i] = c.copyNode(k, sub)
	}
	return out
}

// nnf returns n (negated if neg) in negation normal form: literals, and,
// or, exist and forall only.
func (c *compiler) nnf(n *node, neg bool) *node {
	switch n.kind {
	case nLit:
		if neg {
			return &node{kind: nLit, lit: negLit(n.lit)}
		}
		return n
	case nNot:
		return c.nnf(n.kids[0], !neg)
	case nAnd, nOr:
		k := n.kind
		if neg {
			k = nAnd + nOr - k
		}
		out := &node{kind: k}
		for _, x := range n.kids {
			out.kids = append(out.kids, c.nnf(x, neg))
		}
		return out
	case nImp:
		// a => b  ==  !a v b;  !(a => b)  ==  a ^ !b
		if neg {
			return &node{kind: nAnd, kids: []*node{c.nnf(n.kids[0], false), c.nnf(n.kids[1], true)}}
		}
		return &node{kind: nOr, kids: []*node{c.nnf(n.kids[0], true), c.nnf(n.kids[1], false)}}
	case nIff:
		if len(n.kids) > 2 {
			// a <=> b <=> c is (a <=> b) <=> c.
			x := &node{kind: nIff, pos: n.pos, kids: n.kids[:2]}
			for _, k := range n.kids[2:] {
				x = &node{kind: nIff, pos: n.pos, kids: []*node{x, k}}
			}
			return c.nnf(x, neg)
		}
		a1, b1 := n.kids[0], n.kids[1]
		a2, b2 := c.copyNode(a1, nil), c.copyNode(b1, nil)
		if neg {
			// (a ^ !b) v (!a ^ b)
			return &node{kind: nOr, kids: []*node{
				{kind: nAnd, kids: []*node{c.nnf(a1, false), c.nnf(b1, true)}},
				{kind: nAnd, kids: []*node{c.nnf(a2, true), c.nnf(b2, false)}},
			}}
		}
		// (!a v b) ^ (a v !b)
		return &node{kind: nAnd, kids: []*node{
			{kind: nOr, kids: []*node{c.nnf(a1, true), c.nnf(b1, false)}},
			{kind: nOr, kids: []*node{c.nnf(a2, false), c.nnf(b2, true)}},
		}}
	case nExist, nForall:
		k := n.kind
		if neg {
			k = nExist + nForall - k
		}
		return &node{kind: k, vars: n.vars, kids: []*node{c.nnf(n.kids[0], neg)}}
	}
	return n
}

// forallVars collects the universally quantified variables inside n.
func forallVars(n *node, set map[int]bool) {
	if n.kind == nForall {
		for _, v := range n.vars {
			set[v] = true
		}
	}
	for _, k := range n.kids {
		forallVars(k, set)
	}
}

func clauseHasVar(x cl, set map[int]bool) bool {
	for _, l := range x.lits {
		for _, t := range l.Args {
			if t.IsVar() && set[t.Var()] {
				return true
			}
		}
	}
	return false
}

func clauseUses(x cl, v int) bool {
	for _, l := range x.lits {
		for _, t := range l.Args {
			if t.IsVar() && t.Var() == v {
				return true
			}
		}
	}
	return false
}

// cnf returns the clauses of an NNF formula.
func (c *compiler) cnf(n *node) []cl {
	c.steps++
	if c.steps%1024 == 0 && c.ctx.Err() != nil {
		panic(compileError{ctx: c.ctx.Err()})
	}
	switch n.kind {
	case nLit:
		return []cl{{lits: []Literal{n.lit}}}
	case nAnd:
		var out []cl
		for _, k := range n.kids {
			out = append(out, c.cnf(k)...)
			if len(out) > MaxCNFClauses {
				c.fail("formula has more than %d clauses in CNF", MaxCNFClauses)
			}
		}
		return out
	case nOr:
		acc := []cl{{}}
		for _, k := range n.kids {
			kc := c.cnf(k)
			if len(kc) == 0 {
				return nil // a true disjunct
			}
			if len(acc)*len(kc) > MaxCNFClauses {
				c.fail("formula has more than %d clauses in CNF (an existential quantifier over a conjunction, expanded over a large domain?)", MaxCNFClauses)
			}
			if len(kc) == 1 {
				// One clause: extend every clause so far in place (each
				// owns its literals), so that a long disjunction costs
				// linear time.
				b := kc[0]
				for i := range acc {
					acc[i].lits = append(acc[i].lits, b.lits...)
					acc[i].exist = append(acc[i].exist, b.exist...)
				}
				continue
			}
			next := make([]cl, 0, len(acc)*len(kc))
			for _, a := range acc {
				for _, b := range kc {
					var x cl
					x.lits = append(append(make([]Literal, 0, len(a.lits)+len(b.lits)), a.lits...), b.lits...)
					if len(a.exist)+len(b.exist) > 0 {
						x.exist = append(append([]int(nil), a.exist...), b.exist...)
					}
					next = append(next, x)
				}
			}
			acc = next
		}
		return acc
	case nForall:
		return c.cnf(n.kids[0])
	case nExist:
		body := n.kids[0]
		if len(n.vars) == 0 {
			return c.cnf(body)
		}
		inner := c.cnf(body)
		if len(inner) == 0 {
			return nil
		}
		set := map[int]bool{}
		forallVars(body, set)
		if len(inner) == 1 && !clauseHasVar(inner[0], set) {
			x := inner[0]
			for _, v := range n.vars {
				if clauseUses(x, v) {
					x.exist = append(x.exist, v)
				}
			}
			return []cl{x}
		}
		// Expand the first variable over its domain.
		v, rest := n.vars[0], n.vars[1:]
		if len(rest) > 0 {
			body = &node{kind: nExist, vars: rest, kids: []*node{body}}
		}
		typ := c.vars[v].typ
		dom := c.m.Types[typ].Consts
		or := &node{kind: nOr}
		for _, k := range dom {
			or.kids = append(or.kids, c.copyNode(body, map[int]Term{v: ConstTerm(k)}))
		}
		return c.cnf(or)
	}
	c.fail("internal error: node kind %d in CNF", n.kind)
	return nil
}

func sameLit(a, b *Literal) bool {
	if a.Pred != b.Pred || a.Builtin != b.Builtin || len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		if a.Args[i] != b.Args[i] {
			return false
		}
	}
	return true
}

// simplify merges identical literals, evaluates comparisons between
// constants and between a variable and itself, and reports whether the
// clause is trivially true.
func (c *compiler) simplify(x *cl) (taut bool) {
	out := x.lits[:0]
	var seen map[string]int
	for _, l := range x.lits {
		if l.Pred < 0 && l.Builtin.IsArith() {
			consts := make([]ConstID, 0, len(l.Args))
			for _, t := range l.Args {
				if !t.IsVar() {
					consts = append(consts, t.Const())
				}
			}
			if len(consts) == len(l.Args) {
				if c.m.EvalLiteral(l.Builtin, consts) != l.Neg {
					return true
				}
				continue
			}
		} else if l.Pred < 0 && len(l.Args) == 2 {
			a, b := l.Args[0], l.Args[1]
			if !a.IsVar() && !b.IsVar() {
				if c.m.EvalBuiltin(l.Builtin, a.Const(), b.Const()) {
					return true
				}
				continue
			}
			if a == b {
				switch l.Builtin {
				case Eq, Le, Ge:
					return true
				}
				continue
			}
		}
		if len(x.lits) > maxScanLits {
			// A long clause: find duplicates by key.
			k := litKey(&l)
			if i, ok := seen[k]; ok {
				if out[i].Neg != l.Neg {
					return true
				}
				continue
			}
			if seen == nil {
				seen = make(map[string]int)
			}
			seen[k] = len(out)
			out = append(out, l)
			continue
		}
		dup := false
		for i := range out {
			if sameLit(&out[i], &l) {
				if out[i].Neg != l.Neg {
					return true
				}
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, l)
		}
	}
	x.lits = out
	return false
}

// maxScanLits is the clause length up to which duplicate literals are
// found by comparing pairs; longer clauses use a map.
const maxScanLits = 32

// litKey identifies a literal up to its sign.
func litKey(l *Literal) string {
	b := make([]byte, 0, 8+8*len(l.Args))
	b = strconv.AppendInt(b, int64(l.Pred), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(l.Builtin), 10)
	for _, t := range l.Args {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(t), 10)
	}
	return string(b)
}

// finish turns the raw clauses of formula f into model clauses.
func (c *compiler) finish(f *Formula, raw []cl) []*Clause {
	kept := raw[:0]
	empty := 0
	for _, x := range raw {
		if c.simplify(&x) {
			continue
		}
		if len(x.lits) == 0 {
			if f.Hard {
				c.fail("hard formula is unsatisfiable (a clause of its CNF is empty)")
			}
			// Never satisfied: a constant, no effect on probabilities,
			// but it keeps its share of the weight.
			empty++
			continue
		}
		kept = append(kept, x)
	}
	coef := 1.0
	if empty > 0 {
		coef = 1 / float64(len(kept)+empty)
	} else if !f.Hard && len(kept) > 1 {
		conj := true
		for _, x := range kept {
			if len(x.lits) != 1 || len(x.exist) > 0 {
				conj = false
				break
			}
		}
		if conj {
			// A weighted conjunction: one clause, the disjunction of the
			// negated literals, with a negated weight.
			var x cl
			for _, k := range kept {
				x.lits = append(x.lits, negLit(k.lits[0]))
			}
			if c.simplify(&x) {
				return nil
			}
			kept = []cl{x}
			coef = -1
		} else {
			coef = 1 / float64(len(kept))
		}
	}
	out := make([]*Clause, 0, len(kept))
	for _, x := range kept {
		out = append(out, c.makeClause(f, x, coef))
	}
	return out
}

// makeClause renumbers the variables of a raw clause densely (in order of
// appearance, then the "+" variables no literal uses).
func (c *compiler) makeClause(f *Formula, x cl, coef float64) *Clause {
	cls := &Clause{Coef: coef, Hard: f.Hard, DomainScaled: f.DomainScaled && !f.Hard}
	if f.Hard {
		cls.Coef = 1
	}
	idx := map[int]int{}
	names := map[string]bool{}
	addVar := func(v int) int {
		if i, ok := idx[v]; ok {
			return i
		}
		i := len(cls.Vars)
		idx[v] = i
		name := c.vars[v].name
		for k := 1; names[name]; k++ {
			name = c.vars[v].name + "_" + strconv.Itoa(k)
		}
		names[name] = true
		cls.Vars = append(cls.Vars, Var{Name: name, Type: c.vars[v].typ})
		return i
	}
	cls.Lits = make([]Literal, len(x.lits))
	for li, l := range x.lits {
		args := make([]Term, len(l.Args))
		for i, t := range l.Args {
			if t.IsVar() {
				t = VarTerm(addVar(t.Var()))
			}
			args[i] = t
		}
		l.Args = args
		cls.Lits[li] = l
	}
	seen := map[int]bool{}
	for _, v := range x.exist {
		if i, ok := idx[v]; ok && !seen[i] {
			seen[i] = true
			cls.Exist = append(cls.Exist, i)
		}
	}
	if len(f.PlusVars) > 0 {
		for _, name := range f.PlusVars {
			v := -1
			for j, fv := range c.vars {
				if fv.name == name && !fv.bound && fv.plus {
					v = j
					break
				}
			}
			if v < 0 {
				c.fail("internal error: + variable %s not found", name)
			}
			cls.Plus = append(cls.Plus, addVar(v))
		}
	}
	return cls
}

// EvalBuiltin evaluates a comparison between two constants. Equality is
// identity of constants; the order comparisons compare numerically when
// both names are numbers, and by name otherwise.
func (m *Model) EvalBuiltin(b Builtin, x, y ConstID) bool {
	switch b {
	case Eq:
		return x == y
	case Neq:
		return x != y
	}
	cmp := 0
	xs, ys := m.constNames[x], m.constNames[y]
	xf, errx := strconv.ParseFloat(xs, 64)
	yf, erry := strconv.ParseFloat(ys, 64)
	switch {
	case errx == nil && erry == nil:
		if xf < yf {
			cmp = -1
		} else if xf > yf {
			cmp = 1
		}
	case xs < ys:
		cmp = -1
	case xs > ys:
		cmp = 1
	}
	switch b {
	case Lt:
		return cmp < 0
	case Le:
		return cmp <= 0
	case Gt:
		return cmp > 0
	case Ge:
		return cmp >= 0
	}
	return false
}

// Arith computes the value of internal function b (IsArith) from the
// integer names of its arguments and reports whether they are integers and
// the value is defined.
func Arith(b Builtin, x, y int64) (int64, bool) {
	switch b {
	case Succ:
		return x + 1, true
	case Plus:
		return x + y, true
	case Minus:
		return x - y, true
	case Times:
		return x * y, true
	case Div:
		if y == 0 {
			return 0, false
		}
		return x / y, true
	case Mod:
		if y == 0 {
			return 0, false
		}
		return x % y, true
	}
	return 0, false
}

// ArithValue returns the constant named by the value of internal function
// b (IsArith) on the constants args (its arguments, without the value),
// and whether that value is defined and names a constant of the model.
func (m *Model) ArithValue(b Builtin, args []ConstID) (ConstID, bool) {
	var xs [2]int64
	for i, a := range args {
		if i >= 2 {
			return 0, false
		}
		v, err := strconv.ParseInt(m.constNames[a], 10, 64)
		if err != nil {
			return 0, false
		}
		xs[i] = v
	}
	v, ok := Arith(b, xs[0], xs[1])
	if !ok {
		return 0, false
	}
	return m.Const(strconv.FormatInt(v, 10))
}

// EvalLiteral evaluates builtin b (a comparison or an internal function)
// on the constants args, ignoring negation.
func (m *Model) EvalLiteral(b Builtin, args []ConstID) bool {
	if b.IsArith() {
		if len(args) != b.Arity() {
			return false
		}
		v, ok := m.ArithValue(b, args[1:])
		return ok && v == args[0]
	}
	return m.EvalBuiltin(b, args[0], args[1])
}

// String returns the comparison operator as written.
func (b Builtin) String() string {
	if b.IsArith() {
		for name, x := range InternalFunctions {
			if x == b {
				return name
			}
		}
	}
	switch b {
	case Eq:
		return "="
	case Neq:
		return "!="
	case Lt:
		return "<"
	case Le:
		return "<="
	case Gt:
		return ">"
	case Ge:
		return ">="
	}
	return "?"
}

// ClauseFormula returns a formula AST for clause c (for printing, or to
// add a learned clause with AddFormula): the disjunction of its literals,
// under "EXIST" for its existential variables, with "+" on its Plus
// variables. Variables without a usable name are called a1, a2, ...
func (m *Model) ClauseFormula(c *Clause) syntax.Formula {
	names := make([]string, len(c.Vars))
	used := map[string]bool{}
	for i, v := range c.Vars {
		n := v.Name
		if n == "" || n[0] < 'a' || n[0] > 'z' || used[n] {
			for k := i + 1; ; k++ {
				n = "a" + strconv.Itoa(k)
				if !used[n] {
					break
				}
			}
		}
		used[n] = true
		names[i] = n
	}
	plus := make([]bool, len(c.Vars))
	for _, v := range c.Plus {
		plus[v] = true
	}
	term := func(t Term) syntax.Term {
		if t.IsVar() {
			return syntax.Term{Kind: syntax.VarTerm, Name: names[t.Var()], Plus: plus[t.Var()]}
		}
		return syntax.Term{Kind: syntax.ConstTerm, Name: m.ConstName(t.Const())}
	}
	var f syntax.Formula
	for _, l := range c.Lits {
		var x syntax.Formula
		if l.Pred < 0 && l.Builtin.IsArith() {
			// v = f(args): written as Alchemy's internal function term.
			fn := syntax.Term{Kind: syntax.FuncTerm, Name: l.Builtin.String()}
			for _, t := range l.Args[1:] {
				a := term(t)
				a.Plus = false
				fn.Args = append(fn.Args, a)
			}
			v := term(l.Args[0])
			v.Plus = false
			x = &syntax.Compare{Op: syntax.CmpEq, X: v, Y: fn}
		} else if l.Pred < 0 {
			cmp := &syntax.Compare{Op: syntax.CmpOp(l.Builtin - Eq), X: term(l.Args[0]), Y: term(l.Args[1])}
			cmp.X.Plus, cmp.Y.Plus = false, false
			x = cmp
		} else {
			a := &syntax.Atom{Pred: m.Preds[l.Pred].Name}
			for _, t := range l.Args {
				a.Args = append(a.Args, term(t))
			}
			x = a
		}
		if l.Neg {
			x = &syntax.Not{X: x}
		}
		if f == nil {
			f = x
		} else {
			f = &syntax.Binary{Op: syntax.OpOr, X: f, Y: x}
		}
	}
	if f == nil {
		// The empty clause: false.
		f = &syntax.Not{X: &syntax.Compare{Op: syntax.CmpEq,
			X: syntax.Term{Kind: syntax.ConstTerm, Name: "0"}, Y: syntax.Term{Kind: syntax.ConstTerm, Name: "0"}}}
	}
	if len(c.Exist) > 0 {
		q := &syntax.Quant{Exist: true, Body: f}
		for _, v := range c.Exist {
			q.Vars = append(q.Vars, syntax.Ident{Name: names[v]})
		}
		f = q
	}
	return f
}
