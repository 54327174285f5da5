package lp

import (
	"context"
	"math"

	"github.com/marple-mln/marple/ground"
)

// Kinds of factor (ground clause with two or more distinct atoms).
const (
	kindPos  uint8 = iota // positive weight: cost w·max(0, 1 − Σu)
	kindNeg               // negative weight: cost |w|·max_i u_i
	kindHard              // hard: Σu ≥ 1
)

// problem is the LP in cost form, after normalisation:
//
//	minimise  K + Σ_a c_a y_a + Σ_j φ_j(u_j(y))   over lo ≤ y ≤ hi
//
// where u_j(y) are the literal values of factor j (y_a for a positive
// literal, 1 − y_a for a negated one) and φ_j is the hinge of its kind.
// Unit clauses are folded into c and K (hard unit clauses into lo/hi),
// literals are deduplicated, tautologies and empty clauses become
// constants.
type problem struct {
	n      int
	k      float64   // constant cost
	c      []float64 // linear cost per atom
	lo, hi []float64 // box per atom

	// Factors in compressed rows over literal slots.
	fStart []int32
	fAtom  []int32 // atom of each slot
	fNeg   []bool  // slot literal negated
	fW     []float64
	fKind  []uint8
	nHard  int // number of hard factors
	// droppedHard counts hard clauses left out of the LP: empty ones and
	// pairs of contradictory hard unit clauses.
	droppedHard int
	sFac        []int32 // factor of each slot
	// Literal value u = off + sg·y of each slot (and y = off + sg·u).
	off, sg []float64

	// Atom -> slots, compressed rows.
	occStart []int32
	occSlot  []int32

	// score offset: ConstScore + Σ_{soft w>0} w, so that
	// biased score = offset − biased cost.
	scoreOffset float64
	// scale is a typical weight magnitude (for ρ and tolerances).
	scale float64
}

func (p *problem) numFactors() int { return len(p.fKind) }

// newProblem normalises net (with bias, may be nil) into a problem.
func newProblem(net *ground.Network, bias []float64) *problem {
	p, _ := newProblemCtx(context.Background(), net, bias)
	return p
}

// newProblemCtx is newProblem that gives up with ctx.Err() when ctx is
// cancelled.
func newProblemCtx(ctx context.Context, net *ground.Network, bias []float64) (*problem, error) {
	n := net.NumAtoms()
	p := &problem{
		n:      n,
		c:      make([]float64, n),
		lo:     make([]float64, n),
		hi:     make([]float64, n),
		fStart: []int32{0},
	}
	for a := range p.hi {
		p.hi[a] = 1
	}
	for a, b := range bias {
		p.c[a] -= b
	}
	p.scoreOffset = net.ConstScore
	fixLo := make([]bool, n) // hard unit clause y_a = 1
	fixHi := make([]bool, n) // hard unit clause y_a = 0
	mark := make([]int8, n)  // 0 unseen, 1 positive, 2 negated (scratch)
	var lits []ground.Lit
	var sumW float64
	var nW int
	for c := 0; c < net.NumClauses(); c++ {
		if c&4095 == 4095 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		w := net.Weight(c)
		hard := math.IsInf(w, 1)
		if !hard && w > 0 {
			p.scoreOffset += w
		}
		if w == 0 || math.IsNaN(w) || math.IsInf(w, -1) {
			continue
		}
		// Deduplicate literals; detect tautologies.
		lits = lits[:0]
		taut := false
		for _, l := range net.Clause(c) {
			a := l.Atom()
			m := int8(1)
			if l.Neg() {
				m = 2
			}
			switch mark[a] {
			case 0:
				mark[a] = m
				lits = append(lits, l)
			case m:
			default:
				taut = true
			}
		}
		for _, l := range lits {
			mark[l.Atom()] = 0
		}
		aw := math.Abs(w)
		if !hard {
			sumW += aw
			nW++
		}
		switch {
		case taut:
			// Always satisfied: a negative-weight clause always costs |w|.
			if !hard && w < 0 {
				p.k += aw
			}
		case len(lits) == 0:
			// Always violated: a positive-weight clause always costs w.
			// An empty hard clause cannot be met by any assignment; it is
			// dropped (the bound stays valid for the remaining problem).
			if !hard && w > 0 {
				p.k += w
			}
			if hard {
				p.droppedHard++
			}
		case len(lits) == 1:
			l := lits[0]
			a := l.Atom()
			switch {
			case hard && l.Neg():
				fixHi[a] = true
			case hard:
				fixLo[a] = true
			case w > 0 && !l.Neg(): // w·(1 − y)
				p.k += w
				p.c[a] -= w
			case w > 0: // w·y
				p.c[a] += w
			case !l.Neg(): // |w|·y
				p.c[a] += aw
			default: // |w|·(1 − y)
				p.k += aw
				p.c[a] -= aw
			}
		default:
			kind := kindPos
			switch {
			case hard:
				kind, aw = kindHard, 0
			case w < 0:
				kind = kindNeg
			}
			for _, l := range lits {
				p.fAtom = append(p.fAtom, l.Atom())
				p.fNeg = append(p.fNeg, l.Neg())
			}
			p.fStart = append(p.fStart, int32(len(p.fAtom)))
			p.fW = append(p.fW, aw)
			p.fKind = append(p.fKind, kind)
			if kind == kindHard {
				p.nHard++
			}
		}
	}
	for a := 0; a < n; a++ {
		// Contradictory hard unit clauses are both dropped from the LP.
		if fixLo[a] && !fixHi[a] {
			p.lo[a] = 1
		}
		if fixHi[a] && !fixLo[a] {
			p.hi[a] = 0
		}
		if fixHi[a] && fixLo[a] {
			p.droppedHard++
		}
	}
	p.off = make([]float64, len(p.fAtom))
	p.sg = make([]float64, len(p.fAtom))
	for t, neg := range p.fNeg {
		p.sg[t] = 1
		if neg {
			p.off[t], p.sg[t] = 1, -1
		}
	}
	p.sFac = make([]int32, len(p.fAtom))
	for j := 0; j < p.numFactors(); j++ {
		for t := p.fStart[j]; t < p.fStart[j+1]; t++ {
			p.sFac[t] = int32(j)
		}
	}
	p.scale = 1
	if nW > 0 && sumW > 0 {
		p.scale = sumW / float64(nW)
	}
	// Atom -> slot index.
	cnt := make([]int32, n+1)
	for _, a := range p.fAtom {
		cnt[a+1]++
	}
	for a := 1; a <= n; a++ {
		cnt[a] += cnt[a-1]
	}
	p.occStart = cnt
	p.occSlot = make([]int32, len(p.fAtom))
	fill := append([]int32(nil), cnt[:n]...)
	for s, a := range p.fAtom {
		p.occSlot[fill[a]] = int32(s)
		fill[a]++
	}
	return p, nil
}

// maxCost returns an upper bound on the cost of any point of the box.
func (p *problem) maxCost() float64 {
	m := p.k
	for a, c := range p.c {
		m += math.Max(c*p.lo[a], c*p.hi[a])
	}
	for _, w := range p.fW {
		m += w
	}
	return m
}

// objective returns the LP objective (cost units) at y (which must lie in
// the box) and the largest violation of a hard factor.
func (p *problem) objective(y []float64) (cost, hardViol float64) {
	cost = p.k
	for a, ca := range p.c {
		cost += ca * y[a]
	}
	for j := range p.fKind {
		v := p.factorCost(j, y)
		if p.fKind[j] == kindHard {
			hardViol = math.Max(hardViol, v)
		} else {
			cost += v
		}
	}
	return cost, hardViol
}

// factorCost returns φ_j at y, or for a hard factor its violation
// max(0, 1 − Σu).
func (p *problem) factorCost(j int, y []float64) float64 {
	lo, hi := p.fStart[j], p.fStart[j+1]
	switch p.fKind[j] {
	case kindNeg:
		m := 0.0
		for s := lo; s < hi; s++ {
			m = math.Max(m, litVal(y[p.fAtom[s]], p.fNeg[s]))
		}
		return p.fW[j] * m
	default:
		sum := 0.0
		for s := lo; s < hi; s++ {
			sum += litVal(y[p.fAtom[s]], p.fNeg[s])
		}
		v := math.Max(0, 1-sum)
		if p.fKind[j] == kindPos {
			v *= p.fW[j]
		}
		return v
	}
}

func litVal(y float64, neg bool) float64 {
	if neg {
		return 1 - y
	}
	return y
}
