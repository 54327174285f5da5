package decision

import (
	"container/heap"
	"context"
	"math"
	"slices"

	"github.com/marple-mln/marple/ground"
)

// DefaultExactWidth is the largest number of atoms of a factor that
// variable elimination may build for a part too large to enumerate: a
// part whose elimination order (by least degree) needs larger factors is
// left to the engine.
const DefaultExactWidth = 16

// veEval computes a part's exact expected utility by variable
// elimination in the expectation semiring: every factor holds pairs
// (p, q), p a weight and q the weight times a utility; the product of
// (p1, q1) and (p2, q2) is (p1·p2, p1·q2 + q1·p2), and summing out an atom
// adds the pairs. Eliminating every atom leaves (Z, Σ_worlds weight ×
// utility), whose ratio is the expected utility. The clauses become
// factors with the action atoms at their values; each atom with a utility
// coefficient c gets the factor (1, c·y).
type veEval struct {
	ctx     context.Context
	pt      *part
	varOf   []int32 // sub atom -> position in order, -1 for action atoms
	order   []int32 // sub atoms in elimination order
	clauses [][]ground.Lit
	weights []float64
	// cost estimates the table entries one evaluation fills.
	cost float64
}

// vfactor is a factor over vars (positions in the elimination order,
// increasing): entry i gives vars[j] the value bit j of i.
type vfactor struct {
	vars []int32
	p, q []float64
}

// MaxEliminationAtoms bounds the atoms of a part solved by variable
// elimination: each evaluation visits the whole part, where the BP
// frontier of a larger part updates only around the flipped action.
const MaxEliminationAtoms = 1000

// newVEEval returns the evaluator, or nil when the part has more than
// MaxEliminationAtoms atoms or the elimination order needs a factor of
// more than width atoms.
func newVEEval(ctx context.Context, pt *part, width int) *veEval {
	sub := pt.sub
	n := sub.NumAtoms()
	if n > MaxEliminationAtoms {
		return nil
	}
	isAct := make([]bool, n)
	for _, a := range pt.subAct {
		isAct[a] = true
	}
	// The interaction graph of the atoms that are not actions.
	adj := make([]map[int32]bool, n)
	for a := range adj {
		adj[a] = map[int32]bool{}
	}
	e := &veEval{ctx: ctx, pt: pt, varOf: make([]int32, n)}
	for c := range sub.NumClauses() {
		lits := sub.Clause(c)
		e.clauses = append(e.clauses, lits)
		w := sub.Weight(c)
		if sub.IsHard(c) {
			w = math.Inf(1)
		}
		e.weights = append(e.weights, w)
		for _, l := range lits {
			for _, m := range lits {
				if a, b := l.Atom(), m.Atom(); a != b && !isAct[a] && !isAct[b] {
					adj[a][b] = true
				}
			}
		}
	}
	// Least degree first, simulating the eliminations.
	done := make([]bool, n)
	for a := range n {
		e.varOf[a] = -1
		if isAct[a] {
			done[a] = true
		}
	}
	// A heap of (degree, atom), stale entries skipped.
	h := &degHeap{}
	for a := range n {
		if !done[a] {
			heap.Push(h, degEntry{len(adj[a]), int32(a)})
		}
	}
	for h.Len() > 0 {
		top := heap.Pop(h).(degEntry)
		best := top.atom
		if done[best] || top.deg != len(adj[best]) {
			continue
		}
		if top.deg+1 > width {
			return nil
		}
		done[best] = true
		e.cost += math.Ldexp(1, top.deg+1)
		e.varOf[best] = int32(len(e.order))
		e.order = append(e.order, best)
		for b := range adj[best] {
			delete(adj[b], best)
			for c := range adj[best] {
				if c != b {
					adj[b][c] = true
				}
			}
		}
		for b := range adj[best] {
			heap.Push(h, degEntry{len(adj[b]), b})
		}
		adj[best] = nil
	}
	return e
}

func (e *veEval) method() string { return "variable elimination" }

func (e *veEval) eval(vals []bool) (float64, error) {
	pt := e.pt
	y := make([]bool, pt.sub.NumAtoms())
	isAct := make([]bool, len(y))
	for i, a := range pt.subAct {
		y[a], isAct[a] = vals[i], true
	}
	constant := 0.0 // the utility of the action atoms
	for i, a := range pt.subAct {
		if vals[i] {
			constant += pt.coef[a]
		}
	}
	// buckets[v]: the factors whose first variable (in elimination
	// order) is v.
	buckets := make([][]*vfactor, len(e.order))
	add := func(f *vfactor) { buckets[f.vars[0]] = append(buckets[f.vars[0]], f) }
	P, Q := 1.0, 0.0 // the product of the constant factors
	for c, lits := range e.clauses {
		var vars []int32
		satisfied := false
		for _, l := range lits {
			if isAct[l.Atom()] {
				if l.True(y) {
					satisfied = true
				}
				continue
			}
			if v := e.varOf[l.Atom()]; !slices.Contains(vars, v) {
				vars = append(vars, v)
			}
		}
		if satisfied {
			continue // a constant factor: cancels in the ratio
		}
		w := e.weights[c]
		if len(vars) == 0 {
			if math.IsInf(w, 1) {
				return math.Inf(-1), nil
			}
			continue
		}
		slices.Sort(vars)
		f := &vfactor{vars: vars, p: make([]float64, 1<<len(vars)), q: make([]float64, 1<<len(vars))}
		// Satisfied: e^w, violated: 1, scaled so that the larger is 1.
		sat, unsat := 1.0, math.Exp(-w)
		switch {
		case math.IsInf(w, 1):
			unsat = 0
		case w < 0:
			sat, unsat = math.Exp(w), 1
		}
		for i := range f.p {
			for j, v := range vars {
				y[e.order[v]] = i&(1<<j) != 0
			}
			if holds(lits, y) {
				f.p[i] = sat
			} else {
				f.p[i] = unsat
			}
		}
		add(f)
	}
	for v, a := range e.order {
		if c := pt.coef[a]; c != 0 {
			add(&vfactor{vars: []int32{int32(v)}, p: []float64{1, 1}, q: []float64{0, c}})
		}
	}
	for v := range e.order {
		if err := e.ctx.Err(); err != nil {
			return 0, err
		}
		fs := buckets[v]
		if len(fs) == 0 {
			// An atom in no factor: summing it out doubles every weight,
			// which cancels in the ratio.
			continue
		}
		var vars []int32
		for _, f := range fs {
			for _, u := range f.vars {
				if !slices.Contains(vars, u) {
					vars = append(vars, u)
				}
			}
		}
		slices.Sort(vars) // vars[0] == v: the atom summed out
		// Positions of each factor's variables in vars.
		pos := make([][]int, len(fs))
		for k, f := range fs {
			for _, u := range f.vars {
				j, _ := slices.BinarySearch(vars, u)
				pos[k] = append(pos[k], j)
			}
		}
		out := &vfactor{vars: vars[1:], p: make([]float64, 1<<(len(vars)-1)), q: make([]float64, 1<<(len(vars)-1))}
		mx := 0.0
		for i := 0; i < 1<<len(vars); i++ {
			p, q := 1.0, 0.0
			for k, f := range fs {
				idx := 0
				for j, at := range pos[k] {
					if i&(1<<at) != 0 {
						idx |= 1 << j
					}
				}
				fp, fq := f.p[idx], f.q[idx]
				p, q = p*fp, p*fq+q*fp
			}
			o := i >> 1
			out.p[o] += p
			out.q[o] += q
			mx = math.Max(mx, out.p[o])
		}
		if mx == 0 {
			return math.Inf(-1), nil // every world violates a hard clause
		}
		for i := range out.p {
			out.p[i] /= mx
			out.q[i] /= mx
		}
		if len(out.vars) == 0 {
			P, Q = P*out.p[0], P*out.q[0]+Q*out.p[0]
			continue
		}
		add(out)
	}
	if P == 0 {
		return math.Inf(-1), nil
	}
	return constant + Q/P, nil
}

// holds reports whether some literal of lits is true in y.
func holds(lits []ground.Lit, y []bool) bool {
	for _, l := range lits {
		if l.True(y) {
			return true
		}
	}
	return false
}

type degEntry struct {
	deg  int
	atom int32
}

// degHeap orders atoms by degree, then by atom (a deterministic order).
type degHeap []degEntry

func (h degHeap) Len() int { return len(h) }
func (h degHeap) Less(i, j int) bool {
	return h[i].deg < h[j].deg || h[i].deg == h[j].deg && h[i].atom < h[j].atom
}
func (h degHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *degHeap) Push(x any)   { *h = append(*h, x.(degEntry)) }
func (h *degHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
