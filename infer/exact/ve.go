package exact

import "sync/atomic"

// ve runs max-sum (min-cost) bucket elimination over the buckets set up by
// initBuckets, from the deepest variable up, then traces the optimal
// assignment back into ws.x. It returns the optimal residual cost (+Inf
// when the hard clauses cannot hold). With check set it gives up (false)
// when stop is raised.
func (ws *workspace) ve(n int, stop *atomic.Bool, check bool) (float64, bool) {
	value := 0.0
	for len(ws.chVars) < n {
		ws.chVars = append(ws.chVars, nil)
	}
	ws.chOff = grow32(ws.chOff, n)
	ws.bits = ws.bits[:0]
	for d := int32(n - 1); d >= 0; d-- {
		if check && stop.Load() {
			return 0, false
		}
		fs := ws.fs[:0]
		for f := ws.head[d]; f >= 0; f = ws.factors[f].next {
			fs = append(fs, f)
		}
		ws.fs = fs
		maxo := ws.scope(d, fs)
		U := ws.U
		k := len(U)
		size := 1 << k
		ws.T = growF(ws.T, size)
		T := ws.T
		var cstop *atomic.Bool
		if check {
			cstop = stop
		}
		if !ws.combine(U, fs, ws.du[d], T, cstop) {
			return 0, false
		}
		half := size >> 1
		off := len(ws.bits)
		for i := 0; i < (half+63)/64; i++ {
			ws.bits = append(ws.bits, 0)
		}
		bits := ws.bits[off:]
		ws.chOff[d] = int32(off)
		ws.chVars[d] = nil
		if k == 1 {
			if T[1] < T[0] {
				value += T[1]
				bits[0] = 1
			} else {
				value += T[0]
			}
			continue
		}
		msg := ws.fa.alloc(half)
		for j := 0; j < half; j++ {
			a, b := T[2*j], T[2*j+1]
			if b < a {
				msg[j] = b
				bits[j>>6] |= 1 << (j & 63)
			} else {
				msg[j] = a
			}
		}
		vars := ws.ia.alloc(k - 1)
		copy(vars, U[1:])
		ws.chVars[d] = vars
		ws.addFactor(factor{vars: vars, tab: msg}, maxo)
	}
	x := ws.x
	for d := 0; d < n; d++ {
		j := 0
		for t, v := range ws.chVars[d] {
			if x[v] {
				j |= 1 << t
			}
		}
		x[d] = ws.bits[int(ws.chOff[d])+j>>6]>>(j&63)&1 == 1
	}
	return value, true
}
