package lifted

import (
	"math"

	"github.com/marple-mln/marple/mln"
)

// maxDense bounds the table of cell counts of one type.
const maxDense = 1 << 25

// counts is the table of one type: for each vector of cell counts K (how
// many non-special constants of the type are in each active cell) with a
// non-zero weight, K and the log of its weight (multinomials, cell weights
// and the pair factors within the type).
type counts struct {
	t     int
	cells []int   // the active cells
	k     []int32 // len(cells) per entry
	v     []float64
}

func logAdd(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// lfact holds log k! for k up to its length.
type lfact []float64

func newLfact(n int) lfact {
	f := make(lfact, n+1)
	for k := 2; k <= n; k++ {
		f[k], _ = math.Lgamma(float64(k + 1))
	}
	return f
}

// typeCounts builds the table of type t under w, or returns nil when the
// type has no non-special constant, and ok false when no assignment has a
// non-zero weight.
func (p *problem) typeCounts(w *weights, t int, lf lfact) (*counts, bool, error) {
	ti := p.types[t]
	N := ti.size()
	if N == 0 {
		return nil, true, nil
	}
	nc := 1 << len(ti.rel)
	var cells []int
	pos := make([]int, nc)
	for cell := range nc {
		pos[cell] = -1
		for ci, c := range ti.classes {
			if c.n > 0 && !math.IsInf(w.lw[t][ci][cell], -1) {
				pos[cell] = len(cells)
				cells = append(cells, cell)
				break
			}
		}
	}
	if len(cells) == 0 {
		return nil, false, nil
	}
	m := len(cells)
	radix := make([]int, m)
	size := 1
	for i := range m - 1 {
		radix[i] = size
		if size > maxDense/(N+1) {
			return nil, false, notLiftable("type %s: %d cells over %d constants are too many count vectors", p.th.m.Types[t].Name, m, N)
		}
		size *= N + 1
	}
	g := make([]float64, size)
	h := make([]float64, size)
	for i := range g {
		g[i], h[i] = math.Inf(-1), math.Inf(-1)
	}
	g[0] = 0
	support := []int{0}
	var next []int
	kv := make([]int, m)
	for ci, c := range ti.classes {
		if c.n == 0 {
			continue
		}
		var allowed []int // positions
		for _, cell := range cells {
			if !math.IsInf(w.lw[t][ci][cell], -1) {
				allowed = append(allowed, pos[cell])
			}
		}
		if len(allowed) == 0 {
			return nil, false, nil
		}
		if err := p.lim.add(int64(len(support)) * binom(c.n+len(allowed)-1, len(allowed)-1)); err != nil {
			return nil, false, err
		}
		next = next[:0]
		lw := w.lw[t][ci]
		var rec func(i, left int)
		rec = func(i, left int) {
			if i == len(allowed)-1 {
				kv[i] = left
				lc := lf[c.n]
				delta := 0
				for a, ps := range allowed {
					k := kv[a]
					lc -= lf[k]
					if k > 0 {
						lc += float64(k) * lw[cells[ps]]
					}
					if ps < m-1 {
						delta += k * radix[ps]
					}
				}
				for _, idx := range support {
					j := idx + delta
					if math.IsInf(h[j], -1) {
						next = append(next, j)
					}
					h[j] = logAdd(h[j], g[idx]+lc)
				}
				return
			}
			for k := 0; k <= left; k++ {
				kv[i] = k
				rec(i+1, left-k)
			}
		}
		rec(0, c.n)
		for _, idx := range support {
			g[idx] = math.Inf(-1)
		}
		g, h = h, g
		support, next = next, support
	}
	out := &counts{t: t, cells: cells}
	r := w.lr[[2]int{t, t}]
	K := make([]int, m)
	for _, idx := range support {
		v := g[idx]
		if math.IsInf(v, -1) {
			continue
		}
		rest := N
		for i := range m - 1 {
			K[i] = idx / radix[i] % (N + 1)
			rest -= K[i]
		}
		K[m-1] = rest
		if r != nil {
			for a := range m {
				if K[a] == 0 {
					continue
				}
				if K[a] > 1 {
					v += float64(K[a]) * float64(K[a]-1) / 2 * r[cells[a]][cells[a]]
				}
				for b := a + 1; b < m; b++ {
					if K[b] > 0 {
						v += float64(K[a]) * float64(K[b]) * r[cells[a]][cells[b]]
					}
				}
			}
		}
		if math.IsInf(v, -1) || math.IsNaN(v) {
			continue
		}
		for _, k := range K {
			out.k = append(out.k, int32(k))
		}
		out.v = append(out.v, v)
	}
	if len(out.v) == 0 {
		return nil, false, nil
	}
	return out, true, nil
}

// binom returns C(n, k), saturating at a large value.
func binom(n, k int) int64 {
	if k < 0 || k > n {
		return 0
	}
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	if r > 1e18 {
		return 1e18
	}
	return int64(r + 0.5)
}

// countSum returns the log of the sum over the cell counts of every class
// of every type of the weight of the counts: the non-special part of Z for
// one outer assignment.
func (p *problem) countSum(w *weights, lf lfact) (float64, error) {
	v, _, _, err := p.countSumProbe(w, lf)
	return v, err
}

// countSumProbe is countSum, also returning, when p has a probe, the sums
// with the probe's atom true and false (the probe's cell summed over).
func (p *problem) countSumProbe(w *weights, lf lfact) (float64, float64, float64, error) {
	inf := math.Inf(-1)
	var tabs []*counts
	for t := range p.types {
		c, ok, err := p.typeCounts(w, t, lf)
		if err != nil {
			return 0, 0, 0, err
		}
		if !ok {
			return inf, inf, inf, nil
		}
		if c != nil {
			tabs = append(tabs, c)
		}
	}
	accT, accF := newLSE(), newLSE()
	probe := func(v float64, choice []int) {
		if w.pw != nil {
			w.pw.probeTerms(tabs, choice, v, &accT, &accF)
		}
	}
	if len(tabs) == 0 {
		probe(0, nil)
		return 0, accT.log(), accF.log(), nil
	}
	work := int64(1)
	for _, c := range tabs {
		work *= int64(len(c.v))
		if work > 1e15 {
			break
		}
	}
	if err := p.lim.add(work); err != nil {
		return 0, 0, 0, err
	}
	acc := newLSE()
	choice := make([]int, len(tabs))
	var rec func(i int, v float64)
	rec = func(i int, v float64) {
		if i == len(tabs) {
			acc.add(v)
			probe(v, choice)
			return
		}
		ti := tabs[i]
		m := len(ti.cells)
		for e := range ti.v {
			x := v + ti.v[e]
			ka := ti.k[e*m : (e+1)*m]
			for j := range i {
				tj := tabs[j]
				r := w.lr[[2]int{tj.t, ti.t}]
				mj := len(tj.cells)
				kb := tj.k[choice[j]*mj : (choice[j]+1)*mj]
				for a, ca := range tj.cells {
					if kb[a] == 0 {
						continue
					}
					for b, cb := range ti.cells {
						if ka[b] > 0 {
							x += float64(kb[a]) * float64(ka[b]) * r[ca][cb]
						}
					}
				}
			}
			if math.IsInf(x, -1) || math.IsNaN(x) {
				continue
			}
			choice[i] = e
			rec(i+1, x)
		}
	}
	rec(0, 0)
	return acc.log(), accT.log(), accF.log(), nil
}

// cellsKey identifies weights by their bits, so that outer assignments
// that give the same weights share one count sum.
func (w *weights) key(p *problem) string {
	b := make([]byte, 0, 256)
	put := func(x float64) {
		u := math.Float64bits(x)
		for range 8 {
			b = append(b, byte(u))
			u >>= 8
		}
	}
	for t := range w.lw {
		for _, lw := range w.lw[t] {
			for _, x := range lw {
				put(x)
			}
		}
	}
	for t1 := range p.types {
		for t2 := t1; t2 < len(p.types); t2++ {
			for _, row := range w.lr[[2]int{t1, t2}] {
				for _, x := range row {
					put(x)
				}
			}
		}
	}
	if w.pw != nil {
		w.pw.put(put)
	}
	return string(b)
}

var _ = mln.True
