package exact

import (
	"context"
	"math"

	"github.com/marple-mln/marple/ground"
)

// serialPrep is the simplified network of prepareSerial: the residual
// clauses in one list and the union-find over them.
type serialPrep struct {
	*prep
	rlits  []ground.Lit
	rstart []int32
	rw     []float64
	uf     []int32
	inRes  []bool
}

// prepareSerial is the serial prepare of before the parallel one: the
// reference the tests compare it with. It normalises the clauses, finds the original components, propagates
// hard unit clauses and simplifies. It returns nil when ctx is cancelled.
func prepareSerial(ctx context.Context, net *ground.Network, bias []float64) *serialPrep {
	n := net.NumAtoms()
	m := net.NumClauses()
	pr := &serialPrep{prep: &prep{net: net, bias: bias, n: n}}

	// Normalise.
	mark := make([]int32, n)
	sign := make([]bool, n)
	pr.nlits = make([]ground.Lit, 0, net.NumLits())
	pr.nstart = make([]int32, 1, m+1)
	pr.taut = make([]bool, m)
	for c := 0; c < m; c++ {
		if c&4095 == 4095 && ctx.Err() != nil {
			return nil
		}
		s := len(pr.nlits)
		for _, l := range net.Clause(c) {
			a := l.Atom()
			if mark[a] == int32(c+1) {
				if sign[a] != l.Neg() {
					pr.taut[c] = true
				}
				continue
			}
			mark[a], sign[a] = int32(c+1), l.Neg()
			pr.nlits = append(pr.nlits, l)
		}
		if pr.taut[c] {
			pr.nlits = pr.nlits[:s]
		}
		pr.nstart = append(pr.nstart, int32(len(pr.nlits)))
	}

	// Original components.
	root := make([]int32, n)
	for a := range root {
		root[a] = int32(a)
	}
	for c := 0; c < m; c++ {
		if c&4095 == 4095 && ctx.Err() != nil {
			return nil
		}
		ls := pr.clause(c)
		for i := 1; i < len(ls); i++ {
			union(root, ls[0].Atom(), ls[i].Atom())
		}
	}
	for a := range root {
		root[a] = find(root, int32(a))
	}
	pr.root = root
	pr.conflict = make([]bool, n)

	pr.propagate()

	// Constant part and linear terms.
	pr.u = make([]float64, n)
	for a, b := range bias {
		pr.u[a] = -b
	}
	val := pr.val
	uf := make([]int32, n)
	for a := range uf {
		uf[a] = int32(a)
	}
	inRes := make([]bool, n)
	pr.rlits = make([]ground.Lit, 0, len(pr.nlits))
	pr.rstart = make([]int32, 1, m+1)
	pr.rw = make([]float64, 0, m)
	for c := 0; c < m; c++ {
		if c&4095 == 4095 && ctx.Err() != nil {
			return nil
		}
		w := net.Weight(c)
		hard := math.IsInf(w, 1)
		if !hard && w < 0 {
			pr.constant -= w
		}
		if pr.taut[c] {
			continue
		}
		ls := pr.clause(c)
		if len(ls) == 0 {
			if hard {
				pr.hardEmpty++
			} else {
				pr.constant += w
			}
			continue
		}
		if pr.conflict[root[ls[0].Atom()]] {
			continue
		}
		s := len(pr.rlits)
		sat := false
		for _, l := range ls {
			switch v := val[l.Atom()]; {
			case v == 0:
				pr.rlits = append(pr.rlits, l)
			case (v > 0) != l.Neg():
				sat = true
			}
		}
		free := pr.rlits[s:]
		if sat || hard && len(free) < 2 {
			// Hard clauses with fewer than two free literals are
			// satisfied after propagation without conflict.
			pr.rlits = pr.rlits[:s]
			continue
		}
		switch len(free) {
		case 0:
			pr.constant += w
		case 1:
			if l := free[0]; l.Neg() {
				pr.u[l.Atom()] += w
			} else {
				pr.constant += w
				pr.u[l.Atom()] -= w
			}
		}
		if len(free) < 2 {
			pr.rlits = pr.rlits[:s]
			continue
		}
		for _, l := range free {
			inRes[l.Atom()] = true
			union(uf, free[0].Atom(), l.Atom())
		}
		pr.rstart = append(pr.rstart, int32(len(pr.rlits)))
		pr.rw = append(pr.rw, w)
	}

	// Forced atoms and singletons.
	pr.assign = make([]bool, n)
	for a := 0; a < n; a++ {
		if pr.conflict[root[a]] {
			continue
		}
		switch {
		case val[a] != 0:
			pr.forced++
			if val[a] > 0 {
				pr.assign[a] = true
				pr.constant += pr.u[a]
			}
		case !inRes[a]:
			pr.singletons++
			if pr.u[a] < 0 {
				pr.assign[a] = true
				pr.constant += pr.u[a]
			}
		}
	}
	pr.uf, pr.inRes = uf, inRes
	return pr
}

// componentsSerial is the serial components: it returns the components of the residual clauses, ordered by
// smallest atom.
func (pr *serialPrep) componentsSerial() []*problem {
	n := pr.n
	comp := make([]int32, n) // root -> component index
	for a := range comp {
		comp[a] = -1
	}
	var first []int32 // component -> smallest atom
	var natoms []int32
	local := make([]int32, n)
	for a := 0; a < n; a++ {
		if !pr.inRes[a] {
			continue
		}
		r := find(pr.uf, int32(a))
		if comp[r] < 0 {
			comp[r] = int32(len(first))
			first = append(first, int32(a))
			natoms = append(natoms, 0)
		}
		k := comp[r]
		local[a] = natoms[k]
		natoms[k]++
	}
	nc := len(first)
	if nc == 0 {
		return nil
	}
	compOf := func(a int32) int32 { return comp[find(pr.uf, a)] }
	// Atom and clause offsets per component.
	aoff := make([]int32, nc+1)
	for k := 0; k < nc; k++ {
		aoff[k+1] = aoff[k] + natoms[k]
	}
	ncl := make([]int32, nc+1)
	nlit := make([]int32, nc+1)
	nr := len(pr.rw)
	for c := 0; c < nr; c++ {
		k := compOf(pr.rlits[pr.rstart[c]].Atom())
		ncl[k+1]++
		nlit[k+1] += pr.rstart[c+1] - pr.rstart[c]
	}
	for k := 0; k < nc; k++ {
		ncl[k+1] += ncl[k]
		nlit[k+1] += nlit[k]
	}
	atoms := make([]int32, aoff[nc])
	unary := make([]float64, aoff[nc])
	for a := 0; a < n; a++ {
		if pr.inRes[a] {
			k := compOf(int32(a))
			i := aoff[k] + local[a]
			atoms[i] = int32(a)
			unary[i] = pr.u[a]
		}
	}
	lits := make([]ground.Lit, nlit[nc])
	w := make([]float64, nr)
	// start arrays: one per component, each of length ncl+1.
	starts := make([]int32, nr+nc)
	cfill := append([]int32(nil), ncl[:nc]...)
	lfill := append([]int32(nil), nlit[:nc]...)
	for c := 0; c < nr; c++ {
		ls := pr.rlits[pr.rstart[c]:pr.rstart[c+1]]
		k := compOf(ls[0].Atom())
		ci := cfill[k]
		cfill[k]++
		w[ci] = pr.rw[c]
		for _, l := range ls {
			lits[lfill[k]] = ground.MakeLit(local[l.Atom()], l.Neg())
			lfill[k]++
		}
		// Component k's start array is starts[ncl[k]+k : ncl[k+1]+k+1].
		starts[int(ci)+int(k)+1] = lfill[k] - nlit[k]
	}
	probs := make([]*problem, nc)
	for k := 0; k < nc; k++ {
		st := starts[int(ncl[k])+k : int(ncl[k+1])+k+1]
		st[0] = 0
		probs[k] = &problem{
			atoms: atoms[aoff[k]:aoff[k+1]],
			lits:  lits[nlit[k]:nlit[k+1]],
			start: st,
			w:     w[ncl[k]:ncl[k+1]],
			unary: unary[aoff[k]:aoff[k+1]],
			orig:  pr.root[first[k]],
			pr:    pr.prep,
		}
	}
	return probs
}
