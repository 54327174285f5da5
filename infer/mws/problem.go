package mws

import (
	"math"

	"github.com/marple-mln/marple/ground"
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
	n := net.NumAtoms()
	p := &problem{n: n, start: []int32{0}}
	mark := make([]int32, n) // atom -> 1+index of its literal in the current clause
	softSum := 0.0
	nc := net.NumClauses()
	for c := 0; c < nc; c++ {
		w := net.Weight[c]
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
	// Occurrence lists.
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
	return p
}

func (p *problem) numClauses() int { return len(p.start) - 1 }

func (p *problem) clause(c int) []ground.Lit { return p.lits[p.start[c]:p.start[c+1]] }
