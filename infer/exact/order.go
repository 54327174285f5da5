package exact

import "math"

// cliqueCap is the longest clause whose atoms are all made neighbours in
// the interaction graph; the atoms of a longer clause are linked in a path
// (such a clause never fits in a bucket table of width <= MaxMaxWidth and
// is handled implicitly by the search).
const cliqueCap = MaxMaxWidth + 1

// fillCap is the largest neighbourhood whose fill edges are added on
// elimination: beyond it the graph is no longer tracked exactly (the
// width then certainly exceeds MaxWidth and the order only guides search).
const fillCap = 48

// degeneracy is orderVars' cheap pass: min-degree order without fill
// edges. The width it returns is the degeneracy of the interaction graph
// (or the longest clause's width), a lower bound on the induced width of
// every elimination order, and its cost is not computed.
const degeneracy Order = -1

type hent struct {
	key int64
	v   int32
	ver int32
}

func (h hent) less(o hent) bool {
	if h.key != o.key {
		return h.key < o.key
	}
	return h.v < o.v
}

func (ws *workspace) push(e hent) {
	h := append(ws.heap, e)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].less(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	ws.heap = h
}

func (ws *workspace) pop() hent {
	h := ws.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && h[r].less(h[l]) {
			m = r
		}
		if !h[m].less(h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	ws.heap = h
	return top
}

// adjacent reports whether x and y are neighbours (both not eliminated).
func (ws *workspace) adjacent(x, y int32) bool {
	a, b := ws.adj[x], ws.adj[y]
	if len(b) < len(a) {
		a, y = b, x
	}
	for _, z := range a {
		if z == y {
			return true
		}
	}
	return false
}

func (ws *workspace) live(u int32, buf []int32) []int32 {
	buf = buf[:0]
	for _, x := range ws.adj[u] {
		if !ws.elim[x] {
			buf = append(buf, x)
		}
	}
	return buf
}

// score is the heap key of u: the fill-in (ties: degree) or the degree.
func (ws *workspace) score(u int32, ord Order, scoreCap int) int64 {
	d := int64(ws.deg[u])
	if ord != MinFill {
		return d
	}
	if d > int64(scoreCap) {
		return 1<<40 + d
	}
	nb := ws.live(u, ws.nb2)
	ws.nb2 = nb
	fill := int64(0)
	for i := range nb {
		for j := i + 1; j < len(nb); j++ {
			if !ws.adjacent(nb[i], nb[j]) {
				fill++
			}
		}
	}
	return fill<<20 | d
}

// orderVars computes an elimination order of the problem's atoms into
// ws.order and the depth (position in the reverse order) of each atom into
// ws.dep. It returns the induced width and the number of table entries
// variable elimination would fill (with ord degeneracy, a lower bound on
// the width of any order and no cost).
func (ws *workspace) orderVars(p *problem, ord Order, maxWidth int) (width int, cost float64) {
	n := len(p.atoms)
	nc := len(p.w)
	// Occurrences.
	ws.occStart = grow32(ws.occStart, n+1)
	cnt := ws.occStart
	clear(cnt)
	for _, l := range p.lits {
		cnt[l.Atom()+1]++
	}
	for a := 0; a < n; a++ {
		cnt[a+1] += cnt[a]
	}
	ws.occ = grow32(ws.occ, len(p.lits))
	ws.fill = grow32(ws.fill, n)
	copy(ws.fill, cnt[:n])
	for c := 0; c < nc; c++ {
		for _, l := range p.lits[p.start[c]:p.start[c+1]] {
			a := l.Atom()
			ws.occ[ws.fill[a]] = int32(c)
			ws.fill[a]++
		}
	}
	// Adjacency.
	for len(ws.adj) < n {
		ws.adj = append(ws.adj, nil)
	}
	ws.deg = grow32(ws.deg, n)
	ws.ver = grow32(ws.ver, n)
	ws.mark = grow32(ws.mark, n)
	clear(ws.mark)
	ws.elim = growBool(ws.elim, n)
	clear(ws.elim)
	ws.umark = grow32(ws.umark, n)
	clear(ws.umark)
	ws.ustamp = 0
	// Carve the neighbour lists from one block, with room for some fill.
	total := 0
	for u := 0; u < n; u++ {
		for _, c := range ws.occ[cnt[u]:cnt[u+1]] {
			if k := int(p.start[c+1] - p.start[c]); k <= cliqueCap {
				total += k
			} else {
				total += 2
			}
		}
		total += 4
	}
	if cap(ws.adjBuf) < total {
		ws.adjBuf = make([]int32, total+total/4)
	}
	off := 0
	for u := int32(0); int(u) < n; u++ {
		room := 4
		for _, c := range ws.occ[cnt[u]:cnt[u+1]] {
			if k := int(p.start[c+1] - p.start[c]); k <= cliqueCap {
				room += k
			} else {
				room += 2
			}
		}
		nb := ws.adjBuf[off : off : off+room]
		off += room
		ws.mark[u] = u + 1
		for _, c := range ws.occ[cnt[u]:cnt[u+1]] {
			ls := p.lits[p.start[c]:p.start[c+1]]
			if len(ls) <= cliqueCap {
				for _, l := range ls {
					if v := l.Atom(); ws.mark[v] != u+1 {
						ws.mark[v] = u + 1
						nb = append(nb, v)
					}
				}
				continue
			}
			for i, l := range ls {
				if l.Atom() != u {
					continue
				}
				for _, j := range [2]int{i - 1, i + 1} {
					if j >= 0 && j < len(ls) {
						if v := ls[j].Atom(); ws.mark[v] != u+1 {
							ws.mark[v] = u + 1
							nb = append(nb, v)
						}
					}
				}
			}
		}
		ws.adj[u] = nb
		ws.deg[u] = int32(len(nb))
		ws.ver[u] = 0
	}
	// A clause longer than cliqueCap is not a clique of the graph, but
	// it would be one in a bucket table.
	for c := 0; c < nc; c++ {
		width = max(width, int(p.start[c+1]-p.start[c])-1)
	}
	scoreCap := maxWidth + 1
	ws.heap = ws.heap[:0]
	for u := int32(0); int(u) < n; u++ {
		ws.heap = append(ws.heap, hent{key: ws.score(u, ord, scoreCap), v: u})
	}
	// Heapify.
	h := ws.heap
	for i := len(h)/2 - 1; i >= 0; i-- {
		j := i
		for {
			l := 2*j + 1
			if l >= len(h) {
				break
			}
			m := l
			if r := l + 1; r < len(h) && h[r].less(h[l]) {
				m = r
			}
			if !h[m].less(h[j]) {
				break
			}
			h[j], h[m] = h[m], h[j]
			j = m
		}
	}
	ws.order = ws.order[:0]
	exact := ord != degeneracy
	for len(ws.heap) > 0 {
		e := ws.pop()
		v := e.v
		if ws.elim[v] || e.ver != ws.ver[v] {
			continue
		}
		nb := ws.live(v, ws.nb)
		ws.nb = nb
		d := len(nb)
		if d > width {
			width = d
		}
		switch {
		case ord == degeneracy: // width only
		case d < 60:
			cost += float64(int64(1) << (d + 1))
		default:
			cost = math.Inf(1)
		}
		ws.order = append(ws.order, v)
		ws.elim[v] = true
		for _, x := range nb {
			ws.deg[x]--
		}
		if exact && d > fillCap {
			exact = false
		}
		filled := false
		if exact {
			for i := range nb {
				for j := i + 1; j < len(nb); j++ {
					x, y := nb[i], nb[j]
					if !ws.adjacent(x, y) {
						ws.adj[x] = append(ws.adj[x], y)
						ws.adj[y] = append(ws.adj[y], x)
						ws.deg[x]++
						ws.deg[y]++
						filled = true
					}
				}
			}
		}
		if filled && ord == MinFill {
			// New edges lower the fill-in of the common neighbours of
			// their ends: rescore the neighbours of nb.
			ws.ustamp++
			st := ws.ustamp
			for _, x := range nb {
				ws.umark[x] = st
			}
			for _, x := range nb {
				for _, w := range ws.adj[x] {
					if !ws.elim[w] && ws.umark[w] != st && int(ws.deg[w]) <= scoreCap {
						ws.umark[w] = st
						ws.ver[w]++
						ws.push(hent{key: ws.score(w, ord, scoreCap), v: w, ver: ws.ver[w]})
					}
				}
			}
		}
		for _, x := range nb {
			if a := ws.adj[x]; len(a) > 2*int(ws.deg[x])+16 {
				k := 0
				for _, z := range a {
					if !ws.elim[z] {
						a[k] = z
						k++
					}
				}
				ws.adj[x] = a[:k]
			}
			ws.ver[x]++
			ws.push(hent{key: ws.score(x, ord, scoreCap), v: x, ver: ws.ver[x]})
		}
	}
	ws.dep = grow32(ws.dep, n)
	for i, v := range ws.order {
		ws.dep[v] = int32(n - 1 - i)
	}
	if !exact && width <= fillCap && ord != degeneracy {
		width = fillCap + 1
	}
	return width, cost
}

func grow32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n, n+n/4)
	}
	return s[:n]
}

func growBool(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n, n+n/4)
	}
	return s[:n]
}

func growF(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n, n+n/4)
	}
	return s[:n]
}
