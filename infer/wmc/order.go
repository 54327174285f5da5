package wmc

import (
	"container/heap"
	"slices"
)

// fillCap is the largest neighbourhood whose fill edges elimination adds;
// past it the graph is no longer tracked exactly (the width then
// certainly exceeds fillCap and the order only guides the search).
const fillCap = 96

// cliqueCap is the longest clause whose atoms are all made neighbours in
// the primal graph (a longer one never fits in a table of variable
// elimination, whose scopes hold at most MaxVEWidth+1 atoms).
const cliqueCap = MaxVEWidth + 1

// elimOrder returns a min-degree elimination order of the atoms on the
// primal graph of p's clauses, as each atom's rank (0: eliminated first),
// and the order's induced width (the largest neighbourhood eliminated;
// above fillCap, a lower bound). The search branches on the atom of
// highest rank: eliminated last, it sits in the separators of the
// elimination tree, so that branching on the atoms in that order splits
// a component of small treewidth early and into pieces the cache
// recognises.
func elimOrder(p *problem) ([]int32, int) {
	n := p.n
	adj := make([][]int32, n)
	for c := range p.w {
		ls := p.clause(int32(c))
		if len(ls) > cliqueCap {
			// Too long for a table: its atoms are linked in a path, which
			// keeps them together in the order at linear cost.
			for i := 1; i < len(ls); i++ {
				a, b := ls[i-1].Atom(), ls[i].Atom()
				adj[a] = append(adj[a], b)
				adj[b] = append(adj[b], a)
			}
			continue
		}
		for i, l := range ls {
			for _, m := range ls[i+1:] {
				a, b := l.Atom(), m.Atom()
				adj[a] = append(adj[a], b)
				adj[b] = append(adj[b], a)
			}
		}
	}
	for a := range adj {
		slices.Sort(adj[a])
		adj[a] = slices.Compact(adj[a])
	}
	rank := make([]int32, n)
	done := make([]bool, n)
	deg := make([]int32, n)
	h := &entHeap{}
	for a := range n {
		deg[a] = int32(len(adj[a]))
		heap.Push(h, ent{deg[a], int32(a)})
	}
	width := 0
	var nb []int32
	for r := int32(0); h.Len() > 0; {
		e := heap.Pop(h).(ent)
		v := e.v
		if done[v] || e.deg != deg[v] {
			continue
		}
		done[v] = true
		rank[v] = r
		r++
		nb = nb[:0]
		for _, u := range adj[v] {
			if !done[u] {
				nb = append(nb, u)
			}
		}
		width = max(width, len(nb))
		adj[v] = nil
		if len(nb) <= fillCap {
			for _, u := range nb {
				adj[u] = merge(adj[u], nb, u, done)
			}
		}
		for _, u := range nb {
			live := int32(0)
			for _, x := range adj[u] {
				if !done[x] {
					live++
				}
			}
			if live != deg[u] {
				deg[u] = live
				heap.Push(h, ent{live, u})
			}
		}
	}
	return rank, width
}

// merge returns the sorted union of a and b without self and the atoms
// done.
func merge(a, b []int32, self int32, done []bool) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var x int32
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			x = a[i]
			i++
		case i == len(a) || b[j] < a[i]:
			x = b[j]
			j++
		default:
			x = a[i]
			i++
			j++
		}
		if x != self && !done[x] && (len(out) == 0 || out[len(out)-1] != x) {
			out = append(out, x)
		}
	}
	return out
}

type ent struct {
	deg, v int32
}

type entHeap []ent

func (h entHeap) Len() int { return len(h) }
func (h entHeap) Less(i, j int) bool {
	if h[i].deg != h[j].deg {
		return h[i].deg < h[j].deg
	}
	return h[i].v < h[j].v
}
func (h entHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *entHeap) Push(x any)   { *h = append(*h, x.(ent)) }
func (h *entHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
