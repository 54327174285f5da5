package ground

import (
	"slices"

	"github.com/marple-mln/marple/internal/unionfind"
	"github.com/marple-mln/marple/mln"
)

// Component is a connected component of a network: atoms linked by the
// clauses they share. Atoms and Clauses are in increasing order.
type Component struct {
	Atoms   []int32
	Clauses []int32
}

// ComponentSizes returns the number of connected components (see
// Components) and the atoms of the largest, without listing them: it takes
// two integers per atom where Components takes a list per component.
func (n *Network) ComponentSizes() (count, largest int) {
	parent := n.componentRoots()
	size := make([]int32, n.numAtoms)
	for a := range parent {
		r := parent.Find(int32(a))
		if size[r] == 0 {
			count++
		}
		size[r]++
		largest = max(largest, int(size[r]))
	}
	return count, largest
}

// componentRoots returns a union-find forest of the atoms through the
// clauses.
func (n *Network) componentRoots() unionfind.Forest[int32] {
	parent := unionfind.New[int32](n.numAtoms)
	for c := 0; c < n.NumClauses(); c++ {
		lits := n.Clause(c)
		if len(lits) == 0 {
			continue
		}
		r := parent.Find(lits[0].Atom())
		for _, l := range lits[1:] {
			s := parent.Find(l.Atom())
			if s != r {
				if s < r {
					r, s = s, r
				}
				parent[s] = r
			}
		}
	}
	return parent
}

// Components returns the connected components of the network's atoms
// through its clauses, ordered by their smallest atom. Every atom is in
// exactly one component (an atom in no clause is a component alone), and
// every clause with literals in one.
func (n *Network) Components() []Component {
	na := n.numAtoms
	parent := n.componentRoots()
	find := parent.Find
	// Number components by smallest atom.
	comp := make([]int32, na)
	var nc int32
	idOf := make([]int32, na)
	for a := range idOf {
		idOf[a] = -1
	}
	for a := 0; a < na; a++ {
		r := find(int32(a))
		if idOf[r] < 0 {
			idOf[r] = nc
			nc++
		}
		comp[a] = idOf[r]
	}
	// Sizes, then fill (counting sort keeps increasing order).
	atomCnt := make([]int32, nc)
	clauseCnt := make([]int32, nc)
	for a := 0; a < na; a++ {
		atomCnt[comp[a]]++
	}
	for c := 0; c < n.NumClauses(); c++ {
		if lits := n.Clause(c); len(lits) > 0 {
			clauseCnt[comp[lits[0].Atom()]]++
		}
	}
	out := make([]Component, nc)
	atomBuf := make([]int32, 0, na)
	clauseBuf := make([]int32, 0, n.NumClauses())
	for i := range out {
		out[i].Atoms = atomBuf[len(atomBuf) : len(atomBuf) : len(atomBuf)+int(atomCnt[i])]
		atomBuf = atomBuf[:len(atomBuf)+int(atomCnt[i])]
		out[i].Clauses = clauseBuf[len(clauseBuf) : len(clauseBuf) : len(clauseBuf)+int(clauseCnt[i])]
		clauseBuf = clauseBuf[:len(clauseBuf)+int(clauseCnt[i])]
	}
	for a := 0; a < na; a++ {
		k := comp[a]
		out[k].Atoms = append(out[k].Atoms, int32(a))
	}
	for c := 0; c < n.NumClauses(); c++ {
		if lits := n.Clause(c); len(lits) > 0 {
			k := comp[lits[0].Atom()]
			out[k].Clauses = append(out[k].Clauses, int32(c))
		}
	}
	return out
}

// Sub returns component c as a standalone network: atom i of the result is
// c.Atoms[i] (recorded in Global), clause j is c.Clauses[j] (recorded in
// GlobalClause), with their weights, sources, parameters and coefficients.
// The result's ConstScore and HardFalse are zero and its EvidenceCount nil
// (all zeros), so the parent's Score(y) is its ConstScore plus the sum of its
// components' scores (and likewise for Counts and hard violations). Every
// atom of c's clauses must be in c.Atoms.
func (n *Network) Sub(c Component) *Network {
	local := n.localizer(c.Atoms)
	s := &Network{Model: n.Model, numAtoms: len(c.Atoms), pw: n.pw}
	s.Global = slices.Clone(c.Atoms)
	s.GlobalClause = slices.Clone(c.Clauses)
	if len(n.AtomPred) > 0 {
		s.AtomPred = make([]mln.PredID, len(c.Atoms))
		s.AtomArgs = make([][]mln.ConstID, len(c.Atoms))
		for i, a := range c.Atoms {
			s.AtomPred[i] = n.AtomPred[a]
			s.AtomArgs[i] = n.AtomArgs[a]
		}
	}
	s.addr = make([]uint32, 0, len(c.Clauses))
	s.size = make([]uint8, 0, len(c.Clauses))
	if n.weight != nil {
		s.weight = make([]float64, 0, len(c.Clauses))
	}
	if n.param != nil {
		s.param = make([]int32, 0, len(c.Clauses))
	}
	var buf []Lit
	for _, cl := range c.Clauses {
		buf = buf[:0]
		for _, l := range n.Clause(int(cl)) {
			buf = append(buf, MakeLit(local(l.Atom()), l.Neg()))
		}
		r := n.runOf(int(cl))
		s.appendClause(buf, r.source, n.Param(int(cl)), r.coef, r.hard)
		if s.weight != nil {
			s.weight = append(s.weight, n.weight[cl])
		}
	}
	return s
}

// localizer maps parent atoms to positions in atoms: by binary search when
// atoms is sorted, else through a map.
func (n *Network) localizer(atoms []int32) func(int32) int32 {
	if slices.IsSorted(atoms) {
		return func(a int32) int32 {
			i, ok := slices.BinarySearch(atoms, a)
			if !ok {
				panic("ground: Sub: a clause's atom is not in the component")
			}
			return int32(i)
		}
	}
	idx := make(map[int32]int32, len(atoms))
	for i, a := range atoms {
		idx[a] = int32(i)
	}
	return func(a int32) int32 {
		i, ok := idx[a]
		if !ok {
			panic("ground: Sub: a clause's atom is not in the component")
		}
		return i
	}
}
