package query

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/marple-mln/marple/mln"
)

// This file rebuilds the order of Alchemy 2.0's ground factor graph
// (FactorGraph::createGround and createGroundNetwork, eager inference),
// which decides the order in which Alchemy's infer -bp lists the atoms of a
// predicate and -outputNetwork its variables and factors. Alchemy takes its
// first-order clauses in turn; each clause is grounded in the order of its
// evidence indexes (the true atoms of an evidence predicate in the
// iteration order of a GNU hash_set keyed by the atom's index) and then of
// its variables' constants; each grounding that the evidence does not
// satisfy is filed, in a GNU hash_map, under the clause of its unknown
// literals (hashed by Alchemy's integer representation of that clause);
// the map's entries, in its bucket order, give the factors, each entry's
// groundings in the order they came (once each); a variable (an atom)
// enters the graph at its first factor.

// AlchemyFactor is one factor of Alchemy's ground factor graph: the atoms
// of a ground clause in Alchemy's order of its literals.
type AlchemyFactor struct {
	Preds []mln.PredID
	Args  [][]mln.ConstID
	Neg   []bool
	// Count is the number of groundings of the clause that Alchemy files
	// under this factor (it keeps each ground clause of a first-order
	// clause once, with this count).
	Count int
	// Formula is the index of the formula (Model.Formulas) whose clause
	// it grounds.
	Formula int
}

// AlchemyFactorGraph returns the factors of the factor graph Alchemy 2.0's
// infer builds for BP (-bp, -outputNetwork) from model m and evidence db,
// in Alchemy's order; closed reports whether a predicate is closed world
// (AlchemyClosedWorld gives Alchemy's infer's). It returns an error for a
// model outside what
// the reconstruction covers (internal functions, comparisons other than =
// and !=, existential quantifiers over more than a few thousand
// groundings, "+" formulas); the caller then keeps its own order.
func AlchemyFactorGraph(m *mln.Model, db *mln.Database, closed func(mln.PredID) bool) ([]AlchemyFactor, error) {
	g := &alchemyGrounder{m: m, db: db, closed: closed}
	g.predIDs()
	g.constIDs()
	clauses, err := g.mlnClauses()
	if err != nil {
		return nil, err
	}
	g.indexes()
	groups := newSGIHashtable()
	for _, c := range clauses {
		groups.clear()
		g.groups = groups
		g.byKey = map[string]*alchemyGroup{}
		g.ground(c)
		for _, id := range groups.order() {
			grp := g.groupList[id]
			for ti, tup := range grp.tuples {
				f := AlchemyFactor{Formula: c.src, Count: grp.counts[ti]}
				for _, l := range grp.key.lits {
					args := make([]mln.ConstID, len(l.terms))
					for i, t := range l.terms {
						args[i] = mln.ConstID(tup[-t])
					}
					f.Preds = append(f.Preds, l.mpred)
					f.Args = append(f.Args, args)
					f.Neg = append(f.Neg, !l.sense)
				}
				g.out = append(g.out, f)
			}
		}
		g.groupList = g.groupList[:0]
	}
	return g.out, nil
}

// alchemyLit is a literal in Alchemy's representation: its predicate id
// in Alchemy's domain, its sense (true: positive) and its terms, negative
// for variables (-1, -2, ...), non-negative constants.
type alchemyLit struct {
	pred    int
	mpred   mln.PredID // -1: a comparison
	builtin mln.Builtin
	sense   bool
	terms   []int
	types   []mln.TypeID // the type of each argument
}

type alchemyClause struct {
	lits []alchemyLit
	src  int // index in Model.Formulas
}

type alchemyGroup struct {
	key    alchemyClause // canonical clause of the unknown literals
	canon  []int         // variable id (of the clause grounded) -> canonical id (-1: not in key)
	tuples [][]int       // canonical constants, index 0 unused
	counts []int         // the groundings of each tuple
	seen   map[string]int
}

type alchemyGrounder struct {
	m      *mln.Model
	db     *mln.Database
	closed func(mln.PredID) bool

	pid    []int // Alchemy's predicate id of each Marple predicate
	cid    []int // Alchemy's constant id of each Marple constant
	eqPred []int // Alchemy's id of the equality predicate of each type

	trueOrder [][][]mln.ConstID // per predicate: its true atoms in Alchemy's hash_set order (closed-world predicates)

	groups    *sgiHashtable
	byKey     map[string]*alchemyGroup
	groupList []*alchemyGroup
	out       []AlchemyFactor
}

// predIDs numbers the predicates as Alchemy's domain does: each new type
// first adds its equality predicate, then the predicate that uses it.
func (g *alchemyGrounder) predIDs() {
	m := g.m
	g.eqPred = make([]int, len(m.Types))
	for i := range g.eqPred {
		g.eqPred[i] = -1
	}
	next := 0
	addType := func(t mln.TypeID) {
		if g.eqPred[t] < 0 {
			g.eqPred[t] = next
			next++
		}
	}
	g.pid = make([]int, len(m.Preds))
	for _, p := range m.Preds {
		for _, t := range m.Types {
			if g.eqPred[t.ID] < 0 && posBefore(t.Pos.Line, t.Pos.Col, p.Pos.Line, p.Pos.Col) && t.Pos.File == p.Pos.File {
				addType(t.ID)
			}
		}
		for _, t := range p.Args {
			addType(t)
		}
		g.pid[p.ID] = next
		next++
	}
	for _, t := range m.Types {
		addType(t.ID)
	}
}

// constIDs numbers the constants as Alchemy's domain does: type by type,
// in the order of the types, each type's constants in their order.
func (g *alchemyGrounder) constIDs() {
	g.cid = make([]int, g.m.NumConsts())
	for i := range g.cid {
		g.cid[i] = -1
	}
	types := slices.Clone(g.m.Types)
	slices.SortStableFunc(types, func(a, b *mln.Type) int { return g.eqPred[a.ID] - g.eqPred[b.ID] })
	next := 0
	for _, t := range types {
		for _, c := range t.Consts {
			if g.cid[c] < 0 {
				g.cid[c] = next
				next++
			}
		}
	}
	for i := range g.cid {
		if g.cid[i] < 0 {
			g.cid[i] = next
			next++
		}
	}
}

// AlchemyConstIDs returns the number Alchemy 2.0's domain gives each
// constant of m (indexed by mln.ConstID): the constants of the first
// type first, each type's in their order of appearance, a constant of
// several types at its first.
func AlchemyConstIDs(m *mln.Model) []int {
	g := &alchemyGrounder{m: m}
	g.predIDs()
	g.constIDs()
	return g.cid
}

func posBefore(l1, c1, l2, c2 int) bool { return l1 < l2 || l1 == l2 && c1 < c2 }

// mlnClauses returns Alchemy's clauses of the model: each formula's CNF
// clauses in turn, existential variables expanded over their constants,
// canonicalised, each clause once (the first), the clauses of closed-world
// predicates only removed as Alchemy removes them (the last clause takes
// the place of a removed one).
func (g *alchemyGrounder) mlnClauses() ([]alchemyClause, error) {
	var out []alchemyClause
	seen := map[string]bool{}
	for fi, f := range g.m.Formulas {
		if f.Synthetic {
			continue // a "!" argument: a block of Alchemy's database, no clause
		}
		if len(f.PlusVars) > 0 {
			return nil, fmt.Errorf("a formula with \"+\" variables")
		}
		if f.AST == nil {
			return nil, fmt.Errorf("a formula without a syntax tree")
		}
		cnf, err := g.alchemyCNF(f)
		if err != nil {
			return nil, err
		}
		for _, lits := range cnf {
			ac := alchemyClause{lits: lits, src: fi}
			canonicalize(&ac, nil, g.cid)
			k := clauseKey(ac.lits)
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, ac)
		}
	}
	// removeTrivialClauses: a clause of closed-world predicates only is
	// removed, the last clause taking its place.
	var trivial []string
	for _, c := range out {
		open := false
		for _, l := range c.lits {
			if l.mpred >= 0 && !g.closed(l.mpred) {
				open = true
			}
		}
		if !open {
			trivial = append(trivial, clauseKey(c.lits))
		}
	}
	for _, k := range trivial {
		i := slices.IndexFunc(out, func(c alchemyClause) bool { return clauseKey(c.lits) == k })
		out[i] = out[len(out)-1]
		out = out[:len(out)-1]
	}
	return out, nil
}

func litKey(l alchemyLit) string {
	var b strings.Builder
	if l.sense {
		b.WriteString("+")
	}
	b.WriteString(strconv.Itoa(l.pred))
	for _, t := range l.terms {
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(t))
	}
	return b.String()
}

func clauseKey(lits []alchemyLit) string {
	var b strings.Builder
	for _, l := range lits {
		b.WriteString(litKey(l))
		b.WriteByte(' ')
	}
	return b.String()
}

// intArrRep is Alchemy's Clause::getIntArrRep: per literal its sense, its
// predicate id and its terms.
func intArrRep(lits []alchemyLit) []int32 {
	var rep []int32
	for _, l := range lits {
		if l.sense {
			rep = append(rep, 1)
		} else {
			rep = append(rep, 0)
		}
		rep = append(rep, int32(l.pred))
		for _, t := range l.terms {
			rep = append(rep, int32(t))
		}
	}
	return rep
}

// alchemyHash is Alchemy's Hash::hash of an integer array (a Java-style
// hash in a 32-bit int), as a size_t: sign-extended.
func alchemyHash(rep []int32) uint64 {
	h := int32(1)
	for _, x := range rep {
		h = 31*h + x
	}
	return uint64(int64(h))
}

// canonicalize is Alchemy's Clause::canonicalize: the literals sorted by
// predicate id, sense (positive first) and terms (Alchemy's quicksort),
// then the variables renamed -1, -2, ... in order of appearance, then the
// literals of one predicate and sense sorted by their terms again. With
// oldToNew, it records each old variable's new number (positive). cid
// gives Alchemy's number of each constant.
func canonicalize(c *alchemyClause, oldToNew map[int]int, cid []int) {
	lits := c.lits
	id := func(t int) int {
		if t < 0 || cid == nil {
			return t
		}
		return cid[t]
	}
	count := map[int]int{}
	for _, l := range lits {
		for _, t := range l.terms {
			if t < 0 {
				count[t]++
			}
		}
	}
	cmp1 := func(l, r *alchemyLit) int {
		if l.pred < r.pred {
			return -1
		}
		if l.pred > r.pred {
			return 1
		}
		if l.sense && !r.sense {
			return -1
		}
		if !l.sense && r.sense {
			return 1
		}
		for i := range l.terms {
			lid, rid := id(l.terms[i]), id(r.terms[i])
			if lid < 0 && rid < 0 {
				lb, rb := count[lid] > 1, count[rid] > 1
				if lb && !rb {
					return -1
				}
				if !lb && rb {
					return 1
				}
			}
			if lid > rid {
				return -1
			}
			if lid < rid {
				return 1
			}
		}
		return 0
	}
	alchemySort(lits, 0, len(lits)-1, cmp1)
	var order []int
	for _, l := range lits {
		for _, t := range l.terms {
			if t < 0 && !slices.Contains(order, t) {
				order = append(order, t)
			}
		}
	}
	ren := map[int]int{}
	for i, v := range order {
		ren[v] = -1 - i
		if oldToNew != nil {
			oldToNew[-v] = i + 1
		}
	}
	for i := range lits {
		terms := slices.Clone(lits[i].terms)
		for j, t := range terms {
			if t < 0 {
				terms[j] = ren[t]
			}
		}
		lits[i].terms = terms
	}
	cmp2 := func(l, r *alchemyLit) int {
		for i := range l.terms {
			lt, rt := id(l.terms[i]), id(r.terms[i])
			lv, rv := lt < 0, rt < 0
			switch {
			case lv && rv:
				if lt > rt {
					return -1
				}
				if lt < rt {
					return 1
				}
			case !lv && !rv:
				if lt < rt {
					return -1
				}
				if lt > rt {
					return 1
				}
			case lv:
				return -1
			default:
				return 1
			}
		}
		return 0
	}
	for i, j := 0, 0; i < len(lits); i = j {
		j = i + 1
		for j < len(lits) && lits[j].pred == lits[i].pred && lits[j].sense == lits[i].sense {
			j++
		}
		if i < j-1 {
			alchemySort(lits, i, j-1, cmp2)
		}
	}
}

// alchemySort is the quicksort of Alchemy's clause.h (middle element as
// the pivot, Lomuto partition): its order of equal elements is Alchemy's.
func alchemySort[T any](a []T, l, r int, cmp func(x, y *T) int) {
	if l >= r {
		return
	}
	a[l], a[(l+r)/2] = a[(l+r)/2], a[l]
	last := l
	for i := l + 1; i <= r; i++ {
		if cmp(&a[i], &a[l]) < 0 {
			last++
			a[last], a[i] = a[i], a[last]
		}
	}
	a[l], a[last] = a[last], a[l]
	alchemySort(a, l, last-1, cmp)
	alchemySort(a, last+1, r, cmp)
}

// atomIndex is Alchemy's Database::getIdxOfGndPredValues: the atom's
// position among its predicate's groundings, the first argument slowest.
func (g *alchemyGrounder) atomIndex(p mln.PredID, args []mln.ConstID) uint64 {
	types := g.m.Preds[p].Args
	var idx, mult uint64 = 0, 1
	for i := len(args) - 1; i >= 0; i-- {
		t := g.m.Types[types[i]]
		pos, _ := t.Index(args[i])
		idx += mult * uint64(pos)
		mult *= uint64(t.Size())
	}
	return idx
}

// indexes lists the true atoms of each closed-world predicate in the
// iteration order of Alchemy's truePredIdxSet_ (a hash_set of the atoms'
// indexes, filled in the order the evidence lists them).
func (g *alchemyGrounder) indexes() {
	g.trueOrder = make([][][]mln.ConstID, len(g.m.Preds))
	for _, p := range g.m.Preds {
		if !g.closed(p.ID) {
			continue
		}
		h := newSGIHashtable()
		var atoms [][]mln.ConstID
		byIdx := map[uint64]int{}
		g.db.Atoms(p.ID, func(args []mln.ConstID, v mln.Truth) {
			if v != mln.True {
				return
			}
			idx := g.atomIndex(p.ID, args)
			if _, ok := byIdx[idx]; ok {
				return
			}
			byIdx[idx] = len(atoms)
			atoms = append(atoms, slices.Clone(args))
			h.insert(idx, len(atoms)-1)
		})
		for _, i := range h.order() {
			g.trueOrder[p.ID] = append(g.trueOrder[p.ID], atoms[i])
		}
	}
}

// value returns the truth of a ground literal's atom under the evidence.
func (g *alchemyGrounder) value(l *alchemyLit, args []mln.ConstID) mln.Truth {
	if l.mpred < 0 {
		if args[0] == args[1] {
			return mln.True
		}
		return mln.False
	}
	v, ok := g.db.Get(l.mpred, args)
	if !ok {
		if g.closed(l.mpred) {
			return mln.False
		}
		return mln.Unknown
	}
	return v
}

// litTrue reports whether the ground literal holds under the evidence.
func (g *alchemyGrounder) litTrue(l *alchemyLit, args []mln.ConstID) bool {
	v := g.value(l, args)
	return v == mln.True && l.sense || v == mln.False && !l.sense
}

func groundArgs(l *alchemyLit, b []int) ([]mln.ConstID, bool) {
	args := make([]mln.ConstID, len(l.terms))
	for i, t := range l.terms {
		if t < 0 {
			if b[-t] < 0 {
				return nil, false
			}
			args[i] = mln.ConstID(b[-t])
		} else {
			args[i] = mln.ConstID(t)
		}
	}
	return args, true
}

// ground grounds Alchemy's clause c as Clause::getConstantTuples does.
func (g *alchemyGrounder) ground(c alchemyClause) {
	// The clause with all its variables (Clause::updateToVarClause): each
	// constant occurrence becomes a new variable, numbered on.
	nvars := 0
	for _, l := range c.lits {
		for _, t := range l.terms {
			if t < 0 {
				nvars = max(nvars, -t)
			}
		}
	}
	base := make([]int, nvars+1) // the constants array: -1 for a variable not yet bound
	for i := range base {
		base[i] = -1
	}
	varLits := make([]alchemyLit, len(c.lits))
	for i, l := range c.lits {
		vl := l
		vl.terms = slices.Clone(l.terms)
		for j, t := range vl.terms {
			if t >= 0 {
				base = append(base, t)
				vl.terms[j] = -(len(base) - 1)
			}
		}
		varLits[i] = vl
	}
	varTypes := make([]mln.TypeID, nvars+1)
	for _, l := range c.lits {
		for j, t := range l.terms {
			if t < 0 {
				varTypes[-t] = l.types[j]
			}
		}
	}

	// Literals sorted as Clause::sortLiteralsByNegationAndArity: the
	// evidence literals first, the negative ones first.
	type keyed struct {
		key float64
		i   int
	}
	arr := make([]keyed, len(c.lits))
	for i, l := range c.lits {
		n := float64(len(l.terms))
		k := -n
		if l.mpred >= 0 && g.closed(l.mpred) {
			if l.sense {
				k = 5 + 1/n
			} else {
				k = 7 + 1/n
			}
		}
		arr[i] = keyed{k, i}
	}
	alchemySort(arr, 0, len(arr)-1, func(x, y *keyed) int {
		if x.key > y.key {
			return -1
		}
		return 0
	})
	order := make([]int, len(arr))
	for i, k := range arr {
		order[i] = k.i
	}

	// The evidence literals branch on their index (groundIndexableLiterals).
	b0 := make([]int, nvars+1)
	for i := range b0 {
		b0[i] = -1
	}
	partial := [][]int{b0}
	for _, li := range order {
		l := &c.lits[li]
		if l.mpred < 0 || !g.closed(l.mpred) {
			break
		}
		var next [][]int
		for _, b := range partial {
			for _, gnd := range g.indexed(l, b) {
				nb := slices.Clone(b)
				for j, t := range l.terms {
					if t < 0 && b[-t] < 0 {
						nb[-t] = int(gnd[j])
					}
				}
				next = append(next, nb)
			}
		}
		partial = next
	}

	consts := slices.Clone(base)
	var rec func(k int, b []int)
	rec = func(k int, b []int) {
		if k == len(order) {
			for v := 1; v <= nvars; v++ {
				consts[v] = b[v]
			}
			g.addTuple(c, varLits, consts)
			return
		}
		l := &c.lits[order[k]]
		var vars []int
		for _, t := range l.terms {
			if t < 0 && b[-t] < 0 && !slices.Contains(vars, -t) {
				vars = append(vars, -t)
			}
		}
		// Check the literals this one grounds (itself and the later
		// ones): a true one satisfies the clause.
		check := func() bool {
			for _, li := range order[k:] {
				ll := &c.lits[li]
				args, ok := groundArgs(ll, b)
				if ok && g.litTrue(ll, args) {
					return false
				}
			}
			return true
		}
		if len(vars) == 0 {
			if check() {
				rec(k+1, b)
			}
			return
		}
		var comb func(j int)
		comb = func(j int) {
			if j == len(vars) {
				if check() {
					rec(k+1, b)
				}
				return
			}
			for _, cst := range g.m.Types[varTypes[vars[j]]].Consts {
				b[vars[j]] = int(cst)
				comb(j + 1)
			}
			b[vars[j]] = -1
		}
		comb(0)
	}
	for _, b := range partial {
		rec(0, slices.Clone(b))
	}
}

// indexed returns the groundings of evidence literal l under binding b
// that make it false, in the order of Alchemy's Database::getIndexedGndings.
func (g *alchemyGrounder) indexed(l *alchemyLit, b []int) [][]mln.ConstID {
	wantTrue := !l.sense
	if args, ok := groundArgs(l, b); ok {
		if v := g.value(l, args); wantTrue && v == mln.True || !wantTrue && v == mln.False {
			return [][]mln.ConstID{args}
		}
		return nil
	}
	hasConst := false
	for _, t := range l.terms {
		if t >= 0 || b[-t] >= 0 {
			hasConst = true
		}
	}
	fits := func(args []mln.ConstID) bool { // Predicate::canBeGroundedAs
		seen := map[int]mln.ConstID{}
		for i, t := range l.terms {
			if t >= 0 {
				if args[i] != mln.ConstID(t) {
					return false
				}
				continue
			}
			if b[-t] >= 0 {
				if args[i] != mln.ConstID(b[-t]) {
					return false
				}
				continue
			}
			if c, ok := seen[t]; ok && c != args[i] {
				return false
			}
			seen[t] = args[i]
		}
		return true
	}
	var out [][]mln.ConstID
	if wantTrue {
		if !hasConst {
			for _, args := range g.trueOrder[l.mpred] {
				if fits(args) {
					out = append(out, args)
				}
			}
			return out
		}
		// The intersection of the per-constant index sets, in increasing
		// index order (a std::set).
		type ia struct {
			idx  uint64
			args []mln.ConstID
		}
		var found []ia
		for _, args := range g.trueOrder[l.mpred] {
			if fits(args) {
				found = append(found, ia{g.atomIndex(l.mpred, args), args})
			}
		}
		slices.SortFunc(found, func(x, y ia) int {
			if x.idx < y.idx {
				return -1
			}
			if x.idx > y.idx {
				return 1
			}
			return 0
		})
		for _, f := range found {
			out = append(out, f.args)
		}
		return out
	}
	// The false groundings of a closed-world predicate that fit the
	// literal, in index order: without constants Alchemy generates every
	// grounding and leaves out the true ones; with constants it reads
	// them from its index of false groundings (a std::set), which holds
	// the false groundings of the literals of the predicate that occur
	// positively beside a non-evidence predicate, as this one does.
	types := g.m.Preds[l.mpred].Args
	args := make([]mln.ConstID, len(types))
	var rec func(i int)
	rec = func(i int) {
		if i == len(types) {
			if v, ok := g.db.Get(l.mpred, args); (!ok || v == mln.False) && fits(args) {
				out = append(out, slices.Clone(args))
			}
			return
		}
		if t := l.terms[i]; t >= 0 || b[-t] >= 0 {
			if t >= 0 {
				args[i] = mln.ConstID(t)
			} else {
				args[i] = mln.ConstID(b[-t])
			}
			rec(i + 1)
			return
		}
		for _, c := range g.m.Types[types[i]].Consts {
			args[i] = c
			rec(i + 1)
		}
	}
	rec(0)
	return out
}

// addTuple is Clause::addConstantTuple: the grounding consts (indexed by
// the variables of varLits) is filed under the clause of its unknown
// literals.
func (g *alchemyGrounder) addTuple(c alchemyClause, varLits []alchemyLit, consts []int) {
	var key []alchemyLit
	for i := range c.lits {
		l := &c.lits[i]
		args := make([]mln.ConstID, len(l.terms))
		for j, t := range varLits[i].terms {
			args[j] = mln.ConstID(consts[-t])
		}
		if l.mpred >= 0 && g.value(l, args) == mln.Unknown {
			key = append(key, varLits[i])
		}
	}
	if len(key) == 0 {
		return
	}
	k := clauseKey(key)
	grp := g.byKey[k]
	if grp == nil {
		kc := alchemyClause{lits: slices.Clone(key), src: c.src}
		canon := map[int]int{}
		canonicalize(&kc, canon, g.cid)
		grp = &alchemyGroup{key: kc, seen: map[string]int{}}
		grp.canon = make([]int, len(consts))
		for i := range grp.canon {
			grp.canon[i] = -1
		}
		for old, nw := range canon {
			grp.canon[old] = nw
		}
		g.byKey[k] = grp
		g.groupList = append(g.groupList, grp)
		g.groups.insert(alchemyHash(intArrRep(key)), len(g.groupList)-1)
	}
	if len(grp.canon) < len(consts) {
		for len(grp.canon) < len(consts) {
			grp.canon = append(grp.canon, -1)
		}
	}
	tup := []int{0}
	for v, cv := range grp.canon {
		if cv <= 0 {
			continue
		}
		for len(tup) <= cv {
			tup = append(tup, 0)
		}
		tup[cv] = consts[v]
	}
	tk := fmt.Sprint(tup)
	i, ok := grp.seen[tk]
	if !ok {
		i = len(grp.tuples)
		grp.seen[tk] = i
		grp.tuples = append(grp.tuples, tup)
		grp.counts = append(grp.counts, 0)
	}
	grp.counts[i]++
}

// sgiHashtable replays the bucket structure of libstdc++'s SGI hashtable
// (ext/hash_map, ext/hash_set, backward/hashtable.h) for unique keys: the
// buckets are a prime number (193 for a default-constructed table, the
// next prime of the list at least the new size when the elements would
// outnumber them), a new element goes to the front of its bucket, a
// rehash moves each old bucket's elements, front first, to the front of
// their new buckets, clear keeps the buckets, and iteration walks the
// buckets in order, each from its front.
type sgiHashtable struct {
	buckets [][]sgiEntry // each bucket front first
	n       int
}

type sgiEntry struct {
	hash uint64
	val  int
}

var sgiPrimes = []uint64{5, 53, 97, 193, 389, 769, 1543, 3079, 6151, 12289, 24593, 49157, 98317,
	196613, 393241, 786433, 1572869, 3145739, 6291469, 12582917, 25165843, 50331653, 100663319,
	201326611, 402653189, 805306457, 1610612741, 3221225473, 4294967291}

func sgiNextPrime(n uint64) uint64 {
	for _, p := range sgiPrimes {
		if p >= n {
			return p
		}
	}
	return sgiPrimes[len(sgiPrimes)-1]
}

func newSGIHashtable() *sgiHashtable {
	return &sgiHashtable{buckets: make([][]sgiEntry, sgiNextPrime(100))}
}

func (h *sgiHashtable) clear() {
	for i := range h.buckets {
		h.buckets[i] = h.buckets[i][:0]
	}
	h.n = 0
}

// insert adds a new element (the callers pass each key once) with its
// hash, as insert_unique and find_or_insert do.
func (h *sgiHashtable) insert(hash uint64, val int) {
	h.resize(uint64(h.n) + 1)
	b := hash % uint64(len(h.buckets))
	h.buckets[b] = slices.Insert(h.buckets[b], 0, sgiEntry{hash, val})
	h.n++
}

func (h *sgiHashtable) resize(hint uint64) {
	old := uint64(len(h.buckets))
	if hint <= old {
		return
	}
	n := sgiNextPrime(hint)
	if n <= old {
		return
	}
	nb := make([][]sgiEntry, n)
	for _, bucket := range h.buckets {
		for _, e := range bucket {
			i := e.hash % n
			nb[i] = slices.Insert(nb[i], 0, e)
		}
	}
	h.buckets = nb
}

// order returns the values in iteration order.
func (h *sgiHashtable) order() []int {
	var out []int
	for _, b := range h.buckets {
		for _, e := range b {
			out = append(out, e.val)
		}
	}
	return out
}
