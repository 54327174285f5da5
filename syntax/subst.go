package syntax

// Substitute returns a copy of f with its free variables named in sub
// replaced by sub's terms, each at the position of the variable it
// replaces, inside function terms too; a variable replaced by a variable
// keeps its "+". A variable a quantifier binds is left alone within the
// quantifier's body. f itself is not changed.
func Substitute(f Formula, sub map[string]Term) Formula {
	switch f := f.(type) {
	case *Atom:
		a := *f
		a.Args = make([]Term, len(f.Args))
		for i, t := range f.Args {
			a.Args[i] = substTerm(t, sub)
		}
		return &a
	case *Compare:
		c := *f
		c.X, c.Y = substTerm(f.X, sub), substTerm(f.Y, sub)
		return &c
	case *Not:
		return &Not{NotPos: f.NotPos, X: Substitute(f.X, sub)}
	case *Binary:
		return &Binary{Op: f.Op, OpPos: f.OpPos, X: Substitute(f.X, sub), Y: Substitute(f.Y, sub)}
	case *Weighted:
		w := *f
		w.X = Substitute(f.X, sub)
		return &w
	case *Quant:
		inner := sub
		for _, v := range f.Vars {
			if _, ok := sub[v.Name]; ok {
				inner = withoutVars(sub, f.Vars)
				break
			}
		}
		q := *f
		q.Body = Substitute(f.Body, inner)
		return &q
	}
	return f
}

// withoutVars returns a copy of sub without the variables vs.
func withoutVars(sub map[string]Term, vs []Ident) map[string]Term {
	out := make(map[string]Term, len(sub))
	for k, t := range sub {
		out[k] = t
	}
	for _, v := range vs {
		delete(out, v.Name)
	}
	return out
}

// substTerm is Substitute for a term.
func substTerm(t Term, sub map[string]Term) Term {
	switch t.Kind {
	case VarTerm:
		if r, ok := sub[t.Name]; ok {
			r.TermPos = t.TermPos
			if r.Kind == VarTerm {
				r.Plus = r.Plus || t.Plus // a variable renamed keeps its "+"
			}
			return r
		}
	case FuncTerm:
		args := make([]Term, len(t.Args))
		for i, a := range t.Args {
			args[i] = substTerm(a, sub)
		}
		t.Args = args
	}
	return t
}
