package structure

import (
	"fmt"

	"github.com/marple-mln/marple/mln"
)

// maxArity bounds the arity of the predicates a World indexes.
const maxArity = 8

type atomKey [maxArity]mln.ConstID

func keyOf(args []mln.ConstID) atomKey {
	var k atomKey
	for i := range k {
		k[i] = -1
	}
	copy(k[:], args)
	return k
}

// World is one possible world of one example, closed: the true ground atoms
// of every predicate (evidence and query alike), indexed for the joins of
// relational pathfinding and of grounding counts. Every atom not listed is
// false.
type World struct {
	m     *mln.Model
	preds []worldPred
	// Atoms lists the true atoms in insertion order; atom i is
	// AtomPred[i](Args(i)).
	AtomPred []mln.PredID
	argStart []int32
	args     []mln.ConstID
}

type worldPred struct {
	atoms []int32           // the predicate's atoms, in insertion order
	set   map[atomKey]int32 // args -> atom
	post  map[postKey][]int32
}

type postKey struct {
	arg int32
	c   mln.ConstID
}

// NewWorld returns an empty world over m's predicates.
func NewWorld(m *mln.Model) *World {
	return &World{m: m, preds: make([]worldPred, len(m.Preds)), argStart: []int32{0}}
}

// Add makes an atom true (adding it twice is harmless). It returns the
// atom's index.
func (w *World) Add(p mln.PredID, args []mln.ConstID) (int32, error) {
	if len(args) > maxArity {
		return -1, fmt.Errorf("structure: %s has %d arguments; at most %d are supported", w.m.Preds[p].Name, len(args), maxArity)
	}
	wp := &w.preds[p]
	k := keyOf(args)
	if a, ok := wp.set[k]; ok {
		return a, nil
	}
	if wp.set == nil {
		wp.set = make(map[atomKey]int32)
		wp.post = make(map[postKey][]int32)
	}
	a := int32(len(w.AtomPred))
	w.AtomPred = append(w.AtomPred, p)
	w.args = append(w.args, args...)
	w.argStart = append(w.argStart, int32(len(w.args)))
	wp.atoms = append(wp.atoms, a)
	wp.set[k] = a
	for j, c := range args {
		pk := postKey{int32(j), c}
		wp.post[pk] = append(wp.post[pk], a)
	}
	return a, nil
}

// AddTrue adds the true atoms of db (evidence: unknown atoms are not
// added).
func (w *World) AddTrue(db *mln.Database) error {
	var err error
	for p := range w.m.Preds {
		db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
			if err == nil && v == mln.True {
				_, err = w.Add(mln.PredID(p), args)
			}
		})
	}
	return err
}

// NumAtoms returns the number of true atoms.
func (w *World) NumAtoms() int { return len(w.AtomPred) }

// Args returns the arguments of atom a (not to be modified).
func (w *World) Args(a int32) []mln.ConstID { return w.args[w.argStart[a]:w.argStart[a+1]] }

// True reports whether p(args) is true.
func (w *World) True(p mln.PredID, args []mln.ConstID) bool {
	wp := &w.preds[p]
	if wp.set == nil || len(args) > maxArity {
		return false
	}
	_, ok := wp.set[keyOf(args)]
	return ok
}

// Counter counts the false groundings of first-order clauses in a World.
// Variables that occur in no negated literal (whose groundings are not
// driven by true atoms) range over Domain(type).
type Counter struct {
	Domain func(t mln.TypeID) []mln.ConstID

	bind  []mln.ConstID
	order []int
	buf   []mln.ConstID
}

// CountFalse returns the number of groundings of c (substitutions of the
// variables occurring in its literals) that are false in w. The clause may hold predicate literals
// only (no builtins, no existential variables).
func (cn *Counter) CountFalse(c *mln.Clause, w *World) (int64, error) {
	if len(c.Exist) > 0 {
		return 0, fmt.Errorf("structure: cannot count a clause with existential variables")
	}
	for _, l := range c.Lits {
		if l.Pred < 0 {
			return 0, fmt.Errorf("structure: cannot count a clause with a comparison")
		}
	}
	// Negated literals first (a false grounding makes their atoms true:
	// joins over true atoms), the most constrained next; positive literals
	// last (their atoms must be false).
	cn.order = cn.order[:0]
	bound := make([]bool, len(c.Vars))
	used := make([]bool, len(c.Lits))
	for {
		best, bestScore := -1, -1
		for i, l := range c.Lits {
			if used[i] || !l.Neg {
				continue
			}
			s := 0
			for _, t := range l.Args {
				if !t.IsVar() || bound[t.Var()] {
					s++
				}
			}
			if s > bestScore {
				best, bestScore = i, s
			}
		}
		if best < 0 {
			break
		}
		used[best] = true
		cn.order = append(cn.order, best)
		for _, t := range c.Lits[best].Args {
			if t.IsVar() {
				bound[t.Var()] = true
			}
		}
	}
	for i, l := range c.Lits {
		if !l.Neg {
			cn.order = append(cn.order, i)
		}
	}
	if cap(cn.bind) < len(c.Vars) {
		cn.bind = make([]mln.ConstID, len(c.Vars))
	}
	cn.bind = cn.bind[:len(c.Vars)]
	for i := range cn.bind {
		cn.bind[i] = -1
	}
	return cn.rec(c, w, 0), nil
}

func (cn *Counter) rec(c *mln.Clause, w *World, k int) int64 {
	if k == len(cn.order) {
		return 1
	}
	l := &c.Lits[cn.order[k]]
	if l.Neg {
		return cn.join(c, w, k, l)
	}
	// A positive literal: its atom must be false. Bind its free variables
	// from their domains first.
	for _, t := range l.Args {
		if t.IsVar() && cn.bind[t.Var()] < 0 {
			v := t.Var()
			var n int64
			for _, x := range cn.Domain(c.Vars[v].Type) {
				cn.bind[v] = x
				n += cn.rec(c, w, k)
			}
			cn.bind[v] = -1
			return n
		}
	}
	cn.buf = cn.buf[:0]
	for _, t := range l.Args {
		cn.buf = append(cn.buf, cn.term(t))
	}
	if w.True(l.Pred, cn.buf) {
		return 0
	}
	return cn.rec(c, w, k+1)
}

func (cn *Counter) term(t mln.Term) mln.ConstID {
	if t.IsVar() {
		return cn.bind[t.Var()]
	}
	return t.Const()
}

// join enumerates the true atoms matching negated literal l.
func (cn *Counter) join(c *mln.Clause, w *World, k int, l *mln.Literal) int64 {
	wp := &w.preds[l.Pred]
	if wp.set == nil {
		return 0
	}
	// All arguments bound: a membership test.
	all := true
	var cands []int32
	for j, t := range l.Args {
		x := cn.term(t)
		if x < 0 {
			all = false
			continue
		}
		if cands == nil {
			cands = wp.post[postKey{int32(j), x}]
			if cands == nil {
				return 0
			}
		}
	}
	if all {
		cn.buf = cn.buf[:0]
		for _, t := range l.Args {
			cn.buf = append(cn.buf, cn.term(t))
		}
		if !w.True(l.Pred, cn.buf) {
			return 0
		}
		return cn.rec(c, w, k+1)
	}
	if cands == nil {
		cands = wp.atoms
	}
	var n int64
	var setv [maxArity]int
	for _, a := range cands {
		args := w.Args(a)
		ns, ok := mln.BindArgs(l.Args, args, cn.bind, setv[:])
		if ok {
			n += cn.rec(c, w, k+1)
		}
		for i := 0; i < ns; i++ {
			cn.bind[setv[i]] = -1
		}
	}
	return n
}
