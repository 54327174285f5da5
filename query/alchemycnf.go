package query

import (
	"fmt"

	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// This file converts a formula to clauses as Alchemy 2.0's parser does
// (ListObj::toCNF, zzcreateClauses): the same clauses in the same order,
// each with its literals in the same order and its variables numbered -1,
// -2, ... in order of first appearance, which Alchemy's canonical form
// and so its factor graph's order depend on.

// cnfNode is a formula in Alchemy's prefix form: an operator ("!", "^",
// "v", "=>", "<=>", "FORALL", "EXIST") with its arguments, or an atom.
type cnfNode struct {
	op   string
	args []*cnfNode
	vars []string // FORALL, EXIST
	atom *cnfAtom
}

type cnfAtom struct {
	pred  string // a predicate name, or "=" for equality
	terms []syntax.Term
}

func (n *cnfNode) isLit() bool {
	return n.op == "" || n.op == "!" && n.args[0].op == ""
}

func (n *cnfNode) clone() *cnfNode {
	c := *n
	c.args = make([]*cnfNode, len(n.args))
	for i, a := range n.args {
		c.args[i] = a.clone()
	}
	return &c
}

func not(x *cnfNode) *cnfNode { return &cnfNode{op: "!", args: []*cnfNode{x}} }

// fromAST converts a formula; a comparison other than = and != or a
// function term is outside what this reconstruction covers.
func fromAST(f syntax.Formula) (*cnfNode, error) {
	switch f := f.(type) {
	case *syntax.Atom:
		for _, t := range f.Args {
			if t.Kind == syntax.FuncTerm || t.Plus {
				return nil, fmt.Errorf("a function term or \"+\" variable")
			}
		}
		return &cnfNode{atom: &cnfAtom{pred: f.Pred, terms: f.Args}}, nil
	case *syntax.Compare:
		if f.X.Kind == syntax.FuncTerm || f.Y.Kind == syntax.FuncTerm {
			return nil, fmt.Errorf("a function term")
		}
		a := &cnfNode{atom: &cnfAtom{pred: "=", terms: []syntax.Term{f.X, f.Y}}}
		switch f.Op {
		case syntax.CmpEq:
			return a, nil
		case syntax.CmpNe:
			return not(a), nil
		}
		return nil, fmt.Errorf("the comparison %s", f.Op)
	case *syntax.Not:
		x, err := fromAST(f.X)
		if err != nil {
			return nil, err
		}
		return not(x), nil
	case *syntax.Binary:
		x, err := fromAST(f.X)
		if err != nil {
			return nil, err
		}
		y, err := fromAST(f.Y)
		if err != nil {
			return nil, err
		}
		op := map[syntax.BinOp]string{syntax.OpIff: "<=>", syntax.OpImplies: "=>", syntax.OpOr: "v", syntax.OpAnd: "^"}[f.Op]
		// Alchemy's parser makes a chain of one connective one list.
		if op == "v" || op == "^" {
			var args []*cnfNode
			if x.op == op {
				args = append(args, x.args...)
			} else {
				args = append(args, x)
			}
			return &cnfNode{op: op, args: append(args, y)}, nil
		}
		return &cnfNode{op: op, args: []*cnfNode{x, y}}, nil
	case *syntax.Quant:
		body, err := fromAST(f.Body)
		if err != nil {
			return nil, err
		}
		n := &cnfNode{op: "FORALL", args: []*cnfNode{body}}
		if f.Exist {
			n.op = "EXIST"
		}
		for _, v := range f.Vars {
			n.vars = append(n.vars, v.Name)
		}
		return n, nil
	}
	return nil, fmt.Errorf("an unknown formula")
}

func eliminateImplication(p *cnfNode) *cnfNode {
	if p.isLit() {
		return p.clone()
	}
	switch p.op {
	case "=>":
		return &cnfNode{op: "v", args: []*cnfNode{p.args[1].clone(), not(p.args[0].clone())}}
	case "<=>":
		na := &cnfNode{op: "v", args: []*cnfNode{not(p.args[0].clone()), p.args[1].clone()}}
		nb := &cnfNode{op: "v", args: []*cnfNode{p.args[0].clone(), not(p.args[1].clone())}}
		return &cnfNode{op: "^", args: []*cnfNode{nb, na}}
	}
	n := &cnfNode{op: p.op, vars: p.vars}
	for _, a := range p.args {
		n.args = append(n.args, eliminateImplication(a))
	}
	return n
}

func moveNotInwards(p *cnfNode) *cnfNode {
	switch p.op {
	case "!":
		return p.args[0].clone()
	case "^", "v":
		op := "v"
		if p.op == "v" {
			op = "^"
		}
		if len(p.args) == 1 {
			return moveNotInwards(p.args[0])
		}
		n := &cnfNode{op: op}
		for _, a := range p.args {
			n.args = append(n.args, moveNotInwards(a))
		}
		return n
	case "FORALL", "EXIST":
		op := "EXIST"
		if p.op == "EXIST" {
			op = "FORALL"
		}
		return &cnfNode{op: op, vars: p.vars, args: []*cnfNode{moveNotInwards(p.args[0])}}
	}
	return not(p.clone())
}

func disjuncts(p *cnfNode) []*cnfNode {
	if p.op == "v" {
		return p.args
	}
	return []*cnfNode{p}
}

func conjuncts(p *cnfNode) []*cnfNode {
	if p.op == "^" {
		return p.args
	}
	return []*cnfNode{p}
}

func disjunctionAndAppend(p1, p2 *cnfNode) *cnfNode {
	n := &cnfNode{op: "v"}
	for _, x := range disjuncts(p1) {
		n.args = append(n.args, x.clone())
	}
	for _, x := range disjuncts(p2) {
		n.args = append(n.args, x.clone())
	}
	return n
}

func mergeDisjuncts(d []*cnfNode, num int) *cnfNode {
	if num == 1 {
		return d[len(d)-1].clone()
	}
	y := mergeDisjuncts(d, num-1)
	x := d[len(d)-num]
	var out []*cnfNode
	for _, yj := range conjuncts(y) {
		for _, xi := range conjuncts(x) {
			out = append(out, disjunctionAndAppend(xi, yj))
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return &cnfNode{op: "^", args: out}
}

// replaceVar replaces variable v by constant c throughout p.
func replaceVar(p *cnfNode, v, c string) {
	if p.atom != nil {
		for i, t := range p.atom.terms {
			if t.Kind == syntax.VarTerm && t.Name == v {
				p.atom.terms[i] = syntax.Term{Kind: syntax.ConstTerm, Name: c}
			}
		}
	}
	for _, a := range p.args {
		replaceVar(a, v, c)
	}
}

func (p *cnfNode) cloneDeep() *cnfNode {
	c := p.clone()
	if c.atom != nil {
		a := *c.atom
		a.terms = append([]syntax.Term(nil), a.terms...)
		c.atom = &a
	}
	for i, x := range c.args {
		c.args[i] = x.cloneDeep()
	}
	return c
}

// toCNF is Alchemy's ListObj::toCNF; consts gives the constants of an
// existential variable's type, in the domain's order.
func toCNF(p *cnfNode, consts func(v string) ([]string, error)) (*cnfNode, error) {
	p1 := eliminateImplication(p)
	switch p1.op {
	case "":
		return p1, nil
	case "!":
		p2 := moveNotInwards(p1.args[0])
		if p2.isLit() {
			return p2, nil
		}
		return toCNF(p2, consts)
	case "^":
		var out []*cnfNode
		for _, a := range p1.args {
			c, err := toCNF(a, consts)
			if err != nil {
				return nil, err
			}
			out = append(out, conjuncts(c)...)
		}
		if len(out) == 1 {
			return out[0], nil
		}
		return &cnfNode{op: "^", args: out}, nil
	case "v":
		var n []*cnfNode
		for _, a := range p1.args {
			c, err := toCNF(a, consts)
			if err != nil {
				return nil, err
			}
			n = append(n, c)
		}
		return mergeDisjuncts(n, len(n)), nil
	case "FORALL":
		return toCNF(p1.args[0], consts)
	case "EXIST":
		lists := make([][]string, len(p1.vars))
		total := 1
		for i, v := range p1.vars {
			c, err := consts(v)
			if err != nil {
				return nil, err
			}
			lists[i] = c
			total *= len(c)
			if total > 5000 || len(c) == 0 {
				return nil, fmt.Errorf("an existential quantifier over %d groundings", total)
			}
		}
		n := &cnfNode{op: "v"}
		idx := make([]int, len(lists))
		for {
			r := p1.args[0].cloneDeep()
			for i, v := range p1.vars {
				replaceVar(r, v, lists[i][idx[i]])
			}
			n.args = append(n.args, r)
			i := len(idx) - 1
			for ; i >= 0; i-- {
				idx[i]++
				if idx[i] < len(lists[i]) {
					break
				}
				idx[i] = 0
			}
			if i < 0 {
				break
			}
		}
		return toCNF(n, consts)
	}
	return p1, nil
}

func sameLit(a, b *cnfNode) bool {
	if a.op != b.op {
		return false
	}
	if a.op == "!" {
		return sameLit(a.args[0], b.args[0])
	}
	if a.atom.pred != b.atom.pred || len(a.atom.terms) != len(b.atom.terms) {
		return false
	}
	for i := range a.atom.terms {
		if a.atom.terms[i].Name != b.atom.terms[i].Name || a.atom.terms[i].Kind != b.atom.terms[i].Kind {
			return false
		}
	}
	return true
}

// alchemyCNF returns the clauses Alchemy makes of formula f of m, in
// Alchemy's order, in Alchemy's representation (before canonicalisation).
func (g *alchemyGrounder) alchemyCNF(f *mln.Formula) ([][]alchemyLit, error) {
	m := g.m
	root, err := fromAST(f.AST)
	if err != nil {
		return nil, err
	}
	// The type of each variable, from the predicates' arguments.
	varType := map[string]mln.TypeID{}
	var walk func(n *cnfNode)
	walk = func(n *cnfNode) {
		if n.atom != nil && n.atom.pred != "=" {
			if p, ok := m.Pred(n.atom.pred); ok {
				for i, t := range n.atom.terms {
					if t.Kind == syntax.VarTerm && i < len(p.Args) {
						varType[t.Name] = p.Args[i]
					}
				}
			}
		}
		for _, a := range n.args {
			walk(a)
		}
	}
	walk(root)
	consts := func(v string) ([]string, error) {
		t, ok := varType[v]
		if !ok {
			return nil, fmt.Errorf("an untyped existential variable")
		}
		var out []string
		for _, c := range m.Types[t].Consts {
			out = append(out, m.ConstName(c))
		}
		return out, nil
	}
	cnf, err := toCNF(root, consts)
	if err != nil {
		return nil, err
	}
	var multi [][]*cnfNode
	var units []*cnfNode
	for _, d := range conjuncts(cnf) {
		lits := disjuncts(d)
		// removeRedundantPredicates: a repeated literal is kept at its
		// last occurrence.
		var keep []*cnfNode
		for i, l := range lits {
			dup := false
			for _, l2 := range lits[i+1:] {
				if sameLit(l, l2) {
					dup = true
					break
				}
			}
			if !dup {
				keep = append(keep, l)
			}
		}
		if len(keep) > 1 {
			multi = append(multi, keep)
		} else {
			units = append(units, keep[0])
		}
	}
	flip := len(units) > 1
	if len(units) > 0 {
		multi = append(multi, units)
	}
	var out [][]alchemyLit
	for ci, lits := range multi {
		ids := map[string]int{}
		var clause []alchemyLit
		for _, l := range lits {
			sense := true
			if l.op == "!" {
				sense = false
				l = l.args[0]
			}
			if flip && ci == len(multi)-1 {
				sense = !sense
			}
			al := alchemyLit{sense: sense}
			var typ mln.TypeID = -1
			if l.atom.pred == "=" {
				al.mpred = -1
				al.builtin = mln.Eq
				for _, t := range l.atom.terms {
					if t.Kind == syntax.VarTerm {
						typ = varType[t.Name]
					}
				}
				if typ < 0 {
					return nil, fmt.Errorf("a comparison without a typed variable")
				}
				al.types = []mln.TypeID{typ, typ}
				al.pred = g.eqPred[typ]
			} else {
				p, ok := m.Pred(l.atom.pred)
				if !ok {
					return nil, fmt.Errorf("an unknown predicate %s", l.atom.pred)
				}
				al.mpred = p.ID
				al.pred = g.pid[p.ID]
				al.types = p.Args
			}
			for _, t := range l.atom.terms {
				if t.Kind == syntax.VarTerm {
					if _, ok := ids[t.Name]; !ok {
						ids[t.Name] = -1 - len(ids)
					}
					al.terms = append(al.terms, ids[t.Name])
				} else {
					c, ok := m.Const(t.Name)
					if !ok {
						return nil, fmt.Errorf("an unknown constant %s", t.Name)
					}
					al.terms = append(al.terms, int(c))
				}
			}
			clause = append(clause, al)
		}
		out = append(out, clause)
	}
	return out, nil
}
