// Package rrf implements recursive random fields (Lowd and Domingos, IJCAI
// 2007): Markov logic whose features are themselves weighted, normalised
// features of their sub-formulas, recursively, written with nested weights
// in .mln files (syntax.Weighted).
//
// Each node of a formula's tree is a feature with a value in [0, 1]:
//
//   - a ground atom is 1 when true, 0 when false; a sub-formula without
//     nested weights is its truth value, as in Markov logic;
//   - "(w1 F1 ^ ... ^ wn Fn)" is the normalised feature
//     f = exp(Σ_j w_j f_j) / Z, Z = exp(Σ_j max(w_j, 0)), the paper's
//     f_i(x) = 1/Z_i exp(Σ_j w_ij f_j(x)) with Z_i the largest value of the
//     exponential, so that f is 1 exactly when every positively weighted
//     sub-formula holds and every negatively weighted one fails: a soft
//     conjunction, which large weights make hard;
//   - "(w1 F1 v ... v wn Fn)" is 1 minus the same feature of the negated
//     sub-formulas, 1 - exp(-Σ_j w_j f_j) / exp(Σ_j max(-w_j, 0)): a soft
//     disjunction (De Morgan; the negation is linear, so it stays in the
//     paper's family, the parent's weight changing sign);
//   - "FORALL v w F" and "EXIST v w F" are the soft conjunction and
//     disjunction of the groundings of F over v, each with weight w: one
//     feature over all the groundings;
//   - "!F" is 1 - f; a lone "w F" is a soft conjunction of one feature.
//
// A world's probability is exp(Σ_i w_i Σ_g f_i(g)) / Z over the top-level
// formulas i and the groundings g of their free variables, as in Markov
// logic: a model without nested weights is a Markov logic network whose
// formulas are features (for a formula whose CNF is one clause, or a
// conjunction of literals, the distribution Alchemy's clauses give).
//
// Inference is Gibbs sampling (marginals, several chains with R-hat and
// effective sample size) and iterated conditional modes (MAP); learning
// maximises the pseudo-log-likelihood by back-propagating its gradient
// through the nested features to every weight, with L-BFGS.
package rrf

import (
	"bytes"
	"fmt"
	"os"
	"strconv"

	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// Model is a recursive random field: the declarations (types, predicates
// and constants, in an mln.Model without formulas), the compiled formulas
// and every weight.
type Model struct {
	MLN      *mln.Model
	Formulas []*Formula
	Params   []Param

	files []*syntax.File // the parsed files, for writing the model back
}

// Param is one weight of the model: a formula's weight (Top) or a nested
// weight.
type Param struct {
	Weight float64
	Pos    syntax.Pos
	Top    bool

	decl *syntax.FormulaDecl // Top
	w    *syntax.Weighted    // nested
}

// Formula is a compiled top-level formula.
type Formula struct {
	Pos        syntax.Pos
	Param      int // index of its weight in Model.Params
	root       *tnode
	varTypes   []mln.TypeID // type of each variable slot
	free       []int        // the free variables' slots, in order of appearance
	Text       string       // the formula as written (printed)
	Unweighted bool         // no weight was written (infer uses 0)
}

// NumWeights returns the number of weights.
func (m *Model) NumWeights() int { return len(m.Params) }

// Weights returns the current weights, in Params order.
func (m *Model) Weights() []float64 {
	w := make([]float64, len(m.Params))
	for i, p := range m.Params {
		w[i] = p.Weight
	}
	return w
}

// SetWeights sets every weight (in Params order).
func (m *Model) SetWeights(w []float64) {
	for i := range m.Params {
		m.Params[i].Weight = w[i]
	}
}

// Nested reports whether the model has nested weights (otherwise it is a
// Markov logic network read as a recursive random field).
func (m *Model) Nested() bool {
	for _, p := range m.Params {
		if !p.Top {
			return true
		}
	}
	return false
}

type kind uint8

const (
	kAtom kind = iota
	kCmp
	kNot
	kAnd
	kOr
	kImp
	kIff
	kAll   // hard FORALL
	kExist // hard EXIST
	kSoftAnd
	kSoftOr
	kSoftAll
	kSoftExist
)

// arg is an argument of a compiled atom or comparison: a variable slot
// (v >= 0) or a constant.
type arg struct {
	v int
	c mln.ConstID
}

// tnode is a node of a compiled first-order formula.
type tnode struct {
	kind   kind
	pos    syntax.Pos
	pred   mln.PredID
	args   []arg
	cmp    syntax.CmpOp
	kids   []*tnode
	params []int // kSoftAnd, kSoftOr: one per kid; kSoftAll, kSoftExist: one
	vars   []int // quantified slots
	soft   bool  // the value may be strictly between 0 and 1
}

// Load reads a recursive random field from .mln files (in order, as
// marple infer -i a.mln,b.mln).
func Load(paths ...string) (*Model, error) {
	names := make([]string, len(paths))
	srcs := make([][]byte, len(paths))
	for i, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		names[i], srcs[i] = p, src
	}
	return Parse(names, srcs)
}

// Parse reads a recursive random field from the texts of .mln files.
func Parse(names []string, srcs [][]byte) (*Model, error) {
	known := syntax.Known{}
	var errs syntax.ErrorList
	var files []*syntax.File
	var declFiles []*syntax.File
	for i, name := range names {
		f, err := syntax.ParseMLNConfig(name, srcs[i], &syntax.Config{Known: known})
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		df := &syntax.File{Name: f.Name, Abandoned: f.Abandoned}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *syntax.FormulaDecl:
			case *syntax.Include:
				errs.Add(d.IncludePos, "#include is not supported in a recursive random field model: give the files to -i")
			case *syntax.HybridDecl:
				errs.Add(d.Pos(), "numeric terms are not supported in a recursive random field model")
			default:
				df.Decls = append(df.Decls, d)
			}
		}
		declFiles = append(declFiles, df)
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	mm, err := mln.Build(declFiles...)
	if err != nil {
		return nil, err
	}
	m := &Model{MLN: mm, files: files}
	for _, f := range files {
		for _, d := range f.Decls {
			if d, ok := d.(*syntax.FormulaDecl); ok {
				m.addFormula(d, &errs)
			}
		}
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return m, nil
}

// compiler compiles one formula.
type compiler struct {
	m     *Model
	errs  *syntax.ErrorList
	scope []scopeVar
	types []mln.TypeID // per slot; -1 unknown
	where []syntax.Pos // per slot: where the variable first appears
	names []string
	free  []int
	// freeSlot holds the free variables' slots by name.
	freeSlot map[string]int
}

type scopeVar struct {
	name string
	slot int
}

type bail struct{}

func (c *compiler) fail(pos syntax.Pos, format string, args ...any) {
	c.errs.Add(pos, format, args...)
	panic(bail{})
}

func (m *Model) addFormula(d *syntax.FormulaDecl, errs *syntax.ErrorList) {
	n := len(*errs)
	switch {
	case d.Hard:
		errs.Add(d.Dot, "hard formula in a recursive random field: give it a weight (Gibbs sampling needs every feature soft)")
	case d.DomainScaled:
		errs.Add(d.StartPos, "'@' is not supported in a recursive random field")
	case d.Utility != nil:
		errs.Add(d.StartPos, "utilities are not supported in a recursive random field")
	}
	if len(*errs) > n {
		return
	}
	c := &compiler{m: m, errs: errs}
	f := &Formula{Pos: d.StartPos, Text: syntax.FormulaString(d.F), Unweighted: !d.HasWeight}
	f.Param = len(m.Params)
	m.Params = append(m.Params, Param{Weight: d.Weight, Pos: d.StartPos, Top: true, decl: d})
	ok := func() (ok bool) {
		defer func() {
			if r := recover(); r != nil {
				if _, isBail := r.(bail); !isBail {
					panic(r)
				}
				ok = false
			}
		}()
		f.root = c.node(d.F)
		for s, t := range c.types {
			if t < 0 {
				c.fail(c.where[s], "cannot tell the type of variable %s: it appears in no atom", c.names[s])
			}
		}
		return true
	}()
	if !ok {
		m.Params = m.Params[:f.Param]
		return
	}
	f.varTypes, f.free = c.types, c.free
	m.Formulas = append(m.Formulas, f)
}

func (c *compiler) lookup(name string) (int, bool) {
	for i := len(c.scope) - 1; i >= 0; i-- {
		if c.scope[i].name == name {
			return c.scope[i].slot, true
		}
	}
	s, ok := c.freeSlot[name]
	return s, ok
}

func (c *compiler) newSlot(name string, pos syntax.Pos) int {
	c.types = append(c.types, -1)
	c.where = append(c.where, pos)
	c.names = append(c.names, name)
	return len(c.types) - 1
}

// term compiles an argument; typ is its type when known (an atom's
// argument), -1 in a comparison.
func (c *compiler) term(t syntax.Term, typ mln.TypeID) arg {
	switch {
	case t.Kind == syntax.FuncTerm:
		c.fail(t.TermPos, "function terms are not supported in a recursive random field")
	case t.Plus:
		c.fail(t.TermPos, "'+' variables are not supported in a recursive random field")
	case t.Kind == syntax.ConstTerm:
		name := t.Name
		if typ >= 0 {
			return arg{v: -1, c: c.m.MLN.AddToType(typ, name)}
		}
		return arg{v: -1, c: c.m.MLN.AddConst(name)}
	}
	s, ok := c.lookup(t.Name)
	if !ok {
		s = c.newSlot(t.Name, t.TermPos)
		if c.freeSlot == nil {
			c.freeSlot = map[string]int{}
		}
		c.freeSlot[t.Name] = s
		c.free = append(c.free, s)
	}
	if typ >= 0 {
		switch old := c.types[s]; {
		case old < 0:
			c.types[s] = typ
		case old != typ:
			ts := c.m.MLN.Types
			c.fail(t.TermPos, "variable %s has type %s here and %s before", t.Name, ts[typ].Name, ts[old].Name)
		}
	}
	return arg{v: s}
}

func (c *compiler) node(f syntax.Formula) *tnode {
	switch f := f.(type) {
	case *syntax.Atom:
		if f.Star {
			c.fail(f.AtomPos, "'*' atoms are not supported in a recursive random field")
		}
		p, ok := c.m.MLN.Pred(f.Pred)
		if !ok {
			c.fail(f.PredPos, "unknown predicate %s", f.Pred)
		}
		if len(f.Args) != p.Arity() {
			c.fail(f.PredPos, "%s takes %d arguments, not %d", f.Pred, p.Arity(), len(f.Args))
		}
		n := &tnode{kind: kAtom, pos: f.AtomPos, pred: p.ID}
		for i, t := range f.Args {
			n.args = append(n.args, c.term(t, p.Args[i]))
		}
		return n
	case *syntax.Compare:
		return &tnode{kind: kCmp, pos: f.OpPos, cmp: f.Op, args: []arg{c.term(f.X, -1), c.term(f.Y, -1)}}
	case *syntax.Not:
		x := c.node(f.X)
		return &tnode{kind: kNot, pos: f.NotPos, kids: []*tnode{x}, soft: x.soft}
	case *syntax.Weighted:
		// A lone weighted sub-formula: a soft conjunction of one feature.
		return &tnode{kind: kSoftAnd, pos: f.WeightPos, kids: []*tnode{c.node(f.X)}, params: []int{c.param(f)}, soft: true}
	case *syntax.Binary:
		xs := syntax.Chain(f)
		if _, ok := xs[0].(*syntax.Weighted); ok && (f.Op == syntax.OpAnd || f.Op == syntax.OpOr) {
			n := &tnode{kind: kSoftAnd, pos: f.OpPos, soft: true}
			if f.Op == syntax.OpOr {
				n.kind = kSoftOr
			}
			for _, x := range xs {
				w := x.(*syntax.Weighted)
				n.params = append(n.params, c.param(w))
				n.kids = append(n.kids, c.node(w.X))
			}
			return n
		}
		n := &tnode{pos: f.OpPos}
		switch f.Op {
		case syntax.OpAnd:
			n.kind = kAnd
		case syntax.OpOr:
			n.kind = kOr
		case syntax.OpImplies:
			n.kind = kImp
		case syntax.OpIff:
			n.kind = kIff
		}
		if f.Op == syntax.OpAnd || f.Op == syntax.OpOr {
			for _, x := range xs {
				n.kids = append(n.kids, c.node(x))
			}
		} else {
			n.kids = []*tnode{c.node(f.X), c.node(f.Y)}
		}
		for _, k := range n.kids {
			if k.soft {
				c.fail(f.OpPos, "%s joins a sub-formula with nested weights: only weighted ^ and v chains (w1 F ^ w2 G), ! and weighted quantifiers combine such sub-formulas", f.Op)
			}
		}
		return n
	case *syntax.Quant:
		n := &tnode{kind: kAll, pos: f.QuantPos}
		if f.Exist {
			n.kind = kExist
		}
		depth := len(c.scope)
		for _, v := range f.Vars {
			s := c.newSlot(v.Name, v.NamePos)
			c.scope = append(c.scope, scopeVar{v.Name, s})
			n.vars = append(n.vars, s)
		}
		if w, ok := f.Body.(*syntax.Weighted); ok {
			n.kind += kSoftAll - kAll
			n.soft = true
			n.params = []int{c.param(w)}
			n.kids = []*tnode{c.node(w.X)}
		} else {
			n.kids = []*tnode{c.node(f.Body)}
			if n.kids[0].soft {
				c.fail(f.QuantPos, "a quantifier over a sub-formula with nested weights needs its own weight: FORALL x w F, EXIST x w F")
			}
		}
		c.scope = c.scope[:depth]
		return n
	}
	c.fail(f.Pos(), "unsupported formula")
	return nil
}

func (c *compiler) param(w *syntax.Weighted) int {
	c.m.Params = append(c.m.Params, Param{Weight: w.Weight, Pos: w.WeightPos, w: w})
	return len(c.m.Params) - 1
}

// Write writes the model in .mln syntax with its current weights (the
// files in order, as one text): the learned model of marple learn -rrf.
func (m *Model) Write(w *bytes.Buffer) error {
	for _, p := range m.Params {
		if p.Top {
			p.decl.Weight, p.decl.HasWeight = p.Weight, true
		} else {
			p.w.Weight = p.Weight
		}
	}
	for _, f := range m.files {
		if len(m.files) > 1 {
			fmt.Fprintf(w, "// %s\n", f.Name)
		}
		if err := syntax.Fprint(w, f); err != nil {
			return err
		}
	}
	return nil
}

// cmpConsts compares two constants as Alchemy does: integers by value,
// other names by identity (only = and != apply).
func cmpConsts(m *mln.Model, op syntax.CmpOp, a, b mln.ConstID) bool {
	switch op {
	case syntax.CmpEq:
		return a == b
	case syntax.CmpNe:
		return a != b
	}
	x, err1 := strconv.Atoi(m.ConstName(a))
	y, err2 := strconv.Atoi(m.ConstName(b))
	if err1 != nil || err2 != nil {
		return false
	}
	switch op {
	case syntax.CmpLt:
		return x < y
	case syntax.CmpLe:
		return x <= y
	case syntax.CmpGt:
		return x > y
	}
	return x >= y
}
