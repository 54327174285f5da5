package lp

import (
	"math"
	"runtime"
	"slices"

	"github.com/marple-mln/marple/internal/par"
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
	gamma   float64   // over-relaxation
	xa      []float64 // per slot t: local copy x at 2t, scaled dual α at 2t+1
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

func newADMM(p *problem, workers int) *admm {
	s := &admm{
		p:     p,
		rho:   p.scale,
		gamma: 1.3,
		xa:    make([]float64, 2*len(p.fAtom)),
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
	for t, a := range p.fAtom {
		s.xa[2*t] = s.z[a]
	}
	return s
}

// run calls fn(b) for b in [0, nb), spread over the workers.
func (s *admm) run(nb int, fn func(b int)) { par.For(s.workers, nb, fn) }

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

// iterate performs one ADMM iteration: the dual update of the previous
// iteration followed by the local (factor) step, then the consensus step.
func (s *admm) iterate() {
	p := s.p
	started := s.started
	s.run(s.nfb, func(b int) {
		lo := b * factorBlock
		hi := min(lo+factorBlock, p.numFactors())
		var buf [16]float64
		var srt [16]float64
		var bigU, bigS []float64 // scratch for long clauses
		g := s.gamma
		irho := 1 / s.rho
		xa, z, zp, off, sg := s.xa, s.z, s.zp, p.off, p.sg
		for j := lo; j < hi; j++ {
			f0, f1 := p.fStart[j], p.fStart[j+1]
			kind := p.fKind[j]
			if f1-f0 == 2 {
				// Two literals: inline.
				t0, t1 := f0, f0+1
				a0, a1 := p.fAtom[t0], p.fAtom[t1]
				z0, z1 := z[a0], z[a1]
				al0, al1 := xa[2*t0+1], xa[2*t1+1]
				if started {
					al0 += g*xa[2*t0] + (1-g)*zp[a0] - z0
					al1 += g*xa[2*t1] + (1-g)*zp[a1] - z1
					xa[2*t0+1], xa[2*t1+1] = al0, al1
				}
				u0 := off[t0] + sg[t0]*(z0-al0)
				u1 := off[t1] + sg[t1]*(z1-al1)
				if kind == kindNeg {
					// prox of t·max(u0, u1), t = |w|/ρ: lower the larger
					// by t, or both to their mean minus t/2 when it
					// reaches the smaller (prox's case for two literals).
					t := p.fW[j] * irho
					hi, lo := u0, u1
					if lo > hi {
						hi, lo = lo, hi
					}
					tau := hi - t
					if lo > tau {
						tau = (hi + lo - t) * 0.5
					}
					u0, u1 = min(u0, tau), min(u1, tau)
				} else if sum := u0 + u1; sum < 1 {
					step := (1 - sum) * 0.5
					if kind == kindPos {
						step = min(step, p.fW[j]*irho)
					}
					u0 += step
					u1 += step
				}
				xa[2*t0] = off[t0] + sg[t0]*u0
				xa[2*t1] = off[t1] + sg[t1]*u1
				continue
			}
			k := int(f1 - f0)
			u, us := buf[:0], srt[:0]
			if k > len(buf) {
				if cap(bigU) < k {
					bigU, bigS = make([]float64, 0, k), make([]float64, 0, k)
				}
				u, us = bigU[:0], bigS[:0]
			}
			for t := f0; t < f1; t++ {
				a := p.fAtom[t]
				za := z[a]
				if started {
					xa[2*t+1] += g*xa[2*t] + (1-g)*zp[a] - za
				}
				u = append(u, off[t]+sg[t]*(za-xa[2*t+1]))
			}
			prox(u, us, kind, p.fW[j]*irho)
			for i, t := 0, f0; t < f1; i, t = i+1, t+1 {
				xa[2*t] = off[t] + sg[t]*u[i]
			}
		}
	})
	s.started = true
	s.run(s.nab, func(b int) {
		lo := b * atomBlock
		hi := min(lo+atomBlock, p.n)
		g := s.gamma
		irho := 1 / s.rho
		xa := s.xa
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
				sx, sa := 0.0, 0.0
				for _, t := range p.occSlot[o0:o1] {
					sx += xa[2*t]
					sa += xa[2*t+1]
				}
				d := float64(o1 - o0)
				sum := g*sx + d*(1-g)*za + sa
				zn = clamp((sum-p.c[a]*irho)/d, p.lo[a], p.hi[a])
			}
			s.zp[a] = za
			s.z[a] = zn
		}
	})
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
		if len(us) > 32 {
			slices.Sort(us)
			slices.Reverse(us)
		} else {
			for i := 1; i < len(us); i++ { // insertion sort, descending
				v := us[i]
				j := i - 1
				for j >= 0 && us[j] < v {
					us[j+1] = us[j]
					j--
				}
				us[j+1] = v
			}
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
	// The multipliers are the next ones, λ = ρ(α + x̂ − z) with
	// x̂ = γx + (1−γ)z_prev: then the atoms' reduced costs vanish inside
	// their boxes.
	s.run(s.nfb, func(b int) {
		lo := b * factorBlock
		hi := min(lo+factorBlock, p.numFactors())
		xa, z, zp, off, sg := s.xa, s.z, s.zp, p.off, p.sg
		fs, ds, hv, h2 := 0.0, 0.0, 0.0, 0.0
		for j := lo; j < hi; j++ {
			f0, f1 := p.fStart[j], p.fStart[j+1]
			cst := 0.0    // constant part of λ·x in literal terms
			negSum := 0.0 // Σ min(0, λ'), λ' the multiplier of u
			minL := math.Inf(1)
			usum, umax := 0.0, 0.0 // literal values at z
			for t := f0; t < f1; t++ {
				a := p.fAtom[t]
				za := z[a]
				l := rho * (xa[2*t+1] + g*xa[2*t] + (1-g)*zp[a] - za)
				cst += off[t] * l // λx = λ(off + sg·u)
				l *= sg[t]
				if l < 0 {
					negSum += l
				}
				if l < minL {
					minL = l
				}
				u := off[t] + sg[t]*za
				usum += u
				if u > umax {
					umax = u
				}
			}
			// min over the box of the local Lagrangian term, in closed form
			// (the minimum of each piece lies at a 0/1 vertex).
			m := minL // best nonempty set of true literals
			if negSum < 0 {
				m = negSum
			}
			w := p.fW[j]
			switch p.fKind[j] {
			case kindPos:
				ds += cst + min(w, m)
				if usum < 1 {
					fs += w * (1 - usum)
				}
			case kindHard:
				ds += cst + m
				if usum < 1 {
					v := 1 - usum
					hv = max(hv, v)
					h2 += v * v
				}
			case kindNeg:
				ds += cst + min(0, w+negSum)
				fs += w * umax
			}
		}
		s.red[b], s.red2[b], s.red3[b], s.red4[b] = fs, ds, hv, h2
	})
	viol2 = math.Sqrt(sumBlocks(s.red4, s.nfb))
	f = p.k + sumBlocks(s.red, s.nfb)
	d = p.k + sumBlocks(s.red2, s.nfb)
	for _, v := range s.red3[:s.nfb] {
		hardViol = max(hardViol, v)
	}
	s.run(s.nab, func(b int) {
		lo := b * atomBlock
		hi := min(lo+atomBlock, p.n)
		xa := s.xa
		fs, ds := 0.0, 0.0
		for a := lo; a < hi; a++ {
			o0, o1 := p.occStart[a], p.occStart[a+1]
			sx, sa := 0.0, 0.0
			for _, t := range p.occSlot[o0:o1] {
				sx += xa[2*t]
				sa += xa[2*t+1]
			}
			za := s.z[a]
			rc := p.c[a] - rho*(sa+g*sx+float64(o1-o0)*((1-g)*s.zp[a]-za))
			ds += min(rc*p.lo[a], rc*p.hi[a])
			fs += p.c[a] * za
		}
		s.red[b], s.red2[b] = fs, ds
	})
	f += sumBlocks(s.red, s.nab)
	d += sumBlocks(s.red2, s.nab)
	return f, hardViol, viol2, d
}
