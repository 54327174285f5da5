package lbfgs

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// quadratic returns f(x) = ½xᵀAx − bᵀx for a random symmetric positive
// definite A (condition number up to about 100) and its minimiser A⁻¹b,
// found by Gaussian elimination.
func quadratic(r *rand.Rand, n int) (func(x, g []float64) float64, []float64) {
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n)
		for j := range m[i] {
			m[i][j] = r.NormFloat64()
		}
	}
	a := make([][]float64, n)
	for i := range a {
		a[i] = make([]float64, n)
		for j := range a[i] {
			for k := 0; k < n; k++ {
				a[i][j] += m[i][k] * m[j][k]
			}
		}
		a[i][i] += 0.5
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = r.NormFloat64()
	}
	// Solve a·x = b.
	aug := make([][]float64, n)
	for i := range aug {
		aug[i] = append(append([]float64(nil), a[i]...), b[i])
	}
	for c := 0; c < n; c++ {
		p := c
		for i := c + 1; i < n; i++ {
			if math.Abs(aug[i][c]) > math.Abs(aug[p][c]) {
				p = i
			}
		}
		aug[c], aug[p] = aug[p], aug[c]
		for i := 0; i < n; i++ {
			if i != c {
				f := aug[i][c] / aug[c][c]
				for j := c; j <= n; j++ {
					aug[i][j] -= f * aug[c][j]
				}
			}
		}
	}
	sol := make([]float64, n)
	for i := range sol {
		sol[i] = aug[i][n] / aug[i][i]
	}
	return func(x, g []float64) float64 {
		f := 0.0
		for i := range x {
			ax := 0.0
			for j := range x {
				ax += a[i][j] * x[j]
			}
			g[i] = ax - b[i]
			f += x[i]*ax/2 - b[i]*x[i]
		}
		return f
	}, sol
}

// TestMinimizeAlchemyQuadratic checks that the schedule reaches the
// minimiser of random quadratics, that its first trial point is the
// start moved by the unit vector along the negative gradient, and that
// progress reports every iteration with a falling value.
func TestMinimizeAlchemyQuadratic(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		n := 1 + r.IntN(12)
		fg, sol := quadratic(r, n)
		x0 := make([]float64, n)
		for i := range x0 {
			x0[i] = r.NormFloat64()
		}
		var pts [][]float64
		rec := func(x, g []float64) float64 {
			pts = append(pts, append([]float64(nil), x...))
			return fg(x, g)
		}
		var fs []float64
		res, err := MinimizeAlchemy(context.Background(), rec, x0, AlchemySettings{MaxIter: 10000, RelTol: 1e-15,
			Progress: func(it int, f float64) {
				if it != len(fs)+1 {
					t.Fatalf("progress iteration %d after %d", it, len(fs))
				}
				fs = append(fs, f)
			}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range sol {
			if math.Abs(res.X[i]-sol[i]) > 1e-6*(1+math.Abs(sol[i])) {
				t.Fatalf("trial %d: x %v, minimiser %v (%s after %d iterations)", trial, res.X, sol, res.Status, res.Iterations)
			}
		}
		if res.Evaluations != len(pts) || len(fs) != res.Iterations || res.F != fs[len(fs)-1] {
			t.Fatalf("trial %d: %d evaluations (%d seen), %d iterations (%d reported), F %v", trial, res.Evaluations, len(pts), res.Iterations, len(fs), res.F)
		}
		for k := 1; k < len(fs); k++ {
			if fs[k] > fs[k-1] {
				t.Fatalf("trial %d: value rose from %v to %v", trial, fs[k-1], fs[k])
			}
		}
		// The first trial point: x0 − g/|g|.
		g := make([]float64, n)
		fg(x0, g)
		norm := 0.0
		for _, v := range g {
			norm += v * v
		}
		norm = math.Sqrt(norm)
		if len(pts) > 1 {
			for i := range g {
				if want := x0[i] - g[i]/norm; math.Abs(pts[1][i]-want) > 1e-12 {
					t.Fatalf("trial %d: first trial point %v, want x0 - g/|g|", trial, pts[1])
				}
			}
		}
	}
}

// TestMinimizeAlchemyRosenbrock checks convergence on a non-quadratic
// function and Alchemy's iteration limit and relative stop.
func TestMinimizeAlchemyRosenbrock(t *testing.T) {
	fg := func(x, g []float64) float64 {
		a, b := 1-x[0], x[1]-x[0]*x[0]
		g[0] = -2*a - 400*x[0]*b
		g[1] = 200 * b
		return a*a + 100*b*b
	}
	ctx := context.Background()
	res, err := MinimizeAlchemy(ctx, fg, []float64{-1.2, 1}, AlchemySettings{MaxIter: 1000, RelTol: 1e-15})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.X[0]-1) > 1e-4 || math.Abs(res.X[1]-1) > 1e-4 {
		t.Fatalf("x %v (%s after %d iterations)", res.X, res.Status, res.Iterations)
	}
	limited, err := MinimizeAlchemy(ctx, fg, []float64{-1.2, 1}, AlchemySettings{MaxIter: 3, RelTol: 1e-15})
	if err != nil || limited.Iterations != 3 || limited.Status != "iteration limit" {
		t.Fatalf("limit 3: %+v, %v", limited, err)
	}
	loose, err := MinimizeAlchemy(ctx, fg, []float64{-1.2, 1}, AlchemySettings{MaxIter: 1000, RelTol: 0.5})
	if err != nil || loose.Iterations >= res.Iterations {
		t.Fatalf("loose: %+v, %v", loose, err)
	}
	if _, err := MinimizeAlchemy(ctx, fg, []float64{0, 0}, AlchemySettings{}); err == nil {
		t.Fatal("no iteration limit: no error")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if r, err := MinimizeAlchemy(cctx, fg, []float64{-1.2, 1}, AlchemySettings{MaxIter: 10}); !errors.Is(err, context.Canceled) || r == nil {
		t.Fatalf("cancelled: %+v, %v", r, err)
	}
	// At a zero gradient it stops at once.
	if r, err := MinimizeAlchemy(ctx, fg, []float64{1, 1}, AlchemySettings{MaxIter: 10}); err != nil || r.Iterations != 0 || r.Status != "zero gradient" {
		t.Fatalf("at the minimum: %+v, %v", r, err)
	}
}
