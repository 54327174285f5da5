package brute

import (
	"context"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/optimize"

	"github.com/marple-mln/marple/mln"
)

// World is a closed possible world for WPLL: True gives the truth of every
// ground atom, Domain the constants of each type.
type World struct {
	True   func(p mln.PredID, args []mln.ConstID) bool
	Domain func(t mln.TypeID) []mln.ConstID
}

// WPLL scores sets of first-order clauses by the weighted
// pseudo-log-likelihood of tiny worlds, every Δ (true groundings of a
// clause with an atom as it is, minus with the atom flipped) found by
// enumerating every grounding: the oracle of structure search scorers.
// Each query atom of a world weighs 1/(the number of atoms of its
// predicate in that world); the weights have a Gaussian prior N(0, σ²).
// Score is safe for concurrent use.
type WPLL struct {
	Model  *mln.Model
	Worlds []World
	// Query are the predicates whose atoms are in the sum.
	Query []mln.PredID
	// PriorStdDev is σ (0: 100, Alchemy's).
	PriorStdDev float64

	mu    sync.Mutex
	cache map[string][][]float64
	once  sync.Once
	qa    [][]qatom   // per world, its query atoms
	mul   [][]float64 // per world, the atoms' weights
}

func (b *WPLL) init() {
	b.once.Do(func() {
		for _, w := range b.Worlds {
			atoms := b.atoms(w)
			count := map[mln.PredID]int{}
			for _, a := range atoms {
				count[a.p]++
			}
			mul := make([]float64, len(atoms))
			for i, a := range atoms {
				mul[i] = 1 / float64(count[a.p])
			}
			b.qa = append(b.qa, atoms)
			b.mul = append(b.mul, mul)
		}
	})
}

type qatom struct {
	p    mln.PredID
	args []mln.ConstID
}

func (b *WPLL) atoms(w World) []qatom {
	var out []qatom
	for _, p := range b.Query {
		types := b.Model.Preds[p].Args
		args := make([]mln.ConstID, len(types))
		var rec func(j int)
		rec = func(j int) {
			if j == len(types) {
				out = append(out, qatom{p, slices.Clone(args)})
				return
			}
			for _, c := range w.Domain(types[j]) {
				args[j] = c
				rec(j + 1)
			}
		}
		rec(0)
	}
	return out
}

// Delta returns, for each world and each of its query atoms (predicates in
// Query order, arguments in domain order), the true groundings of c
// minus the true groundings with that atom flipped.
func (b *WPLL) Delta(c *mln.Clause) [][]float64 {
	b.init()
	key := b.Model.ClauseString(c)
	b.mu.Lock()
	if r, ok := b.cache[key]; ok {
		b.mu.Unlock()
		return r
	}
	b.mu.Unlock()
	out := make([][]float64, len(b.Worlds))
	for wi, w := range b.Worlds {
		atoms := b.qa[wi]
		row := make([]float64, len(atoms))
		for ai := range atoms {
			row[ai] = float64(b.delta(c, w, &atoms[ai]))
		}
		out[wi] = row
	}
	b.mu.Lock()
	if b.cache == nil {
		b.cache = map[string][][]float64{}
	}
	b.cache[key] = out
	b.mu.Unlock()
	return out
}

// delta counts the groundings in which a literal is over atom a, each
// found from its first such literal.
func (b *WPLL) delta(c *mln.Clause, w World, a *qatom) int {
	bind := make([]mln.ConstID, len(c.Vars))
	args := make([]mln.ConstID, 16)
	term := func(t mln.Term) mln.ConstID {
		if t.IsVar() {
			return bind[t.Var()]
		}
		return t.Const()
	}
	isA := func(l *mln.Literal) bool {
		if l.Pred != a.p {
			return false
		}
		for j, t := range l.Args {
			if term(t) != a.args[j] {
				return false
			}
		}
		return true
	}
	sat := func(flip bool) bool {
		for i := range c.Lits {
			l := &c.Lits[i]
			if l.Pred < 0 {
				bargs := make([]mln.ConstID, len(l.Args))
				for j, t := range l.Args {
					bargs[j] = term(t)
				}
				if b.Model.EvalLiteral(l.Builtin, bargs) != l.Neg {
					return true
				}
				continue
			}
			for j, t := range l.Args {
				args[j] = term(t)
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
						return
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
			for _, x := range w.Domain(c.Vars[v].Type) {
				bind[v] = x
				rec(v + 1)
			}
		}
		rec(0)
	}
	return n
}

// Objective returns WPLL(w) minus the prior's Σ w²/(2σ²) for clauses, and
// its gradient in grad (when not nil).
func (b *WPLL) Objective(clauses []*mln.Clause, w, grad []float64) float64 {
	rows := make([][][]float64, len(clauses))
	for i, c := range clauses {
		rows[i] = b.Delta(c)
	}
	if grad != nil {
		clear(grad)
	}
	v := 0.0
	b.init()
	for wi := range b.Worlds {
		for ai := range b.qa[wi] {
			mul := b.mul[wi][ai]
			s := 0.0
			for ci := range clauses {
				s += w[ci] * rows[ci][wi][ai]
			}
			v += mul * logSigmoid(s)
			if grad != nil {
				f := mul / (1 + math.Exp(s))
				for ci := range clauses {
					grad[ci] += f * rows[ci][wi][ai]
				}
			}
		}
	}
	sigma := b.PriorStdDev
	if sigma == 0 {
		sigma = 100
	}
	for i, x := range w {
		v -= x * x / (2 * sigma * sigma)
		if grad != nil {
			grad[i] -= x / (sigma * sigma)
		}
	}
	return v
}

// Score maximises Objective by L-BFGS from init (missing entries 0):
// Alchemy's tight tolerances (10000 iterations, relative change 1e-5) or
// its loose ones (10, 1e-3).
func (b *WPLL) Score(ctx context.Context, clauses []*mln.Clause, init []float64, tight bool) (float64, []float64, error) {
	w0 := make([]float64, len(clauses))
	copy(w0, init)
	prob := optimize.Problem{
		Func: func(x []float64) float64 { return -b.Objective(clauses, x, nil) },
		Grad: func(g, x []float64) {
			b.Objective(clauses, x, g)
			for i := range g {
				g[i] = -g[i]
			}
		},
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
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	return b.Objective(clauses, res.X, nil), res.X, nil
}

func logSigmoid(s float64) float64 {
	if s >= 0 {
		return -math.Log1p(math.Exp(-s))
	}
	return s - math.Log1p(math.Exp(s))
}
