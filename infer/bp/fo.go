package bp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/marple-mln/marple/mln"
)

// ErrNotLiftable is returned by LiftModel for a model or evidence it
// cannot lift without grounding; Lifted on the ground network handles
// those.
var ErrNotLiftable = errors.New("bp: not liftable from the first-order model")

// maxClauseClasses bounds the clause classes LiftModel enumerates.
const maxClauseClasses = 1 << 20

// LiftModel refuses, before enumerating them, more than
// minClauseClassesChecked clause classes when there are not at least
// minModelCompression times fewer of them than ground clauses: the
// evidence has split the constants into so many classes that lifting would
// not compress (Lifted on the ground network, or ground BP, is then
// cheaper).
const (
	minClauseClassesChecked = 4096
	minModelCompression     = 4
)

// ModelMarginals are the marginals of a lifted model: every atom of a
// class has its class's probability.
type ModelMarginals struct {
	m       *mln.Model
	cls     *classes
	open    []bool
	index   map[string]int32 // atom class key -> lifted atom
	prob    []float64
	evTruth map[string]mln.Truth
}

// Prob returns the marginal probability of the atom p(args): its
// evidence value (0 or 1) when the evidence decides it, the lifted
// marginal otherwise (0.5 for an unknown atom in no clause).
func (mm *ModelMarginals) Prob(p mln.PredID, args []mln.ConstID) float64 {
	key, ok := mm.cls.atomKey(mm.m, p, args)
	if !ok {
		return math.NaN()
	}
	if i, ok := mm.index[key]; ok {
		return mm.prob[i]
	}
	switch mm.truth(p, key) {
	case mln.True:
		return 1
	case mln.False:
		return 0
	}
	return 0.5
}

func (mm *ModelMarginals) truth(p mln.PredID, key string) mln.Truth {
	if v, ok := mm.evTruth[key]; ok {
		return v
	}
	if mm.open[p] {
		return mln.Unknown
	}
	return mln.False
}

// classes partitions each type's constants into classes of
// interchangeable constants: the model's own constants are singletons, and
// the others are split by their evidence (colour refinement over the
// evidence atoms) until every evidence predicate's truth value is the same
// for all atoms with the same argument classes and the same pattern of
// equal arguments.
type classes struct {
	of     []map[mln.ConstID]int32 // per type
	size   []int                   // per class
	typeOf []mln.TypeID            // per class
}

func (c *classes) class(t mln.TypeID, k mln.ConstID) (int32, bool) {
	x, ok := c.of[t][k]
	return x, ok
}

// atomKey returns the class key of atom p(args): the predicate, its
// arguments' classes and the pattern of equal arguments.
func (c *classes) atomKey(m *mln.Model, p mln.PredID, args []mln.ConstID) (string, bool) {
	types := m.Preds[p].Args
	if len(args) != len(types) {
		return "", false
	}
	var b strings.Builder
	b.WriteString(strconv.Itoa(int(p)))
	for j, k := range args {
		x, ok := c.class(types[j], k)
		if !ok {
			return "", false
		}
		first := j
		for i := 0; i < j; i++ {
			if args[i] == k {
				first = i
				break
			}
		}
		fmt.Fprintf(&b, ",%d:%d", x, first)
	}
	return b.String(), true
}

// fallingFactorial returns n(n-1)...(n-k+1).
func fallingFactorial(n, k int) float64 {
	r := 1.0
	for i := 0; i < k; i++ {
		r *= float64(n - i)
	}
	return r
}

// sizeOf returns the number of atoms of a class key given the entities
// of its arguments: the distinct entities per class.
func (c *classes) sizeOf(ents []entity) float64 {
	perClass := map[int32]map[int]bool{}
	for _, e := range ents {
		if perClass[e.class] == nil {
			perClass[e.class] = map[int]bool{}
		}
		perClass[e.class][e.rank] = true
	}
	r := 1.0
	for x, ranks := range perClass {
		r *= fallingFactorial(c.size[x], len(ranks))
	}
	return r
}

// entity is an argument of a clause class: a class and a rank among the
// distinct constants of that class in the grounding.
type entity struct {
	class int32
	rank  int
}

// buildClasses refines the constants' classes by the evidence.
func buildClasses(m *mln.Model, db *mln.Database) (*classes, error) {
	c := &classes{of: make([]map[mln.ConstID]int32, len(m.Types))}
	// Initial colours: the model's constants are singletons; the others
	// one class per type.
	inModel := map[mln.ConstID]bool{}
	for _, cl := range m.Clauses {
		for _, l := range cl.Lits {
			for _, t := range l.Args {
				if !t.IsVar() {
					inModel[t.Const()] = true
				}
			}
		}
	}
	colour := make([]map[mln.ConstID]uint64, len(m.Types))
	for t := range m.Types {
		colour[t] = make(map[mln.ConstID]uint64, m.Types[t].Size())
		for _, k := range m.Types[t].Consts {
			if inModel[k] {
				colour[t][k] = mix(uint64(k) + 1<<40)
			} else {
				colour[t][k] = 0
			}
		}
	}
	perType := make([]float64, len(m.Types))
	count := func() int {
		n := 0
		for t := range colour {
			seen := map[uint64]bool{}
			for _, x := range colour[t] {
				seen[x] = true
			}
			n += len(seen)
			perType[t] = float64(len(seen))
		}
		return n
	}
	n := count()
	for round := 0; ; round++ {
		next := make([]map[mln.ConstID]uint64, len(m.Types))
		for t := range colour {
			next[t] = make(map[mln.ConstID]uint64, len(colour[t]))
			for k, x := range colour[t] {
				next[t][k] = mix(x)
			}
		}
		for p := range m.Preds {
			types := m.Preds[p].Args
			db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
				if len(args) != len(types) {
					return
				}
				for j, k := range args {
					// (predicate, position, truth, the other arguments'
					// colours and equalities)
					h := mix(uint64(p)<<20 ^ uint64(j)<<4 ^ uint64(v))
					for i, o := range args {
						if i == j {
							continue
						}
						x := colour[types[i]][o]
						if o == k {
							x = 0xabcdef
						}
						h = mix(h ^ x ^ uint64(i)<<56)
					}
					next[types[j]][k] += h
				}
			})
		}
		colour = next
		n2 := count()
		if n2 == n {
			break
		}
		// The classes only split: once they are too many, refuse at once.
		if err := compresses(m, perType); err != nil {
			return nil, err
		}
		n = n2
		if round > 100 {
			return nil, ErrNotLiftable
		}
	}
	for t := range colour {
		c.of[t] = make(map[mln.ConstID]int32, len(colour[t]))
		ids := map[uint64]int32{}
		for _, k := range m.Types[t].Consts { // in domain order: deterministic
			x := colour[t][k]
			id, ok := ids[x]
			if !ok {
				id = int32(len(c.size))
				ids[x] = id
				c.size = append(c.size, 0)
				c.typeOf = append(c.typeOf, mln.TypeID(t))
			}
			c.size[id]++
			c.of[t][k] = id
		}
	}
	return c, nil
}

// compresses returns ErrNotLiftable, with the reason, when the classes
// are too many for lifting to pay: a clause has at least as many classes as
// the product of the numbers of classes of its variables' types (one per
// choice of a class for each variable), and as many ground clauses as the
// product of the types' sizes. It costs O(clauses · variables), so a model
// that does not compress is refused before any enumeration.
func (c *classes) compresses(m *mln.Model) error {
	perType := make([]float64, len(m.Types))
	for _, t := range c.typeOf {
		perType[t]++
	}
	return compresses(m, perType)
}

// compresses is classes.compresses given the number of classes of each
// type.
func compresses(m *mln.Model, perType []float64) error {
	lifted, grounded := 0.0, 0.0
	for _, cl := range m.Clauses {
		l, g := 1.0, 1.0
		for _, v := range cl.Vars {
			l *= perType[v.Type]
			g *= float64(m.Types[v.Type].Size())
		}
		lifted += l
		grounded += g
	}
	if lifted > maxClauseClasses || lifted > minClauseClassesChecked && lifted*minModelCompression > grounded {
		consts := 0
		for _, t := range m.Types {
			consts += t.Size()
		}
		classes := 0.0
		for _, n := range perType {
			classes += n
		}
		return fmt.Errorf("%w: the evidence splits the %d constants into %.0f classes or more, which gives at least %.4g clause classes for %.4g ground clauses", ErrNotLiftable, consts, classes, lifted, grounded)
	}
	return nil
}

// LiftModel runs lifted belief propagation from the first-order model m
// and the evidence db without grounding: the constants of each type are
// split into classes of interchangeable constants (by the evidence), the
// ground clauses into classes by their variables' classes and the pattern
// of equal variables, each class counted in closed form (products of
// falling factorials), and BP runs on one node per atom class and one per
// clause class, a node's messages weighted by how many ground clauses of a
// class each of its atoms is in. The query predicates are open world, the
// others closed world. The marginals equal ground BP's (Marginals on the
// network ground.Ground builds with the same query predicates).
//
// LiftModel returns ErrNotLiftable for what it does not lift: existential
// quantifiers, "+" weights, order and arithmetic comparisons, evidence
// that singles out pairs of constants (binary evidence whose truth does
// not follow from the constants' classes), and evidence that splits the
// constants into so many classes that lifting would not compress (checked
// in closed form before any clause class is built); Lifted on the ground
// network handles those.
func LiftModel(ctx context.Context, m *mln.Model, db *mln.Database, query []mln.PredID, opt Options) (*ModelMarginals, *LiftedStats, error) {
	if opt.MaxIterations <= 0 {
		opt.MaxIterations = DefaultMaxIterations
	}
	if opt.Tolerance <= 0 {
		opt.Tolerance = DefaultTolerance
	}
	if opt.Damping != 0 || opt.Bias != nil {
		return nil, nil, ErrNotLiftable
	}
	for _, cl := range m.Clauses {
		if len(cl.Exist) > 0 || len(cl.Plus) > 0 {
			return nil, nil, ErrNotLiftable
		}
		for _, l := range cl.Lits {
			if l.Pred < 0 && l.Builtin != mln.Eq && l.Builtin != mln.Neq {
				return nil, nil, ErrNotLiftable
			}
		}
	}
	cls, err := buildClasses(m, db)
	if err != nil {
		return nil, nil, err
	}
	if err := cls.compresses(m); err != nil {
		return nil, nil, err
	}
	mm := &ModelMarginals{m: m, cls: cls, open: make([]bool, len(m.Preds)), index: map[string]int32{}, evTruth: map[string]mln.Truth{}}
	for _, q := range query {
		mm.open[q] = true
	}
	// The evidence must be uniform over each atom class.
	type group struct {
		v     mln.Truth
		n     float64
		mixed bool
		ents  []entity
	}
	groups := map[string]*group{}
	for p := range m.Preds {
		types := m.Preds[p].Args
		var bad error
		db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
			if bad != nil || len(args) != len(types) {
				return
			}
			key, ok := cls.atomKey(m, mln.PredID(p), args)
			if !ok {
				bad = ErrNotLiftable
				return
			}
			if !mm.open[p] && v == mln.False {
				return // the closed-world default
			}
			g := groups[key]
			if g == nil {
				ents := make([]entity, len(args))
				for j, k := range args {
					x, _ := cls.class(types[j], k)
					ents[j] = entity{x, slices.Index(args, k)}
				}
				g = &group{v: v, ents: ents}
				groups[key] = g
			}
			if g.v != v {
				g.mixed = true
			}
			g.n++
		})
		if bad != nil {
			return nil, nil, bad
		}
	}
	for key, g := range groups {
		if g.mixed || g.n != cls.sizeOf(g.ents) {
			return nil, nil, ErrNotLiftable
		}
		mm.evTruth[key] = g.v
	}

	// Clause classes.
	lg := &liftedGraph{}
	var atomSize []float64
	atomID := func(key string, size float64) int32 {
		if id, ok := mm.index[key]; ok {
			return id
		}
		id := int32(len(atomSize))
		mm.index[key] = id
		atomSize = append(atomSize, size)
		return id
	}
	var occs []occRec
	nClasses := 0
	lg.start = []int32{0}
	for ci := range m.Clauses {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		cl := m.Clauses[ci]
		w := math.Inf(1)
		if !cl.Hard {
			w = m.Weights[m.Param(cl.Formula, nil)] * cl.Coef / m.DomainScale(cl)
		}
		nv := len(cl.Vars)
		ents := make([]entity, nv)
		blocks := map[int32]int{} // distinct constants used per class so far
		var rec func(v int) error
		rec = func(v int) error {
			if v == nv {
				nClasses++
				if nClasses > maxClauseClasses {
					return ErrNotLiftable
				}
				return mm.addClauseClass(cl, w, ents, blocks, lg, &occs, atomID)
			}
			t := cl.Vars[v].Type
			for x := range cls.size {
				if cls.typeOf[x] != t {
					continue
				}
				xi := int32(x)
				// An existing distinct constant of the class, or a new one.
				for r := 0; r <= blocks[xi]; r++ {
					if r == blocks[xi] {
						if blocks[xi] >= cls.size[x] {
							break
						}
						blocks[xi]++
						ents[v] = entity{xi, r}
						if err := rec(v + 1); err != nil {
							return err
						}
						blocks[xi]--
						break
					}
					ents[v] = entity{xi, r}
					if err := rec(v + 1); err != nil {
						return err
					}
				}
			}
			return nil
		}
		if err := rec(0); err != nil {
			return nil, nil, err
		}
	}
	// Occurrences by atom class.
	lg.bias = make([]float64, len(atomSize))
	lg.atomRep = make([]int32, len(atomSize))
	lg.occStart = make([]int32, len(atomSize)+1)
	for _, o := range occs {
		lg.occStart[o.atom+1]++
	}
	for a := 1; a <= len(atomSize); a++ {
		lg.occStart[a] += lg.occStart[a-1]
	}
	lg.occ = make([]int32, len(occs))
	lg.mult = make([]float64, len(occs))
	fill := slices.Clone(lg.occStart[:len(atomSize)])
	for _, o := range occs {
		lg.occ[fill[o.atom]] = o.lit
		lg.mult[fill[o.atom]] = o.mult
		fill[o.atom]++
	}
	lg.msg = make([]float64, len(lg.litAtom))
	lg.tot = make([]float64, len(atomSize))
	lg.marginal = make([]float64, len(atomSize))
	st := &LiftedStats{AtomClusters: len(atomSize), FactorClusters: len(lg.w), Factors: lg.nGround}
	for _, n := range atomSize {
		st.Atoms += n
	}
	if err := lg.run(ctx, opt, &st.Stats); err != nil {
		return nil, nil, err
	}
	mm.prob = lg.marginal
	return mm, st, nil
}

// occRec is an occurrence of an atom class in a clause class's literal,
// with the number of ground clauses of the class each atom of the class is
// in at that literal.
type occRec struct {
	atom int32
	lit  int32
	mult float64
}

// addClauseClass adds the clause class of cl with its variables bound to
// ents (blocks: the distinct constants used per class): its count, and
// its literals left once the evidence has removed the false ones (none
// when the evidence satisfies it).
func (mm *ModelMarginals) addClauseClass(cl *mln.Clause, w float64, ents []entity, blocks map[int32]int, lg *liftedGraph, occs *[]occRec, atomID func(string, float64) int32) error {
	m, cls := mm.m, mm.cls
	n := 1.0
	for x, k := range blocks {
		n *= fallingFactorial(cls.size[x], k)
	}
	if n == 0 {
		return nil
	}
	termEnt := func(t mln.Term, typ mln.TypeID) (entity, bool) {
		if t.IsVar() {
			return ents[t.Var()], true
		}
		x, ok := cls.class(typ, t.Const())
		return entity{x, 0}, ok
	}
	type lit struct {
		key, ident string
		neg        bool
		size       float64
	}
	var lits []lit
	for _, l := range cl.Lits {
		if l.Pred < 0 {
			var typ mln.TypeID
			for _, t := range l.Args {
				if t.IsVar() {
					typ = cl.Vars[t.Var()].Type
				}
			}
			a, ok1 := termEnt(l.Args[0], typ)
			b, ok2 := termEnt(l.Args[1], typ)
			if !ok1 || !ok2 {
				return ErrNotLiftable
			}
			holds := a == b
			if l.Builtin == mln.Neq {
				holds = !holds
			}
			if holds != l.Neg {
				return nil // satisfied
			}
			continue
		}
		types := m.Preds[l.Pred].Args
		le := make([]entity, len(l.Args))
		var key, ident strings.Builder
		key.WriteString(strconv.Itoa(int(l.Pred)))
		ident.WriteString(strconv.Itoa(int(l.Pred)))
		for j, t := range l.Args {
			e, ok := termEnt(t, types[j])
			if !ok {
				return ErrNotLiftable
			}
			le[j] = e
			first := j
			for i := 0; i < j; i++ {
				if le[i] == e {
					first = i
					break
				}
			}
			fmt.Fprintf(&key, ",%d:%d", e.class, first)
			fmt.Fprintf(&ident, ",%d:%d", e.class, e.rank)
		}
		k := key.String()
		switch v := mm.truth(l.Pred, k); {
		case v == mln.Unknown:
		case (v == mln.True) != l.Neg:
			return nil // satisfied by the evidence
		default:
			continue // false: dropped
		}
		dup := false
		for _, o := range lits {
			if o.ident == ident.String() {
				if o.neg != l.Neg {
					return nil // a tautology
				}
				dup = true
			}
		}
		if !dup {
			lits = append(lits, lit{k, ident.String(), l.Neg, cls.sizeOf(le)})
		}
	}
	if len(lits) == 0 {
		return nil // false whatever the unknown atoms: no message
	}
	lg.w = append(lg.w, w)
	lg.nGround += n
	for _, l := range lits {
		a := atomID(l.key, l.size)
		*occs = append(*occs, occRec{a, int32(len(lg.litAtom)), n / l.size})
		lg.litAtom = append(lg.litAtom, a)
		lg.litNeg = append(lg.litNeg, l.neg)
	}
	lg.start = append(lg.start, int32(len(lg.litAtom)))
	return nil
}
