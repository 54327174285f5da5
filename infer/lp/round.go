package lp

import (
	"context"
	"math"
)

// rounder is the state of ROUNDUP.
type rounder struct {
	p     *problem
	y     []float64
	fixed []bool
	// For hard factors: literals fixed false, literals fixed true.
	nFalse, nTrue []int32
	// Indexed max-heap of unfixed atoms by |soft slope|.
	heap  []int32
	pos   []int32 // heap position, -1 when absent
	key   []float64
	stack []int32
}

// roundup rounds the fractional point y (in the box) to a 0/1 assignment,
// in place. It is ROUNDUP (Boros & Hammer 2002) as Huynh & Mooney adapt
// it: one fractional atom at a time is fixed to 0 or 1. The soft clauses
// are rounded by the method of conditional expectations on their
// multilinear extension (the expected cost when each atom is true with
// probability y_a independently), which is linear in each y_a, so fixing
// an atom to the better of 0 and 1 never raises it. The next atom fixed is
// the unfixed one whose choice matters most (largest |slope|; ties to the
// lower index), so confident decisions are taken first and inform the
// rest. Hard clauses are kept by propagation instead: an atom is not
// given a value that falsifies a hard clause whose other literals are all
// fixed false (unless both values do), and a hard clause left with a single
// unfixed literal and none true forces it. Atoms already at 0 or 1 keep
// their values. Only a forced or forbidden value can raise the expected
// soft cost. It stops early, leaving y partly rounded, when ctx is
// cancelled (checked before each fixed atom), and returns ctx's error.
func roundup(ctx context.Context, p *problem, y []float64) error {
	r := &rounder{
		p:      p,
		y:      y,
		fixed:  make([]bool, p.n),
		nFalse: make([]int32, p.numFactors()),
		nTrue:  make([]int32, p.numFactors()),
		pos:    make([]int32, p.n),
		key:    make([]float64, p.n),
	}
	for a, v := range y {
		r.pos[a] = -1
		r.fixed[a] = v == 0 || v == 1
	}
	for j := range p.fKind {
		if p.fKind[j] != kindHard {
			continue
		}
		for t := p.fStart[j]; t < p.fStart[j+1]; t++ {
			if a := p.fAtom[t]; r.fixed[a] {
				if litVal(y[a], p.fNeg[t]) == 1 {
					r.nTrue[j]++
				} else {
					r.nFalse[j]++
				}
			}
		}
	}
	for a := range y {
		if !r.fixed[a] {
			r.key[a] = math.Abs(r.slope(int32(a)))
			r.push(int32(a))
		}
	}
	// Hard clauses that are unit already.
	for j := range p.fKind {
		if p.fKind[j] == kindHard {
			r.unit(int32(j))
		}
	}
	r.propagate()
	for len(r.heap) > 0 {
		// A fix on a dense network updates the slopes of every neighbour:
		// check for cancellation before each.
		if err := ctx.Err(); err != nil {
			return err
		}
		a := r.heap[0]
		ss := r.slope(a)
		v := 0.0
		if ss < 0 || (ss == 0 && y[a] >= 0.5) {
			v = 1
		}
		if r.forbidden(a, v) && !r.forbidden(a, 1-v) {
			v = 1 - v
		}
		r.fix(a, v)
		r.propagate()
	}
	return nil
}

// slope returns the derivative in y_a of the multilinear extension of the
// soft cost (linear terms included).
func (r *rounder) slope(a int32) float64 {
	p, y := r.p, r.y
	ss := p.c[a]
	for _, t := range p.occSlot[p.occStart[a]:p.occStart[a+1]] {
		j := p.sFac[t]
		if p.fKind[j] == kindHard {
			continue
		}
		q := p.fW[j] // w · Π over the other literals of (1 − u)
		for o := p.fStart[j]; o < p.fStart[j+1]; o++ {
			if o != t {
				q *= 1 - litVal(y[p.fAtom[o]], p.fNeg[o])
			}
		}
		// d P(unsat)/d y_a is −Π for a positive literal, +Π for a negated
		// one; a negative-weight clause costs |w|·(1 − P(unsat)).
		if p.fNeg[t] == (p.fKind[j] == kindPos) {
			ss += q
		} else {
			ss -= q
		}
	}
	return ss
}

// forbidden reports whether giving atom a the value v falsifies a hard
// clause whose other literals are all fixed false.
func (r *rounder) forbidden(a int32, v float64) bool {
	p := r.p
	for _, t := range p.occSlot[p.occStart[a]:p.occStart[a+1]] {
		j := p.sFac[t]
		if p.fKind[j] != kindHard || r.nTrue[j] > 0 || litVal(v, p.fNeg[t]) == 1 {
			continue
		}
		if r.nFalse[j] == p.fStart[j+1]-p.fStart[j]-1 {
			return true
		}
	}
	return false
}

// fix gives atom a the value v and updates the counts, the slopes of its
// soft neighbours and the propagation stack.
func (r *rounder) fix(a int32, v float64) {
	p := r.p
	r.y[a] = v
	r.fixed[a] = true
	r.remove(a)
	for _, t := range p.occSlot[p.occStart[a]:p.occStart[a+1]] {
		j := p.sFac[t]
		if p.fKind[j] == kindHard {
			if litVal(v, p.fNeg[t]) == 1 {
				r.nTrue[j]++
			} else {
				r.nFalse[j]++
				r.unit(j)
			}
			continue
		}
		for o := p.fStart[j]; o < p.fStart[j+1]; o++ {
			if b := p.fAtom[o]; !r.fixed[b] {
				r.key[b] = math.Abs(r.slope(b))
				r.fixHeap(b)
			}
		}
	}
}

// unit queues the forced literal of hard factor j if it has one.
func (r *rounder) unit(j int32) {
	p := r.p
	k := p.fStart[j+1] - p.fStart[j]
	if r.nTrue[j] > 0 || r.nFalse[j] != k-1 {
		return
	}
	for o := p.fStart[j]; o < p.fStart[j+1]; o++ {
		if b := p.fAtom[o]; !r.fixed[b] {
			r.stack = append(r.stack, int32(o))
			return
		}
	}
}

// propagate fixes the forced literals on the stack (slot indices).
func (r *rounder) propagate() {
	p := r.p
	for len(r.stack) > 0 {
		t := r.stack[len(r.stack)-1]
		r.stack = r.stack[:len(r.stack)-1]
		a := p.fAtom[t]
		if r.fixed[a] {
			continue // already decided (possibly a conflict)
		}
		v := 1.0
		if p.fNeg[t] {
			v = 0
		}
		r.fix(a, v)
	}
}

// Heap operations: max |slope| first, ties to the lower atom index.
func (r *rounder) less(i, j int) bool {
	a, b := r.heap[i], r.heap[j]
	if r.key[a] != r.key[b] {
		return r.key[a] > r.key[b]
	}
	return a < b
}

func (r *rounder) swap(i, j int) {
	h := r.heap
	h[i], h[j] = h[j], h[i]
	r.pos[h[i]] = int32(i)
	r.pos[h[j]] = int32(j)
}

func (r *rounder) up(i int) {
	for i > 0 {
		par := (i - 1) / 2
		if !r.less(i, par) {
			return
		}
		r.swap(i, par)
		i = par
	}
}

func (r *rounder) down(i int) {
	n := len(r.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if l+1 < n && r.less(l+1, l) {
			m = l + 1
		}
		if !r.less(m, i) {
			return
		}
		r.swap(i, m)
		i = m
	}
}

func (r *rounder) push(a int32) {
	r.pos[a] = int32(len(r.heap))
	r.heap = append(r.heap, a)
	r.up(len(r.heap) - 1)
}

func (r *rounder) remove(a int32) {
	i := int(r.pos[a])
	if i < 0 {
		return
	}
	last := len(r.heap) - 1
	r.swap(i, last)
	r.heap = r.heap[:last]
	r.pos[a] = -1
	if i < last {
		r.down(i)
		r.up(i)
	}
}

func (r *rounder) fixHeap(a int32) {
	if i := int(r.pos[a]); i >= 0 {
		r.down(i)
		r.up(i)
	}
}

// localSearch improves the 0/1 assignment y by greedy single flips, each
// of which lowers the number of violated hard factors, or keeps it and
// lowers the cost. Atoms fixed by hard unit clauses are not flipped. Atoms
// are visited from a FIFO work list (initially all atoms in order; the
// neighbours of a flipped atom are queued again), so the result is
// deterministic. It returns the number of flips.
func localSearch(ctx context.Context, p *problem, y []float64) int {
	nTrue := make([]int32, p.numFactors())
	for j := range nTrue {
		for t := p.fStart[j]; t < p.fStart[j+1]; t++ {
			if litVal(y[p.fAtom[t]], p.fNeg[t]) == 1 {
				nTrue[j]++
			}
		}
	}
	eps := 1e-12 * math.Max(1, p.scale)
	// Ring buffer: an atom is queued at most once at a time.
	queue := make([]int32, max(p.n, 1))
	head, size := 0, 0
	inQ := make([]bool, p.n)
	push := func(a int32) {
		if !inQ[a] && p.lo[a] < p.hi[a] {
			inQ[a] = true
			queue[(head+size)%len(queue)] = a
			size++
		}
	}
	for a := 0; a < p.n; a++ {
		push(int32(a))
	}
	flips := 0
	for it := 1; size > 0; it++ {
		if it&1023 == 0 && ctx.Err() != nil {
			break
		}
		a := queue[head]
		head = (head + 1) % len(queue)
		size--
		inQ[a] = false
		occ := p.occSlot[p.occStart[a]:p.occStart[a+1]]
		dh := 0
		dc := p.c[a]
		if y[a] == 1 {
			dc = -dc
		}
		for _, t := range occ {
			j := p.sFac[t]
			var change int // +1 becomes satisfied, −1 becomes violated
			if litVal(y[a], p.fNeg[t]) == 1 {
				if nTrue[j] == 1 {
					change = -1
				}
			} else if nTrue[j] == 0 {
				change = 1
			}
			switch p.fKind[j] {
			case kindPos:
				dc -= float64(change) * p.fW[j]
			case kindNeg:
				dc += float64(change) * p.fW[j]
			case kindHard:
				dh -= change
			}
		}
		if dh > 0 || (dh == 0 && dc >= -eps) {
			continue
		}
		flips++
		y[a] = 1 - y[a]
		for _, t := range occ {
			j := p.sFac[t]
			if litVal(y[a], p.fNeg[t]) == 1 {
				nTrue[j]++
			} else {
				nTrue[j]--
			}
			for o := p.fStart[j]; o < p.fStart[j+1]; o++ {
				if b := p.fAtom[o]; b != a {
					push(b)
				}
			}
		}
	}
	return flips
}
