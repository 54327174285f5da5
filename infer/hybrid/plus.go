package hybrid

import (
	"fmt"
	"maps"
	"slices"

	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// bindPlus returns a copy of hybrid statement d with the "+" variables of
// feature f replaced by their constants (f.PlusConsts), as Alchemy writes
// the formulas of "+" variables after learning.
func bindPlus(m *mln.Model, d *syntax.HybridDecl, f *mln.Feature) (*syntax.HybridDecl, error) {
	sub := map[string]string{}
	for i, v := range f.Plus {
		sub[f.Vars[v].Name] = m.ConstName(f.PlusConsts[i])
	}
	out := *d
	var err error
	if d.F != nil {
		if out.F, err = substFormula(d.F, sub); err != nil {
			return nil, err
		}
	}
	if out.Term, err = substNum(d.Term, sub); err != nil {
		return nil, err
	}
	return &out, nil
}

func substTerm(t syntax.Term, sub map[string]string) syntax.Term {
	if t.Kind == syntax.VarTerm {
		if c, ok := sub[t.Name]; ok {
			return syntax.Term{TermPos: t.TermPos, Kind: syntax.ConstTerm, Name: c}
		}
	}
	if len(t.Args) > 0 {
		args := make([]syntax.Term, len(t.Args))
		for i, a := range t.Args {
			args[i] = substTerm(a, sub)
		}
		t.Args = args
	}
	return t
}

func substAtom(a *syntax.Atom, sub map[string]string) *syntax.Atom {
	c := *a
	c.Args = make([]syntax.Term, len(a.Args))
	for i, t := range a.Args {
		c.Args[i] = substTerm(t, sub)
	}
	return &c
}

func substFormula(f syntax.Formula, sub map[string]string) (syntax.Formula, error) {
	switch f := f.(type) {
	case *syntax.Atom:
		return substAtom(f, sub), nil
	case *syntax.Compare:
		c := *f
		c.X, c.Y = substTerm(f.X, sub), substTerm(f.Y, sub)
		return &c, nil
	case *syntax.Not:
		x, err := substFormula(f.X, sub)
		return &syntax.Not{NotPos: f.NotPos, X: x}, err
	case *syntax.Binary:
		x, err := substFormula(f.X, sub)
		if err != nil {
			return nil, err
		}
		y, err := substFormula(f.Y, sub)
		return &syntax.Binary{Op: f.Op, OpPos: f.OpPos, X: x, Y: y}, err
	case *syntax.Quant:
		inner := sub // a quantified variable shadows a "+" one
		for _, v := range f.Vars {
			if _, ok := inner[v.Name]; ok {
				inner = maps.Clone(inner)
				delete(inner, v.Name)
			}
		}
		body, err := substFormula(f.Body, inner)
		q := *f
		q.Vars = slices.Clone(f.Vars)
		q.Body = body
		return &q, err
	}
	return nil, fmt.Errorf("hybrid: cannot bind the '+' variables in %T", f)
}

func substNum(e syntax.NumExpr, sub map[string]string) (syntax.NumExpr, error) {
	switch e := e.(type) {
	case *syntax.NumLit:
		return e, nil
	case *syntax.NumAtom:
		return &syntax.NumAtom{Atom: substAtom(e.Atom, sub)}, nil
	case *syntax.Gaussian:
		g := *e
		g.Atom = substAtom(e.Atom, sub)
		return &g, nil
	case *syntax.NumNeg:
		x, err := substNum(e.X, sub)
		return &syntax.NumNeg{MinusPos: e.MinusPos, X: x}, err
	case *syntax.NumPow:
		x, err := substNum(e.X, sub)
		return &syntax.NumPow{X: x, OpPos: e.OpPos, Exp: e.Exp}, err
	case *syntax.NumBinary:
		x, err := substNum(e.X, sub)
		if err != nil {
			return nil, err
		}
		y, err := substNum(e.Y, sub)
		return &syntax.NumBinary{Op: e.Op, OpPos: e.OpPos, X: x, Y: y}, err
	}
	return nil, fmt.Errorf("hybrid: cannot bind the '+' variables in %T", e)
}
