package lp

import "math"

// maxEnumWork caps the work of enumerating one component: 2^m times the
// number of clause occurrences of its atoms.
const maxEnumWork = 1 << 24

// completeSmall finds the fractional atoms of y (strictly between 0 and 1),
// splits them into connected components (atoms sharing a factor), and
// gives every component of at most maxAtoms atoms its best values given the
// integral atoms around it, by enumerating its 2^m assignments in Gray-code
// order (fewest violated hard factors first, then least cost). Larger
// components (or ones whose enumeration would exceed maxEnumWork) are left
// fractional. It returns the number of atoms fixed.
func completeSmall(p *problem, y []float64, maxAtoms int) int {
	if maxAtoms <= 0 {
		return 0
	}
	comp := make([]int32, p.n) // 0 unvisited, else component id + 1
	var atoms, stack, facs []int32
	seenFac := make([]bool, p.numFactors())
	var nTrue []int32
	var best []float64
	fixedCount := 0
	for start := 0; start < p.n; start++ {
		if comp[start] != 0 || y[start] <= 0 || y[start] >= 1 {
			continue
		}
		id := int32(start) + 1
		atoms = append(atoms[:0], int32(start))
		comp[start] = id
		stack = append(stack[:0], int32(start))
		for len(stack) > 0 {
			a := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, t := range p.occSlot[p.occStart[a]:p.occStart[a+1]] {
				j := p.sFac[t]
				for o := p.fStart[j]; o < p.fStart[j+1]; o++ {
					b := p.fAtom[o]
					if comp[b] == 0 && y[b] > 0 && y[b] < 1 {
						comp[b] = id
						atoms = append(atoms, b)
						stack = append(stack, b)
					}
				}
			}
		}
		occ := 0
		for _, a := range atoms {
			occ += int(p.occStart[a+1] - p.occStart[a])
		}
		if len(atoms) > maxAtoms || len(atoms) > 24 || occ<<len(atoms) > maxEnumWork {
			continue
		}
		// Factors touching the component, with their literal counts at the
		// all-false assignment of the component's atoms.
		facs = facs[:0]
		for _, a := range atoms {
			y[a] = 0
		}
		for _, a := range atoms {
			for _, t := range p.occSlot[p.occStart[a]:p.occStart[a+1]] {
				if j := p.sFac[t]; !seenFac[j] {
					seenFac[j] = true
					facs = append(facs, j)
				}
			}
		}
		if cap(nTrue) < p.numFactors() {
			nTrue = make([]int32, p.numFactors())
		}
		hard, cost := 0, 0.0
		for _, j := range facs {
			seenFac[j] = false
			nTrue[j] = 0
			for o := p.fStart[j]; o < p.fStart[j+1]; o++ {
				if litVal(y[p.fAtom[o]], p.fNeg[o]) == 1 {
					nTrue[j]++
				}
			}
			h, c := factorState(p, j, nTrue[j])
			hard += h
			cost += c
		}
		best = best[:0]
		for range atoms {
			best = append(best, 0)
		}
		bestHard, bestCost := hard, cost
		m := len(atoms)
		for step := 1; step < 1<<m; step++ {
			// Gray code: flip the lowest set bit of step.
			i := 0
			for step>>i&1 == 0 {
				i++
			}
			a := atoms[i]
			cost += p.c[a] * (1 - 2*y[a])
			y[a] = 1 - y[a]
			for _, t := range p.occSlot[p.occStart[a]:p.occStart[a+1]] {
				j := p.sFac[t]
				h0, c0 := factorState(p, j, nTrue[j])
				if litVal(y[a], p.fNeg[t]) == 1 {
					nTrue[j]++
				} else {
					nTrue[j]--
				}
				h1, c1 := factorState(p, j, nTrue[j])
				hard += h1 - h0
				cost += c1 - c0
			}
			if hard < bestHard || (hard == bestHard && cost < bestCost-1e-12*math.Max(1, math.Abs(bestCost))) {
				bestHard, bestCost = hard, cost
				for k, b := range atoms {
					best[k] = y[b]
				}
			}
		}
		for k, b := range atoms {
			y[b] = best[k]
		}
		fixedCount += m
	}
	return fixedCount
}

// factorState returns the hard violation (0/1) and soft cost of factor j
// when nTrue of its literals hold.
func factorState(p *problem, j int32, nTrue int32) (int, float64) {
	switch p.fKind[j] {
	case kindHard:
		if nTrue == 0 {
			return 1, 0
		}
	case kindPos:
		if nTrue == 0 {
			return 0, p.fW[j]
		}
	case kindNeg:
		if nTrue > 0 {
			return 0, p.fW[j]
		}
	}
	return 0, 0
}
