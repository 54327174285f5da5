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
	kids     []int32 // operands of the nodes
	params   []int32 // soft nodes: the weight of each operand
	mult     []int32 // soft nodes: how many times the operand occurs
	tops     []top
	atomTops [][]int32 // per variable, the groundings that contain it
}

// Atom is a ground atom.
type Atom struct {
	Pred mln.PredID
	Args []mln.ConstID
}

// AtomString returns variable a as Alchemy writes an atom: Smokes(Anna).
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

// gnode is a ground feature node. Its operands are kids[off:off+n] of
// the Network (with, for soft nodes, their weights' indices in params and
// their multiplicities in mult: identical operands are stored once).
type gnode struct {
	op     gop
	hasVar bool
	atom   int32   // gAtom: variable index
	val    float64 // gConst
	off, n int32
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
	g := &grounder{m: m, db: db, opt: opt, net: &Network{Model: m}, index: map[string]int32{}, intern: map[string]int32{}}
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
	g.log = g.log[:0]
	clear(g.intern)
	for fi, f := range m.Formulas {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		g.types = f.varTypes
		bind := make([]mln.ConstID, len(f.varTypes))
		var rec func(k int) error
		rec = func(k int) error {
			if k == len(f.free) {
				mark, kmark, lmark := len(g.net.nodes), len(g.net.kids), len(g.log)
				r := g.ground(f.root, bind)
				if len(g.net.nodes) > MaxNodes {
					return ErrTooLarge
				}
				if g.net.nodes[r].hasVar {
					g.net.tops = append(g.net.tops, top{root: r, param: int32(f.Param), formula: int32(fi)})
				} else {
					// A constant: dropped, with the nodes it made.
					g.net.nodes = g.net.nodes[:mark]
					g.net.kids, g.net.params, g.net.mult = g.net.kids[:kmark], g.net.params[:kmark], g.net.mult[:kmark]
					for _, k := range g.log[lmark:] {
						delete(g.intern, k)
					}
				}
				g.log = g.log[:0]
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
	for _, k := range n.kids[nd.off : nd.off+nd.n] {
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
	// intern maps a node's key to its index: one node per variable atom
	// and per constant-valued soft node, shared by every grounding that
	// has it; log lists the keys added for the grounding being made.
	intern map[string]int32
	log    []string
	ikey   []byte
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
	return g.interned(gnode{op: gAtom, atom: a, hasVar: true}, nil, nil, nil)
}

// interned returns the node nd with operands kids (weights params,
// multiplicities mult), made once: an atom, or a node without variables.
func (g *grounder) interned(nd gnode, kids, params, mult []int32) int32 {
	g.ikey = append(g.ikey[:0], byte(nd.op))
	g.ikey = fmt.Appendf(g.ikey, "%d", nd.atom)
	for i, k := range kids {
		g.ikey = fmt.Appendf(g.ikey, ",%d:%d:%d", k, params[i], mult[i])
	}
	if r, ok := g.intern[string(g.ikey)]; ok {
		return r
	}
	r := g.addKids(nd, kids, params, mult)
	key := string(g.ikey)
	g.intern[key] = r
	g.log = append(g.log, key)
	return r
}

// addKids adds node nd with its operands.
func (g *grounder) addKids(nd gnode, kids, params, mult []int32) int32 {
	nd.off, nd.n = int32(len(g.net.kids)), int32(len(kids))
	g.net.kids = append(g.net.kids, kids...)
	if params == nil {
		for range kids {
			g.net.params = append(g.net.params, -1)
			g.net.mult = append(g.net.mult, 1)
		}
	} else {
		g.net.params = append(g.net.params, params...)
		g.net.mult = append(g.net.mult, mult...)
	}
	return g.add(nd)
}

// soft adds a soft node over operands kids with weights params, storing
// each distinct (operand, weight) once with its multiplicity; a node
// without variables is shared.
func (g *grounder) soft(op gop, kids, params []int32) int32 {
	type pair struct{ k, p int32 }
	var pos map[pair]int // for many operands; a scan otherwise
	if len(kids) > 8 {
		pos = map[pair]int{}
	}
	var ks, ps, ms []int32
	hasVar := false
	for i, k := range kids {
		pr := pair{k, params[i]}
		j, ok := -1, false
		if pos != nil {
			j, ok = pos[pr]
		} else {
			for jj := range ks {
				if ks[jj] == k && ps[jj] == params[i] {
					j, ok = jj, true
					break
				}
			}
		}
		if ok {
			ms[j]++
			continue
		}
		if pos != nil {
			pos[pr] = len(ks)
		}
		ks, ps, ms = append(ks, k), append(ps, params[i]), append(ms, 1)
		hasVar = hasVar || g.net.nodes[k].hasVar
	}
	nd := gnode{op: op, hasVar: hasVar}
	if !hasVar {
		return g.interned(nd, ks, ps, ms)
	}
	return g.addKids(nd, ks, ps, ms)
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
		return g.addKids(gnode{op: gNot, hasVar: g.net.nodes[x].hasVar}, []int32{x}, nil, nil)
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
		return g.addKids(gnode{op: gIff, hasVar: true}, []int32{x, y}, nil, nil)
	case kAll, kExist:
		var kids []int32
		g.forBindings(t.vars, bind, 0, func() { kids = append(kids, g.ground(t.kids[0], bind)) })
		return g.hardChain(t.kind == kAll, kids)
	case kSoftAnd, kSoftOr:
		op := gSoftAnd
		if t.kind == kSoftOr {
			op = gSoftOr
		}
		kids := make([]int32, len(t.kids))
		params := make([]int32, len(t.kids))
		for i, k := range t.kids {
			kids[i] = g.ground(k, bind)
			params[i] = int32(t.params[i])
		}
		return g.soft(op, kids, params)
	case kSoftAll, kSoftExist:
		op := gSoftAnd
		if t.kind == kSoftExist {
			op = gSoftOr
		}
		var kids, params []int32
		g.forBindings(t.vars, bind, 0, func() {
			kids = append(kids, g.ground(t.kids[0], bind))
			params = append(params, int32(t.params[0]))
		})
		return g.soft(op, kids, params)
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
	return g.addKids(gnode{op: gNot, hasVar: true}, []int32{x}, nil, nil)
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
	return g.addKids(gnode{op: op, hasVar: true}, out, nil, nil)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
