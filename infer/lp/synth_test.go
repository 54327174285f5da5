package lp

import (
	"math"
	"math/rand/v2"

	"github.com/marple-mln/marple/ground"
)

// citeseerLike returns a synthetic network shaped like one CiteSeer topic
// under the simple segmentation MLN of Poon & Domingos (2007): positions
// grouped into citations of 20–50 tokens, three mutually exclusive fields
// per position (hard pairwise exclusions), a unit clause per position and
// field from the token there (weights shared through a vocabulary), and
// both directions of InField(i,f) <=> InField(i+1,f) between neighbours
// (weaker across punctuation). About 12 clauses and 3 atoms per position.
func citeseerLike(positions int, seed uint64) *ground.Network {
	rng := rand.New(rand.NewPCG(seed, 99))
	const fields = 3
	const vocab = 2000
	tokW := make([]float64, vocab*fields)
	for i := range tokW {
		tokW[i] = rng.NormFloat64()
	}
	chainW := [fields]float64{1.8, 1.2, 1.5}
	net := ground.NewNetwork(positions * fields)
	atom := func(p, f int) int32 { return int32(p*fields + f) }
	p := 0
	for p < positions {
		l := 20 + rng.IntN(31)
		end := min(p+l, positions)
		for i := p; i < end; i++ {
			tok := int(math.Min(vocab-1, math.Abs(rng.NormFloat64())*vocab/3))
			for f := range fields {
				net.AddClause([]ground.Lit{ground.MakeLit(atom(i, f), false)}, tokW[tok*fields+f], 0, 0, 1)
				for g := f + 1; g < fields; g++ {
					net.AddClause([]ground.Lit{ground.MakeLit(atom(i, f), true), ground.MakeLit(atom(i, g), true)},
						math.Inf(1), 1, -1, 1)
				}
			}
			if i+1 < end {
				punct := rng.IntN(5) == 0
				for f := range fields {
					w := chainW[f]
					if punct {
						w = -0.3
					}
					a, b := atom(i, f), atom(i+1, f)
					net.AddClause([]ground.Lit{ground.MakeLit(a, true), ground.MakeLit(b, false)}, w, 2, 1, 1)
					net.AddClause([]ground.Lit{ground.MakeLit(a, false), ground.MakeLit(b, true)}, w, 2, 1, 1)
				}
			}
		}
		p = end
	}
	return net
}

// chainOptimum returns the least cost of a network whose atoms are
// positions×fields (atom p·fields+f) and whose clauses each span at most
// two consecutive positions, by dynamic programming over positions (all
// 2^fields states per position). Hard violations count as +Inf.
func chainOptimum(net *ground.Network, fields int) float64 {
	return chainOptimumFixed(net, fields, nil)
}

// chainOptimumFixed is chainOptimum with atoms a with fix[a] >= 0 fixed
// to that value (fix may be nil).
func chainOptimumFixed(net *ground.Network, fields int, fix []int8) float64 {
	n := net.NumAtoms()
	P := n / fields
	ns := 1 << fields
	// clauses by the last position they touch
	byPos := make([][]int, P)
	for c := range net.NumClauses() {
		hi := 0
		for _, l := range net.Clause(c) {
			hi = max(hi, int(l.Atom())/fields)
		}
		byPos[hi] = append(byPos[hi], c)
	}
	y := make([]bool, n)
	set := func(p, s int) {
		for f := range fields {
			y[p*fields+f] = s>>f&1 == 1
		}
	}
	clauseCost := func(c int) float64 {
		sat := net.Satisfied(c, y)
		w := net.Weight(c)
		switch {
		case net.IsHard(c) && !sat:
			return math.Inf(1)
		case w > 0 && !sat && !net.IsHard(c):
			return w
		case w < 0 && sat:
			return -w
		}
		return 0
	}
	prev := make([]float64, ns)
	cur := make([]float64, ns)
	for p := range P {
		for s := range ns {
			best := math.Inf(1)
			set(p, s)
			ok := true
			for f := range fields {
				if a := p*fields + f; fix != nil && fix[a] >= 0 && y[a] != (fix[a] == 1) {
					ok = false
				}
			}
			if !ok {
				cur[s] = math.Inf(1)
				continue
			}
			for ps := range ns {
				if p == 0 && ps > 0 {
					break
				}
				if p > 0 {
					set(p-1, ps)
				}
				v := 0.0
				if p > 0 {
					v = prev[ps]
				}
				for _, c := range byPos[p] {
					v += clauseCost(c)
				}
				best = math.Min(best, v)
			}
			cur[s] = best
		}
		prev, cur = cur, prev
	}
	best := math.Inf(1)
	for _, v := range prev {
		best = math.Min(best, v)
	}
	return best
}
