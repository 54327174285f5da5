// Package lbfgs builds the gonum optimize.Problem of an objective that
// computes its value and gradient together, for the library's L-BFGS fits.
package lbfgs

import (
	"context"
	"slices"

	"gonum.org/v1/gonum/optimize"
)

// Problem returns the optimize.Problem of fg, which returns the value at x
// and writes the gradient into grad. gonum asks for the value and the
// gradient at the same point in two calls: each point is evaluated once
// and remembered. The problem fails with ctx's error once ctx is done.
func Problem(ctx context.Context, n int, fg func(x, grad []float64) float64) optimize.Problem {
	var (
		lastX []float64
		lastF float64
		lastG = make([]float64, n)
	)
	evalAt := func(x []float64) {
		if lastX != nil && slices.Equal(lastX, x) {
			return
		}
		lastF = fg(x, lastG)
		lastX = append(lastX[:0], x...)
	}
	return optimize.Problem{
		Func: func(x []float64) float64 { evalAt(x); return lastF },
		Grad: func(g, x []float64) { evalAt(x); copy(g, lastG) },
		Status: func() (optimize.Status, error) {
			if err := ctx.Err(); err != nil {
				return optimize.Failure, err
			}
			return optimize.NotTerminated, nil
		},
	}
}
