package lifted

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/wmc"

	"github.com/marple-mln/marple/internal/unionfind"
	"github.com/marple-mln/marple/mln"
)

// The placeholders of local sums: e1 and e2 stand for two distinct
// non-special constants (as ConstIDs they are negative).
const (
	e1 = mln.ConstID(-1)
	e2 = mln.ConstID(-2)
)

// local is a small sum over the free atoms of some clause groundings: the
// groundings of one non-special constant with the special ones (a cell
// weight), of two non-special constants (a pair factor), or of the special
// constants alone. The atoms over special constants take their values from
// the outer assignment sigma; the slots that split cells take theirs from
// the cells.
type local struct {
	p     *problem
	sigma []bool
	ty    [2]mln.TypeID
	cell  [2]int
	cls   [2]*class // the placeholders' classes (nil for a pair factor)
	free  map[akey]int32
	konst float64 // log factor of the groundings already decided
	facs  []factor
	dead  bool // a hard grounding is false whatever the free atoms
	args  []mln.ConstID
	pat   []mln.ConstID
	// special marks the sum of the groundings over special constants
	// alone, whose unknown atoms outside the interface are free.
	special bool
	// fix, when set, fixes one atom (with placeholders) to a value.
	fix *fixAtom
}

type fixAtom struct {
	on   bool
	atom akey
	v    bool
}

type factor struct {
	lits []flit
	w    float64
	hard bool
}

type flit struct {
	v   int32
	neg bool
}

func (l *local) freeVar(pred mln.PredID, args []mln.ConstID) int32 {
	k := atomKey(pred, args)
	if v, ok := l.free[k]; ok {
		return v
	}
	v := int32(len(l.free))
	l.free[k] = v
	return v
}

// value returns the value of an atom, or the free variable (>= 0) that
// stands for it.
func (l *local) value(pred mln.PredID, args []mln.ConstID) (bool, int32) {
	h, two := mln.ConstID(0), false
	for _, a := range args {
		if a < 0 {
			if h == 0 {
				h = a
			} else if a != h {
				two = true
			}
		}
	}
	p := l.p
	if l.fix != nil && l.fix.on && l.fix.atom == atomKey(pred, args) {
		return l.fix.v, -1
	}
	if h == 0 {
		a := &p.satoms[p.sIndex[atomKey(pred, args)]]
		if a.truth == mln.Unknown {
			if p.probing {
				p.read[a.bit] = true
			} else if !p.isIface[a.bit] {
				if !l.special {
					panic("lifted: an atom over special constants missed by probing")
				}
				return false, l.freeVar(pred, args)
			}
			return l.sigma[a.bit], -1
		}
		return a.truth == mln.True, -1
	}
	if two { // an atom of two non-special constants: no evidence
		if !p.open[pred] {
			return false, -1
		}
		return false, l.freeVar(pred, args)
	}
	k := int(-1 - h)
	ti := p.types[l.ty[k]]
	l.pat = append(l.pat[:0], args...)
	for i, a := range l.pat {
		if a == h {
			l.pat[i] = -1
		}
	}
	key := atomKey(pred, l.pat)
	if j, ok := ti.relIdx[key]; ok {
		return l.cell[k]>>j&1 == 1, -1
	}
	t := p.defaultTruth(pred)
	if j, ok := ti.localIdx[key]; ok {
		if l.cls[k] == nil {
			panic("lifted: local slot in a pair factor")
		}
		t = l.cls[k].sig[j]
	}
	switch t {
	case mln.True:
		return true, -1
	case mln.False:
		return false, -1
	}
	return false, l.freeVar(pred, args)
}

// ground adds the grounding of c under bind.
func (l *local) ground(c *clause, bind []mln.ConstID) {
	var fl []flit
	for i := range c.lits {
		lit := &c.lits[i]
		l.args = l.args[:0]
		for _, t := range lit.args {
			if t.IsVar() {
				l.args = append(l.args, bind[t.Var()])
			} else {
				l.args = append(l.args, t.Const())
			}
		}
		if lit.pred < 0 {
			holds := l.args[0] == l.args[1]
			if lit.builtin == mln.Neq {
				holds = !holds
			}
			if holds != lit.neg {
				fl = nil
				goto sat
			}
			continue
		}
		if val, f := l.value(lit.pred, l.args); f < 0 {
			if val != lit.neg && !l.p.probing {
				goto sat
			}
		} else {
			fl = append(fl, flit{f, lit.neg})
		}
	}
	if len(fl) == 0 {
		if c.hard {
			l.dead = true
		}
		return
	}
	l.facs = append(l.facs, factor{lits: fl, w: c.w, hard: c.hard})
	return
sat:
	if !c.hard {
		l.konst += c.w
	}
}

// groundAll adds every grounding whose variables take values in cands
// (per variable type) and that keep is true of.
func (l *local) groundAll(cands func(t mln.TypeID) []mln.ConstID, keep func(b []mln.ConstID) bool) error {
	bind := make([]mln.ConstID, 2)
	work := int64(0)
	for ci := range l.p.th.clauses {
		c := &l.p.th.clauses[ci]
		w := int64(1)
		for _, t := range c.varType {
			w *= int64(len(cands(t)))
		}
		work += w
	}
	if err := l.p.lim.add(work); err != nil {
		return err
	}
	for ci := range l.p.th.clauses {
		c := &l.p.th.clauses[ci]
		switch len(c.varType) {
		case 0:
			if keep(nil) {
				l.ground(c, nil)
			}
		case 1:
			for _, x := range cands(c.varType[0]) {
				bind[0] = x
				if keep(bind[:1]) {
					l.ground(c, bind[:1])
				}
			}
		case 2:
			ys := cands(c.varType[1])
			for _, x := range cands(c.varType[0]) {
				for _, y := range ys {
					bind[0], bind[1] = x, y
					if keep(bind) {
						l.ground(c, bind)
					}
				}
			}
		}
		if l.dead && !l.p.probing {
			return nil
		}
	}
	return nil
}

// sum returns the log of the sum, over the free atoms, of the product of
// the factors, totalFree being the number of free atoms of the sum
// (including those in no grounding, each a factor 2).
func (l *local) sum(totalFree int) (float64, error) {
	if l.dead {
		return math.Inf(-1), nil
	}
	n := len(l.free)
	if n > totalFree {
		panic("lifted: more free atoms than counted")
	}
	res := l.konst + float64(totalFree-n)*math.Ln2
	if n == 0 {
		return res, nil
	}
	parent := unionfind.New[int32](n)
	find := parent.Find
	for _, f := range l.facs {
		r := find(f.lits[0].v)
		for _, fl := range f.lits[1:] {
			if s := find(fl.v); s != r {
				parent[s] = r
			}
		}
	}
	comps := map[int32][]int32{} // root -> variables
	var roots []int32
	for v := int32(0); v < int32(n); v++ {
		r := find(v)
		if _, ok := comps[r]; !ok {
			roots = append(roots, r)
		}
		comps[r] = append(comps[r], v)
	}
	facsOf := map[int32][]int{}
	for i, f := range l.facs {
		r := find(f.lits[0].v)
		facsOf[r] = append(facsOf[r], i)
	}
	pos := make([]int, n)
	for _, r := range roots {
		vs := comps[r]
		fs := facsOf[r]
		if len(fs) == 0 {
			res += float64(len(vs)) * math.Ln2
			continue
		}
		if len(vs) > l.p.lim.maxComponent {
			return 0, notLiftable("a local sum has %d interacting free atoms (at most %d)", len(vs), l.p.lim.maxComponent)
		}
		for i, v := range vs {
			pos[v] = i
		}
		if len(vs) > enumAtoms {
			v, err := l.countComponent(vs, fs, pos)
			if err != nil {
				return 0, err
			}
			res += v
			continue
		}
		if err := l.p.lim.add(int64(len(fs)) << len(vs)); err != nil {
			return 0, err
		}
		acc := newLSE()
		for a := uint64(0); a < 1<<len(vs); a++ {
			w := 0.0
			ok := true
			for _, fi := range fs {
				f := &l.facs[fi]
				sat := false
				for _, fl := range f.lits {
					if (a>>pos[fl.v]&1 == 1) != fl.neg {
						sat = true
						break
					}
				}
				if sat {
					if !f.hard {
						w += f.w
					}
				} else if f.hard {
					ok = false
					break
				}
			}
			if ok {
				acc.add(w)
			}
		}
		res += acc.log()
	}
	return res, nil
}

// enumAtoms is the largest component a local sum enumerates; larger ones
// are counted by package wmc.
const enumAtoms = 12

// countComponent is the log of the sum of a component's factors over its
// free atoms vs, by weighted model counting of the small ground network
// they make.
func (l *local) countComponent(vs []int32, fs []int, pos []int) (float64, error) {
	net := ground.NewNetwork(len(vs))
	var lits []ground.Lit
	for _, fi := range fs {
		f := &l.facs[fi]
		lits = lits[:0]
		for _, fl := range f.lits {
			lits = append(lits, ground.MakeLit(int32(pos[fl.v]), fl.neg))
		}
		w := f.w
		if f.hard {
			w = math.Inf(1)
		}
		net.AddClause(lits, w, 0, -1, 1)
	}
	if err := l.p.lim.add(int64(len(fs)) * int64(len(vs))); err != nil {
		return 0, err
	}
	res, err := wmc.Solve(context.Background(), net, wmc.Options{Workers: 1, NoMarginals: true, MaxNodes: l.p.lim.wmcNodes})
	switch {
	case errors.Is(err, infer.ErrInfeasible):
		return math.Inf(-1), nil
	case errors.Is(err, wmc.ErrOutOfReach):
		return 0, &NotLiftableError{Reason: fmt.Sprintf("a local sum over %d atoms of special constants is out of reach (%v)", len(vs), err), OutOfReach: true}
	case err != nil:
		return 0, err
	}
	return res.LogZ, nil
}

// lse accumulates a log-sum-exp.
type lse struct{ m, s float64 }

func newLSE() lse { return lse{m: math.Inf(-1)} }

func (a *lse) add(x float64) {
	switch {
	case math.IsInf(x, -1):
	case x <= a.m:
		a.s += math.Exp(x - a.m)
	default:
		a.s = a.s*math.Exp(a.m-x) + 1
		a.m = x
	}
}

func (a *lse) log() float64 {
	if a.s == 0 {
		return math.Inf(-1)
	}
	return a.m + math.Log(a.s)
}

func (lim *limits) add(w int64) error {
	lim.work += w
	if lim.maxWork > 0 && lim.work > lim.maxWork {
		return &NotLiftableError{Reason: "the lifted computation exceeds its work bound (Options.MaxWork)", OutOfReach: true}
	}
	return nil
}

// classTruth is the evidence on relevant slot j of a member of c.
func (ti *typeInfo) classTruth(p *problem, c *class, j int) mln.Truth {
	s := ti.rel[j]
	if k, ok := ti.localIdx[atomKey(s.pred, s.pattern)]; ok {
		return c.sig[k]
	}
	return p.defaultTruth(s.pred)
}

// weights holds, for one outer assignment, the log weight of each cell in
// each class and the log pair factors between cells.
type weights struct {
	lw [][][]float64          // [type][class][cell]
	lr map[[2]int][][]float64 // [t1,t2] (t1 <= t2) -> [cell1][cell2]
	pw *probeW                // the probes' weights (probe.go)
}

// weightsFor computes the cell weights and pair factors under sigma.
func (p *problem) weightsFor(sigma []bool) (*weights, error) {
	w := &weights{lw: make([][][]float64, len(p.types)), lr: map[[2]int][][]float64{}}
	active := make([][]bool, len(p.types))
	for t, ti := range p.types {
		nc := 1 << len(ti.rel)
		w.lw[t] = make([][]float64, len(ti.classes))
		active[t] = make([]bool, nc)
		for ci, c := range ti.classes {
			lw := make([]float64, nc)
			w.lw[t][ci] = lw
			for cell := range nc {
				lw[cell] = math.Inf(-1)
				if c.n == 0 {
					continue
				}
				if !ti.allows(p, c, cell) {
					continue
				}
				v, err := p.cached(sumKey{t, ci, cell, -1, 0}, sigma, func() (float64, error) { return p.cellWeight(sigma, ti, c, cell) })
				if err != nil {
					return nil, err
				}
				lw[cell] = v
				if !math.IsInf(v, -1) || p.probing {
					active[t][cell] = true
				}
			}
		}
	}
	if p.probe != nil {
		if err := p.probeWeights(sigma, w, active); err != nil {
			return nil, err
		}
	}
	for t1, ti := range p.types {
		for t2 := t1; t2 < len(p.types); t2++ {
			tj := p.types[t2]
			n1, n2 := ti.size(), tj.size()
			if n1 == 0 || n2 == 0 || (t1 == t2 && n1 < 2) {
				continue
			}
			r := make([][]float64, len(active[t1]))
			for i := range r {
				r[i] = make([]float64, len(active[t2]))
				if !active[t1][i] {
					continue
				}
				for j := range r[i] {
					if !active[t2][j] || (t1 == t2 && j < i) {
						continue
					}
					v, err := p.cached(sumKey{t1, -1, i, t2, j}, sigma, func() (float64, error) {
						return p.pairFactor(sigma, mln.TypeID(t1), i, mln.TypeID(t2), j)
					})
					if err != nil {
						return nil, err
					}
					r[i][j] = v
				}
			}
			if t1 == t2 {
				for i := range r {
					for j := range i {
						r[i][j] = r[j][i]
					}
				}
			}
			w.lr[[2]int{t1, t2}] = r
		}
	}
	return w, nil
}

// allows reports whether cell agrees with the evidence of class c.
func (ti *typeInfo) allows(p *problem, c *class, cell int) bool {
	for j := range ti.rel {
		switch ti.classTruth(p, c, j) {
		case mln.True:
			if cell>>j&1 == 0 {
				return false
			}
		case mln.False:
			if cell>>j&1 == 1 {
				return false
			}
		}
	}
	return true
}

// size is the number of non-special constants of the type.
func (ti *typeInfo) size() int {
	n := 0
	for _, c := range ti.classes {
		n += c.n
	}
	return n
}

// cellWeight is the log weight of a member of class c in cell: the sum
// over its atoms that do not split cells of the groundings that involve it
// and special constants only.
func (p *problem) cellWeight(sigma []bool, ti *typeInfo, c *class, cell int) (float64, error) {
	return p.cellWeightFix(sigma, ti, c, cell, nil)
}

// cellWeightFix is cellWeight with an atom fixed (nil: none).
func (p *problem) cellWeightFix(sigma []bool, ti *typeInfo, c *class, cell int, fix *fixAtom) (float64, error) {
	l := &local{p: p, sigma: sigma, free: map[akey]int32{}, fix: fix}
	l.ty[0], l.cell[0], l.cls[0] = ti.id, cell, c
	with := func(t mln.TypeID) []mln.ConstID {
		sp := p.types[t].specials
		if t != ti.id {
			return sp
		}
		return append([]mln.ConstID{e1}, sp...)
	}
	if err := l.groundAll(with, func(b []mln.ConstID) bool {
		for _, x := range b {
			if x == e1 {
				return true
			}
		}
		return false
	}); err != nil {
		return 0, err
	}
	// The free atoms: unknown local slots and atoms with special
	// constants, those that split cells excepted.
	total := 0
	for j, s := range ti.local {
		if _, ok := ti.relIdx[atomKey(s.pred, s.pattern)]; !ok && c.sig[j] == mln.Unknown {
			total++
		}
	}
	for _, pr := range p.th.m.Preds {
		if pr.Arity() != 2 || !p.open[pr.ID] {
			continue
		}
		for side := range 2 {
			if pr.Args[side] != ti.id {
				continue
			}
			for _, s := range p.types[pr.Args[1-side]].specials {
				pat := []mln.ConstID{s, s}
				pat[side] = -1
				if _, ok := ti.relIdx[atomKey(pr.ID, pat)]; !ok && (fix == nil || fix.atom != atomKey(pr.ID, pat)) {
					total++
				}
			}
		}
	}
	return l.sum(total)
}

// pairFactor is the log factor of two distinct non-special constants of
// types t1 and t2 in cells c1 and c2: the sum over their pair atoms of the
// groundings that involve both.
func (p *problem) pairFactor(sigma []bool, t1 mln.TypeID, c1 int, t2 mln.TypeID, c2 int) (float64, error) {
	return p.pairFactorFix(sigma, t1, c1, t2, c2, nil)
}

// pairFactorFix is pairFactor with an atom fixed (nil: none).
func (p *problem) pairFactorFix(sigma []bool, t1 mln.TypeID, c1 int, t2 mln.TypeID, c2 int, fix *fixAtom) (float64, error) {
	l := &local{p: p, sigma: sigma, free: map[akey]int32{}, fix: fix}
	l.ty = [2]mln.TypeID{t1, t2}
	l.cell = [2]int{c1, c2}
	with := func(t mln.TypeID) []mln.ConstID {
		var c []mln.ConstID
		if t == t1 {
			c = append(c, e1)
		}
		if t == t2 {
			c = append(c, e2)
		}
		return append(c, p.types[t].specials...)
	}
	if err := l.groundAll(with, func(b []mln.ConstID) bool {
		h1, h2 := false, false
		for _, x := range b {
			h1 = h1 || x == e1
			h2 = h2 || x == e2
		}
		return h1 && h2
	}); err != nil {
		return 0, err
	}
	total := 0
	for _, pr := range p.th.m.Preds {
		if pr.Arity() != 2 || !p.open[pr.ID] {
			continue
		}
		if pr.Args[0] == t1 && pr.Args[1] == t2 {
			total++
		}
		if pr.Args[0] == t2 && pr.Args[1] == t1 {
			total++
		}
	}
	if fix != nil && fix.on {
		total-- // the fixed atom is a pair atom of the two
	}
	return l.sum(total)
}

// specialWeight is the log weight of the groundings over special
// constants alone under sigma.
func (p *problem) specialWeight(sigma []bool) (float64, error) {
	l := &local{p: p, sigma: sigma, free: map[akey]int32{}, special: true}
	if err := l.groundAll(func(t mln.TypeID) []mln.ConstID { return p.types[t].specials }, func([]mln.ConstID) bool { return true }); err != nil {
		return 0, err
	}
	return l.sum(p.nUnknown - len(p.iface) - p.fixed)
}
