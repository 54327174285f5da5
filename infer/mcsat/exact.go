package mcsat

import (
	"math"
	"math/bits"

	"github.com/marple-mln/marple/ground"
)

// maxExactWork bounds the work of enumerating a component: worlds times
// the literal occurrences of the component's clauses.
const maxExactWork = 1 << 26

// enumerateMarginals returns the exact marginal probability of each atom of
// component c of net (in the order of c.Atoms), by enumerating the
// component's worlds in Gray-code order, each step flipping one atom and
// updating the clauses it occurs in. bias, when not nil, is indexed by
// net's atoms: a linear term added to the log-potential of each atom that
// is true. ok is false, and nothing is computed, when the component has
// more than limit atoms, when the enumeration would cost more than
// maxExactWork, or when no world satisfies its hard clauses.
func enumerateMarginals(net *ground.Network, c ground.Component, bias []float64, limit int) (probs []float64, ok bool) {
	n := len(c.Atoms)
	if n == 0 || n > limit || n > 30 {
		return nil, false
	}
	local := make(map[int32]int, n)
	for i, a := range c.Atoms {
		local[a] = i
	}
	type lit struct {
		atom int
		neg  bool
	}
	clauses := make([][]lit, len(c.Clauses))
	weights := make([]float64, len(c.Clauses))
	hard := make([]bool, len(c.Clauses))
	occ := make([][]int32, n) // clause indices in which each atom occurs, once per literal
	total := 0
	for k, cl := range c.Clauses {
		lits := net.Clause(int(cl))
		clauses[k] = make([]lit, len(lits))
		for j, l := range lits {
			i := local[l.Atom()]
			clauses[k][j] = lit{atom: i, neg: l.Neg()}
			occ[i] = append(occ[i], int32(k))
		}
		total += len(lits)
		weights[k] = net.Weight(int(cl))
		hard[k] = math.IsInf(weights[k], 1)
	}
	if float64(total+n)*math.Ldexp(1, n) > maxExactWork {
		return nil, false
	}
	// The all-false world.
	y := make([]bool, n)
	ntrue := make([]int, len(clauses))
	score, violated := 0.0, 0
	for k, ls := range clauses {
		for _, l := range ls {
			if l.neg {
				ntrue[k]++
			}
		}
		switch {
		case ntrue[k] > 0 && !hard[k]:
			score += weights[k]
		case ntrue[k] == 0 && hard[k]:
			violated++
		}
	}
	// Running sums scaled by exp(-ref), ref the largest score so far.
	ref := math.Inf(-1)
	z := 0.0
	num := make([]float64, n)
	add := func() {
		if violated > 0 {
			return
		}
		if score > ref {
			f := math.Exp(ref - score)
			z *= f
			for i := range num {
				num[i] *= f
			}
			ref = score
		}
		p := math.Exp(score - ref)
		z += p
		for i, v := range y {
			if v {
				num[i] += p
			}
		}
	}
	add()
	for step := uint64(1); step < 1<<uint(n); step++ {
		i := bits.TrailingZeros64(step)
		y[i] = !y[i]
		if bias != nil {
			if y[i] {
				score += bias[c.Atoms[i]]
			} else {
				score -= bias[c.Atoms[i]]
			}
		}
		for _, k := range occ[i] {
			// One occurrence of atom i in clause k: find its literal (the
			// occurrences of an atom repeated in a clause are visited in
			// turn, each updating one literal).
			before := ntrue[k] > 0
			ntrue[k] = 0
			for _, l := range clauses[k] {
				if y[l.atom] != l.neg {
					ntrue[k]++
				}
			}
			after := ntrue[k] > 0
			if before == after {
				continue
			}
			switch {
			case hard[k] && after:
				violated--
			case hard[k]:
				violated++
			case after:
				score += weights[k]
			default:
				score -= weights[k]
			}
		}
		add()
	}
	if z == 0 {
		return nil, false
	}
	for i := range num {
		num[i] /= z
	}
	return num, true
}
