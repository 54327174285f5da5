package mln

import (
	"fmt"
	"strconv"

	"github.com/marple-mln/marple/syntax"
)

// maxStars bounds the number of "*" literals in one formula (each doubles
// the number of formulas).
const maxStars = 12

// Build makes a typed Model from parsed .mln files, in order. Included files
// (syntax.Include with File set) are processed in place; an unresolved
// #include is an error. All type, predicate and function declarations are
// processed before the formulas. Errors are positioned (a syntax.ErrorList);
// on error the partial model is returned too.
func Build(files ...*syntax.File) (*Model, error) {
	m := &Model{}
	var errs syntax.ErrorList
	for _, f := range files {
		m.declare(f, &errs)
	}
	defer func() { m.abandoned = nil }()
	for _, f := range files {
		m.addFormulas(f, &errs)
	}
	m.checkRealUses(files, &errs)
	for _, t := range m.Types {
		t.Declared = len(t.Consts)
	}
	errs.Sort()
	return m, errs.Err()
}

// declare processes the type, predicate and function declarations of f and
// its includes.
func (m *Model) declare(f *syntax.File, errs *syntax.ErrorList) {
	if f == nil {
		return
	}
	for name := range f.Abandoned {
		if m.abandoned == nil {
			m.abandoned = map[string]bool{}
		}
		m.abandoned[name] = true
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *syntax.Include:
			if d.File == nil {
				errs.Add(d.IncludePos, "#include %q not resolved (load the model from files with LoadModel)", d.Path)
				continue
			}
			m.declare(d.File, errs)
		case *syntax.TypeDecl:
			t := m.AddType(d.Name.Name, d.Name.NamePos)
			if (d.IsRange || len(d.Consts) > 0) && t.Listed.Line == 0 {
				t.Listed = d.Name.NamePos
			}
			if d.IsRange {
				for i := d.Lo; i <= d.Hi; i++ {
					m.AddToType(t.ID, strconv.Itoa(i))
				}
			}
			for _, c := range d.Consts {
				m.AddToType(t.ID, c.Name)
			}
		case *syntax.PredDecl:
			m.declarePred(d, errs)
		case *syntax.FuncDecl:
			m.declareFunc(d, errs)
		}
	}
}

func (m *Model) argTypes(args []syntax.ArgDecl) []TypeID {
	ts := make([]TypeID, len(args))
	for i, a := range args {
		ts[i] = m.AddType(a.Type.Name, a.Type.NamePos).ID
	}
	return ts
}

func sameTypes(a, b []TypeID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (m *Model) declarePred(d *syntax.PredDecl, errs *syntax.ErrorList) {
	name := d.Name.Name
	if fn := m.funcByName(name); fn != nil {
		errs.Add(d.Name.NamePos, "%s is declared as a function at %s", name, fn.Pos)
		return
	}
	args := m.argTypes(d.Args)
	if old, ok := m.Pred(name); ok {
		if !sameTypes(old.Args, args) {
			errs.Add(d.Name.NamePos, "predicate %s redeclared as %s, was %s at %s",
				name, m.sigString(name, args), m.sigString(name, old.Args), old.Pos)
			return
		}
		old.Closed = old.Closed || d.Closed
		for i, a := range d.Args {
			old.Unique[i] = old.Unique[i] || a.Unique
		}
		return
	}
	p := &Predicate{Name: name, Args: args, Closed: d.Closed, Pos: d.Name.NamePos}
	p.Unique = make([]bool, len(args))
	for i, a := range d.Args {
		p.Unique[i] = a.Unique
	}
	m.AddPred(p)
}

func (m *Model) funcByName(name string) *Function {
	for _, f := range m.Funcs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func (m *Model) declareFunc(d *syntax.FuncDecl, errs *syntax.ErrorList) {
	name := d.Name.Name
	if p, ok := m.Pred(name); ok {
		errs.Add(d.Name.NamePos, "%s is declared as a predicate at %s", name, p.Pos)
		return
	}
	args := m.argTypes(d.Args)
	ret := m.AddType(d.Ret.Name, d.Ret.NamePos).ID
	if old := m.funcByName(name); old != nil {
		if !sameTypes(old.Args, args) || old.Ret != ret {
			errs.Add(d.Name.NamePos, "function %s redeclared with a different signature (first declared at %s)", name, old.Pos)
		}
		return
	}
	for _, a := range d.Args {
		if a.Unique {
			errs.Add(a.Type.NamePos, "'!' is not allowed in a function declaration")
		}
	}
	m.Funcs = append(m.Funcs, &Function{Name: name, Args: args, Ret: ret, Pos: d.Name.NamePos})
}

func (m *Model) sigString(name string, args []TypeID) string {
	s := name + "("
	for i, t := range args {
		if i > 0 {
			s += ","
		}
		s += m.Types[t].Name
	}
	return s + ")"
}

// addFormulas processes the formulas of f and its includes.
func (m *Model) addFormulas(f *syntax.File, errs *syntax.ErrorList) {
	if f == nil {
		return
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *syntax.Include:
			m.addFormulas(d.File, errs)
		case *syntax.FormulaDecl:
			fs, err := m.newFormulas(d)
			if err != nil {
				*errs = append(*errs, err...)
				continue
			}
			m.Formulas = append(m.Formulas, fs...)
		case *syntax.HybridDecl:
			m.addHybrid(d, errs)
		case *syntax.ProbConstraint:
			m.addProbConstraint(d, errs)
		}
	}
}

// newFormulas checks a formula statement and returns its formulas (one per
// sign combination of its "*" literals), without adding them to the model.
// Constants of the formula are added to their types.
func (m *Model) newFormulas(d *syntax.FormulaDecl) ([]*Formula, syntax.ErrorList) {
	var errs syntax.ErrorList
	if w := syntax.NestedWeight(d.F); w != nil {
		errs.Add(w.WeightPos, "nested weight: the formula is a recursive random field, which only marple infer -rrf and marple learn -rrf read")
		return nil, errs
	}
	if d.Hard && d.HasWeight {
		errs.Add(d.Dot, "weight on a hard formula (a formula has either a weight or a trailing '.')")
	}
	checkUtility(d, &errs) // utility.go
	if d.Hard && d.DomainScaled {
		errs.Add(d.StartPos, "'@' on a hard formula (a domain-size-aware weight needs a soft formula)")
	}
	if F, ferrs := m.compileFunctions(d.F); len(ferrs) > 0 {
		return nil, ferrs
	} else if F != d.F {
		dd := *d
		dd.F, d = F, &dd
	}
	an := m.analyze(d.F, &errs)
	if len(errs) > 0 {
		return nil, errs
	}
	var stars []*syntax.Atom
	syntax.Walk(d.F, func(f syntax.Formula) bool {
		if a, ok := f.(*syntax.Atom); ok && a.Star {
			stars = append(stars, a)
		}
		return true
	})
	if len(stars) > maxStars {
		errs.Add(stars[maxStars].AtomPos, "too many '*' literals in one formula (at most %d)", maxStars)
		return nil, errs
	}
	var out []*Formula
	for mask := 0; mask < 1<<len(stars); mask++ {
		ast := d.F
		if len(stars) > 0 {
			ast = expandStars(d.F, stars, mask)
		}
		out = append(out, &Formula{
			Pos:          d.StartPos,
			AST:          ast,
			Weight:       d.Weight,
			HasWeight:    d.HasWeight,
			Hard:         d.Hard,
			PlusVars:     an.plusVars(),
			DomainScaled: d.DomainScaled,
			Fixed:        d.Fixed,
		})
	}
	setUtility(out, d)
	return out, nil
}

// expandStars returns a copy of f in which the i-th starred atom is negated
// when bit i of mask is set, and every star is removed.
func expandStars(f syntax.Formula, stars []*syntax.Atom, mask int) syntax.Formula {
	switch f := f.(type) {
	case *syntax.Atom:
		if !f.Star {
			return f
		}
		a := *f
		a.Star = false
		a.AtomPos = a.PredPos
		for i, s := range stars {
			if s == f && mask&(1<<i) != 0 {
				return &syntax.Not{NotPos: f.AtomPos, X: &a}
			}
		}
		return &a
	case *syntax.Not:
		return &syntax.Not{NotPos: f.NotPos, X: expandStars(f.X, stars, mask)}
	case *syntax.Binary:
		return &syntax.Binary{Op: f.Op, OpPos: f.OpPos, X: expandStars(f.X, stars, mask), Y: expandStars(f.Y, stars, mask)}
	case *syntax.Quant:
		q := *f
		q.Body = expandStars(f.Body, stars, mask)
		return &q
	}
	return f
}

// ParseFormula parses one formula statement ("[weight] formula [.]") in
// the context of the model's predicates, checks it and returns it without
// adding it to the model (see AddFormula). Its constants are added to their
// types. A formula with "*" literals is refused (it stands for several
// formulas).
func (m *Model) ParseFormula(text string) (*Formula, error) {
	known := make(syntax.Known, len(m.Preds))
	for _, p := range m.Preds {
		names := make([]string, len(p.Args))
		for i, t := range p.Args {
			names[i] = m.Types[t].Name
		}
		known[p.Name] = names
	}
	d, err := syntax.ParseFormula("formula", text, known)
	if err != nil {
		return nil, err
	}
	fs, errs := m.newFormulas(d)
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	if len(fs) != 1 {
		return nil, fmt.Errorf("formula %q has '*' literals: it stands for %d formulas", text, len(fs))
	}
	return fs[0], nil
}

// fvar is a variable of a formula under analysis.
type fvar struct {
	name  string
	typ   TypeID     // -1 until known
	pos   syntax.Pos // first occurrence
	tpos  syntax.Pos // occurrence that fixed the type
	plus  bool
	bound bool // quantified (EXIST or FORALL)
	used  bool // occurs in an atom or comparison
}

// node kinds of the internal formula tree.
type nkind uint8

const (
	nLit nkind = iota
	nNot
	nAnd
	nOr
	nImp
	nIff
	nExist
	nForall
)

// node is a formula with variables resolved to indices into the
// analysis's vars (terms VarTerm(i)).
type node struct {
	kind nkind
	lit  Literal
	kids []*node // nAnd, nOr: any number; nIff: two or more, folded to the left
	vars []int   // quantified variables
	pos  syntax.Pos
}

// analysis is a checked formula: its variables and its internal tree.
type analysis struct {
	vars []fvar
	root *node
	cmps []cmpCheck
}

type cmpCheck struct {
	x, y Term
	pos  syntax.Pos
}

func (an *analysis) plusVars() []string {
	var out []string
	for _, v := range an.vars {
		if v.plus {
			out = append(out, v.name)
		}
	}
	return out
}

// analyze resolves and type-checks formula f against the model: unknown
// predicates, arity, variable types (a variable has the type of the
// predicate arguments it fills, the same everywhere), undeclared
// functions (declared ones are compiled away before, compileFunctions). Constants in atoms are added to the argument's type.
func (m *Model) analyze(f syntax.Formula, errs *syntax.ErrorList) *analysis {
	an := &analysis{}
	free := map[string]int{}
	var scope []scopeEntry
	an.root = m.convert(f, an, free, &scope, errs)
	// Comparisons: a variable compared with a typed variable takes its
	// type; then both sides must have the same type.
	for changed := true; changed; {
		changed = false
		for _, c := range an.cmps {
			if !c.x.IsVar() || !c.y.IsVar() {
				continue
			}
			vx, vy := &an.vars[c.x.Var()], &an.vars[c.y.Var()]
			if vx.typ >= 0 && vy.typ < 0 {
				vy.typ, vy.tpos, changed = vx.typ, c.pos, true
			} else if vy.typ >= 0 && vx.typ < 0 {
				vx.typ, vx.tpos, changed = vy.typ, c.pos, true
			}
		}
	}
	for _, c := range an.cmps {
		tx, ty := an.termType(c.x), an.termType(c.y)
		if tx >= 0 && ty >= 0 && tx != ty {
			errs.Add(c.pos, "comparison between %s (type %s) and %s (type %s)",
				an.vars[c.x.Var()].name, m.Types[tx].Name, an.vars[c.y.Var()].name, m.Types[ty].Name)
		}
	}
	for i := range an.vars {
		v := &an.vars[i]
		if v.used && v.typ < 0 {
			errs.Add(v.pos, "cannot infer the type of variable %s (it appears only in comparisons)", v.name)
		}
	}
	return an
}

func (an *analysis) termType(t Term) TypeID {
	if !t.IsVar() {
		return -1
	}
	return an.vars[t.Var()].typ
}

type scopeEntry struct {
	name string
	v    int
}

func (m *Model) lookupVar(name string, pos syntax.Pos, an *analysis, free map[string]int, scope *[]scopeEntry) int {
	for i := len(*scope) - 1; i >= 0; i-- {
		if (*scope)[i].name == name {
			return (*scope)[i].v
		}
	}
	if v, ok := free[name]; ok {
		return v
	}
	v := len(an.vars)
	an.vars = append(an.vars, fvar{name: name, typ: -1, pos: pos})
	free[name] = v
	return v
}

func (m *Model) convert(f syntax.Formula, an *analysis, free map[string]int, scope *[]scopeEntry, errs *syntax.ErrorList) *node {
	switch f := f.(type) {
	case *syntax.Atom:
		p, ok := m.Pred(f.Pred)
		if !ok {
			if m.funcByName(f.Pred) != nil {
				errs.Add(f.PredPos, "%s is a function, not a predicate", f.Pred)
			} else if m.abandoned[f.Pred] {
				// Its statement's syntax error is reported.
			} else {
				errs.Add(f.PredPos, "unknown predicate %s", f.Pred)
			}
			return &node{kind: nLit, lit: Literal{Pred: -1}}
		}
		if len(f.Args) != len(p.Args) {
			errs.Add(f.PredPos, "predicate %s has %d argument(s), found %d", f.Pred, len(p.Args), len(f.Args))
			return &node{kind: nLit, lit: Literal{Pred: p.ID}}
		}
		lit := Literal{Pred: p.ID, Args: make([]Term, len(f.Args))}
		for i := range f.Args {
			t := &f.Args[i]
			typ := p.Args[i]
			switch t.Kind {
			case syntax.FuncTerm:
				errs.Add(t.TermPos, "unknown function %s", t.Name)
			case syntax.ConstTerm:
				lit.Args[i] = ConstTerm(m.AddToType(typ, t.Name))
			case syntax.VarTerm:
				v := m.lookupVar(t.Name, t.TermPos, an, free, scope)
				fv := &an.vars[v]
				fv.used = true
				if t.Plus {
					if fv.bound {
						errs.Add(t.TermPos, "'+' on quantified variable %s", t.Name)
					}
					fv.plus = true
				}
				if fv.typ < 0 {
					fv.typ, fv.tpos = typ, t.TermPos
				} else if fv.typ != typ {
					errs.Add(t.TermPos, "variable %s has type %s here (argument %d of %s) but type %s at %s",
						t.Name, m.Types[typ].Name, i+1, f.Pred, m.Types[fv.typ].Name, fv.tpos)
				}
				lit.Args[i] = VarTerm(v)
			}
		}
		return &node{kind: nLit, lit: lit}
	case *syntax.Compare:
		if m.isArithDef(f) {
			// v = plus(x, y): an internal function's value; the arguments
			// take the value's type.
			lit := Literal{Pred: -1, Builtin: InternalFunctions[f.Y.Name]}
			lit.Args = []Term{m.cmpTerm(&f.X, an, free, scope, errs)}
			for i := range f.Y.Args {
				a := m.cmpTerm(&f.Y.Args[i], an, free, scope, errs)
				lit.Args = append(lit.Args, a)
				an.cmps = append(an.cmps, cmpCheck{x: lit.Args[0], y: a, pos: f.Y.Args[i].TermPos})
			}
			return &node{kind: nLit, lit: lit}
		}
		lit := Literal{Pred: -1, Builtin: Builtin(f.Op) + Eq}
		lit.Args = []Term{m.cmpTerm(&f.X, an, free, scope, errs), m.cmpTerm(&f.Y, an, free, scope, errs)}
		an.cmps = append(an.cmps, cmpCheck{x: lit.Args[0], y: lit.Args[1], pos: f.OpPos})
		return &node{kind: nLit, lit: lit}
	case *syntax.Not:
		return &node{kind: nNot, kids: []*node{m.convert(f.X, an, free, scope, errs)}}
	case *syntax.Binary:
		// A chain of one connective becomes one n-ary node, built
		// without recursion along the chain: "a ^ b ^ c" (left
		// associative) is AND(a, b, c), "a => b => c" (right
		// associative) is OR(!a, !b, c), and "a <=> b <=> c" is IFF(a,
		// b, c), folded to the left when compiled. The operands are
		// converted left to right, as the recursion would.
		operands := syntax.Chain(f)
		first := f // the chain's first connective, for messages
		for b, ok := first.X.(*syntax.Binary); ok && b.Op == f.Op && f.Op != syntax.OpImplies; b, ok = first.X.(*syntax.Binary) {
			first = b
		}
		n := &node{kind: map[syntax.BinOp]nkind{syntax.OpAnd: nAnd, syntax.OpOr: nOr, syntax.OpImplies: nOr, syntax.OpIff: nIff}[f.Op], pos: first.OpPos}
		n.kids = make([]*node, len(operands))
		for i, x := range operands {
			k := m.convert(x, an, free, scope, errs)
			if f.Op == syntax.OpImplies && i < len(operands)-1 {
				k = &node{kind: nNot, kids: []*node{k}}
			}
			n.kids[i] = k
		}
		return n
	case *syntax.Quant:
		n := &node{kind: nForall, pos: f.QuantPos}
		if f.Exist {
			n.kind = nExist
		}
		mark := len(*scope)
		for _, id := range f.Vars {
			v := len(an.vars)
			an.vars = append(an.vars, fvar{name: id.Name, typ: -1, pos: id.NamePos, bound: true})
			*scope = append(*scope, scopeEntry{id.Name, v})
			n.vars = append(n.vars, v)
		}
		n.kids = []*node{m.convert(f.Body, an, free, scope, errs)}
		*scope = (*scope)[:mark]
		// Drop quantified variables the body does not use.
		used := n.vars[:0]
		for _, v := range n.vars {
			if an.vars[v].used {
				used = append(used, v)
			}
		}
		n.vars = used
		return n
	case nil:
		errs.Add(syntax.Pos{}, "missing formula")
		return &node{kind: nAnd}
	}
	errs.Add(f.Pos(), "unsupported formula node %T", f)
	return &node{kind: nAnd}
}

func (m *Model) cmpTerm(t *syntax.Term, an *analysis, free map[string]int, scope *[]scopeEntry, errs *syntax.ErrorList) Term {
	switch t.Kind {
	case syntax.FuncTerm:
		errs.Add(t.TermPos, "unknown function %s", t.Name)
		return ConstTerm(m.AddConst(t.Name))
	case syntax.ConstTerm:
		return ConstTerm(m.AddConst(t.Name))
	}
	v := m.lookupVar(t.Name, t.TermPos, an, free, scope)
	fv := &an.vars[v]
	fv.used = true
	if t.Plus {
		errs.Add(t.TermPos, "'+' is not allowed in a comparison")
	}
	return VarTerm(v)
}
