// Package lazy runs MaxWalkSAT and MC-SAT lazily (LazySAT and lazy MC-SAT,
// Singla and Domingos 2006; Poon, Domingos and Sumner 2008): every unknown
// atom starts at its default value, false, and the engines ground, from
// the first-order model and the evidence, only the ground clauses whose
// state can change when the atoms they have touched change. The eager
// grounder (package ground) materialises every ground clause the evidence
// leaves undecided; here a clause satisfied by the false default of an
// untouched atom is never built unless that atom is touched.
//
// An atom is expanded when an engine first considers flipping it: the
// clauses containing it whose truth value could change are grounded then.
// The invariant that makes the walk exact: every ground clause not yet
// built is satisfied by evidence or by a negated literal over an
// unexpanded atom (which is false), so its state cannot change before that
// atom is expanded, and its cost is zero. Clauses of negative weight with
// a negated literal over an unknown atom are the exception (they cost when
// satisfied, as they are by default): they are grounded up front.
//
// Memory grows with the expanded atoms; Problem.MaxBytes bounds it.
package lazy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// Problem is a first-order model and its evidence, with the world
// assumptions of ground.Options: the Query and OpenWorld predicates' atoms
// that the evidence does not list are unknown, and every other
// predicate's are false.
type Problem struct {
	Model            *mln.Model
	DB               *mln.Database
	Query, OpenWorld []mln.PredID
	ClosedWorld      []mln.PredID
	// MaxBytes bounds the memory of the clauses and atoms built (as
	// estimated per clause, literal and atom); zero means
	// ground.DefaultMaxBytes, negative no limit.
	MaxBytes int64
}

// ErrTooLarge is wrapped by the error of a run whose clauses and atoms
// grow beyond Problem.MaxBytes.
var ErrTooLarge = errors.New("lazy: memory limit reached")

// Memory estimate per built clause, literal and atom, the engines' state
// and the slack of growing arrays included (fitted to the peak RSS of a
// lazy MaxWalkSAT run on UW-CSE that built 13.7M clauses: results/lazy.md).
const (
	bytesPerClause = 88
	bytesPerLit    = 22
	bytesPerAtom   = 140
	// a query atom in the result network
	bytesPerQueryAtom = 48
)

// grounder grounds clauses around atoms on demand.
type grounder struct {
	m        *mln.Model
	db       *mln.Database
	open     []bool // per predicate: unlisted atoms are unknown
	clauses  []cinfo
	maxBytes int64
	bytes    int64
	ctx      context.Context

	// atoms
	atomKey  map[string]int32
	atomPred []mln.PredID
	atomArgs [][]mln.ConstID
	expanded []bool

	// candidates per predicate: the atoms that may be true (evidence true,
	// or unknown and expanded), indexed by argument value
	cands []*candList

	// built clauses: clause c's literals are litData[litStart[c]:litStart[c+1]]
	litStart []int64
	litData  []ground.Lit
	weight   []float64
	source   []int32
	// the expansion under way: atom x found through literal via of the
	// model clause (via -1 outside expansions)
	x, via    int32
	onNew     func(c int32)
	keyBuf    []byte
	litBuf    []ground.Lit
	checkN    int
	err       error
	HardFalse int
	initing   bool
}

// cinfo is what the grounder knows of a model clause.
type cinfo struct {
	c      *mln.Clause
	skip   bool    // weight 0 everywhere, or no literal can be unknown
	eager  bool    // negative weight with a negated unknown literal: grounded up front
	weight float64 // the clause weight when it has no "+" variables
	plus   bool
}

type candList struct {
	tuples [][]mln.ConstID
	byArg  []map[mln.ConstID][]int32
	have   map[string]bool
}

func (cl *candList) add(args []mln.ConstID) {
	k := mln.BindingKey(args)
	if cl.have[k] {
		return
	}
	cl.have[k] = true
	i := int32(len(cl.tuples))
	cl.tuples = append(cl.tuples, args)
	for j, x := range args {
		cl.byArg[j][x] = append(cl.byArg[j][x], i)
	}
}

func newGrounder(ctx context.Context, pr Problem) (*grounder, error) {
	m := pr.Model
	if m == nil || pr.DB == nil {
		return nil, errors.New("lazy: no model or no evidence")
	}
	g := &grounder{m: m, db: pr.DB, ctx: ctx, maxBytes: pr.MaxBytes, atomKey: map[string]int32{}, via: -1}
	if g.maxBytes == 0 {
		g.maxBytes = ground.DefaultMaxBytes
	}
	g.open = make([]bool, len(m.Preds))
	for _, p := range append(append([]mln.PredID(nil), pr.Query...), pr.OpenWorld...) {
		g.open[p] = true
	}
	for _, p := range pr.ClosedWorld {
		if g.open[p] {
			return nil, fmt.Errorf("lazy: predicate %s is both closed world and open world (or a query predicate)", m.Preds[p].Name)
		}
	}
	for p := range m.Preds {
		// Open world by the model's dialect, unless named closed world.
		if id := mln.PredID(p); !g.open[p] && !slices.Contains(pr.ClosedWorld, id) && m.OpenByDefault(id, pr.DB) {
			g.open[p] = true
		}
	}
	// mayUnknown: open world, or some atom listed as unknown.
	mayUnknown := make([]bool, len(m.Preds))
	for p := range m.Preds {
		mayUnknown[p] = g.open[p]
		if !mayUnknown[p] {
			pr.DB.Atoms(mln.PredID(p), func(_ []mln.ConstID, v mln.Truth) {
				if v == mln.Unknown {
					mayUnknown[p] = true
				}
			})
		}
	}
	// The result lists every unknown query atom.
	for _, p := range pr.Query {
		n := int64(1)
		for _, t := range m.Preds[p].Args {
			n *= int64(len(m.Types[t].Consts))
		}
		g.bytes += bytesPerQueryAtom * n
	}
	if g.maxBytes > 0 && g.bytes > g.maxBytes {
		return nil, fmt.Errorf("%w: the query atoms alone take about %d MiB, above the limit of %d MiB", ErrTooLarge, g.bytes>>20, g.maxBytes>>20)
	}
	g.cands = make([]*candList, len(m.Preds))
	for p, pd := range m.Preds {
		cl := &candList{byArg: make([]map[mln.ConstID][]int32, pd.Arity()), have: map[string]bool{}}
		for j := range cl.byArg {
			cl.byArg[j] = map[mln.ConstID][]int32{}
		}
		pr.DB.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
			if v == mln.True {
				cl.add(append([]mln.ConstID(nil), args...))
			}
		})
		g.cands[p] = cl
	}
	g.clauses = make([]cinfo, len(m.Clauses))
	for ci, c := range m.Clauses {
		if len(c.Exist) > 0 {
			var err error
			if c, err = expandExist(m, c); err != nil {
				return nil, fmt.Errorf("lazy: %s: %v", clauseText(m, ci), err)
			}
		}
		info := cinfo{c: c, plus: len(c.Plus) > 0}
		unknown, negUnknown := false, false
		for _, l := range c.Lits {
			if l.Pred >= 0 && mayUnknown[l.Pred] {
				unknown = true
				negUnknown = negUnknown || l.Neg
			}
		}
		neg, nonzero := false, false
		if c.Hard {
			nonzero = true
			info.weight = math.Inf(1)
		} else if info.plus {
			for p, f := range m.ParamFormula {
				w := m.Weights[p] * c.Coef
				if f == c.Formula && w != 0 {
					nonzero = true
					neg = neg || w < 0
				}
			}
			if w := m.Formulas[c.Formula].Weight * c.Coef; w != 0 {
				nonzero = true // bindings not seen yet take the formula's weight
				neg = neg || w < 0
			}
		} else {
			info.weight = m.Weights[m.Param(c.Formula, nil)] * c.Coef
			nonzero = info.weight != 0
			neg = info.weight < 0
		}
		info.skip = !unknown || !nonzero
		info.eager = neg && negUnknown
		g.clauses[ci] = info
	}
	return g, nil
}

func clauseText(m *mln.Model, ci int) string {
	c := m.Clauses[ci]
	return fmt.Sprintf("the clause %v of formula %d (%s)", ci, c.Formula+1, m.Formulas[c.Formula].Pos)
}

// truth returns the evidence value of an atom: True, False or Unknown.
func (g *grounder) truth(p mln.PredID, args []mln.ConstID) mln.Truth {
	v, listed := g.db.Get(p, args)
	if listed {
		return v
	}
	if g.open[p] {
		return mln.Unknown
	}
	return mln.False
}

func (g *grounder) key(p mln.PredID, args []mln.ConstID) string {
	b := g.keyBuf[:0]
	for _, x := range append([]mln.ConstID{mln.ConstID(p)}, args...) {
		b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
	}
	g.keyBuf = b
	return string(b)
}

// lookup returns the ID of an unknown atom, or -1 when it has none yet.
func (g *grounder) lookup(p mln.PredID, args []mln.ConstID) int32 {
	if id, ok := g.atomKey[g.key(p, args)]; ok {
		return id
	}
	return -1
}

// atom returns the ID of an unknown atom, creating it.
func (g *grounder) atom(p mln.PredID, args []mln.ConstID) int32 {
	k := g.key(p, args)
	if id, ok := g.atomKey[k]; ok {
		return id
	}
	id := int32(len(g.atomPred))
	g.atomKey[k] = id
	g.atomPred = append(g.atomPred, p)
	g.atomArgs = append(g.atomArgs, append([]mln.ConstID(nil), args...))
	g.expanded = append(g.expanded, false)
	g.bytes += bytesPerAtom + 4*int64(len(args))
	return id
}

// NumAtoms returns the number of atoms known so far.
func (g *grounder) numAtoms() int { return len(g.atomPred) }

// init grounds the clauses that cost with every unknown atom false: those
// of positive weight of which every literal over an unknown atom is
// positive, and every eager clause.
func (g *grounder) init() error {
	g.initing = true
	defer func() { g.initing = false }()
	for ci := range g.clauses {
		if g.clauses[ci].skip {
			continue
		}
		c := g.clauses[ci].c
		bind := make([]mln.ConstID, len(c.Vars))
		for i := range bind {
			bind[i] = -1
		}
		g.search(ci, bind)
		if g.err != nil {
			return g.err
		}
	}
	return nil
}

// expand grounds the clauses containing atom a whose state can change now
// that a may be true.
func (g *grounder) expand(a int32) error {
	if g.expanded[a] {
		return nil
	}
	g.expanded[a] = true
	p, args := g.atomPred[a], g.atomArgs[a]
	g.cands[p].add(args)
	for ci := range g.clauses {
		info := &g.clauses[ci]
		if info.skip || info.eager {
			continue
		}
		c := info.c
		for i, l := range c.Lits {
			if l.Pred != p {
				continue
			}
			bind := make([]mln.ConstID, len(c.Vars))
			for i := range bind {
				bind[i] = -1
			}
			set := make([]int, len(c.Vars))
			if _, ok := mln.BindArgs(l.Args, args, bind, set); ok {
				g.x, g.via = a, int32(i)
				g.search(ci, bind)
				g.via = -1
				if g.err != nil {
					return g.err
				}
			}
		}
	}
	return nil
}

// status of a fully bound literal
const (
	litSat  = iota // the literal is true: the grounding is satisfied
	litDrop        // the literal is false by evidence
	litKeep        // over an unknown atom
)

func (g *grounder) litStatus(info *cinfo, l *mln.Literal, args []mln.ConstID) int {
	if l.Pred < 0 {
		if g.m.EvalLiteral(l.Builtin, args) != l.Neg {
			return litSat
		}
		return litDrop
	}
	switch g.truth(l.Pred, args) {
	case mln.True:
		if l.Neg {
			return litDrop
		}
		return litSat
	case mln.False:
		if l.Neg {
			return litSat
		}
		return litDrop
	}
	if l.Neg && !info.eager {
		if a := g.lookup(l.Pred, args); a < 0 || !g.expanded[a] {
			return litSat // false by default
		}
	}
	return litKeep
}

func bound(l *mln.Literal, bind []mln.ConstID, out []mln.ConstID) ([]mln.ConstID, bool) {
	out = out[:0]
	for _, t := range l.Args {
		if t.IsVar() {
			v := bind[t.Var()]
			if v < 0 {
				return out, false
			}
			out = append(out, v)
		} else {
			out = append(out, t.Const())
		}
	}
	return out, true
}

// search enumerates the groundings of clause ci extending bind whose state
// can change, and builds those not built yet.
func (g *grounder) search(ci int, bind []mln.ConstID) {
	if g.err != nil {
		return
	}
	g.checkN++
	if g.checkN&1023 == 0 {
		if err := g.ctx.Err(); err != nil {
			g.err = err
			return
		}
	}
	info := &g.clauses[ci]
	c := info.c
	gen := -1
	var args [8]mln.ConstID
	for i := range c.Lits {
		l := &c.Lits[i]
		a, ok := bound(l, bind, args[:0])
		if !ok {
			if gen < 0 && l.Pred >= 0 && l.Neg && !info.eager {
				gen = i
			}
			continue
		}
		if g.litStatus(info, l, a) == litSat {
			return
		}
	}
	if gen >= 0 {
		// Only atoms that may be true make a negated literal false.
		l := &c.Lits[gen]
		cl := g.cands[l.Pred]
		idx := []int32(nil)
		all := true
		for j, t := range l.Args {
			var x mln.ConstID = -1
			if t.IsVar() {
				x = bind[t.Var()]
			} else {
				x = t.Const()
			}
			if x >= 0 {
				idx, all = cl.byArg[j][x], false
				break
			}
		}
		n := len(idx)
		if all {
			n = len(cl.tuples)
		}
		set := make([]int, len(c.Vars))
		for k := 0; k < n; k++ {
			ti := int32(k)
			if !all {
				ti = idx[k]
			}
			nb, ok := mln.BindArgs(l.Args, cl.tuples[ti], bind, set)
			if ok && g.typed(c, set[:nb], bind) {
				g.search(ci, bind)
			}
			for _, v := range set[:nb] {
				bind[v] = -1
			}
			if g.err != nil {
				return
			}
		}
		return
	}
	// Enumerate a variable of a literal closest to being bound, so that
	// literals are checked as early as possible.
	v, best := -1, 0
	for i := range c.Lits {
		n, first := 0, -1
		for _, t := range c.Lits[i].Args {
			if t.IsVar() && bind[t.Var()] < 0 {
				n++
				if first < 0 {
					first = t.Var()
				}
			}
		}
		if n > 0 && (v < 0 || n < best) {
			v, best = first, n
		}
	}
	if v < 0 {
		for u := range bind {
			if bind[u] < 0 {
				v = u
				break
			}
		}
	}
	if v >= 0 {
		for _, x := range g.m.Types[c.Vars[v].Type].Consts {
			bind[v] = x
			g.search(ci, bind)
			if g.err != nil {
				break
			}
		}
		bind[v] = -1
		return
	}
	g.build(ci, bind)
}

// typed reports whether the variables just bound take constants of their
// types.
func (g *grounder) typed(c *mln.Clause, vs []int, bind []mln.ConstID) bool {
	for _, v := range vs {
		if !g.m.Types[c.Vars[v].Type].Has(bind[v]) {
			return false
		}
	}
	return true
}

// lits returns the literals of built clause c.
func (g *grounder) lits(c int32) []ground.Lit { return g.litData[g.litStart[c]:g.litStart[c+1]] }

// numClauses returns the number of clauses built.
func (g *grounder) numClauses() int { return len(g.weight) }

// newAt reports whether grounding bind (of weight w) of a clause found
// while expanding atom x through literal via is built now rather than
// before. Each grounding is built once, when its state first can change:
// one of positive weight (or hard) when the last of the atoms of its
// negated unknown literals is expanded (at the start when it has none), so
// now only if x's literal is negated; one of negative weight (without
// negated unknown literals) when the first of its atoms is expanded, so
// now only if no other is expanded. A grounding that meets x through
// several literals is built through the first.
func (g *grounder) newAt(info *cinfo, bind []mln.ConstID, w float64) bool {
	c := info.c
	xp, xargs := g.atomPred[g.x], g.atomArgs[g.x]
	var args [8]mln.ConstID
	for j := int32(0); j < g.via; j++ {
		l := &c.Lits[j]
		if l.Pred != xp {
			continue
		}
		if a, _ := bound(l, bind, args[:0]); slices.Equal(a, xargs) {
			return false
		}
	}
	if w > 0 {
		return c.Lits[g.via].Neg
	}
	for i := range c.Lits {
		l := &c.Lits[i]
		if l.Pred < 0 {
			continue
		}
		a, _ := bound(l, bind, args[:0])
		if id := g.lookup(l.Pred, a); id >= 0 && id != g.x && g.expanded[id] {
			return false
		}
	}
	return true
}

// build adds the grounding bind of clause ci.
func (g *grounder) build(ci int, bind []mln.ConstID) {
	info := &g.clauses[ci]
	c := info.c
	w := info.weight
	if info.plus && !c.Hard {
		pb := make([]mln.ConstID, len(c.Plus))
		for i, v := range c.Plus {
			pb[i] = bind[v]
		}
		w = g.m.Weights[g.m.Param(c.Formula, pb)] * c.Coef
	}
	if w == 0 || (g.initing && w < 0 && !info.eager) {
		// A negative-weight grounding without negated unknown literals is
		// false by default, where it costs nothing: it is built when one
		// of its atoms is expanded.
		return
	}
	var args [8]mln.ConstID
	if g.via >= 0 && !g.newAt(info, bind, w) {
		return
	}
	lits := g.litBuf[:0]
	for i := range c.Lits {
		l := &c.Lits[i]
		a, _ := bound(l, bind, args[:0])
		switch g.litStatus(info, l, a) {
		case litSat:
			return
		case litDrop:
			continue
		}
		lit := ground.MakeLit(g.atom(l.Pred, a), l.Neg)
		dup := false
		for _, o := range lits {
			if o == lit {
				dup = true
			} else if o == lit.Not() {
				return // a tautology
			}
		}
		if !dup {
			lits = append(lits, lit)
		}
	}
	g.litBuf = lits
	if len(lits) == 0 {
		if c.Hard {
			g.HardFalse++
		}
		return
	}
	id := int32(len(g.weight))
	if len(g.litStart) == 0 {
		g.litStart = append(g.litStart, 0)
	}
	g.litData = append(g.litData, lits...)
	g.litStart = append(g.litStart, int64(len(g.litData)))
	g.weight = append(g.weight, w)
	g.source = append(g.source, int32(ci))
	g.bytes += bytesPerClause + bytesPerLit*int64(len(lits))
	if g.maxBytes > 0 && g.bytes > g.maxBytes {
		g.err = fmt.Errorf("%w: the clauses and atoms built take about %d MiB (%d clauses, %d atoms), above the limit of %d MiB",
			ErrTooLarge, g.bytes>>20, len(g.weight), len(g.atomPred), g.maxBytes>>20)
		return
	}
	if g.onNew != nil {
		g.onNew(id)
	}
}

// eachAtom calls fn with every tuple of predicate p's domains.
func (g *grounder) eachAtom(p mln.PredID, fn func(args []mln.ConstID)) {
	pd := g.m.Preds[p]
	args := make([]mln.ConstID, pd.Arity())
	var rec func(j int)
	rec = func(j int) {
		if j == len(args) {
			fn(args)
			return
		}
		for _, x := range g.m.Types[pd.Args[j]].Consts {
			args[j] = x
			rec(j + 1)
		}
	}
	rec(0)
}

// maxExistLits bounds the literals of a clause after its existential
// variables are expanded.
const maxExistLits = 1 << 16

// expandExist returns c with its existentially quantified variables
// expanded: each literal mentioning them is repeated for every value they
// take (the ground clause is the disjunction over those values), and the
// remaining variables renumbered.
func expandExist(m *mln.Model, c *mln.Clause) (*mln.Clause, error) {
	isExist := make([]bool, len(c.Vars))
	for _, v := range c.Exist {
		isExist[v] = true
	}
	renum := make([]int, len(c.Vars))
	out := &mln.Clause{Formula: c.Formula, Coef: c.Coef, Hard: c.Hard}
	for v, x := range c.Vars {
		if isExist[v] {
			renum[v] = -1
			continue
		}
		renum[v] = len(out.Vars)
		out.Vars = append(out.Vars, x)
	}
	for _, v := range c.Plus {
		out.Plus = append(out.Plus, renum[v])
	}
	bind := make([]mln.ConstID, len(c.Vars))
	for _, l := range c.Lits {
		var ex []int
		for _, t := range l.Args {
			if t.IsVar() && isExist[t.Var()] && !slicesContains(ex, t.Var()) {
				ex = append(ex, t.Var())
			}
		}
		var rec func(i int) error
		rec = func(i int) error {
			if i == len(ex) {
				nl := mln.Literal{Pred: l.Pred, Builtin: l.Builtin, Neg: l.Neg, Args: make([]mln.Term, len(l.Args))}
				for j, t := range l.Args {
					switch {
					case !t.IsVar():
						nl.Args[j] = t
					case isExist[t.Var()]:
						nl.Args[j] = mln.ConstTerm(bind[t.Var()])
					default:
						nl.Args[j] = mln.VarTerm(renum[t.Var()])
					}
				}
				if len(out.Lits) >= maxExistLits {
					return fmt.Errorf("its existential quantifier expands to more than %d literals", maxExistLits)
				}
				out.Lits = append(out.Lits, nl)
				return nil
			}
			for _, x := range m.Types[c.Vars[ex[i]].Type].Consts {
				bind[ex[i]] = x
				if err := rec(i + 1); err != nil {
					return err
				}
			}
			return nil
		}
		if err := rec(0); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func slicesContains(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}
