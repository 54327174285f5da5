package structure

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/marple-mln/marple/mln"
)

// Hypergraph is CreateHG of Huynh & Mooney (ECML 2011, Algorithm 2): the
// true atoms of a world as hyperedges over the constants in their input
// or output arguments.
type Hypergraph struct {
	W     *World
	Modes *Modes
	edges map[mln.ConstID][]int32 // constant -> atoms with it in an io argument
}

// NewHypergraph indexes the true atoms of w by the constants in their io
// arguments (atoms of predicates without a modep are left out).
func NewHypergraph(w *World, ms *Modes) *Hypergraph {
	h := &Hypergraph{W: w, Modes: ms, edges: make(map[mln.ConstID][]int32)}
	for a := int32(0); a < int32(w.NumAtoms()); a++ {
		p := w.AtomPred[a]
		if ms.Path[p] == nil {
			continue
		}
		args := w.Args(a)
		for j, c := range args {
			if !ms.IO(p, j) || ioBefore(ms, p, args, j) {
				continue // not io, or already listed for this atom
			}
			h.edges[c] = append(h.edges[c], a)
		}
	}
	return h
}

// ioBefore reports whether args[j] also sits in an io argument before j.
func ioBefore(ms *Modes, p mln.PredID, args []mln.ConstID, j int) bool {
	for k := 0; k < j; k++ {
		if args[k] == args[j] && ms.IO(p, k) {
			return true
		}
	}
	return false
}

// Path is a path of true atoms (indices into the World); Path[0] is the
// atom the search started from.
type Path []int32

// FindPaths is ModeGuidedFindPaths (Algorithm 3) from the atom start: it
// calls emit with every path of at most maxLen atoms (at least two) that
// starts at start and grows by atoms that share an io constant with the
// path, respect their predicate's recall number and have every input
// argument already in the path. Each set of atoms is emitted once; the
// slice passed to emit is reused.
func (h *Hypergraph) FindPaths(start int32, maxLen int, emit func(Path)) {
	ms := h.Modes
	w := h.W
	p0 := w.AtomPred[start]
	if ms.Path[p0] == nil || maxLen < 2 {
		return
	}
	s := &pathSearch{h: h, maxLen: maxLen, emit: emit, seen: make(map[string]bool),
		recall: make(map[mln.PredID]int)}
	s.path = append(s.path, start)
	s.recall[p0]++
	for j, c := range w.Args(start) {
		if ms.IO(p0, j) && !slices.Contains(s.v, c) {
			s.v = append(s.v, c)
		}
	}
	s.search()
}

type pathSearch struct {
	h      *Hypergraph
	maxLen int
	emit   func(Path)
	path   Path
	v      []mln.ConstID // io constants of the path
	recall map[mln.PredID]int
	seen   map[string]bool
	key    []int32
}

func (s *pathSearch) canAdd(a int32) bool {
	if slices.Contains(s.path, a) {
		return false
	}
	w, ms := s.h.W, s.h.Modes
	p := w.AtomPred[a]
	pm := ms.Path[p]
	if pm == nil || s.recall[p] >= pm.Recall {
		return false
	}
	for j, c := range w.Args(a) {
		if pm.Places[j] == Input && !slices.Contains(s.v, c) {
			return false
		}
	}
	return true
}

// pathKey identifies the set of atoms of the current path with a (start
// atom first, the rest sorted).
func (s *pathSearch) pathKey(a int32) string {
	s.key = append(s.key[:0], s.path[1:]...)
	s.key = append(s.key, a)
	slices.Sort(s.key)
	var b strings.Builder
	b.WriteString(strconv.Itoa(int(s.path[0])))
	for _, x := range s.key {
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(int(x)))
	}
	return b.String()
}

func (s *pathSearch) search() {
	if len(s.path) >= s.maxLen {
		return
	}
	w, ms := s.h.W, s.h.Modes
	nv := len(s.v)
	for i := 0; i < nv; i++ {
		for _, a := range s.h.edges[s.v[i]] {
			if !s.canAdd(a) {
				continue
			}
			k := s.pathKey(a)
			if s.seen[k] {
				continue
			}
			s.seen[k] = true
			p := w.AtomPred[a]
			s.path = append(s.path, a)
			s.recall[p]++
			before := len(s.v)
			for j, c := range w.Args(a) {
				if ms.IO(p, j) && !slices.Contains(s.v, c) {
					s.v = append(s.v, c)
				}
			}
			s.emit(s.path)
			s.search()
			s.v = s.v[:before]
			s.recall[p]--
			s.path = s.path[:len(s.path)-1]
		}
	}
}

// Clauses returns the two clauses OSL makes of a path (§3.1): the path's
// atoms with their constants variabilised except where a modec keeps
// them, all negated, and the Horn variant whose first literal (the atom the
// model got wrong) is positive.
func Clauses(m *mln.Model, w *World, ms *Modes, path Path) (allNeg, horn *mln.Clause) {
	vars := make(map[mln.ConstID]int)
	c := &mln.Clause{Coef: 1, Formula: -1}
	for _, a := range path {
		p := w.AtomPred[a]
		lit := mln.Literal{Pred: p, Neg: true}
		for j, x := range w.Args(a) {
			if ms.KeepConst(p, j) {
				lit.Args = append(lit.Args, mln.ConstTerm(x))
				continue
			}
			v, ok := vars[x]
			if !ok {
				v = len(c.Vars)
				vars[x] = v
				c.Vars = append(c.Vars, mln.Var{Name: "a" + strconv.Itoa(v+1), Type: m.Preds[p].Args[j]})
			}
			lit.Args = append(lit.Args, mln.VarTerm(v))
		}
		c.Lits = append(c.Lits, lit)
	}
	h := &mln.Clause{Coef: 1, Formula: -1, Vars: c.Vars, Lits: slices.Clone(c.Lits)}
	h.Lits[0].Neg = false
	return c, h
}

// CanonicalKey returns a string that is equal for two clauses exactly when
// they are the same up to the order of their literals and the names of
// their variables (for clauses of at most 6 predicate literals; longer ones
// are keyed in their given order). Comparison literals (such as the x != z
// of transferred clauses) are keyed after the predicate literals, sorted,
// under the renaming those fix.
func CanonicalKey(c *mln.Clause) string {
	var perm, cmps []int
	for i := range c.Lits {
		if c.Lits[i].Pred < 0 {
			cmps = append(cmps, i)
		} else {
			perm = append(perm, i)
		}
	}
	n := len(perm)
	nv := len(c.Vars)
	// rename[v] numbers variable v as it first occurs (-1: not yet);
	// levels below hold the renamings saved at each depth of the search.
	renames := make([]int, (n+2)*nv)
	rename := renames[:nv]
	for i := range rename {
		rename[i] = -1
	}
	next := 0
	term := func(b []byte, t mln.Term) []byte {
		if t.IsVar() {
			v := t.Var()
			if rename[v] < 0 {
				rename[v] = next
				next++
			}
			b = append(b, 'v')
			b = strconv.AppendInt(b, int64(rename[v]), 10)
			b = append(b, ':')
			return strconv.AppendInt(b, int64(c.Vars[v].Type), 10)
		}
		return strconv.AppendInt(b, int64(t.Const()), 10)
	}
	lit := func(b []byte, l *mln.Literal) []byte {
		if l.Neg {
			b = append(b, '!')
		}
		b = strconv.AppendInt(b, int64(l.Pred), 10)
		b = append(b, '(')
		for j, t := range l.Args {
			if j > 0 {
				b = append(b, ',')
			}
			b = term(b, t)
		}
		return append(b, ')')
	}
	// comparisons appends the comparison literals, sorted, under the
	// renaming the predicate literals fixed.
	comparisons := func(b []byte) []byte {
		if len(cmps) == 0 {
			return b
		}
		keys := make([]string, len(cmps))
		for k, li := range cmps {
			l := &c.Lits[li]
			var kb []byte
			if l.Neg {
				kb = append(kb, '!')
			}
			kb = append(kb, 'b')
			kb = strconv.AppendInt(kb, int64(l.Builtin), 10)
			kb = append(kb, '(')
			args := make([]string, len(l.Args))
			for j, t := range l.Args {
				args[j] = string(term(nil, t))
			}
			if l.Builtin == mln.Eq || l.Builtin == mln.Neq {
				slices.Sort(args) // symmetric
			}
			kb = append(kb, strings.Join(args, ",")...)
			kb = append(kb, ')')
			keys[k] = string(kb)
		}
		slices.Sort(keys)
		for _, k := range keys {
			b = append(b, k...)
		}
		return b
	}
	buf := make([]byte, 0, 128)
	if n > 6 {
		for _, li := range perm {
			buf = lit(buf, &c.Lits[li])
		}
		return string(comparisons(buf))
	}
	// The key is the smallest, over the orders of the predicate literals,
	// of the literals written in that order (variables numbered as they
	// first occur) followed by the comparisons. The orders are tried as a
	// search over prefixes: a prefix written is a prefix of every key
	// that extends it, so one that sorts after the best key so far (or
	// extends it) cannot lead to a smaller one and is abandoned.
	var best []byte
	found := false
	worse := func(prefix []byte) bool {
		if !found {
			return false
		}
		m := min(len(prefix), len(best))
		if c := bytes.Compare(prefix[:m], best[:m]); c != 0 {
			return c > 0
		}
		return len(prefix) > len(best)
	}
	var try func(k int)
	try = func(k int) {
		if k == n {
			l := len(buf)
			buf = comparisons(buf)
			if !found || bytes.Compare(buf, best) < 0 {
				best = append(best[:0], buf...)
				found = true
			}
			buf = buf[:l]
			return
		}
		saved := renames[(k+1)*nv : (k+2)*nv]
		copy(saved, rename)
		savedNext := next
		l := len(buf)
		for i := k; i < n; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			buf = lit(buf, &c.Lits[perm[k]])
			if !worse(buf) {
				try(k + 1)
			}
			buf = buf[:l]
			copy(rename, saved)
			next = savedNext
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	try(0)
	return string(best)
}
