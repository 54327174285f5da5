package structure

import (
	"context"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/optimize"

	"github.com/marple-mln/marple/mln"
)

// bruteScorer is a Scorer for tiny worlds: each query atom's Δ row comes
// from enumerating every grounding of every clause with the atom as it is
// and flipped. It is the test oracle of the search (and its scorer until a
// counting one is plugged in).
type bruteScorer struct {
	m      *mln.Model
	worlds []*World
	query  []mln.PredID
	sigma  float64

	mu    sync.Mutex
	cache map[string][][]float64 // clause key -> per world, per atom Δ
}

type qatom struct {
	p    mln.PredID
	args []mln.ConstID
}

func (b *bruteScorer) atoms() []qatom {
	var out []qatom
	for _, p := range b.query {
		types := b.m.Preds[p].Args
		args := make([]mln.ConstID, len(types))
		var rec func(j int)
		rec = func(j int) {
			if j == len(types) {
				out = append(out, qatom{p, slices.Clone(args)})
				return
			}
			for _, c := range b.m.Types[types[j]].Consts {
				args[j] = c
				rec(j + 1)
			}
		}
		rec(0)
	}
	return out
}

// rows returns Δ_a of clause c in each world: true groundings of c
// minus true groundings with atom a flipped.
func (b *bruteScorer) rows(c *mln.Clause) [][]float64 {
	k := CanonicalKey(c)
	b.mu.Lock()
	if r, ok := b.cache[k]; ok {
		b.mu.Unlock()
		return r
	}
	b.mu.Unlock()
	atoms := b.atoms()
	out := make([][]float64, len(b.worlds))
	for wi, w := range b.worlds {
		row := make([]float64, len(atoms))
		for ai, a := range atoms {
			row[ai] = float64(b.delta(c, w, &a))
		}
		out[wi] = row
	}
	b.mu.Lock()
	if b.cache == nil {
		b.cache = map[string][][]float64{}
	}
	b.cache[k] = out
	b.mu.Unlock()
	return out
}

// delta returns the true groundings of c containing atom a minus those
// true with a flipped: each grounding in which a literal is over a, found
// from the first such literal.
func (b *bruteScorer) delta(c *mln.Clause, w *World, a *qatom) int {
	bind := make([]mln.ConstID, len(c.Vars))
	args := make([]mln.ConstID, 8)
	isA := func(l *mln.Literal) bool {
		if l.Pred != a.p {
			return false
		}
		for j, t := range l.Args {
			if bind[t.Var()] != a.args[j] {
				return false
			}
		}
		return true
	}
	sat := func(flip bool) bool {
		for i := range c.Lits {
			l := &c.Lits[i]
			for j, t := range l.Args {
				args[j] = bind[t.Var()]
			}
			tv := w.True(l.Pred, args[:len(l.Args)])
			if flip && isA(l) {
				tv = !tv
			}
			if tv != l.Neg {
				return true
			}
		}
		return false
	}
	n := 0
	for i := range c.Lits {
		if c.Lits[i].Pred != a.p {
			continue
		}
		var rec func(v int)
		rec = func(v int) {
			if v == len(c.Vars) {
				if !isA(&c.Lits[i]) {
					return
				}
				for k := 0; k < i; k++ {
					if isA(&c.Lits[k]) {
						return // counted from literal k
					}
				}
				if sat(false) {
					n++
				}
				if sat(true) {
					n--
				}
				return
			}
			for _, x := range b.m.Types[c.Vars[v].Type].Consts {
				bind[v] = x
				rec(v + 1)
			}
		}
		rec(0)
	}
	return n
}

func (b *bruteScorer) Score(ctx context.Context, clauses []*mln.Clause, init []float64, tight bool) (float64, []float64, error) {
	rows := make([][][]float64, len(clauses))
	for i, c := range clauses {
		rows[i] = b.rows(c)
	}
	atoms := b.atoms()
	mul := make([]float64, len(atoms))
	count := map[mln.PredID]int{}
	for _, a := range atoms {
		count[a.p]++
	}
	for i, a := range atoms {
		mul[i] = 1 / float64(count[a.p])
	}
	sigma := b.sigma
	if sigma == 0 {
		sigma = 100
	}
	f := func(w, g []float64) float64 {
		v := 0.0
		for i := range g {
			g[i] = 0
		}
		for wi := range b.worlds {
			for ai := range atoms {
				s := 0.0
				for ci := range clauses {
					s += w[ci] * rows[ci][wi][ai]
				}
				v += mul[ai] * logSig(s)
				fg := mul[ai] / (1 + math.Exp(s))
				for ci := range clauses {
					g[ci] += fg * rows[ci][wi][ai]
				}
			}
		}
		for i, x := range w {
			v -= x * x / (2 * sigma * sigma)
			g[i] -= x / (sigma * sigma)
		}
		for i := range g {
			g[i] = -g[i]
		}
		return -v
	}
	w0 := make([]float64, len(clauses))
	copy(w0, init)
	g := make([]float64, len(clauses))
	prob := optimize.Problem{
		Func: func(x []float64) float64 { return f(x, g) },
		Grad: func(grad, x []float64) { f(x, grad) },
	}
	iters, conv := 10000, 1e-5
	if !tight {
		iters, conv = 10, 1e-3
	}
	res, err := optimize.Minimize(prob, w0, &optimize.Settings{MajorIterations: iters, GradientThreshold: 1e-9,
		Converger: &optimize.FunctionConverge{Relative: conv, Iterations: 1}}, &optimize.LBFGS{})
	if res == nil {
		return 0, nil, err
	}
	return -f(res.X, g), res.X, nil
}

func logSig(s float64) float64 {
	if s >= 0 {
		return -math.Log1p(math.Exp(-s))
	}
	return s - math.Log1p(math.Exp(s))
}
