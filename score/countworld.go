package score

import (
	"fmt"
	"math"

	"github.com/marple-mln/marple/mln"
)

// atomSpace numbers the ground atoms of every predicate densely: atom
// p(c_1..c_k) is Offset[p] + Σ_j index_j(c_j)·Stride[p][j], index_j being
// the position of c_j in the domain of p's j-th argument type.
type atomSpace struct {
	m       *mln.Model
	typeIdx [][]int32 // type -> ConstID -> position in the domain (-1: not in it)
	size    []int64   // per predicate: number of groundings
	stride  [][]int64
	offset  []int64 // per predicate: first global atom index
	total   int64
}

func newAtomSpace(m *mln.Model) (*atomSpace, error) {
	s := &atomSpace{m: m}
	nc := m.NumConsts()
	s.typeIdx = make([][]int32, len(m.Types))
	for t, ty := range m.Types {
		idx := make([]int32, nc)
		for i := range idx {
			idx[i] = -1
		}
		for i, c := range ty.Consts {
			idx[c] = int32(i)
		}
		s.typeIdx[t] = idx
	}
	s.size = make([]int64, len(m.Preds))
	s.stride = make([][]int64, len(m.Preds))
	s.offset = make([]int64, len(m.Preds))
	for p, pr := range m.Preds {
		n := int64(1)
		st := make([]int64, len(pr.Args))
		for j := len(pr.Args) - 1; j >= 0; j-- {
			st[j] = n
			d := int64(m.Types[pr.Args[j]].Size())
			if d > 0 && n > math.MaxInt64/d/4 {
				return nil, fmt.Errorf("score: predicate %s has too many groundings", pr.Name)
			}
			n *= d
		}
		s.size[p], s.stride[p] = n, st
		s.offset[p] = s.total
		s.total += n
	}
	return s, nil
}

// id returns the index of p(args) among p's groundings (-1 when an
// argument is outside its type).
func (s *atomSpace) id(p mln.PredID, args []mln.ConstID) int64 {
	pr := s.m.Preds[p]
	st := s.stride[p]
	id := int64(0)
	for j, c := range args {
		i := s.typeIdx[pr.Args[j]][c]
		if i < 0 {
			return -1
		}
		id += int64(i) * st[j]
	}
	return id
}

// cworld is one database as a closed world: its true atoms, indexed for
// joins.
type cworld struct {
	preds []cwPred
	// dom, when not nil, gives each type's domain in this world (a subset
	// of the model's, in its order); nil: the model's domains.
	dom [][]mln.ConstID
	// in[t][i], with dom: the i-th constant of type t is in dom[t].
	in [][]bool
	// pos[t] lists the positions in type t of the constants of the
	// world's domain of t, in order (domPos).
	pos [][]int32
}

// domPos returns the positions in type t of the constants of w's domain
// of t: the i-th constant of the domain is the pos[i]-th of t.
func (w *cworld) domPos(t mln.TypeID) []int32 {
	return w.pos[t]
}

// setPositions fills pos from the domains (the model's without dom).
func (w *cworld) setPositions(s *atomSpace) {
	w.pos = make([][]int32, len(s.m.Types))
	for t, ty := range s.m.Types {
		if w.dom == nil {
			ps := make([]int32, ty.Size())
			for i := range ps {
				ps[i] = int32(i)
			}
			w.pos[t] = ps
			continue
		}
		ps := make([]int32, len(w.dom[t]))
		for i, c := range w.dom[t] {
			ps[i] = s.typeIdx[t][c]
		}
		w.pos[t] = ps
	}
}

// setDomains gives w the domains dom (OwnDomains).
func (w *cworld) setDomains(s *atomSpace, dom [][]mln.ConstID) {
	w.dom = dom
	w.in = make([][]bool, len(dom))
	for t, cs := range dom {
		w.in[t] = make([]bool, s.m.Types[t].Size())
		for _, c := range cs {
			w.in[t][s.typeIdx[t][c]] = true
		}
	}
	w.setPositions(s)
}

type cwPred struct {
	arity int
	args  []mln.ConstID // true atoms' arguments, arity per atom
	bits  []uint64      // true atoms by id (when the predicate is small)
	set   map[int64]struct{}
	// post[j][i]: the true atoms whose j-th argument is the i-th constant
	// of the argument's type.
	post [][][]int32
	// pos[j][a] is the position in its type of atom a's j-th argument;
	// for a binary predicate, other[j][i] lists those of the other
	// argument of the atoms of post[j][i], in the same order.
	pos   [][]int32
	other [][][]int32
}

const cwBitsMax = 1 << 28

func newCWorld(s *atomSpace, db *mln.Database) *cworld {
	m := s.m
	w := &cworld{preds: make([]cwPred, len(m.Preds))}
	for p, pr := range m.Preds {
		wp := &w.preds[p]
		wp.arity = len(pr.Args)
		if s.size[p] <= cwBitsMax {
			wp.bits = make([]uint64, (s.size[p]+63)/64)
		} else {
			wp.set = map[int64]struct{}{}
		}
		wp.post = make([][][]int32, len(pr.Args))
		for j, t := range pr.Args {
			wp.post[j] = make([][]int32, m.Types[t].Size())
		}
		if db == nil {
			continue
		}
		db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
			if v != mln.True {
				return
			}
			id := s.id(mln.PredID(p), args)
			if id < 0 || wp.has(id) {
				return
			}
			if wp.bits != nil {
				wp.bits[id>>6] |= 1 << (id & 63)
			} else {
				wp.set[id] = struct{}{}
			}
			a := int32(len(wp.args) / max(wp.arity, 1))
			if wp.arity == 0 {
				a = 0
			}
			wp.args = append(wp.args, args...)
			for j, c := range args {
				i := s.typeIdx[pr.Args[j]][c]
				wp.post[j][i] = append(wp.post[j][i], a)
			}
			if wp.arity == 0 {
				wp.args = append(wp.args[:0:0], args...)
			}
		})
	}
	for p, pr := range m.Preds {
		w.preds[p].index(s, pr.Args)
	}
	w.setPositions(s)
	return w
}

// index fills pos and other from the true atoms and post.
func (wp *cwPred) index(s *atomSpace, types []mln.TypeID) {
	n := wp.numTrue()
	if wp.arity == 0 {
		return
	}
	wp.pos = make([][]int32, wp.arity)
	for j, t := range types {
		ps := make([]int32, n)
		for a := range n {
			ps[a] = s.typeIdx[t][wp.args[a*wp.arity+j]]
		}
		wp.pos[j] = ps
	}
	if wp.arity != 2 {
		return
	}
	wp.other = make([][][]int32, 2)
	for j := range 2 {
		o := wp.pos[1-j]
		wp.other[j] = make([][]int32, len(wp.post[j]))
		for i, atoms := range wp.post[j] {
			if len(atoms) == 0 {
				continue
			}
			vs := make([]int32, len(atoms))
			for k, a := range atoms {
				vs[k] = o[a]
			}
			wp.other[j][i] = vs
		}
	}
}

// size returns the number of groundings of predicate p in w.
func (w *cworld) size(s *atomSpace, p mln.PredID) int64 {
	if w.dom == nil {
		return s.size[p]
	}
	n := int64(1)
	for _, t := range s.m.Preds[p].Args {
		n *= int64(len(w.dom[t]))
	}
	return n
}

// atomID returns the id (atomSpace) of p's i-th grounding in w (mixed
// radix over w's domains).
func (w *cworld) atomID(s *atomSpace, p mln.PredID, i int64) int64 {
	if w.dom == nil {
		return i
	}
	args := s.m.Preds[p].Args
	id := int64(0)
	for j := len(args) - 1; j >= 0; j-- {
		dom := w.dom[args[j]]
		n := int64(len(dom))
		id += int64(s.typeIdx[args[j]][dom[i%n]]) * s.stride[p][j]
		i /= n
	}
	return id
}

// OwnDomains returns, per type, the model files' constants and those the
// database's atoms mention, in the model's order (Alchemy's domains of one
// database under -multipleDatabases).
func OwnDomains(m *mln.Model, db *mln.Database) [][]mln.ConstID {
	in := make([]map[mln.ConstID]bool, len(m.Types))
	for t, ty := range m.Types {
		in[t] = map[mln.ConstID]bool{}
		for _, c := range ty.Consts[:ty.Declared] {
			in[t][c] = true
		}
	}
	for p, pr := range m.Preds {
		db.Atoms(mln.PredID(p), func(args []mln.ConstID, _ mln.Truth) {
			for j, c := range args {
				in[pr.Args[j]][c] = true
			}
		})
	}
	dom := make([][]mln.ConstID, len(m.Types))
	for t, ty := range m.Types {
		dom[t] = []mln.ConstID{}
		for _, c := range ty.Consts {
			if in[t][c] {
				dom[t] = append(dom[t], c)
			}
		}
	}
	return dom
}

func (wp *cwPred) has(id int64) bool {
	if wp.bits != nil {
		return wp.bits[id>>6]&(1<<(id&63)) != 0
	}
	_, ok := wp.set[id]
	return ok
}

// numTrue returns the number of true atoms of the predicate.
func (wp *cwPred) numTrue() int {
	if wp.arity == 0 {
		if len(wp.bits) > 0 && wp.bits[0]&1 != 0 {
			return 1
		}
		return 0
	}
	return len(wp.args) / wp.arity
}
