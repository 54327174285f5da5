package lbfgs

import (
	"context"
	"errors"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// AlchemySettings configure MinimizeAlchemy.
type AlchemySettings struct {
	// Memory is the number of corrections kept (0: 5, Alchemy's).
	Memory int
	// MaxIter bounds the iterations (must be positive).
	MaxIter int
	// RelTol stops when an iteration changes the value by less than this
	// fraction of the previous iteration's value.
	RelTol float64
	// Progress, when set, is called after every iteration with its number
	// and the value reached.
	Progress func(iter int, f float64)
}

// AlchemyResult is the outcome of MinimizeAlchemy.
type AlchemyResult struct {
	X                       []float64
	F                       float64
	Iterations, Evaluations int
	// Status says why the iterations stopped.
	Status string
}

// The line search's constants: sufficient decrease, curvature and the
// relative width of the bracket at which it gives up (those of the
// L-BFGS-B code of Zhu, Byrd, Lu and Nocedal, which Alchemy runs), the
// largest step, and the evaluations one line search may use.
const (
	lsDecrease  = 1e-3
	lsCurvature = 0.9
	lsStepTol   = 0.1
	lsMaxStep   = 1e10
	lsMaxEvals  = 20
)

// MinimizeAlchemy minimises fg (the value at x, the gradient written into
// grad) from x0 with limited-memory BFGS run as Alchemy's learnwts -g runs
// its L-BFGS-B without bounds, so that on a flat objective it stops where
// Alchemy stops: the first direction is the negative gradient with the step
// 1/|g|, every later direction the quasi-Newton one (Memory corrections,
// the initial matrix scaled by s'y/y'y) with the step 1; the Moré–Thuente
// line search (sufficient decrease 1e-3, curvature 0.9, bracket tolerance
// 0.1, at most 20 evaluations, then the memory is dropped and the
// iteration restarts along the negative gradient); a correction whose
// curvature s'y is not positive (to rounding) is skipped. It stops after
// MaxIter iterations (with the point of one more line search, as Alchemy
// keeps it), when an iteration changes the value by less than
// RelTol of the previous value (Alchemy's test), when it does not decrease
// the value at all, or at a zero gradient. The point returned is the last
// iterate. When ctx is cancelled it returns the last iterate with ctx's
// error.
func MinimizeAlchemy(ctx context.Context, fg func(x, grad []float64) float64, x0 []float64, s AlchemySettings) (*AlchemyResult, error) {
	n := len(x0)
	if s.MaxIter <= 0 || s.RelTol < 0 || math.IsNaN(s.RelTol) || s.Memory < 0 {
		return nil, errors.New("lbfgs: bad settings")
	}
	mem := s.Memory
	if mem == 0 {
		mem = 5
	}
	x := append([]float64(nil), x0...)
	g := make([]float64, n)
	res := &AlchemyResult{X: x}
	eval := func(at []float64) float64 {
		res.Evaluations++
		return fg(at, g)
	}
	f := eval(x)
	res.F = f
	if n == 0 {
		res.Status = "no variables"
		return res, nil
	}
	var (
		ss, ys [][]float64 // corrections, oldest first
		rhos   []float64   // 1/s'y
		d      = make([]float64, n)
		xold   = make([]float64, n)
		gold   = make([]float64, n)
		alpha  = make([]float64, mem)
		prev   = f
		iter   = 0
	)
	dot := func(a, b []float64) float64 {
		t := 0.0
		for i := range a {
			t += a[i] * b[i]
		}
		return t
	}
	for {
		if err := ctx.Err(); err != nil {
			res.Status = "interrupted"
			return res, err
		}
		if maxAbs(g) == 0 {
			res.Status = "zero gradient"
			return res, nil
		}
		// The direction: -H g by the two-loop recursion.
		for i := range d {
			d[i] = -g[i]
		}
		if k := len(ss); k > 0 {
			for j := k - 1; j >= 0; j-- {
				alpha[j] = rhos[j] * dot(ss[j], d)
				axpy(-alpha[j], ys[j], d)
			}
			gamma := dot(ss[k-1], ys[k-1]) / dot(ys[k-1], ys[k-1])
			for i := range d {
				d[i] *= gamma
			}
			for j := 0; j < k; j++ {
				b := rhos[j] * dot(ys[j], d)
				axpy(alpha[j]-b, ss[j], d)
			}
		}
		gd := dot(g, d)
		if !(gd < 0) {
			if len(ss) == 0 {
				res.Status = "no descent direction"
				return res, nil
			}
			ss, ys, rhos = nil, nil, nil
			continue
		}
		step := 1.0
		if iter == 0 {
			step = math.Min(1/math.Sqrt(dot(d, d)), lsMaxStep)
		}
		copy(xold, x)
		copy(gold, g)
		fold, gdold := f, gd
		ls := &optimize.MoreThuente{DecreaseFactor: lsDecrease, CurvatureFactor: lsCurvature, StepTolerance: lsStepTol, MaximumStep: lsMaxStep}
		ls.Init(f, gd, step)
		step = math.Min(step, lsMaxStep)
		accepted := false
		for evals := 0; evals < lsMaxEvals; evals++ {
			for i := range x {
				x[i] = xold[i] + step*d[i]
			}
			f = eval(x)
			if err := ctx.Err(); err != nil {
				copy(x, xold)
				copy(g, gold)
				res.F, res.Status = fold, "interrupted"
				return res, err
			}
			op, next, err := ls.Iterate(f, dot(g, d))
			if err != nil || op == optimize.MajorIteration {
				// Converged, or the bracket cannot shrink further: the
				// point just evaluated is the next iterate.
				accepted = true
				break
			}
			step = next
		}
		if !accepted {
			copy(x, xold)
			copy(g, gold)
			f = fold
			if len(ss) == 0 {
				res.F, res.Status = f, "line search failed"
				return res, nil
			}
			ss, ys, rhos = nil, nil, nil
			continue
		}
		res.F = f
		if iter+1 > s.MaxIter {
			// As Alchemy's driver: the iterate past the limit is kept
			// but not counted.
			res.Status = "iteration limit"
			return res, nil
		}
		iter++
		res.Iterations = iter
		if s.Progress != nil {
			s.Progress(iter, f)
		}
		switch {
		case math.Abs(f-prev) < s.RelTol*math.Abs(prev):
			res.Status = "relative change below the threshold"
			return res, nil
		case fold-f <= 0:
			res.Status = "no decrease"
			return res, nil
		}
		prev = f
		// The correction s = x - xold, y = g - gold, kept when its
		// curvature is positive to rounding.
		sv, yv := make([]float64, n), make([]float64, n)
		for i := range sv {
			sv[i] = x[i] - xold[i]
			yv[i] = g[i] - gold[i]
		}
		sy := dot(sv, yv)
		if sy <= epsilon*(-gdold*step) {
			continue
		}
		if len(ss) == mem {
			ss, ys, rhos = ss[1:], ys[1:], rhos[1:]
		}
		ss, ys, rhos = append(ss, sv), append(ys, yv), append(rhos, 1/sy)
	}
}

// epsilon is the machine epsilon of float64.
const epsilon = 2.220446049250313e-16

func axpy(a float64, x, y []float64) {
	for i := range y {
		y[i] += a * x[i]
	}
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}
