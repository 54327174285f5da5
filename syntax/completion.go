package syntax

import (
	"strconv"
)

// Completions returns the hard formulas LoMRF's predicate completion
// (decomposed form) adds for the definite clauses of files (FormulaDecl
// .Definite, "Body => Head"), includes included, in order:
//
//   - The heads of a predicate's clauses are grouped under their most
//     general forms: a head that is an instance of another
//     ("Head(Foo, t)" of "Head(x, t)") joins it, with the equalities
//     that make it so ("x = Foo") added to its body. For each group,
//     "Head => B1 v ... v Bk", each body with the variables not in the
//     head existentially quantified.
//   - When no group's head is the predicate with distinct variables, the
//     atoms of the predicate that no group's head matches are false:
//     "P(g1,...,gn) => M1 v ... v Mm", Mi the condition that the atom
//     matches group i's head ("g1 = Foo", "EXIST p1,p2 (g1 = meet(p1,p2))").
//
// Two groups whose heads overlap without one containing the other
// (Head(Foo, x) and Head(y, Bar)) have no decomposed completion: the
// result is an error at the second one.
func Completions(files []*File) ([]*FormulaDecl, error) {
	var defs []*FormulaDecl
	seen := map[*File]bool{}
	var collect func(f *File)
	collect = func(f *File) {
		if f == nil || seen[f] {
			return
		}
		seen[f] = true
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *Include:
				collect(d.File)
			case *FormulaDecl:
				if d.Definite {
					defs = append(defs, d)
				}
			}
		}
	}
	for _, f := range files {
		collect(f)
	}
	var errs ErrorList
	var order []string
	byPred := map[string][]*FormulaDecl{}
	for _, d := range defs {
		h := defHead(d)
		if _, ok := byPred[h.Pred]; !ok {
			order = append(order, h.Pred)
		}
		byPred[h.Pred] = append(byPred[h.Pred], d)
	}
	var out []*FormulaDecl
	for _, name := range order {
		out = append(out, completePred(byPred[name], &errs)...)
	}
	errs.Sort()
	return out, errs.Err()
}

func defHead(d *FormulaDecl) *Atom { return d.F.(*Binary).Y.(*Atom) }
func defBody(d *FormulaDecl) Formula {
	return d.F.(*Binary).X
}

// group is the clauses under one most general head.
type group struct {
	head *Atom // the head, its variables renamed to fresh names
	defs []*FormulaDecl
}

func completePred(defs []*FormulaDecl, errs *ErrorList) []*FormulaDecl {
	for _, d := range defs {
		if len(defHead(d).Args) != len(defHead(defs[0]).Args) {
			return nil // a conflicting arity, which the model builder reports
		}
	}
	used := map[string]bool{}
	for _, d := range defs {
		for _, v := range FreeVars(d.F) {
			used[v] = true
		}
	}
	n := 0
	fresh := func() string {
		for {
			n++
			name := "h" + strconv.Itoa(n)
			if !used[name] {
				used[name] = true
				return name
			}
		}
	}
	// The most general heads: those not an instance of another.
	var groups []*group
	for _, d := range defs {
		h := defHead(d)
		general := true
		for _, e := range defs {
			g := defHead(e)
			if _, _, ok := match(g, h); ok {
				if _, _, back := match(h, g); !back {
					general = false // h is a strict instance of g
					break
				}
			}
		}
		if !general {
			continue
		}
		dup := false
		for _, g := range groups {
			if _, _, ok := match(g.head, h); ok {
				dup = true // the same head up to variables
				break
			}
		}
		if dup {
			continue
		}
		for _, g := range groups {
			if unifiable(g.head, h) {
				errs.Add(h.AtomPos, "the heads %s and %s of definite clauses overlap without one being more general: LoMRF's decomposed predicate completion does not apply", FormulaString(g.head), FormulaString(h))
				return nil
			}
		}
		ren := map[string]string{}
		for _, v := range FreeVars(h) {
			ren[v] = fresh()
		}
		groups = append(groups, &group{head: renameFormula(h, ren).(*Atom)})
	}
	for _, d := range defs {
		for _, g := range groups {
			if _, _, ok := match(g.head, defHead(d)); ok {
				g.defs = append(g.defs, d)
				break
			}
		}
	}
	var out []*FormulaDecl
	for _, g := range groups {
		var disj Formula
		for _, d := range g.defs {
			ren, pairs, _ := match(g.head, defHead(d))
			D := renameFormula(defBody(d), ren)
			for i := len(pairs) - 1; i >= 0; i-- {
				c := &Compare{Op: CmpEq, OpPos: pairs[i].y.TermPos, X: pairs[i].x, Y: renameTerm(pairs[i].y, ren)}
				D = &Binary{Op: OpAnd, OpPos: c.OpPos, X: c, Y: D}
			}
			D = existsExcept(D, FreeVars(g.head), d.StartPos)
			if disj == nil {
				disj = D
			} else {
				disj = &Binary{Op: OpOr, OpPos: d.StartPos, X: disj, Y: D}
			}
		}
		first := g.defs[0]
		out = append(out, &FormulaDecl{StartPos: first.StartPos, Hard: true, Dot: first.StartPos,
			F: &Binary{Op: OpImplies, OpPos: first.StartPos, X: g.head, Y: disj}})
	}
	// Coverage: the atoms no group's head matches are false.
	for _, g := range groups {
		if isGeneral(g.head) {
			return out
		}
	}
	h0 := groups[0].head
	top := &Atom{AtomPos: h0.AtomPos, Pred: h0.Pred, PredPos: h0.PredPos}
	for range h0.Args {
		top.Args = append(top.Args, Term{TermPos: h0.PredPos, Kind: VarTerm, Name: fresh()})
	}
	var disj Formula
	for _, g := range groups {
		ren, pairs, ok := match(top, g.head)
		if !ok || len(pairs) == 0 {
			return out // cannot happen: g.head would be general
		}
		var M Formula
		for i := len(pairs) - 1; i >= 0; i-- {
			c := &Compare{Op: CmpEq, OpPos: pairs[i].y.TermPos, X: pairs[i].x, Y: renameTerm(pairs[i].y, ren)}
			if M == nil {
				M = c
			} else {
				M = &Binary{Op: OpAnd, OpPos: c.OpPos, X: c, Y: M}
			}
		}
		M = existsExcept(M, FreeVars(top), g.head.AtomPos)
		if disj == nil {
			disj = M
		} else {
			disj = &Binary{Op: OpOr, OpPos: g.head.AtomPos, X: disj, Y: M}
		}
	}
	first := groups[0].defs[0]
	out = append(out, &FormulaDecl{StartPos: first.StartPos, Hard: true, Dot: first.StartPos,
		F: &Binary{Op: OpImplies, OpPos: first.StartPos, X: top, Y: disj}})
	return out
}

// isGeneral reports whether atom a has distinct variables as arguments.
func isGeneral(a *Atom) bool {
	seen := map[string]bool{}
	for _, t := range a.Args {
		if t.Kind != VarTerm || seen[t.Name] {
			return false
		}
		seen[t.Name] = true
	}
	return true
}

// existsExcept quantifies f existentially over its free variables not in
// keep.
func existsExcept(f Formula, keep []string, pos Pos) Formula {
	var ex []Ident
	for _, v := range FreeVars(f) {
		if !isHeadVar(v, keep) {
			ex = append(ex, Ident{NamePos: pos, Name: v})
		}
	}
	if len(ex) == 0 {
		return f
	}
	return &Quant{QuantPos: pos, Exist: true, Vars: ex, Body: f}
}

// eqPair is an equality "x = y" a match needs: x a variable of the
// general atom, y a term of the instance.
type eqPair struct{ x, y Term }

// match reports whether atom b is an instance of atom a (a's variables
// bound to b's terms). It returns the renaming of b's variables into a's
// (for each variable of a bound to a variable of b first met) and the
// equalities left (a variable of a bound to a constant, a function term
// or an already renamed variable).
func match(a, b *Atom) (map[string]string, []eqPair, bool) {
	if a.Pred != b.Pred || len(a.Args) != len(b.Args) {
		return nil, nil, false
	}
	ren := map[string]string{}
	bound := map[string]bool{}
	var pairs []eqPair
	var m func(x, y Term) bool
	m = func(x, y Term) bool {
		switch x.Kind {
		case VarTerm:
			if y.Kind == VarTerm && ren[y.Name] == "" {
				if bound[x.Name] {
					return false // b has distinct variables where a repeats x
				}
				bound[x.Name] = true
				ren[y.Name] = x.Name
				return true
			}
			bound[x.Name] = true
			pairs = append(pairs, eqPair{x, y})
			return true
		case ConstTerm:
			return y.Kind == ConstTerm && y.Name == x.Name
		case FuncTerm:
			if y.Kind != FuncTerm || y.Name != x.Name || len(y.Args) != len(x.Args) {
				return false
			}
			for i := range x.Args {
				if !m(x.Args[i], y.Args[i]) {
					return false
				}
			}
			return true
		}
		return false
	}
	for i := range a.Args {
		if !m(a.Args[i], b.Args[i]) {
			return nil, nil, false
		}
	}
	return ren, pairs, true
}

// unifiable reports whether atoms a and b (variables apart) have a
// common instance.
func unifiable(a, b *Atom) bool {
	if a.Pred != b.Pred || len(a.Args) != len(b.Args) {
		return false
	}
	sub := map[string]Term{}
	var walk func(t Term) Term
	walk = func(t Term) Term {
		for t.Kind == VarTerm {
			u, ok := sub[t.Name]
			if !ok {
				break
			}
			t = u
		}
		return t
	}
	var uni func(x, y Term, depth int) bool
	uni = func(x, y Term, depth int) bool {
		if depth > 100 {
			return true
		}
		x, y = walk(x), walk(y)
		switch {
		case x.Kind == VarTerm && y.Kind == VarTerm && x.Name == y.Name:
			return true
		case x.Kind == VarTerm:
			sub[x.Name] = y
			return true
		case y.Kind == VarTerm:
			sub[y.Name] = x
			return true
		case x.Kind == ConstTerm || y.Kind == ConstTerm:
			return x.Kind == y.Kind && x.Name == y.Name
		}
		if x.Name != y.Name || len(x.Args) != len(y.Args) {
			return false
		}
		for i := range x.Args {
			if !uni(x.Args[i], y.Args[i], depth+1) {
				return false
			}
		}
		return true
	}
	ra := map[string]string{}
	for _, v := range FreeVars(a) {
		ra[v] = "a:" + v
	}
	rb := map[string]string{}
	for _, v := range FreeVars(b) {
		rb[v] = "b:" + v
	}
	a, b = renameFormula(a, ra).(*Atom), renameFormula(b, rb).(*Atom)
	for i := range a.Args {
		if !uni(a.Args[i], b.Args[i], 0) {
			return false
		}
	}
	return true
}
