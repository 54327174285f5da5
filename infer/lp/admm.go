package lp

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Block sizes for the parallel passes. Reductions are summed per block and
// then over blocks in order, so results do not depend on the number of
// workers.
const (
	factorBlock = 2048
	atomBlock   = 4096
	// minParallelSlots is the problem size below which one goroutine runs.
	minParallelSlots = 16384
)

// admm is the consensus ADMM solver state (PSL style). Each factor keeps a
// local copy x of its atoms' values and a scaled dual α; the consensus
// value z of each atom lives in its box.
type admm struct {
	p       *problem
	rho     float64
	gamma   float64 // over-relaxation
	x, al   []float64
	z, zp   []float64 // consensus and previous consensus
	started bool

	workers int
	nfb     int // factor blocks
	nab     int // atom blocks
	red     []float64
	red2    []float64
	red3    []float64
	red4    []float64
}

var dbgRhoMul, dbgGamma, dbgAdapt = 1.0, 1.6, true

func newADMM(p *problem, workers int) *admm {
	s := &admm{
		p:     p,
		rho:   p.scale * dbgRhoMul,
		gamma: dbgGamma,
		x:     make([]float64, len(p.fAtom)),
		al:    make([]float64, len(p.fAtom)),
		z:     make([]float64, p.n),
		zp:    make([]float64, p.n),
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if len(p.fAtom) < minParallelSlots {
		workers = 1
	}
	s.workers = workers
	s.nfb = (p.numFactors() + factorBlock - 1) / factorBlock
	s.nab = (p.n + atomBlock - 1) / atomBlock
	nb := max(s.nfb, s.nab)
	s.red = make([]float64, nb)
	s.red2 = make([]float64, nb)
	s.red3 = make([]float64, nb)
	s.red4 = make([]float64, nb)
	for a := range s.z {
		s.z[a] = clamp(0.5, p.lo[a], p.hi[a])
		s.zp[a] = s.z[a]
	}
	for i, a := range p.fAtom {
		s.x[i] = s.z[a]
	}
	return s
}

// run calls fn(b) for b in [0, nb), spread over the workers.
func (s *admm) run(nb int, fn func(b int)) {
	w := min(s.workers, nb)
	if w <= 1 {
		for b := 0; b < nb; b++ {
			fn(b)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	work := func() {
		for {
			b := int(next.Add(1) - 1)
			if b >= nb {
				return
			}
			fn(b)
		}
	}
	wg.Add(w - 1)
	for i := 1; i < w; i++ {
		go func() { defer wg.Done(); work() }()
	}
	work()
	wg.Wait()
}

func sumBlocks(v []float64, nb int) float64 {
	t := 0.0
	for _, x := range v[:nb] {
		t += x
	}
	return t
}

func clamp(v, lo, hi float64) float64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// residuals are the squared norms an iteration reports.
type residuals struct {
	r2  float64 // primal residual Σ(x−z)², before the iteration
	d2  float64 // Σ deg·(z−z_prev)² (times ρ², the dual residual)
	xn2 float64 // Σx²
	an2 float64 // Σα² (scaled duals)
}

// iterate performs one ADMM iteration: the dual update of the previous
// iteration followed by the local (factor) step, then the consensus step.
func (s *admm) iterate() residuals {
	p := s.p
	started := s.started
	s.run(s.nfb, func(b int) {
		lo := b * factorBlock
		hi := min(lo+factorBlock, p.numFactors())
		var buf [16]float64
		var srt [16]float64
		r, xn, an := 0.0, 0.0, 0.0
		g := s.gamma
		for j := lo; j < hi; j++ {
			f0, f1 := p.fStart[j], p.fStart[j+1]
			k := int(f1 - f0)
			u, us := buf[:0], srt[:0]
			if k > len(buf) {
				u, us = make([]float64, 0, k), make([]float64, 0, k)
			}
			for t := f0; t < f1; t++ {
				a := p.fAtom[t]
				za := s.z[a]
				if started {
					d := s.x[t] - za
					r += d * d
					s.al[t] += g*s.x[t] + (1-g)*s.zp[a] - za
				}
				an += s.al[t] * s.al[t]
				u = append(u, litVal(za-s.al[t], p.fNeg[t]))
			}
			prox(u, us, p.fKind[j], p.fW[j]/s.rho)
			for i, t := 0, f0; t < f1; i, t = i+1, t+1 {
				v := litVal(u[i], p.fNeg[t])
				s.x[t] = v
				xn += v * v
			}
		}
		s.red[b], s.red2[b], s.red3[b] = r, xn, an
	})
	var res residuals
	res.r2 = sumBlocks(s.red, s.nfb)
	res.xn2 = sumBlocks(s.red2, s.nfb)
	res.an2 = sumBlocks(s.red3, s.nfb)
	s.started = true
	s.run(s.nab, func(b int) {
		lo := b * atomBlock
		hi := min(lo+atomBlock, p.n)
		d := 0.0
		g := s.gamma
		rho := s.rho
		for a := lo; a < hi; a++ {
			o0, o1 := p.occStart[a], p.occStart[a+1]
			za := s.z[a]
			var zn float64
			if o0 == o1 {
				zn = p.lo[a]
				if p.c[a] < 0 {
					zn = p.hi[a]
				}
			} else {
				sum := 0.0
				for _, t := range p.occSlot[o0:o1] {
					sum += g*s.x[t] + (1-g)*za + s.al[t]
				}
				zn = clamp((sum-p.c[a]/rho)/float64(o1-o0), p.lo[a], p.hi[a])
			}
			dz := zn - za
			d += float64(o1-o0) * dz * dz
			s.zp[a] = za
			s.z[a] = zn
		}
		s.red[b] = d
	})
	res.d2 = sumBlocks(s.red, s.nab)
	return res
}

// prox replaces u (literal values of one factor) by the proximal point of
// the factor's cost with step t = w/ρ (projection for a hard factor). us
// is scratch of capacity len(u).
func prox(u, us []float64, kind uint8, t float64) {
	k := float64(len(u))
	switch kind {
	case kindPos, kindHard:
		sum := 0.0
		for _, v := range u {
			sum += v
		}
		if sum >= 1 {
			return
		}
		step := (1 - sum) / k
		if kind == kindPos && t < step {
			step = t
		}
		for i := range u {
			u[i] += step
		}
	case kindNeg:
		// prox of t·max_i u_i: u_i = min(u_i, τ) where Σ(u_i − τ)_+ = t.
		us = append(us[:0], u...)
		for i := 1; i < len(us); i++ { // insertion sort, descending
			v := us[i]
			j := i - 1
			for j >= 0 && us[j] < v {
				us[j+1] = us[j]
				j--
			}
			us[j+1] = v
		}
		cum := 0.0
		tau := us[0] - t
		for m, v := range us {
			cum += v
			tm := (cum - t) / float64(m+1)
			if v > tm {
				tau = tm
			} else {
				break
			}
		}
		for i, v := range u {
			if v > tau {
				u[i] = tau
			}
		}
	}
}

// check returns the LP objective F at the consensus point z (cost units,
// hard factors excluded), the largest hard violation at z and the
// Euclidean norm of the hard violations, and the dual
// bound D ≤ LP optimum computed from the current multipliers. D is valid
// for any multipliers: it is the Lagrangian dual function of the consensus
// problem with every local copy restricted to [0,1].
func (s *admm) check() (f, hardViol, viol2, d float64) {
	p := s.p
	rho, g := s.rho, s.gamma
	// Next multipliers λ = ρ(α + x̂ − z), x̂ = γx + (1−γ)z_prev.
	lam := func(t int32, a int32) float64 {
		return rho * (s.al[t] + g*s.x[t] + (1-g)*s.zp[a] - s.z[a])
	}
	s.run(s.nfb, func(b int) {
		lo := b * factorBlock
		hi := min(lo+factorBlock, p.numFactors())
		fs, ds, hv, h2 := 0.0, 0.0, 0.0, 0.0
		for j := lo; j < hi; j++ {
			f0, f1 := p.fStart[j], p.fStart[j+1]
			w := p.fW[j]
			cst := 0.0
			negSum := 0.0 // Σ min(0, λ')
			anyNeg := false
			minL := math.Inf(1)
			for t := f0; t < f1; t++ {
				a := p.fAtom[t]
				l := lam(t, a)
				if p.fNeg[t] { // λ·x = λ(1−u) = λ − λu
					cst += l
					l = -l
				}
				if l < 0 {
					negSum += l
					anyNeg = true
				}
				minL = math.Min(minL, l)
			}
			m := minL
			if anyNeg {
				m = negSum
			}
			v := p.factorCost(j, s.z)
			switch p.fKind[j] {
			case kindPos:
				ds += cst + math.Min(w, m)
				fs += v
			case kindHard:
				ds += cst + m
				hv = math.Max(hv, v)
				h2 += v * v
			case kindNeg:
				ds += cst + math.Min(0, w+negSum)
				fs += v
			}
		}
		s.red[b], s.red2[b], s.red3[b], s.red4[b] = fs, ds, hv, h2
	})
	viol2 = math.Sqrt(sumBlocks(s.red4, s.nfb))
	f = p.k + sumBlocks(s.red, s.nfb)
	d = p.k + sumBlocks(s.red2, s.nfb)
	for _, v := range s.red3[:s.nfb] {
		hardViol = math.Max(hardViol, v)
	}
	s.run(s.nab, func(b int) {
		lo := b * atomBlock
		hi := min(lo+atomBlock, p.n)
		fs, ds := 0.0, 0.0
		for a := lo; a < hi; a++ {
			rc := p.c[a]
			for _, t := range p.occSlot[p.occStart[a]:p.occStart[a+1]] {
				rc -= lam(t, int32(a))
			}
			ds += math.Min(rc*p.lo[a], rc*p.hi[a])
			fs += p.c[a] * s.z[a]
		}
		s.red[b], s.red2[b] = fs, ds
	})
	f += sumBlocks(s.red, s.nab)
	d += sumBlocks(s.red2, s.nab)
	return f, hardViol, viol2, d
}

// setRho changes the penalty, rescaling the scaled duals.
func (s *admm) setRho(rho float64) {
	f := s.rho / rho
	for i := range s.al {
		s.al[i] *= f
	}
	s.rho = rho
}
