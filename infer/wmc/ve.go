package wmc

import (
	"math"
	"math/bits"
	"slices"
)

// Variable elimination bounds: a component is counted by VE when the
// elimination order (by rank) leaves every bucket's scope at most
// MaxVEWidth+1 atoms and the buckets' tables hold at most MaxVEEntries
// entries in all.
const (
	MaxVEWidth   = 20
	MaxVEEntries = 1 << 24
)

// veFactor is a log-factor over atoms (sorted by elimination position):
// entry i gives the atoms the values of i's bits (bit j: vars[j]).
type veFactor struct {
	vars  []int32
	tab   []float64
	from  int // the bucket whose message it is, or -1 (a clause)
	owner int // the bucket it goes to
}

// vePlan is the elimination of one component: its atoms in elimination
// order and, per bucket, the factors it combines and its scope.
type vePlan struct {
	order   []int32
	pos     []int32 // per atom of the network: its elimination position (the state's scratch, valid until the next plan)
	factors []*veFactor
	bucket  [][]int   // per bucket: its factors
	scope   [][]int32 // per bucket: its atoms, the eliminated one first
	entries int
	width   int   // the largest scope less one
	cost    int64 // table entries times the factors combined into them
}

// planVE returns the plan of the component of the atoms vars under the
// state st, or nil when it exceeds the bounds: a bucket's scope above
// maxWidth+1 atoms, tables of more than maxEntries entries in all, or a
// cost (table entries times the factors combined into them) above
// maxCost (negative: none). Clauses over the same atoms share a factor.
func planVE(st *state, vars []int32, maxWidth, maxEntries int, maxCost int64) *vePlan {
	p := st.p
	order := slices.Clone(vars)
	slices.SortFunc(order, func(a, b int32) int { return int(p.rank[a]) - int(p.rank[b]) })
	if st.pos == nil {
		st.pos = make([]int32, p.n)
	}
	pl := &vePlan{order: order, pos: st.pos, bucket: make([][]int, len(order)), scope: make([][]int32, len(order))}
	for i, v := range order {
		pl.pos[v] = int32(i)
	}
	byPos := func(a, b int32) int { return int(pl.pos[a]) - int(pl.pos[b]) }
	// The clauses, grouped by their open atoms.
	stamp := st.nextStamp()
	var clauses []int32
	for _, v := range vars {
		for _, o := range p.occ[p.occStart[v]:p.occStart[v+1]] {
			c := o >> 1
			if st.nTrue[c] != 0 || st.cmark[c] == stamp {
				continue
			}
			st.cmark[c] = stamp
			clauses = append(clauses, c)
		}
	}
	slices.Sort(clauses)
	byScope := make(map[string]int)
	ofClause := make([]int, len(clauses))
	var key []byte
	var vs []int32
	for i, c := range clauses {
		vs = vs[:0]
		for _, l := range p.clause(c) {
			if a := l.Atom(); st.val[a] == 0 {
				vs = append(vs, a)
			}
		}
		if len(vs) > maxWidth+1 {
			return nil
		}
		slices.SortFunc(vs, byPos)
		key = key[:0]
		for _, a := range vs {
			key = append(key, byte(a), byte(a>>8), byte(a>>16), byte(a>>24))
		}
		fi, ok := byScope[string(key)]
		if !ok {
			fi = len(pl.factors)
			byScope[string(key)] = fi
			f := &veFactor{vars: slices.Clone(vs), tab: make([]float64, 1<<len(vs)), from: -1, owner: int(pl.pos[vs[0]])}
			pl.factors = append(pl.factors, f)
			pl.bucket[f.owner] = append(pl.bucket[f.owner], fi)
		}
		ofClause[i] = fi
	}
	// Scopes, symbolically: each bucket's factors' atoms, its message to
	// the bucket of its next atom.
	pending := make([][][]int32, len(order)) // per bucket: the message scopes sent to it
	var cost int64
	for b, x := range order {
		u := []int32{x}
		for _, fi := range pl.bucket[b] {
			u = append(u, pl.factors[fi].vars...)
		}
		for _, s := range pending[b] {
			u = append(u, s...)
		}
		slices.SortFunc(u, byPos)
		u = slices.Compact(u)
		if len(u) > maxWidth+1 {
			return nil
		}
		pl.scope[b] = u
		pl.width = max(pl.width, len(u)-1)
		pl.entries += 1 << len(u)
		cost += int64(1+len(pl.bucket[b])+len(pending[b])) << len(u)
		if pl.entries > maxEntries || (maxCost >= 0 && cost > maxCost) {
			return nil
		}
		if len(u) > 1 {
			pending[pl.pos[u[1]]] = append(pending[pl.pos[u[1]]], u[1:])
		}
	}
	pl.cost = cost
	// The factors' tables.
	for i, c := range clauses {
		f := pl.factors[ofClause[i]]
		// The entries that satisfy the clause: some bit of f's atoms at
		// its literal's value.
		var pos, neg int // bits whose literal is positive, negated
		for _, l := range p.clause(c) {
			if st.val[l.Atom()] != 0 {
				continue
			}
			j := slices.Index(f.vars, l.Atom())
			if l.Neg() {
				neg |= 1 << j
			} else {
				pos |= 1 << j
			}
		}
		hard, w := p.hard[c], p.w[c]
		for e := range f.tab {
			switch {
			case e&pos != 0 || ^e&neg != 0:
				f.tab[e] += w
			case hard:
				f.tab[e] = math.Inf(-1)
			}
		}
	}
	return pl
}

// run eliminates the component: its log-weight and, with marg not nil,
// its atoms' marginals.
func (pl *vePlan) run(p *problem, marg []float64) float64 {
	n := len(pl.order)
	tabs := make([][]float64, n) // per bucket: its combined table
	msgs := make([]*veFactor, n) // per bucket: its message (nil: a constant)
	logZ := 0.0
	consts := make([]float64, n)
	var buf []int32
	for b, x := range pl.order {
		u := pl.scope[b]
		T := make([]float64, 1<<len(u))
		// Literal weights of the eliminated atom (bit 0).
		for e := range T {
			T[e] = p.lw[2*x+int32(1-e&1)]
		}
		for _, fi := range pl.bucket[b] {
			buf = addFactor(T, u, pl.factors[fi], buf)
		}
		tabs[b] = T
		if len(u) == 1 {
			consts[b] = logAdd(T[0], T[1])
			logZ += consts[b]
			continue
		}
		m := &veFactor{vars: u[1:], tab: make([]float64, len(T)/2), from: b, owner: int(pl.pos[u[1]])}
		for e := range m.tab {
			m.tab[e] = logAdd(T[2*e], T[2*e+1])
		}
		msgs[b] = m
		pl.bucket[m.owner] = append(pl.bucket[m.owner], len(pl.factors))
		pl.factors = append(pl.factors, m)
	}
	if marg == nil || math.IsInf(logZ, -1) {
		return logZ
	}
	// Backward: G[b] holds the probability of each value of bucket b's
	// message scope; the belief of bucket b's scope follows from it.
	G := make([][]float64, n)
	for b := n - 1; b >= 0; b-- {
		u := pl.scope[b]
		T := tabs[b]
		B := make([]float64, len(T))
		if msgs[b] == nil {
			for e := range T {
				B[e] = math.Exp(T[e] - consts[b])
			}
		} else {
			m, g := msgs[b].tab, G[b]
			for e := range T {
				if g[e>>1] > 0 && !math.IsInf(T[e], -1) {
					B[e] = g[e>>1] * math.Exp(T[e]-m[e>>1])
				}
			}
		}
		x := pl.order[b]
		px := 0.0
		for e := 1; e < len(B); e += 2 {
			px += B[e]
		}
		marg[x] = px
		for _, fi := range pl.bucket[b] {
			f := pl.factors[fi]
			if f.from < 0 {
				continue
			}
			if G[f.from] == nil {
				G[f.from] = make([]float64, len(f.tab))
			}
			buf = project(B, u, f, G[f.from], buf)
		}
		tabs[b] = nil
	}
	return logZ
}

// offsets returns, for every entry e of a table over scope u, the entry
// of f (whose atoms are in u, in the same order) with the same values:
// built in one pass, each entry from the one without its lowest bit.
func offsets(u []int32, f *veFactor, buf []int32) []int32 {
	var w [MaxVEWidth + 2]int32
	j := 0
	for i, a := range u {
		if j < len(f.vars) && f.vars[j] == a {
			w[i] = 1 << j
			j++
		}
	}
	size := 1 << len(u)
	if cap(buf) < size {
		buf = make([]int32, size)
	}
	buf = buf[:size]
	buf[0] = 0
	for e := 1; e < size; e++ {
		buf[e] = buf[e&(e-1)] + w[bits.TrailingZeros(uint(e))]
	}
	return buf
}

// addFactor adds f to the table T over scope u (f's atoms are in u, in
// the same order).
func addFactor(T []float64, u []int32, f *veFactor, buf []int32) []int32 {
	buf = offsets(u, f, buf)
	for e, k := range buf {
		T[e] += f.tab[k]
	}
	return buf
}

// project adds to g (over f's scope) the sums of B (over u) by f's atoms.
func project(B []float64, u []int32, f *veFactor, g []float64, buf []int32) []int32 {
	buf = offsets(u, f, buf)
	for e, k := range buf {
		g[k] += B[e]
	}
	return buf
}
