package rrf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"gonum.org/v1/gonum/optimize"

	"github.com/marple-mln/marple/internal/lbfgs"
)

// Defaults of weight learning.
const (
	// DefaultPriorStdDev is the standard deviation of the Gaussian prior
	// (mean 0) on every weight, Alchemy's for pseudo-likelihood learning.
	DefaultPriorStdDev = 100
	DefaultMaxIter     = 100
)

// LearnOptions control weight learning.
type LearnOptions struct {
	PriorStdDev float64 // 0: DefaultPriorStdDev
	NoPrior     bool
	MaxIter     int // L-BFGS iterations (0: DefaultMaxIter)
	// EqualAtomWeight weights every atom 1 in the pseudo-likelihood;
	// otherwise each weighs 1/(variables of its predicate), as Alchemy's
	// learnwts -g does.
	EqualAtomWeight bool
	// Progress, if set, receives a line per L-BFGS iteration.
	Progress io.Writer
}

// LearnResult describes a learning run.
type LearnResult struct {
	Weights    []float64
	PLL        float64 // the final pseudo-log-likelihood (without the prior)
	Iterations int
	Evals      int
	Status     string // L-BFGS's stopping reason
	// Converged is set when L-BFGS stopped on its gradient or objective
	// tests, not at the iteration cap or on a failed line search.
	Converged bool
}

// atomWeights returns the weight of each variable in the pseudo-likelihood.
func (n *Network) atomWeights(equal bool) []float64 {
	c := make([]float64, len(n.Atoms))
	count := map[int32]int{}
	for _, a := range n.Atoms {
		count[int32(a.Pred)]++
	}
	for i, a := range n.Atoms {
		c[i] = 1
		if !equal {
			c[i] = 1 / float64(count[int32(a.Pred)])
		}
	}
	return c
}

// PseudoLogLikelihood returns Σ_a c_a log P(x_a | x_rest) at the world x
// over every variable a (c_a the atom weights), and adds its gradient with
// respect to the weights to grad when grad is not nil: back-propagated
// through every grounding that contains a, at both values of a.
func (n *Network) PseudoLogLikelihood(x []bool, w []float64, c []float64, grad []float64) float64 {
	// Two halves of the atoms in parallel, summed in a fixed order (the
	// result does not depend on the scheduling).
	const parts = 2
	na := len(n.Atoms)
	plls := make([]float64, parts)
	grads := make([][]float64, parts)
	var wg sync.WaitGroup
	for i := 0; i < parts; i++ {
		if grad != nil {
			grads[i] = make([]float64, len(grad))
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			plls[i] = n.pllRange(x, w, c, grads[i], i*na/parts, (i+1)*na/parts)
		}(i)
	}
	wg.Wait()
	pll := 0.0
	for i := 0; i < parts; i++ {
		pll += plls[i]
		for j, g := range grads[i] {
			grad[j] += g
		}
	}
	return pll
}

// pllRange is PseudoLogLikelihood over the atoms lo to hi-1.
func (n *Network) pllRange(x []bool, w []float64, c []float64, grad []float64, lo, hi int) float64 {
	var sc *scratch
	if grad != nil {
		sc = n.newScratch()
	}
	x = append([]bool(nil), x...)
	pll := 0.0
	for a := lo; a < hi; a++ {
		d := n.Delta(a, x, w)
		s := -1.0
		if x[a] {
			s = 1
		}
		// log σ(s d), stably.
		pll += c[a] * -softplus(-s*d)
		if grad == nil {
			continue
		}
		// d/dθ log σ(s d) = s (1 - σ(s d)) dd/dθ, dd/dθ = Σ_t ∇(w_t f_t)|a=1 - ∇(w_t f_t)|a=0.
		k := c[a] * s * sigmoid(-s*d)
		old := x[a]
		for _, t := range n.atomTops[a] {
			x[a] = true
			n.gradTop(t, x, w, k, grad, sc)
			x[a] = false
			n.gradTop(t, x, w, -k, grad, sc)
		}
		x[a] = old
	}
	return pll
}

func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// ExactLogLikelihood returns log P(x) by enumerating every world (at most
// MaxExactAtoms variables) and adds its gradient, ∇Score(x) - E[∇Score],
// to grad when not nil: the reference for the gradients' tests.
func (n *Network) ExactLogLikelihood(x []bool, w []float64, grad []float64) (float64, error) {
	nv := len(n.Atoms)
	if nv > MaxExactAtoms {
		return 0, fmt.Errorf("rrf: %d variables, more than the %d ExactLogLikelihood enumerates", nv, MaxExactAtoms)
	}
	_, _, logZ, err := Exact(n, w)
	if err != nil {
		return 0, err
	}
	ll := n.Score(x, w) - logZ
	if grad == nil {
		return ll, nil
	}
	n.GradScore(x, w, grad)
	y := make([]bool, nv)
	g := make([]float64, len(w))
	for i := 0; i < 1<<nv; i++ {
		for a := range y {
			y[a] = i>>a&1 == 1
		}
		p := math.Exp(n.Score(y, w) - logZ)
		clear(g)
		n.GradScore(y, w, g)
		for j := range grad {
			grad[j] -= p * g[j]
		}
	}
	return ll, nil
}

// Learn maximises the pseudo-log-likelihood of the training networks' worlds
// (each network's Init), summed, minus a Gaussian prior, over every weight
// of the model at every level, by L-BFGS from w0.
func Learn(ctx context.Context, nets []*Network, w0 []float64, opt LearnOptions) (*LearnResult, error) {
	if opt.PriorStdDev == 0 {
		opt.PriorStdDev = DefaultPriorStdDev
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = DefaultMaxIter
	}
	nw := len(w0)
	cs := make([][]float64, len(nets))
	for i, n := range nets {
		cs[i] = n.atomWeights(opt.EqualAtomWeight)
	}
	evals := 0
	objective := func(w, grad []float64) float64 {
		evals++
		clear(grad)
		pll := 0.0
		for i, n := range nets {
			pll += n.PseudoLogLikelihood(n.Init, w, cs[i], grad)
		}
		f := -pll
		for j := range grad {
			grad[j] = -grad[j]
			if !opt.NoPrior {
				v := opt.PriorStdDev * opt.PriorStdDev
				f += w[j] * w[j] / (2 * v)
				grad[j] += w[j] / v
			}
		}
		return f
	}
	res := &LearnResult{Weights: append([]float64(nil), w0...)}
	if nw == 0 {
		return res, nil
	}
	prob := lbfgs.Problem(ctx, nw, objective)
	iter := 0
	settings := &optimize.Settings{
		MajorIterations:   opt.MaxIter,
		GradientThreshold: 1e-6,
		Converger:         &optimize.FunctionConverge{Relative: 1e-10, Iterations: 10},
		Recorder:          progressRecorder{w: opt.Progress, iter: &iter},
	}
	r, err := optimize.Minimize(prob, res.Weights, settings, &optimize.LBFGS{})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if r == nil {
		return nil, err
	}
	if err != nil && !errors.Is(err, optimize.ErrNoProgress) && !errors.Is(err, optimize.ErrLinesearcherFailure) &&
		!errors.Is(err, optimize.ErrNonDescentDirection) {
		return nil, err
	}
	res.Weights = r.X
	res.Iterations = r.MajorIterations
	res.Status = r.Status.String()
	res.Converged = err == nil && (r.Status == optimize.GradientThreshold || r.Status == optimize.FunctionConvergence)
	if err != nil {
		res.Status += " (" + err.Error() + ")"
	}
	grad := make([]float64, nw)
	res.PLL = 0
	for i, n := range nets {
		res.PLL += n.PseudoLogLikelihood(n.Init, res.Weights, cs[i], grad)
	}
	res.Evals = evals
	return res, nil
}

// progressRecorder writes a line per major iteration.
type progressRecorder struct {
	w    io.Writer
	iter *int
}

func (p progressRecorder) Init() error { return nil }

func (p progressRecorder) Record(loc *optimize.Location, op optimize.Operation, _ *optimize.Stats) error {
	if p.w == nil || op != optimize.MajorIteration {
		return nil
	}
	*p.iter++
	fmt.Fprintf(p.w, "rrf: L-BFGS iteration %d: objective %.6g\n", *p.iter, loc.F)
	return nil
}
