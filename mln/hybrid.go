package mln

import (
	"slices"
	"strconv"

	"github.com/marple-mln/marple/syntax"
)

// Hybrid models (Wang and Domingos's hybrid MLNs, in Alchemy's syntax): a
// formula may be followed by "* term", a polynomial over real-valued atoms
// (syntax.HybridDecl). A predicate is real-valued when it appears in a
// numeric term; it may then not appear as a Boolean atom, and its atoms
// take values in the evidence ("Dist(A, B) 3.2"). The Boolean engines ignore
// hybrid formulas: a model with any (Model.IsHybrid) is for package
// infer/hybrid, which grounds the Features.

// hybridInfo is the hybrid part of a model.
type hybridInfo struct {
	formulas []*Feature            // the hybrid formulas, in order
	real     map[PredID]syntax.Pos // real-valued predicates: first numeric use
}

// CondKind is the kind of a Cond node.
type CondKind uint8

// The kinds of Cond nodes.
const (
	CondLit    CondKind = iota // a literal (Lit)
	CondNot                    // the negation of Kids[0]
	CondAnd                    // the conjunction of Kids
	CondOr                     // the disjunction of Kids
	CondIff                    // Kids[0] <=> Kids[1] <=> ..., folded to the left
	CondExist                  // EXIST Vars Kids[0]
	CondForall                 // FORALL Vars Kids[0]
)

// Cond is a resolved first-order formula: the Boolean part of a Feature.
// Literal terms index the Feature's Vars.
type Cond struct {
	Kind CondKind
	Lit  Literal
	Kids []*Cond
	Vars []int
}

// NumKind is the kind of a NumTerm node.
type NumKind uint8

// The kinds of NumTerm nodes.
const (
	NumConst NumKind = iota // Value
	NumAtom                 // the value of real-valued atom Pred(Args)
	NumAdd                  // X + Y
	NumSub                  // X - Y
	NumMul                  // X * Y
	NumNeg                  // -X
	NumPow                  // X^Exp
)

// NumTerm is a resolved numeric term of a Feature.
type NumTerm struct {
	Kind  NumKind
	Value float64
	Pred  PredID
	Args  []Term
	X, Y  *NumTerm
	Exp   int
}

// Feature is a weighted formula of a hybrid model, resolved for grounding:
// the value of a grounding is the indicator of Cond (1 when Cond is nil)
// times the value of Term (1 when Term is nil), and the grounding
// contributes Weight times that value to the log-probability of a world.
type Feature struct {
	Pos    syntax.Pos
	Weight float64
	Hard   bool
	Vars   []Var // every variable; the free ones are listed in Free
	Free   []int
	Cond   *Cond
	Term   *NumTerm
	// Decl is the statement the feature comes from (a *syntax.HybridDecl,
	// or nil for a Boolean formula: Formula then indexes Model.Formulas).
	Decl    *syntax.HybridDecl
	Formula int
	// Plus lists the "+" variables (indices into Vars, in order), and
	// PlusConsts their constants: a formula with "+" variables is one
	// feature per binding of them, each with its own weight.
	Plus       []int
	PlusConsts []ConstID
}

// IsHybrid reports whether the model has formulas with numeric terms.
func (m *Model) IsHybrid() bool { return m.hybrid != nil && len(m.hybrid.formulas) > 0 }

// IsReal reports whether predicate p is real-valued (it appears in a
// numeric term).
func (m *Model) IsReal(p PredID) bool {
	if m.hybrid == nil {
		return false
	}
	_, ok := m.hybrid.real[p]
	return ok
}

// HybridFormulas returns the model's formulas with numeric terms, in file
// order.
func (m *Model) HybridFormulas() []*Feature {
	if m.hybrid == nil {
		return nil
	}
	return m.hybrid.formulas
}

// Features returns every formula of the model as a Feature: the Boolean
// formulas (m.Formulas, whose feature is the formula's indicator, with its
// written weight), then the hybrid ones, then the hard constraints of "!"
// arguments (for each argument of a predicate declared with "!", the
// features "EXIST v P(..., v, ...)" and "!P(..., v, ...) v !P(..., w, ...)
// v v = w", Formula -1). A formula with "+" variables is one feature per
// binding of them to the constants of their types (PlusConsts), in the
// order of the bindings (the first variable slowest); a Boolean formula's
// feature takes the weight of the binding's parameter when there is one
// (Model.Param), else the written weight.
func (m *Model) Features() ([]*Feature, error) {
	var errs syntax.ErrorList
	var out []*Feature
	for i, f := range m.Formulas {
		if f.Synthetic || f.AST == nil {
			continue
		}
		an := m.analyze(f.AST, &errs)
		ft := &Feature{Pos: f.Pos, Weight: f.Weight, Hard: f.Hard, Cond: toCond(an.root), Formula: i}
		ft.setVars(an)
		out = m.expandPlus(out, ft, func(b []ConstID) float64 {
			if p, ok := f.Params[BindingKey(b)]; ok {
				return m.Weights[p]
			}
			return f.Weight
		})
	}
	for _, ft := range m.HybridFormulas() {
		out = m.expandPlus(out, ft, nil)
	}
	for _, p := range m.Preds {
		for i, u := range p.Unique {
			if !u {
				continue
			}
			if m.IsReal(p.ID) {
				errs.Add(p.Pos, "real-valued predicate %s cannot have '!' arguments (argument %d)", p.Name, i+1)
				continue
			}
			out = append(out, uniqueFeatures(p, i)...)
		}
	}
	errs.Sort()
	return out, errs.Err()
}

// expandPlus appends ft to out, or, when it has "+" variables, one copy of
// it per binding of them, with the weight weight(binding) (nil: ft's).
func (m *Model) expandPlus(out []*Feature, ft *Feature, weight func([]ConstID) float64) []*Feature {
	if len(ft.Plus) == 0 {
		return append(out, ft)
	}
	var free []int
	for _, v := range ft.Free {
		if !slices.Contains(ft.Plus, v) {
			free = append(free, v)
		}
	}
	b := make([]ConstID, len(ft.Plus))
	var rec func(i int)
	rec = func(i int) {
		if i == len(b) {
			c := *ft
			c.Free = free
			c.PlusConsts = slices.Clone(b)
			if weight != nil {
				c.Weight = weight(b)
			}
			out = append(out, &c)
			return
		}
		for _, k := range m.Types[ft.Vars[ft.Plus[i]].Type].Consts {
			b[i] = k
			rec(i + 1)
		}
	}
	rec(0)
	return out
}

// uniqueFeatures returns the two hard features of argument a of p
// declared with "!": some value (an EXIST over the argument) and at most
// one (two values are equal).
func uniqueFeatures(p *Predicate, a int) []*Feature {
	n := len(p.Args)
	vars := make([]Var, n+1)
	args := make([]Term, n)
	for i, t := range p.Args {
		vars[i] = Var{Name: "a" + strconv.Itoa(i+1), Type: t}
		args[i] = VarTerm(i)
	}
	vars[n] = Var{Name: vars[a].Name + "b", Type: p.Args[a]}
	args2 := append([]Term(nil), args...)
	args2[a] = VarTerm(n)
	var free []int
	for i := range n {
		if i != a {
			free = append(free, i)
		}
	}
	least := &Feature{Pos: p.Pos, Hard: true, Vars: vars[:n], Free: free, Formula: -1,
		Cond: &Cond{Kind: CondExist, Vars: []int{a}, Kids: []*Cond{{Kind: CondLit, Lit: Literal{Pred: p.ID, Args: args}}}}}
	all := make([]int, n+1)
	for i := range all {
		all[i] = i
	}
	most := &Feature{Pos: p.Pos, Hard: true, Vars: vars, Free: all, Formula: -1,
		Cond: &Cond{Kind: CondOr, Kids: []*Cond{
			{Kind: CondLit, Lit: Literal{Pred: p.ID, Neg: true, Args: args}},
			{Kind: CondLit, Lit: Literal{Pred: p.ID, Neg: true, Args: args2}},
			{Kind: CondLit, Lit: Literal{Pred: -1, Builtin: Eq, Args: []Term{VarTerm(a), VarTerm(n)}}},
		}}}
	return []*Feature{least, most}
}

func (f *Feature) setVars(an *analysis) {
	for i, v := range an.vars {
		f.Vars = append(f.Vars, Var{Name: v.name, Type: v.typ})
		if !v.bound && v.used {
			f.Free = append(f.Free, i)
		}
		if v.plus {
			f.Plus = append(f.Plus, i)
		}
	}
}

func toCond(n *node) *Cond {
	c := &Cond{Vars: n.vars}
	switch n.kind {
	case nLit:
		c.Kind, c.Lit = CondLit, n.lit
		return c
	case nNot:
		c.Kind = CondNot
	case nAnd:
		c.Kind = CondAnd
	case nOr:
		c.Kind = CondOr
	case nIff:
		c.Kind = CondIff
	case nExist:
		c.Kind = CondExist
	case nForall:
		c.Kind = CondForall
	}
	for _, k := range n.kids {
		c.Kids = append(c.Kids, toCond(k))
	}
	return c
}

// addHybrid checks a hybrid statement and adds its Feature.
func (m *Model) addHybrid(d *syntax.HybridDecl, errs *syntax.ErrorList) {
	if m.hybrid == nil {
		m.hybrid = &hybridInfo{real: map[PredID]syntax.Pos{}}
	}
	var ferrs syntax.ErrorList
	an := &analysis{}
	free := map[string]int{}
	var scope []scopeEntry
	ft := &Feature{Pos: d.StartPos, Weight: d.Weight, Decl: d, Formula: -1}
	if d.DomainScaled {
		errs.Add(d.StartPos, "a formula with a numeric term cannot have a domain-size-aware weight ('@')")
		return
	}
	if d.Utility != nil {
		errs.Add(d.Utility.Pos(), "a formula with a numeric term cannot have a utility")
		return
	}
	if d.F != nil {
		if F, fe := m.compileFunctions(d.F); len(fe) > 0 || F != d.F {
			errs.Add(d.F.Pos(), "a formula with a numeric term cannot use functions")
			return
		}
		syntax.Walk(d.F, func(f syntax.Formula) bool {
			if a, ok := f.(*syntax.Atom); ok && a.Star {
				ferrs.Add(a.AtomPos, "a formula with a numeric term cannot have '*' atoms")
			}
			return true
		})
		an.root = m.convert(d.F, an, free, &scope, &ferrs)
	}
	ft.Term = m.numTerm(d.Term, an, free, &scope, &ferrs)
	for _, v := range an.vars {
		if v.used && v.typ < 0 {
			ferrs.Add(v.pos, "cannot infer the type of variable %s (it appears only in comparisons)", v.name)
		}
	}
	if len(ferrs) > 0 {
		*errs = append(*errs, ferrs...)
		return
	}
	if an.root != nil {
		ft.Cond = toCond(an.root)
	}
	ft.setVars(an)
	m.hybrid.formulas = append(m.hybrid.formulas, ft)
}

// numTerm resolves a numeric term.
func (m *Model) numTerm(e syntax.NumExpr, an *analysis, free map[string]int, scope *[]scopeEntry, errs *syntax.ErrorList) *NumTerm {
	switch e := e.(type) {
	case *syntax.NumLit:
		return &NumTerm{Kind: NumConst, Value: e.Value}
	case *syntax.NumAtom:
		return m.numAtom(e.Atom, an, free, scope, errs)
	case *syntax.Gaussian:
		x := m.numAtom(e.Atom, an, free, scope, errs)
		d := &NumTerm{Kind: NumSub, X: x, Y: &NumTerm{Kind: NumConst, Value: e.Mean}}
		return &NumTerm{Kind: NumNeg, X: &NumTerm{Kind: NumPow, X: d, Exp: 2}}
	case *syntax.NumNeg:
		return &NumTerm{Kind: NumNeg, X: m.numTerm(e.X, an, free, scope, errs)}
	case *syntax.NumPow:
		return &NumTerm{Kind: NumPow, X: m.numTerm(e.X, an, free, scope, errs), Exp: e.Exp}
	case *syntax.NumBinary:
		k := map[byte]NumKind{'+': NumAdd, '-': NumSub, '*': NumMul}[e.Op]
		return &NumTerm{Kind: k, X: m.numTerm(e.X, an, free, scope, errs), Y: m.numTerm(e.Y, an, free, scope, errs)}
	}
	errs.Add(e.Pos(), "unsupported numeric term %T", e)
	return &NumTerm{Kind: NumConst}
}

func (m *Model) numAtom(a *syntax.Atom, an *analysis, free map[string]int, scope *[]scopeEntry, errs *syntax.ErrorList) *NumTerm {
	n := m.convert(a, an, free, scope, errs)
	if n.lit.Pred >= 0 {
		if _, ok := m.hybrid.real[n.lit.Pred]; !ok {
			m.hybrid.real[n.lit.Pred] = a.PredPos
		}
	}
	return &NumTerm{Kind: NumAtom, Pred: n.lit.Pred, Args: n.lit.Args}
}

// checkRealUses reports predicates used both in numeric terms and as
// Boolean atoms, at the later use (in file order).
func (m *Model) checkRealUses(files []*syntax.File, errs *syntax.ErrorList) {
	if m.hybrid == nil {
		return
	}
	type use struct {
		pos     syntax.Pos
		numeric bool
	}
	first := map[string]use{}
	reported := map[string]bool{}
	note := func(a *syntax.Atom, numeric bool) {
		p, ok := m.Pred(a.Pred)
		if !ok {
			return
		}
		if _, real := m.hybrid.real[p.ID]; !real || reported[a.Pred] {
			return
		}
		u, seen := first[a.Pred]
		if !seen {
			first[a.Pred] = use{a.PredPos, numeric}
			return
		}
		if u.numeric == numeric {
			return
		}
		reported[a.Pred] = true
		if numeric {
			errs.Add(a.PredPos, "numeric term over Boolean atom %s (%s is a Boolean atom at %s)", a.Pred, a.Pred, u.pos)
		} else {
			errs.Add(a.PredPos, "%s is real-valued (it is in a numeric term at %s): it cannot be a Boolean atom", a.Pred, u.pos)
		}
	}
	boolAtoms := func(f syntax.Formula) {
		if f == nil {
			return
		}
		syntax.Walk(f, func(f syntax.Formula) bool {
			if a, ok := f.(*syntax.Atom); ok {
				note(a, false)
			}
			return true
		})
	}
	var walk func(f *syntax.File)
	walk = func(f *syntax.File) {
		if f == nil {
			return
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *syntax.Include:
				walk(d.File)
			case *syntax.FormulaDecl:
				boolAtoms(d.F)
			case *syntax.HybridDecl:
				boolAtoms(d.F)
				for _, a := range syntax.NumAtoms(d.Term) {
					note(a, true)
				}
			}
		}
	}
	for _, f := range files {
		walk(f)
	}
	for name, bad := range reported {
		if bad {
			p, _ := m.Pred(name)
			if first[name].numeric {
				continue
			}
			// The first use is Boolean: the predicate is Boolean.
			delete(m.hybrid.real, p.ID)
		}
	}
}

// realAtoms holds the values of real-valued atoms in a database.
type realAtoms struct {
	index map[string]int32
	atoms [][]ConstID
	vals  []float64
}

// SetReal records the value of real-valued atom p(args).
func (db *Database) SetReal(p PredID, args []ConstID, v float64) {
	if db.reals == nil {
		db.reals = map[PredID]*realAtoms{}
	}
	r := db.reals[p]
	if r == nil {
		r = &realAtoms{index: map[string]int32{}}
		db.reals[p] = r
	}
	key := BindingKey(args)
	if i, ok := r.index[key]; ok {
		r.vals[i] = v
		return
	}
	r.index[key] = int32(len(r.atoms))
	r.atoms = append(r.atoms, append([]ConstID(nil), args...))
	r.vals = append(r.vals, v)
}

// Real returns the value of real-valued atom p(args) and whether the
// database gives one.
func (db *Database) Real(p PredID, args []ConstID) (float64, bool) {
	r := db.reals[p]
	if r == nil {
		return 0, false
	}
	i, ok := r.index[BindingKey(args)]
	if !ok {
		return 0, false
	}
	return r.vals[i], true
}

// Reals calls fn for every real-valued atom of p with a value, in
// insertion order. fn must not keep or modify args.
func (db *Database) Reals(p PredID, fn func(args []ConstID, v float64)) {
	r := db.reals[p]
	if r == nil {
		return
	}
	for i, a := range r.atoms {
		fn(a, r.vals[i])
	}
}

// copyReals copies other's real values into db, except those of drop.
func (db *Database) copyReals(other *Database, drop []PredID) {
	for p, r := range other.reals {
		skip := false
		for _, d := range drop {
			skip = skip || d == p
		}
		if skip {
			continue
		}
		for i, a := range r.atoms {
			db.SetReal(p, a, r.vals[i])
		}
	}
}

// readReal handles an evidence line of a real-valued predicate, or one
// with a value; it reports whether it did (the line is then done).
func (db *Database) readReal(p *Predicate, args []ConstID, a *syntax.RawAtom, errs *syntax.ErrorList) bool {
	m := db.Model
	real := m.IsReal(p.ID)
	if !a.HasReal && !real {
		return false
	}
	add := func(pos syntax.Pos, format string, args ...any) {
		if len(*errs) < maxLoadErrors {
			errs.Add(pos, format, args...)
		}
	}
	switch {
	case !real:
		add(syntax.Pos{File: a.Pos.File, Line: a.Pos.Line, Col: a.RealCol}, "real value for Boolean predicate %s", p.Name)
	case a.Value == syntax.ValUnknown:
		if a.HasReal {
			add(a.Pos, "unknown real-valued atom %s cannot have a value", m.atomString(p.ID, args))
		}
	case a.Value == syntax.ValFalse:
		add(a.Pos, "real-valued atom %s cannot be false: give its value (%s 1.5)", m.atomString(p.ID, args), m.atomString(p.ID, args))
	case !a.HasReal:
		add(a.PredPos(), "real-valued atom %s needs a value (%s 1.5)", m.atomString(p.ID, args), m.atomString(p.ID, args))
	default:
		if old, ok := db.Real(p.ID, args); ok && old != a.Real {
			add(a.Pos, "contradictory evidence: %s is %g here but %g before", m.atomString(p.ID, args), a.Real, old)
		}
		db.SetReal(p.ID, args, a.Real)
	}
	return true
}
