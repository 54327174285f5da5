package rrf

import "math"

// value returns the value of node r in world x under weights w.
func (n *Network) value(r int32, x []bool, w []float64) float64 {
	nd := &n.nodes[r]
	switch nd.op {
	case gConst:
		return nd.val
	case gAtom:
		return b2f(x[nd.atom])
	case gNot:
		return 1 - n.value(n.kids[nd.off], x, w)
	case gAnd:
		for _, k := range n.kids[nd.off : nd.off+nd.n] {
			if n.value(k, x, w) < 0.5 {
				return 0
			}
		}
		return 1
	case gOr:
		for _, k := range n.kids[nd.off : nd.off+nd.n] {
			if n.value(k, x, w) >= 0.5 {
				return 1
			}
		}
		return 0
	case gIff:
		return b2f((n.value(n.kids[nd.off], x, w) >= 0.5) == (n.value(n.kids[nd.off+1], x, w) >= 0.5))
	case gSoftAnd:
		s := 0.0
		for j := nd.off; j < nd.off+nd.n; j++ {
			wj := w[n.params[j]]
			s += float64(n.mult[j]) * (wj*n.value(n.kids[j], x, w) - max(wj, 0))
		}
		return math.Exp(s)
	case gSoftOr:
		s := 0.0
		for j := nd.off; j < nd.off+nd.n; j++ {
			wj := w[n.params[j]]
			s += float64(n.mult[j]) * (wj*n.value(n.kids[j], x, w) + max(-wj, 0))
		}
		return -math.Expm1(-s)
	}
	panic("rrf: unknown ground node")
}

// Score returns the log of a world's unnormalised probability,
// Σ_t w_t f_t(x) over the groundings kept.
func (n *Network) Score(x []bool, w []float64) float64 {
	s := 0.0
	for _, t := range n.tops {
		s += w[t.param] * n.value(t.root, x, w)
	}
	return s
}

// Delta returns Score with atom a true minus Score with a false (x[a] is
// restored).
func (n *Network) Delta(a int, x []bool, w []float64) float64 {
	old := x[a]
	d := 0.0
	for _, t := range n.atomTops[a] {
		tp := &n.tops[t]
		x[a] = true
		v1 := n.value(tp.root, x, w)
		x[a] = false
		v0 := n.value(tp.root, x, w)
		d += w[tp.param] * (v1 - v0)
	}
	x[a] = old
	return d
}

// scratch holds the node values of a forward pass.
type scratch struct{ vals []float64 }

func (n *Network) newScratch() *scratch { return &scratch{vals: make([]float64, len(n.nodes))} }

// forward computes and stores the values of r's subtree.
func (n *Network) forward(r int32, x []bool, w []float64, sc *scratch) float64 {
	nd := &n.nodes[r]
	var v float64
	switch nd.op {
	case gConst:
		v = nd.val
	case gAtom:
		v = b2f(x[nd.atom])
	case gSoftAnd:
		s := 0.0
		for j := nd.off; j < nd.off+nd.n; j++ {
			wj := w[n.params[j]]
			s += float64(n.mult[j]) * (wj*n.forward(n.kids[j], x, w, sc) - max(wj, 0))
		}
		v = math.Exp(s)
	case gSoftOr:
		s := 0.0
		for j := nd.off; j < nd.off+nd.n; j++ {
			wj := w[n.params[j]]
			s += float64(n.mult[j]) * (wj*n.forward(n.kids[j], x, w, sc) + max(-wj, 0))
		}
		v = -math.Expm1(-s)
	case gNot:
		v = 1 - n.forward(n.kids[nd.off], x, w, sc)
	default:
		// A hard node: no weight below it.
		v = n.value(r, x, w)
	}
	sc.vals[r] = v
	return v
}

// backward adds adj times the gradient of node r's value (from a forward
// pass) with respect to the weights to grad.
func (n *Network) backward(r int32, adj float64, w []float64, grad []float64, sc *scratch) {
	if adj == 0 {
		return
	}
	nd := &n.nodes[r]
	switch nd.op {
	case gNot:
		n.backward(n.kids[nd.off], -adj, w, grad, sc)
	case gSoftAnd:
		// f = exp(Σ c_j (w_j f_j - max(w_j, 0))): df/dw_j = f c_j (f_j - [w_j > 0]),
		// df/df_j = f c_j w_j.
		f := sc.vals[r]
		for j := nd.off; j < nd.off+nd.n; j++ {
			p, k, c := n.params[j], n.kids[j], float64(n.mult[j])
			wj := w[p]
			grad[p] += adj * f * c * (sc.vals[k] - b2f(wj > 0))
			if n.nodes[k].op != gConst && n.nodes[k].op != gAtom {
				n.backward(k, adj*f*c*wj, w, grad, sc)
			}
		}
	case gSoftOr:
		// f = 1 - exp(-s), s = Σ c_j (w_j f_j + max(-w_j, 0)): df/ds = 1 - f.
		e := 1 - sc.vals[r]
		for j := nd.off; j < nd.off+nd.n; j++ {
			p, k, c := n.params[j], n.kids[j], float64(n.mult[j])
			wj := w[p]
			grad[p] += adj * e * c * (sc.vals[k] - b2f(wj < 0))
			if n.nodes[k].op != gConst && n.nodes[k].op != gAtom {
				n.backward(k, adj*e*c*wj, w, grad, sc)
			}
		}
	}
}

// gradTop adds scale times the gradient of w_t f_t(x), grounding t's term
// of Score, to grad, and returns f_t(x).
func (n *Network) gradTop(t int32, x []bool, w []float64, scale float64, grad []float64, sc *scratch) float64 {
	tp := &n.tops[t]
	v := n.forward(tp.root, x, w, sc)
	grad[tp.param] += scale * v
	n.backward(tp.root, scale*w[tp.param], w, grad, sc)
	return v
}

// GradScore adds the gradient of Score at x with respect to every weight
// to grad.
func (n *Network) GradScore(x []bool, w []float64, grad []float64) {
	sc := n.newScratch()
	for t := range n.tops {
		n.gradTop(int32(t), x, w, 1, grad, sc)
	}
}
