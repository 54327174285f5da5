package lp

import (
	"math"
	"slices"
)

// hardEps is the tolerance below which a change in the expected number of
// violated hard factors counts as none.
const hardEps = 1e-12

// roundup rounds the fractional point y (in the box) to a 0/1 assignment
// by the method of conditional expectations (ROUNDUP of Boros & Hammer,
// as adapted by Huynh & Mooney). The rounded objective is the multilinear
// extension of the cost: the expected cost when each atom is true with
// probability y_a independently, with the expected number of violated hard
// factors compared first (lexicographically). It is linear in each y_a, so
// fixing one fractional atom at a time to whichever of 0 and 1 is better
// never makes it worse: the result is no worse than the expectation at y.
//
// Order: atoms closest to integral first (the LP's most confident
// decisions fix the context for the uncertain ones), ties by atom index.
// Atoms that are already 0 or 1 keep their value. y is modified in place.
var roundMode = 0

func roundup(p *problem, y []float64) {
	if roundMode == 3 {
		roundupDynamic(p, y)
		return
	}
	if roundMode >= 4 {
		roundupProp(p, y, roundMode == 5)
		return
	}
	var frac []int32
	for a, v := range y {
		if v > 0 && v < 1 {
			frac = append(frac, int32(a))
		}
	}
	slices.SortStableFunc(frac, func(a, b int32) int {
		fa := math.Min(y[a], 1-y[a])
		fb := math.Min(y[b], 1-y[b])
		if roundMode == 1 {
			fa, fb = -fa, -fb
		}
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	})
	for _, a := range frac {
		if roundMode == 2 {
			y[a] = 0
			c0 := p.localCost(a, y)
			y[a] = 1
			c1 := p.localCost(a, y)
			if c0 <= c1 {
				y[a] = 0
			}
			continue
		}
		hs, ss := 0.0, p.c[a]
		for _, t := range p.occSlot[p.occStart[a]:p.occStart[a+1]] {
			j := p.sFac[t]
			q := 1.0 // Π over the other literals of (1 − u)
			for o := p.fStart[j]; o < p.fStart[j+1]; o++ {
				if o != t {
					q *= 1 - litVal(y[p.fAtom[o]], p.fNeg[o])
				}
			}
			// d P(unsat) / d y_a
			dq := -q
			if p.fNeg[t] {
				dq = q
			}
			switch p.fKind[j] {
			case kindPos:
				ss += p.fW[j] * dq
			case kindNeg:
				ss -= p.fW[j] * dq
			case kindHard:
				hs += dq
			}
		}
		var v float64
		switch {
		case hs < -hardEps:
			v = 1
		case hs > hardEps:
			v = 0
		case ss < 0:
			v = 1
		case ss > 0:
			v = 0
		case y[a] >= 0.5:
			v = 1
		}
		y[a] = v
	}
}

// localSearch improves the 0/1 assignment y by greedy single flips, each
// of which lowers the number of violated hard factors, or keeps it and
// lowers the cost. Atoms fixed by hard unit clauses are not flipped. Atoms
// are visited from a FIFO work list (initially all atoms in order; the
// neighbours of a flipped atom are queued again), so the result is
// deterministic. It returns the number of flips.
func localSearch(p *problem, y []float64) int {
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
	for size > 0 {
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

// localCost: LP objective terms touching a (hard viol weighted 1e6).
func (p *problem) localCost(a int32, y []float64) float64 {
	v := p.c[a] * y[a]
	for _, t := range p.occSlot[p.occStart[a]:p.occStart[a+1]] {
		j := int(p.sFac[t])
		f := p.factorCost(j, y)
		if p.fKind[j] == kindHard {
			f *= 1e6
		}
		v += f
	}
	return v
}

// slopes of the multilinear extension at a.
func (p *problem) slopes(a int32, y []float64) (hs, ss float64) {
	ss = p.c[a]
	for _, t := range p.occSlot[p.occStart[a]:p.occStart[a+1]] {
		j := p.sFac[t]
		q := 1.0
		for o := p.fStart[j]; o < p.fStart[j+1]; o++ {
			if o != t {
				q *= 1 - litVal(y[p.fAtom[o]], p.fNeg[o])
			}
		}
		dq := -q
		if p.fNeg[t] {
			dq = q
		}
		switch p.fKind[j] {
		case kindPos:
			ss += p.fW[j] * dq
		case kindNeg:
			ss -= p.fW[j] * dq
		case kindHard:
			hs += dq
		}
	}
	return
}

func roundupDynamic(p *problem, y []float64) {
	// repeatedly pick the fractional atom with the largest priority (hard slope*1e6 + |soft slope|); O(n^2) naive for test
	var frac []int32
	for a, v := range y {
		if v > 0 && v < 1 {
			frac = append(frac, int32(a))
		}
	}
	done := make([]bool, p.n)
	for range frac {
		best, bi := -1.0, int32(-1)
		var bv float64
		for _, a := range frac {
			if done[a] {
				continue
			}
			hs, ss := p.slopes(a, y)
			pr := math.Abs(hs)*1e6 + math.Abs(ss)
			if pr > best {
				best, bi = pr, a
				v := 0.0
				switch {
				case hs < -hardEps:
					v = 1
				case hs > hardEps:
					v = 0
				case ss < 0:
					v = 1
				case ss > 0:
					v = 0
				case y[a] >= 0.5:
					v = 1
				}
				bv = v
			}
		}
		done[bi] = true
		y[bi] = bv
	}
}

// roundupProp: soft multilinear slopes, hard clauses by propagation.
func roundupProp(p *problem, y []float64, dynamic bool) {
	n := p.n
	fixed := make([]bool, n)
	nf := p.numFactors()
	falseCnt := make([]int32, nf)
	satCnt := make([]int32, nf)
	for a := 0; a < n; a++ {
		if y[a] == 0 || y[a] == 1 {
			fixed[a] = true
		}
	}
	for j := 0; j < nf; j++ {
		if p.fKind[j] != kindHard {
			continue
		}
		for t := p.fStart[j]; t < p.fStart[j+1]; t++ {
			a := p.fAtom[t]
			if fixed[a] {
				if litVal(y[a], p.fNeg[t]) == 1 {
					satCnt[j]++
				} else {
					falseCnt[j]++
				}
			}
		}
	}
	var stack []int32
	assign := func(a int32, v float64) {
		y[a] = v
		fixed[a] = true
		stack = append(stack[:0], a)
		for len(stack) > 0 {
			b := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, t := range p.occSlot[p.occStart[b]:p.occStart[b+1]] {
				j := p.sFac[t]
				if p.fKind[j] != kindHard {
					continue
				}
				if litVal(y[b], p.fNeg[t]) == 1 {
					satCnt[j]++
					continue
				}
				falseCnt[j]++
				k := p.fStart[j+1] - p.fStart[j]
				if satCnt[j] == 0 && falseCnt[j] == k-1 {
					for o := p.fStart[j]; o < p.fStart[j+1]; o++ {
						c := p.fAtom[o]
						if !fixed[c] {
							y[c] = 1
							if p.fNeg[o] {
								y[c] = 0
							}
							fixed[c] = true
							stack = append(stack, c)
						}
					}
				}
			}
		}
	}
	forbidden := func(a int32, v float64) bool {
		for _, t := range p.occSlot[p.occStart[a]:p.occStart[a+1]] {
			j := p.sFac[t]
			if p.fKind[j] != kindHard || satCnt[j] > 0 {
				continue
			}
			k := p.fStart[j+1] - p.fStart[j]
			if litVal(v, p.fNeg[t]) == 0 && falseCnt[j] == k-1 {
				return true
			}
		}
		return false
	}
	softSlope := func(a int32) float64 {
		ss := p.c[a]
		for _, t := range p.occSlot[p.occStart[a]:p.occStart[a+1]] {
			j := p.sFac[t]
			if p.fKind[j] == kindHard {
				continue
			}
			q := 1.0
			for o := p.fStart[j]; o < p.fStart[j+1]; o++ {
				if o != t {
					q *= 1 - litVal(y[p.fAtom[o]], p.fNeg[o])
				}
			}
			dq := -q
			if p.fNeg[t] {
				dq = q
			}
			if p.fKind[j] == kindPos {
				ss += p.fW[j] * dq
			} else {
				ss -= p.fW[j] * dq
			}
		}
		return ss
	}
	decide := func(a int32) {
		ss := softSlope(a)
		v := 0.0
		switch {
		case ss < 0:
			v = 1
		case ss == 0 && y[a] >= 0.5:
			v = 1
		}
		if forbidden(a, v) && !forbidden(a, 1-v) {
			v = 1 - v
		}
		assign(a, v)
	}
	var frac []int32
	for a := 0; a < n; a++ {
		if !fixed[a] {
			frac = append(frac, int32(a))
		}
	}
	if !dynamic {
		slices.SortStableFunc(frac, func(a, b int32) int {
			fa := math.Min(y[a], 1-y[a])
			fb := math.Min(y[b], 1-y[b])
			switch {
			case fa < fb:
				return -1
			case fa > fb:
				return 1
			}
			return 0
		})
		for _, a := range frac {
			if !fixed[a] {
				decide(a)
			}
		}
		return
	}
	for {
		best, bi := -1.0, int32(-1)
		for _, a := range frac {
			if fixed[a] {
				continue
			}
			s := math.Abs(softSlope(a))
			if s > best {
				best, bi = s, a
			}
		}
		if bi < 0 {
			return
		}
		decide(bi)
	}
}
