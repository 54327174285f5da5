package rrf

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/marple-mln/marple/mln"
)

// MaxNodes bounds the nodes of a ground network (a larger grounding is
// refused with an error rather than exhausting memory).
var MaxNodes = 50_000_000

// ErrTooLarge is returned when the grounding exceeds MaxNodes.
var ErrTooLarge = errors.New("rrf: the ground network exceeds MaxNodes")

// Network is a recursive random field ground against a database: the ground
// atoms whose values are unknown (the variables), the groundings of the
// formulas that contain one (the rest are constant and dropped), and each
// grounding's tree of ground features.
type Network struct {
	Model *Model
	// Atoms are the variables: the unknown ground atoms, and Init their
	// values in the database (the truth, in training; false otherwise).
	Atoms []Atom
	Init  []bool

	nodes    []gnode
	tops     []top
	atomTops [][]int32 // per variable, the groundings that contain it
}

// Atom is a ground atom.
type Atom struct {
	Pred mln.PredID
	Args []mln.ConstID
}

// String writes the atom as Alchemy does.
func (n *Network) AtomString(a int) string {
	m := n.Model.MLN
	at := n.Atoms[a]
	var b strings.Builder
	b.WriteString(m.Preds[at.Pred].Name)
	b.WriteByte('(')
	for i, c := range at.Args {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(m.ConstName(c))
	}
	b.WriteByte(')')
	return b.String()
}

// NumGroundings returns the number of ground formulas kept.
func (n *Network) NumGroundings() int { return len(n.tops) }

// NumNodes returns the number of ground feature nodes.
func (n *Network) NumNodes() int { return len(n.nodes) }

type gop uint8

const (
	gConst gop = iota
	gAtom
	gNot
	gAnd
	gOr
	gIff
	gSoftAnd
	gSoftOr
)

// gnode is a ground feature node; kids and params index Network.nodes and
// Model.Params.
type gnode struct {
	op     gop
	val    float64 // gConst
	atom   int32   // gAtom: variable index
	kids   []int32
	params []int32 // gSoftAnd, gSoftOr: one per kid
	hasVar bool
}

// top is a grounding of a top-level formula.
type top struct {
	root    int32
	param   int32
	formula int32
}

// GroundOptions say which atoms are variables.
type GroundOptions struct {
	// Query marks the query predicates. In inference (Train false) their
	// atoms that the database does not give true or false are variables;
	// in training, all their atoms are, with the database's value (false
	// when unlisted) as Init. The atoms of other predicates are evidence:
	// false when unlisted (closed world).
	Query []bool
	Train bool
}

// Ground grounds the model against db.
func Ground(ctx context.Context, m *Model, db *mln.Database, opt GroundOptions) (*Network, error) {
	g := &grounder{m: m, db: db, opt: opt, net: &Network{Model: m}, index: map[string]int32{}}
	g.net.nodes = []gnode{{op: gConst, val: 0}, {op: gConst, val: 1}}
	// Every unknown atom of a query predicate is a variable, whether or
	// not a formula mentions it (as in Markov logic).
	for p, isQ := range opt.Query {
		if !isQ {
			continue
		}
		pred := m.MLN.Preds[p]
		args := make([]mln.ConstID, pred.Arity())
		var rec func(k int)
		rec = func(k int) {
			if k == len(args) {
				g.atom(pred.ID, args)
				return
			}
			for _, c := range m.MLN.Types[pred.Args[k]].Consts {
				args[k] = c
				rec(k + 1)
			}
		}
		rec(0)
	}
	g.net.nodes = g.net.nodes[:2]
	for fi, f := range m.Formulas {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		g.types = f.varTypes
		bind := make([]mln.ConstID, len(f.varTypes))
		var rec func(k int) error
		rec = func(k int) error {
			if k == len(f.free) {
				mark := len(g.net.nodes)
				r := g.ground(f.root, bind)
				if len(g.net.nodes) > MaxNodes {
					return ErrTooLarge
				}
				if g.net.nodes[r].hasVar {
					g.net.tops = append(g.net.tops, top{root: r, param: int32(f.Param), formula: int32(fi)})
				} else {
					g.net.nodes = g.net.nodes[:mark] // a constant: dropped
				}
				return nil
			}
			s := f.free[k]
			for _, c := range m.MLN.Types[f.varTypes[s]].Consts {
				bind[s] = c
				if err := rec(k + 1); err != nil {
					return err
				}
			}
			return nil
		}
		if err := rec(0); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Pos, err)
		}
	}
	n := g.net
	n.atomTops = make([][]int32, len(n.Atoms))
	stamp := make([]int32, len(n.Atoms))
	for i := range stamp {
		stamp[i] = -1
	}
	for t, tp := range n.tops {
		n.walkAtoms(tp.root, func(a int32) {
			if stamp[a] != int32(t) {
				stamp[a] = int32(t)
				n.atomTops[a] = append(n.atomTops[a], int32(t))
			}
		})
	}
	return n, nil
}

func (n *Network) walkAtoms(r int32, fn func(a int32)) {
	nd := &n.nodes[r]
	if !nd.hasVar {
		return
	}
	if nd.op == gAtom {
		fn(nd.atom)
		return
	}
	for _, k := range nd.kids {
		n.walkAtoms(k, fn)
	}
}

type grounder struct {
	m     *Model
	db    *mln.Database
	opt   GroundOptions
	net   *Network
	index map[string]int32 // atom key -> variable
	key   []byte
	types []mln.TypeID // the slots' types of the formula being ground
}

func (g *grounder) add(nd gnode) int32 {
	g.net.nodes = append(g.net.nodes, nd)
	return int32(len(g.net.nodes) - 1)
}

// constNode returns the node of a constant: nodes 0 and 1 are the
// constants 0 and 1.
func (g *grounder) constNode(v float64) int32 {
	if v == 0 || v == 1 {
		return int32(v)
	}
	return g.add(gnode{op: gConst, val: v})
}

// constOf returns the value of a constant node, ok false otherwise.
func (g *grounder) constOf(r int32) (float64, bool) {
	nd := &g.net.nodes[r]
	if nd.op == gConst {
		return nd.val, true
	}
	return 0, false
}

// atom returns the node of a ground atom: a constant for evidence, a
// variable otherwise.
func (g *grounder) atom(p mln.PredID, args []mln.ConstID) int32 {
	v, listed := g.db.Get(p, args)
	isQuery := int(p) < len(g.opt.Query) && g.opt.Query[p]
	variable := isQuery && (g.opt.Train || !listed || v == mln.Unknown) || listed && v == mln.Unknown
	if !variable {
		if listed && v == mln.True {
			return g.constNode(1)
		}
		return g.constNode(0)
	}
	g.key = g.key[:0]
	g.key = fmt.Appendf(g.key, "%d", p)
	for _, c := range args {
		g.key = fmt.Appendf(g.key, ",%d", c)
	}
	a, ok := g.index[string(g.key)]
	if !ok {
		a = int32(len(g.net.Atoms))
		g.index[string(g.key)] = a
		g.net.Atoms = append(g.net.Atoms, Atom{Pred: p, Args: append([]mln.ConstID(nil), args...)})
		g.net.Init = append(g.net.Init, listed && v == mln.True)
	}
	return g.add(gnode{op: gAtom, atom: a, hasVar: true})
}

func (g *grounder) value(a arg, bind []mln.ConstID) mln.ConstID {
	if a.v >= 0 {
		return bind[a.v]
	}
	return a.c
}

// ground grounds template node t under a binding, folding the hard
// sub-formulas whose atoms are evidence into constants.
func (g *grounder) ground(t *tnode, bind []mln.ConstID) int32 {
	switch t.kind {
	case kAtom:
		args := make([]mln.ConstID, len(t.args))
		for i, a := range t.args {
			args[i] = g.value(a, bind)
		}
		return g.atom(t.pred, args)
	case kCmp:
		if cmpConsts(g.m.MLN, t.cmp, g.value(t.args[0], bind), g.value(t.args[1], bind)) {
			return g.constNode(1)
		}
		return g.constNode(0)
	case kNot:
		x := g.ground(t.kids[0], bind)
		if v, ok := g.constOf(x); ok {
			return g.constNode(1 - v)
		}
		return g.add(gnode{op: gNot, kids: []int32{x}, hasVar: true})
	case kAnd, kOr:
		kids := make([]int32, 0, len(t.kids))
		for _, k := range t.kids {
			kids = append(kids, g.ground(k, bind))
		}
		return g.hardChain(t.kind == kAnd, kids)
	case kImp:
		x := g.ground(t.kids[0], bind)
		y := g.ground(t.kids[1], bind)
		return g.hardChain(false, []int32{g.not(x), y})
	case kIff:
		x := g.ground(t.kids[0], bind)
		y := g.ground(t.kids[1], bind)
		vx, okx := g.constOf(x)
		vy, oky := g.constOf(y)
		switch {
		case okx && oky:
			return g.constNode(b2f(vx == vy))
		case okx && vx == 1:
			return y
		case okx:
			return g.not(y)
		case oky && vy == 1:
			return x
		case oky:
			return g.not(x)
		}
		return g.add(gnode{op: gIff, kids: []int32{x, y}, hasVar: true})
	case kAll, kExist:
		var kids []int32
		g.forBindings(t.vars, bind, 0, func() { kids = append(kids, g.ground(t.kids[0], bind)) })
		return g.hardChain(t.kind == kAll, kids)
	case kSoftAnd, kSoftOr:
		nd := gnode{op: gSoftAnd}
		if t.kind == kSoftOr {
			nd.op = gSoftOr
		}
		for i, k := range t.kids {
			r := g.ground(k, bind)
			nd.kids = append(nd.kids, r)
			nd.params = append(nd.params, int32(t.params[i]))
			nd.hasVar = nd.hasVar || g.net.nodes[r].hasVar
		}
		return g.add(nd)
	case kSoftAll, kSoftExist:
		nd := gnode{op: gSoftAnd}
		if t.kind == kSoftExist {
			nd.op = gSoftOr
		}
		g.forBindings(t.vars, bind, 0, func() {
			r := g.ground(t.kids[0], bind)
			nd.kids = append(nd.kids, r)
			nd.params = append(nd.params, int32(t.params[0]))
			nd.hasVar = nd.hasVar || g.net.nodes[r].hasVar
		})
		return g.add(nd)
	}
	panic("rrf: unknown node")
}

func (g *grounder) forBindings(vars []int, bind []mln.ConstID, k int, fn func()) {
	if k == len(vars) {
		fn()
		return
	}
	s := vars[k]
	for _, c := range g.m.MLN.Types[g.types[s]].Consts {
		bind[s] = c
		g.forBindings(vars, bind, k+1, fn)
	}
}

func (g *grounder) not(x int32) int32 {
	if v, ok := g.constOf(x); ok {
		return g.constNode(1 - v)
	}
	return g.add(gnode{op: gNot, kids: []int32{x}, hasVar: true})
}

// hardChain folds a conjunction (and) or disjunction of ground nodes.
func (g *grounder) hardChain(and bool, kids []int32) int32 {
	unit := 1.0 // the value that does not change the chain
	if !and {
		unit = 0
	}
	out := kids[:0]
	for _, k := range kids {
		if v, ok := g.constOf(k); ok {
			if v != unit {
				return g.constNode(1 - unit)
			}
			continue
		}
		out = append(out, k)
	}
	switch len(out) {
	case 0:
		return g.constNode(unit)
	case 1:
		return out[0]
	}
	op := gAnd
	if !and {
		op = gOr
	}
	return g.add(gnode{op: op, kids: append([]int32(nil), out...), hasVar: true})
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
