package learn

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// activeSet minimises −D(α) = ½αᵀGα − Σ_j α_j·b_j over the simplex
// {α ≥ 0, s ≥ 0, Σα + s = C} (s the slack variable) by a primal
// active-set method, warm-started from the current α and s, and reports
// whether it reached a point where the optimality conditions hold to tol.
//
// The free set F holds the coordinates allowed to be positive (the others
// are 0). On F the equality-constrained problem is solved exactly in the
// null space of Σ_{F} p = 0: with the last free coordinate as pivot the
// reduced Hessian M = ZᵀG_FF Z is decomposed into eigenpairs, the Newton
// step uses the eigenvalues above a relative 1e-10 of the largest, and
// when the reduced gradient has a component in M's null space (a direction
// of zero curvature along which the objective decreases) the step follows
// that direction instead, to the boundary. A step that would make a free
// coordinate negative stops where the first one reaches 0, which leaves F.
// At the minimiser on F every free gradient equals the multiplier λ; the
// coordinate outside F with the smallest gradient below λ − tol joins F,
// and when there is none the point is optimal. Each step lowers the
// objective or changes F; the number of steps is bounded (and false is
// returned when the bound or a numerical failure stops it, leaving a
// feasible point).
//
// The Gram matrix of the working set has rank at most the number of
// parameters, so the free set stays small (at most that rank plus one
// planes, apart from degenerate ties) and a solve costs a few small
// eigendecompositions, where sequential minimal optimisation needs
// hundreds of thousands of steps on the ill-conditioned working sets of
// large examples (WebKB's departments at C ≥ 10).
func (q *dualQP) activeSet(tol float64) bool {
	m := len(q.b)
	if m == 0 {
		return true
	}
	// Coordinate m is the slack s (zero row of G, b = 0).
	x := make([]float64, m+1)
	copy(x, q.alpha)
	x[m] = q.s
	free := make([]bool, m+1)
	for i, v := range x {
		free[i] = v > 0
	}
	h := func(i, j int) float64 {
		if i == m || j == m {
			return 0
		}
		return q.G[i][j]
	}
	grad := make([]float64, m+1) // ∇(−D) = Gα − b; 0 for the slack
	gradient := func() {
		for i := 0; i < m; i++ {
			v := -q.b[i]
			for j := 0; j < m; j++ {
				if x[j] != 0 {
					v += q.G[i][j] * x[j]
				}
			}
			grad[i] = v
		}
		grad[m] = 0
	}
	var (
		F   []int
		eig mat.EigenSym
		p   = make([]float64, m+1)
	)
	maxSteps := 4*(m+1) + 100
	for step := 0; step < maxSteps; step++ {
		gradient()
		F = F[:0]
		for i, f := range free {
			if f {
				F = append(F, i)
			}
		}
		if len(F) == 0 {
			return false
		}
		clear(p)
		moved := false
		if k := len(F) - 1; k > 0 {
			piv := F[k]
			M := mat.NewSymDense(k, nil)
			r := make([]float64, k)
			maxDiag := 0.0
			for a := 0; a < k; a++ {
				i := F[a]
				r[a] = grad[i] - grad[piv]
				for c := a; c < k; c++ {
					j := F[c]
					M.SetSym(a, c, h(i, j)-h(i, piv)-h(piv, j)+h(piv, piv))
				}
				maxDiag = max(maxDiag, M.At(a, a))
			}
			if !eig.Factorize(M, true) {
				return false
			}
			vals := eig.Values(nil)
			var Q mat.Dense
			eig.VectorsTo(&Q)
			lmax := 0.0
			for _, v := range vals {
				lmax = max(lmax, v)
			}
			thr := 1e-10 * max(lmax, maxDiag)
			rn := 0.0
			for _, v := range r {
				rn += v * v
			}
			rn = math.Sqrt(rn)
			// Components of r along the eigenvectors; a zero-curvature
			// descent direction exists when r has a component along an
			// eigenvector with eigenvalue ≤ thr.
			coef := make([]float64, k)
			descent := false
			for e, lv := range vals {
				var c float64
				for a := 0; a < k; a++ {
					c += Q.At(a, e) * r[a]
				}
				coef[e] = c
				if lv <= thr && math.Abs(c) > 1e-9*rn && math.Abs(c) > 1e-3*tol {
					descent = true
				}
			}
			// The step in the reduced space: along the null space only
			// when it holds a descent direction, else the Newton step on
			// the eigenvalues above thr.
			u := make([]float64, k)
			for e, lv := range vals {
				var cf float64
				switch {
				case descent && lv <= thr:
					cf = -coef[e]
				case !descent && lv > thr:
					cf = -coef[e] / lv
				}
				if cf == 0 {
					continue
				}
				for a := 0; a < k; a++ {
					u[a] += cf * Q.At(a, e)
				}
			}
			sum := 0.0
			for a := 0; a < k; a++ {
				p[F[a]] = u[a]
				sum += u[a]
			}
			p[piv] = -sum
			// Ratio test: the largest t ≤ 1 (unbounded along a zero-
			// curvature direction) keeping the free coordinates ≥ 0.
			t, hit := math.Inf(1), -1
			if !descent {
				t = 1
			}
			for _, i := range F {
				if p[i] < 0 {
					if ti := -x[i] / p[i]; ti < t {
						t, hit = ti, i
					}
				}
			}
			if math.IsInf(t, 1) {
				return false
			}
			// Does the step change anything (beyond rounding)?
			pn := 0.0
			for _, i := range F {
				pn = max(pn, math.Abs(p[i]))
			}
			if t > 0 && pn*t > 1e-15*q.C {
				moved = true
				for _, i := range F {
					x[i] += t * p[i]
					if x[i] < 0 {
						x[i] = 0
					}
				}
			}
			if hit >= 0 {
				x[hit] = 0
				free[hit] = false
				moved = true
				if ok := renormalise(x, q.C); !ok {
					return false
				}
				continue
			}
			if descent {
				continue
			}
			if moved {
				// A full Newton step: the minimiser on F.
				renormalise(x, q.C)
				gradient()
			}
		}
		// Minimiser on F: λ is the mean free gradient; a coordinate outside
		// F whose gradient is below λ − tol joins F.
		lam := 0.0
		for _, i := range F {
			lam += grad[i]
		}
		lam /= float64(len(F))
		in, gin := -1, lam-tol
		for i := range free {
			if !free[i] && grad[i] < gin {
				in, gin = i, grad[i]
			}
		}
		if in < 0 {
			copy(q.alpha, x[:m])
			q.s = x[m]
			return true
		}
		free[in] = true
	}
	copy(q.alpha, x[:m])
	q.s = x[m]
	return false
}

// renormalise rescales x ≥ 0 so that it sums to C (rounding drift).
func renormalise(x []float64, C float64) bool {
	sum := 0.0
	for _, v := range x {
		sum += v
	}
	if !(sum > 0) {
		return false
	}
	for i := range x {
		x[i] *= C / sum
	}
	return true
}
