package mws

import (
	"context"
	"math"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/unionfind"
)

// problem is the clause set the walk runs on: the network's clauses with
// duplicate literals removed, tautologies and empty clauses dropped (their
// cost does not depend on the assignment), clauses of weight zero dropped,
// and one unit clause per nonzero bias term. Weights are signed: a clause
// with positive weight costs s when false, one with negative weight costs
// -s when true. Hard clauses carry ±hardW.
type problem struct {
	n     int
	lits  []ground.Lit
	start []int32
	s     []float64
	hard  []bool
	hardW float64
	// constCost is the cost of the dropped soft clauses whose state no
	// assignment changes (negative-weight tautologies, positive-weight
	// empty clauses).
	constCost float64

	// occ lists, for each atom, its occurrences as clause<<1 | negated.
	occStart []int32
	occ      []int32
}

// newProblem compiles net and bias into a problem.
func newProblem(net *ground.Network, bias []float64) *problem {
	p, _ := newProblemCtx(context.Background(), net, bias)
	return p
}

// newProblemCtx is newProblem that gives up with ctx.Err() when ctx is
// cancelled.
func newProblemCtx(ctx context.Context, net *ground.Network, bias []float64) (*problem, error) {
	n := net.NumAtoms()
	nc := net.NumClauses()
	// Room for every clause and bias term, so that nothing is regrown.
	m := nc + len(bias)
	p := &problem{n: n, start: make([]int32, 1, m+1), lits: make([]ground.Lit, 0, net.NumLits()+len(bias)),
		hard: make([]bool, 0, m), s: make([]float64, 0, m)}
	mark := make([]int32, n) // atom -> 1+index of its literal in the current clause
	softSum := 0.0
	for c := 0; c < nc; c++ {
		if c&4095 == 4095 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		w := net.Weight(c)
		if w == 0 || math.IsNaN(w) {
			continue
		}
		cl := net.Clause(c)
		base := len(p.lits)
		taut := false
		for _, l := range cl {
			a := l.Atom()
			if m := mark[a]; m != 0 {
				if p.lits[base+int(m)-1] != l {
					taut = true
				}
				continue
			}
			p.lits = append(p.lits, l)
			mark[a] = int32(len(p.lits) - base)
		}
		for _, l := range p.lits[base:] {
			mark[l.Atom()] = 0
		}
		if taut || len(p.lits) == base {
			if !math.IsInf(w, 0) && taut == (w < 0) {
				p.constCost += math.Abs(w)
			}
			p.lits = p.lits[:base]
			continue
		}
		p.start = append(p.start, int32(len(p.lits)))
		hard := math.IsInf(w, 0)
		p.hard = append(p.hard, hard)
		p.s = append(p.s, w)
		if !hard {
			softSum += math.Abs(w)
		}
	}
	for a, b := range bias {
		if b == 0 || math.IsNaN(b) || a >= n {
			continue
		}
		p.lits = append(p.lits, ground.MakeLit(int32(a), false))
		p.start = append(p.start, int32(len(p.lits)))
		p.hard = append(p.hard, false)
		p.s = append(p.s, b)
		softSum += math.Abs(b)
	}
	p.hardW = softSum + 1
	for c, h := range p.hard {
		if h {
			p.s[c] = math.Copysign(p.hardW, p.s[c])
		}
	}
	p.buildOcc()
	return p, nil
}

// buildOcc builds the occurrence lists from the clauses.
func (p *problem) buildOcc() {
	n := p.n
	cnt := make([]int32, n+1)
	for _, l := range p.lits {
		cnt[l.Atom()+1]++
	}
	for i := 1; i <= n; i++ {
		cnt[i] += cnt[i-1]
	}
	p.occ = make([]int32, len(p.lits))
	fill := append([]int32(nil), cnt[:n]...)
	for c := 0; c < p.numClauses(); c++ {
		for _, l := range p.clause(c) {
			a := l.Atom()
			p.occ[fill[a]] = int32(c)<<1 | int32(l&1)
			fill[a]++
		}
	}
	p.occStart = cnt
}

// split renumbers the atoms and clauses of p so that each connected
// component (the atoms linked by clauses, with their clauses) occupies a
// contiguous range of atoms and of clauses. Components come in the order
// of their least atom; atoms in no clause come last, in no component. It
// returns the renumbered problem, perm mapping its atoms to p's (nil when
// p is returned unchanged because it is one component), and the bounds of
// the components: component k has atoms atomStart[k]:atomStart[k+1] and
// clauses clauseStart[k]:clauseStart[k+1].
func (p *problem) split() (q *problem, perm, atomStart, clauseStart []int32) {
	n, nc := p.n, p.numClauses()
	parent := unionfind.New[int32](n)
	find := parent.Find
	for c := 0; c < nc; c++ {
		cl := p.clause(c)
		r := find(cl[0].Atom())
		for _, l := range cl[1:] {
			if s := find(l.Atom()); s != r {
				if s < r {
					r, s = s, r
				}
				parent[s] = r
			}
		}
	}
	// Component numbers in order of least atom; atoms in no clause get -1.
	used := make([]bool, n)
	for _, l := range p.lits {
		used[l.Atom()] = true
	}
	comp := make([]int32, n) // atom -> component, then root -> component
	k := int32(0)
	for a := range comp {
		comp[a] = -1
		if !used[a] {
			continue
		}
		if r := find(int32(a)); r == int32(a) {
			comp[a] = k
			k++
		} else {
			comp[a] = comp[r]
		}
	}
	free := 0
	for _, u := range used {
		if !u {
			free++
		}
	}
	if k <= 1 && free == 0 {
		return p, nil, []int32{0, int32(n)}, []int32{0, int32(nc)}
	}
	// Counting sort of atoms and clauses by component.
	atomStart = make([]int32, k+2)
	for _, c := range comp {
		if c >= 0 {
			atomStart[c+1]++
		}
	}
	clauseStart = make([]int32, k+1)
	for c := 0; c < nc; c++ {
		clauseStart[comp[p.lits[p.start[c]].Atom()]+1]++
	}
	for i := int32(1); i <= k; i++ {
		atomStart[i] += atomStart[i-1]
		clauseStart[i] += clauseStart[i-1]
	}
	atomStart[k+1] = atomStart[k] + int32(free)
	fill := append([]int32(nil), atomStart[:k+1]...)
	perm = make([]int32, n)
	newID := make([]int32, n)
	for a, c := range comp {
		if c < 0 {
			c = k
		}
		newID[a] = fill[c]
		perm[fill[c]] = int32(a)
		fill[c]++
	}
	atomStart = atomStart[:k+1]
	order := make([]int32, nc)
	cfill := append([]int32(nil), clauseStart[:k]...)
	for c := 0; c < nc; c++ {
		ck := comp[p.lits[p.start[c]].Atom()]
		order[cfill[ck]] = int32(c)
		cfill[ck]++
	}
	q = &problem{
		n:         n,
		lits:      make([]ground.Lit, 0, len(p.lits)),
		start:     make([]int32, 1, nc+1),
		s:         make([]float64, nc),
		hard:      make([]bool, nc),
		hardW:     p.hardW,
		constCost: p.constCost,
	}
	for i, c := range order {
		for _, l := range p.clause(int(c)) {
			q.lits = append(q.lits, ground.MakeLit(newID[l.Atom()], l.Neg()))
		}
		q.start = append(q.start, int32(len(q.lits)))
		q.s[i], q.hard[i] = p.s[c], p.hard[c]
	}
	q.buildOcc()
	return q, perm, atomStart, clauseStart
}

func (p *problem) numClauses() int { return len(p.start) - 1 }

func (p *problem) clause(c int) []ground.Lit { return p.lits[p.start[c]:p.start[c+1]] }
