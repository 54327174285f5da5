package lbg

import (
	"math"
	"math/rand/v2"
)

// Symmetric blocks. When every clause that ties a block's atoms together
// lies inside the block, ties exactly two of its atoms, and ties every
// pair of them alike (each group of clauses of the same weight and signs
// holds every pair, or every ordered pair, the same number of times), the
// atoms are interchangeable as far as those clauses go: their log-weight
// depends only on how many atoms are true. The block is then sampled
// exactly by counting, whatever its size: with the unit potentials
// (which the rest of the world sets, atom by atom) in a table of the
// ways to make r of the atoms i..n-1 true, the number of true atoms is
// drawn from its distribution, then which ones. This is lifted inference
// inside the block (Alchemy samples its blocks by lifted PTP); it costs
// O(n²) per sample instead of 2^n.

// maxSym bounds the atoms of a symmetric block (its table has n² entries).
const maxSym = 2048

// pairKind is how a two-atom clause's literals are signed.
type pairKind uint8

const (
	bothPos pairKind = iota // a v b: violated when both are false
	bothNeg                 // !a v !b: violated when both are true
	mixed                   // a v !b: violated when a is false and b true
)

// symGroup is a group of two-atom clauses of one weight and kind, each
// pair (ordered, for mixed) held m times.
type symGroup struct {
	w    float64
	kind pairKind
	m    float64
}

// symmetric returns the groups of the multi-atom clauses of a block of n
// atoms when they make its atoms interchangeable, or nil.
func symmetric(n int, multi []bclause) []symGroup {
	if n < 2 || n > maxSym {
		return nil
	}
	type key struct {
		w    float64
		kind pairKind
	}
	counts := map[key]map[[2]int32]int{}
	for _, c := range multi {
		if len(c.out) > 0 || len(c.in) != 2 || c.in[0].Atom() == c.in[1].Atom() {
			return nil
		}
		a, b := c.in[0], c.in[1]
		var k pairKind
		pair := [2]int32{a.Atom(), b.Atom()}
		switch {
		case !a.Neg() && !b.Neg():
			k = bothPos
		case a.Neg() && b.Neg():
			k = bothNeg
		default:
			k = mixed
			if a.Neg() { // the positive atom first
				pair = [2]int32{b.Atom(), a.Atom()}
			}
		}
		if k != mixed && pair[0] > pair[1] {
			pair[0], pair[1] = pair[1], pair[0]
		}
		g := key{c.w, k}
		if counts[g] == nil {
			counts[g] = map[[2]int32]int{}
		}
		counts[g][pair]++
	}
	var out []symGroup
	for g, pairs := range counts {
		want := n * (n - 1) / 2
		if g.kind == mixed {
			want = n * (n - 1)
		}
		if len(pairs) != want {
			return nil
		}
		m := -1
		for _, c := range pairs {
			if m >= 0 && c != m {
				return nil
			}
			m = c
		}
		out = append(out, symGroup{w: g.w, kind: g.kind, m: float64(m)})
	}
	return out
}

// symScore is the log-weight the groups give a world of the block with k
// of its n atoms true.
func symScore(groups []symGroup, n, k int) float64 {
	s := 0.0
	nf, kf := float64(n), float64(k)
	for _, g := range groups {
		var total, viol float64
		switch g.kind {
		case bothPos:
			total, viol = nf*(nf-1)/2, (nf-kf)*(nf-kf-1)/2
		case bothNeg:
			total, viol = nf*(nf-1)/2, kf*(kf-1)/2
		case mixed:
			total, viol = nf*(nf-1), kf*(nf-kf)
		}
		if viol > 0 && math.IsInf(g.w, 1) {
			return math.Inf(-1)
		}
		s += g.m * (total - viol) * logPot(g.w, true)
	}
	return s
}

// logAdd returns log(exp(x) + exp(y)).
func logAdd(x, y float64) float64 {
	if x < y {
		x, y = y, x
	}
	if math.IsInf(y, -1) {
		return x
	}
	return x + math.Log1p(math.Exp(y-x))
}

// sampleSym samples a symmetric block given the unit potentials in s.u0,
// s.u1, writing the atoms to s.x and to rb each atom's probability of
// being true given the rest of the world and the number of true atoms
// drawn.
func (b *block) sampleSym(rng *rand.Rand, s *sampler, rb []float64) bool {
	n := len(b.atoms)
	w := n + 1
	// suf[i*w+r]: log of the weight of making r of the atoms i..n-1
	// true; pre[i*w+r] the same for the atoms 0..i-1.
	s.suf = grow(s.suf, (n+1)*w)
	s.pre = grow(s.pre, (n+1)*w)
	suf, pre := s.suf, s.pre
	ninf := math.Inf(-1)
	for r := range w {
		suf[n*w+r], pre[r] = ninf, ninf
	}
	suf[n*w], pre[0] = 0, 0
	for i := n - 1; i >= 0; i-- {
		row, next := suf[i*w:(i+1)*w], suf[(i+1)*w:(i+2)*w]
		for r := range w {
			v := s.u0[i] + next[r]
			if r > 0 {
				v = logAdd(v, s.u1[i]+next[r-1])
			}
			row[r] = v
		}
	}
	for i := 1; i <= n; i++ {
		row, prev := pre[i*w:(i+1)*w], pre[(i-1)*w:i*w]
		for r := range w {
			v := s.u0[i-1] + prev[r]
			if r > 0 {
				v = logAdd(v, s.u1[i-1]+prev[r-1])
			}
			row[r] = v
		}
	}
	s.tot = grow(s.tot, w)
	for k := range w {
		s.tot[k] = suf[k] + symScore(b.sym, n, k)
	}
	k, ok := draw(s.tot[:w], rng)
	if !ok {
		return false
	}
	// P(atom i true | k true) = e^u1 · Σ_r pre[i][r] suf[i+1][k-1-r] / Z_k.
	lz := suf[k]
	for i := range n {
		if k == 0 {
			rb[b.atoms[i]] = 0
			continue
		}
		v := ninf
		for r := 0; r <= min(i, k-1); r++ {
			v = logAdd(v, pre[i*w+r]+suf[(i+1)*w+k-1-r])
		}
		rb[b.atoms[i]] = min(1, math.Exp(s.u1[i]+v-lz))
	}
	// Which atoms: in order, each true with its probability given the
	// number still to place.
	left := k
	for i := range n {
		on := false
		if left > 0 {
			t := s.u1[i] + suf[(i+1)*w+left-1]
			f := s.u0[i] + suf[(i+1)*w+left]
			on = rng.Float64() < 1/(1+math.Exp(f-t))
		}
		s.x[i] = on
		if on {
			left--
		}
	}
	return true
}
