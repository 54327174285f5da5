package exact

import (
	"context"
	"math"
	"sync"

	"github.com/marple-mln/marple/ground"
)

// A problem is one independent component: local atoms 0..len(atoms)-1,
// clauses of two or more literals over them and a linear term per atom. Its
// residual objective is the sum of w[c] over the clauses c whose literals
// are all false plus the sum of unary[a] over the true atoms; w[c] may be
// negative, and +Inf for a hard clause.
type problem struct {
	atoms []int32      // global atom IDs, ascending
	lits  []ground.Lit // local literals
	start []int32      // clause c is lits[start[c]:start[c+1]]
	w     []float64
	unary []float64
	// orig is the original component (root atom) the problem belongs to.
	orig int32
	// relaxed is set when the hard clauses were turned into soft ones of
	// weight hardW, to minimise the number violated.
	relaxed bool
	hardW   float64
	// pr is the simplified network the problem comes from (nil for a
	// relaxed problem): the warm start takes the soft unit clauses
	// behind the linear terms from it.
	pr *prep
}

// outcome is the result of solving one problem.
type outcome struct {
	stats      ComponentStats
	infeasible bool // hard clauses proved unsatisfiable
}

// prep holds the simplified network.
type prep struct {
	net  *ground.Network
	bias []float64
	n    int

	// Normalised clauses: duplicate literals removed; taut marks clauses
	// with complementary literals.
	nlits  []ground.Lit
	nstart []int32
	taut   []bool

	root     []int32 // original component of each atom (union-find root)
	conflict []bool  // by root: unit propagation met a conflict
	val      []int8  // forced value: 0 free, 1 true, -1 false
	u        []float64

	// Residual clauses (two or more free literals) of the components
	// without conflict, with global literals.
	rlits  []ground.Lit
	rstart []int32
	rw     []float64

	uf    []int32 // union-find over the residual clauses
	inRes []bool  // atom occurs in a residual clause

	assign    []bool
	constant  float64 // constant part of the cost (see SolveStats' Bound)
	forced    int
	hardEmpty int
	// singletons counts free atoms in no residual clause.
	singletons int

	// The soft clauses left with one free literal, by atom (compressed
	// rows), built on demand by units.
	unitOnce  sync.Once
	unitStart []int32
	unitLits  []ground.Lit
	unitW     []float64
}

// units returns the soft clauses that unit propagation left with a single
// free literal (original unit clauses included) in the components without
// conflict, as compressed rows by atom: atom a has the literals
// unitLits[unitStart[a]:unitStart[a+1]] with weights unitW. Their sum, with
// the bias, makes the linear terms of the residual problems.
func (pr *prep) units() ([]int32, []ground.Lit, []float64) {
	pr.unitOnce.Do(func() {
		net, val := pr.net, pr.val
		m := net.NumClauses()
		lit := make([]ground.Lit, m)
		ok := make([]bool, m)
		cnt := make([]int32, pr.n+1)
		for c := 0; c < m; c++ {
			w := net.Weight(c)
			if pr.taut[c] || math.IsInf(w, 1) || w == 0 {
				continue
			}
			ls := pr.clause(c)
			if len(ls) == 0 || pr.conflict[pr.root[ls[0].Atom()]] {
				continue
			}
			free, sat := 0, false
			for _, l := range ls {
				switch v := val[l.Atom()]; {
				case v == 0:
					free++
					lit[c] = l
				case (v > 0) != l.Neg():
					sat = true
				}
			}
			if !sat && free == 1 {
				ok[c] = true
				cnt[lit[c].Atom()+1]++
			}
		}
		for a := 0; a < pr.n; a++ {
			cnt[a+1] += cnt[a]
		}
		pr.unitLits = make([]ground.Lit, cnt[pr.n])
		pr.unitW = make([]float64, cnt[pr.n])
		fill := append([]int32(nil), cnt[:pr.n]...)
		for c := 0; c < m; c++ {
			if ok[c] {
				a := lit[c].Atom()
				pr.unitLits[fill[a]] = lit[c]
				pr.unitW[fill[a]] = net.Weight(c)
				fill[a]++
			}
		}
		pr.unitStart = cnt
	})
	return pr.unitStart, pr.unitLits, pr.unitW
}

func find(p []int32, a int32) int32 {
	for p[a] != a {
		p[a] = p[p[a]]
		a = p[a]
	}
	return a
}

func union(p []int32, a, b int32) {
	a, b = find(p, a), find(p, b)
	if a == b {
		return
	}
	if a < b {
		p[b] = a
	} else {
		p[a] = b
	}
}

// prepare normalises the clauses, finds the original components, propagates
// hard unit clauses and simplifies. It returns nil when ctx is cancelled.
func prepare(ctx context.Context, net *ground.Network, bias []float64) *prep {
	n := net.NumAtoms()
	m := net.NumClauses()
	pr := &prep{net: net, bias: bias, n: n}

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

func (pr *prep) clause(c int) []ground.Lit { return pr.nlits[pr.nstart[c]:pr.nstart[c+1]] }

// propagate fixes the atoms forced by hard unit clauses, marking the
// original components where a hard clause becomes false.
func (pr *prep) propagate() {
	net, n, m := pr.net, pr.n, pr.net.NumClauses()
	pr.val = make([]int8, n)
	val := pr.val
	// Occurrences in hard clauses of two or more literals.
	cnt := make([]int32, n+1)
	for c := 0; c < m; c++ {
		if net.IsHard(c) && !pr.taut[c] && len(pr.clause(c)) >= 2 {
			for _, l := range pr.clause(c) {
				cnt[l.Atom()+1]++
			}
		}
	}
	for a := 0; a < n; a++ {
		cnt[a+1] += cnt[a]
	}
	occ := make([]int32, cnt[n])
	fill := append([]int32(nil), cnt[:n]...)
	for c := 0; c < m; c++ {
		if net.IsHard(c) && !pr.taut[c] && len(pr.clause(c)) >= 2 {
			for _, l := range pr.clause(c) {
				occ[fill[l.Atom()]] = int32(c)
				fill[l.Atom()]++
			}
		}
	}
	var queue []int32
	set := func(l ground.Lit) {
		a := l.Atom()
		want := int8(1)
		if l.Neg() {
			want = -1
		}
		switch val[a] {
		case 0:
			val[a] = want
			queue = append(queue, a)
		case -want:
			pr.conflict[pr.root[a]] = true
		}
	}
	for c := 0; c < m; c++ {
		if net.IsHard(c) && !pr.taut[c] && len(pr.clause(c)) == 1 {
			set(pr.clause(c)[0])
		}
	}
	for len(queue) > 0 {
		a := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if pr.conflict[pr.root[a]] {
			continue
		}
		for _, c := range occ[cnt[a]:cnt[a+1]] {
			var last ground.Lit
			free, sat := 0, false
			for _, l := range pr.clause(int(c)) {
				v := val[l.Atom()]
				if v == 0 {
					free++
					last = l
				} else if (v > 0) != l.Neg() {
					sat = true
					break
				}
			}
			if sat {
				continue
			}
			switch free {
			case 0:
				pr.conflict[pr.root[a]] = true
			case 1:
				set(last)
			}
		}
	}
	for a := 0; a < n; a++ {
		if pr.conflict[pr.root[a]] {
			val[a] = 0
		}
	}
}

// conflictRoots returns the original components where propagation met a
// conflict.
func (pr *prep) conflictRoots() []int32 {
	var rs []int32
	for a := 0; a < pr.n; a++ {
		if pr.root[a] == int32(a) && pr.conflict[a] {
			rs = append(rs, int32(a))
		}
	}
	return rs
}

// components returns the components of the residual clauses, ordered by
// smallest atom.
func (pr *prep) components() []*problem {
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
			pr:    pr,
		}
	}
	return probs
}

// relaxed returns, for each original component in roots, the problem over
// all its atoms and clauses (no propagation) with hard clauses made soft
// with a weight exceeding the total soft weight.
func (pr *prep) relaxed(roots []int32) []*problem {
	if len(roots) == 0 {
		return nil
	}
	net := pr.net
	idx := make([]int32, pr.n) // root -> problem index + 1
	probs := make([]*problem, len(roots))
	for i, r := range roots {
		idx[r] = int32(i + 1)
		probs[i] = &problem{orig: r, relaxed: true, start: []int32{0}}
	}
	local := make([]int32, pr.n)
	for a := 0; a < pr.n; a++ {
		if i := idx[pr.root[a]] - 1; i >= 0 {
			p := probs[i]
			local[a] = int32(len(p.atoms))
			p.atoms = append(p.atoms, int32(a))
			b := 0.0
			if pr.bias != nil {
				b = pr.bias[a]
			}
			p.unary = append(p.unary, -b)
			p.hardW += math.Abs(b)
		}
	}
	// Total soft weight, then the hard weight.
	for c := 0; c < net.NumClauses(); c++ {
		ls := pr.clause(c)
		if pr.taut[c] || len(ls) == 0 || net.IsHard(c) {
			continue
		}
		if i := idx[pr.root[ls[0].Atom()]] - 1; i >= 0 {
			probs[i].hardW += math.Abs(net.Weight(c))
		}
	}
	for _, p := range probs {
		p.hardW = math.Ldexp(1, math.Ilogb(p.hardW+1)+2)
	}
	for c := 0; c < net.NumClauses(); c++ {
		ls := pr.clause(c)
		if pr.taut[c] || len(ls) == 0 {
			continue
		}
		i := idx[pr.root[ls[0].Atom()]] - 1
		if i < 0 {
			continue
		}
		p := probs[i]
		w := net.Weight(c)
		if math.IsInf(w, 1) {
			w = p.hardW
		}
		if len(ls) == 1 {
			l := ls[0]
			if l.Neg() {
				p.unary[local[l.Atom()]] += w
			} else {
				p.unary[local[l.Atom()]] -= w
			}
			continue
		}
		for _, l := range ls {
			p.lits = append(p.lits, ground.MakeLit(local[l.Atom()], l.Neg()))
		}
		p.start = append(p.start, int32(len(p.lits)))
		p.w = append(p.w, w)
	}
	return probs
}
