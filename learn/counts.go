package learn

import (
	"math"

	"github.com/marple-mln/marple/ground"
)

// Sparse is a sparse vector over the parameters: Val[k] is the entry of
// parameter Idx[k]; indices are distinct.
type Sparse struct {
	Idx []int32
	Val []float64
}

// Len returns the number of stored entries.
func (s Sparse) Len() int { return len(s.Idx) }

// Norm2 returns the squared Euclidean norm.
func (s Sparse) Norm2() float64 {
	var n float64
	for _, v := range s.Val {
		n += v * v
	}
	return n
}

// diffEps is the magnitude under which an entry of a count difference is
// taken to be zero (rounding residue of coefficient sums such as
// 1/3+1/3+1/3−1).
const diffEps = 1e-12

// differ computes count differences n(x,y) − n(x,y2) touching only the
// clauses that contain an atom on which y and y2 differ. Its scratch space
// is reused across examples.
type differ struct {
	stamp []uint32 // per clause: last round it was visited
	round uint32
	acc   []float64 // per parameter
	seen  []bool    // per parameter: in touched
	touch []int32
	vals  []float64
}

// diff returns n(x,y) − n(x,y2) as a sparse vector over parameters
// (numParams must exceed every Param of net). The result's slices are valid
// until the next call.
func (d *differ) diff(net *ground.Network, y, y2 []bool, numParams int) Sparse {
	nc := net.NumClauses()
	if len(d.stamp) < nc {
		d.stamp = make([]uint32, nc)
		d.round = 0
	}
	d.round++
	if d.round == 0 { // wrapped: clear
		clear(d.stamp)
		d.round = 1
	}
	if len(d.acc) < numParams {
		d.acc = append(d.acc, make([]float64, numParams-len(d.acc))...)
		d.seen = append(d.seen, make([]bool, numParams-len(d.seen))...)
	}
	d.touch = d.touch[:0]
	for a := range y {
		if y[a] == y2[a] {
			continue
		}
		for _, c := range net.Occurrences(int32(a)) {
			if d.stamp[c] == d.round {
				continue
			}
			d.stamp[c] = d.round
			p := net.Param(int(c))
			if p < 0 {
				continue
			}
			s1, s2 := net.Satisfied(int(c), y), net.Satisfied(int(c), y2)
			if s1 == s2 {
				continue
			}
			v := net.Coef(int(c))
			if s2 {
				v = -v
			}
			d.acc[p] += v
			if !d.seen[p] {
				d.seen[p] = true
				d.touch = append(d.touch, p)
			}
		}
	}
	idx := d.touch
	k := 0
	vals := d.vals[:0]
	for _, p := range idx {
		v := d.acc[p]
		d.acc[p] = 0
		d.seen[p] = false
		if math.Abs(v) > diffEps {
			idx[k] = p
			vals = append(vals, v)
			k++
		}
	}
	d.vals = vals
	return Sparse{Idx: idx[:k], Val: vals}
}

// setWeights sets the weight of every clause of net that has a parameter to
// w(p)·Coef; hard clauses and clauses without a parameter are left alone.
func setWeights(net *ground.Network, w []float64) {
	net.SetParamWeights(w)
}
