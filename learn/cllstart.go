package learn

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/marple-mln/marple/internal/lbfgs"
	"gonum.org/v1/gonum/optimize"
)

// TunedPriorStdDevs are the prior standard deviations among which
// DiscriminativeSettings.TunePrior chooses.
var TunedPriorStdDevs = []float64{0.25, 0.5, 1, 2, 4}

// independentStartMaxIter bounds the L-BFGS iterations of the
// independent start.
const independentStartMaxIter = 2000

// startRow is one atom of the independent start's problem: the log-odds of
// its truth are off + Σ val[k]·w[col[k]] once every joint parameter is 0.
type startRow struct {
	ex    int   // example
	atom  int32 // atom of the example's network
	cols  []int32
	vals  []float64
	off   float64
	truth bool
}

// startGroup is a set of atoms of one example whose rows are the same
// (offset, columns and values): the objective counts the group's true and
// false atoms at once. The rows of a domain's atoms repeat (the pairs of
// citations that share the same features), so the groups are fewer than
// the atoms, on Cora by a factor of about 18.
type startGroup struct {
	ex       int
	cols     []int32
	vals     []float64
	off      float64
	pos, neg float64 // the number of true and of false atoms
}

// groupRows merges the rows with the same example, offset, columns and
// values, in the order of their first row.
func groupRows(rows []startRow) []startGroup {
	at := make(map[string]int, len(rows))
	var gs []startGroup
	var key []byte
	for _, r := range rows {
		key = binary.LittleEndian.AppendUint64(key[:0], uint64(r.ex))
		key = binary.LittleEndian.AppendUint64(key, math.Float64bits(r.off))
		for k, c := range r.cols {
			key = binary.LittleEndian.AppendUint32(key, uint32(c))
			key = binary.LittleEndian.AppendUint64(key, math.Float64bits(r.vals[k]))
		}
		i, ok := at[string(key)]
		if !ok {
			i = len(gs)
			at[string(key)] = i
			gs = append(gs, startGroup{ex: r.ex, cols: r.cols, vals: r.vals, off: r.off})
		}
		if r.truth {
			gs[i].pos++
		} else {
			gs[i].neg++
		}
	}
	return gs
}

// IndependentStart describes the starting point Discriminative computed
// (see DiscriminativeSettings.ZeroStart).
type IndependentStart struct {
	// Joint counts the parameters held at 0: some ground clause of theirs
	// holds two or more unknown atoms.
	Joint int
	// Atoms counts the atoms of the start's objective (those in no hard
	// clause nor in a clause of fixed weight linking atoms).
	Atoms int
	// CLL is the start's conditional log-likelihood of the atoms counted,
	// at the weights found.
	CLL float64
	// PriorStdDev is the σ chosen by DiscriminativeSettings.TunePrior (0:
	// none chosen), and HeldOutCLL its held-out conditional
	// log-likelihood, summed over the examples each left out in turn.
	PriorStdDev, HeldOutCLL float64
	// GradNorm is the largest entry of the start objective's gradient at
	// the weights found; Iterations are L-BFGS's.
	GradNorm   float64
	Iterations int
}

// independentStart writes into w the weights that maximise the exact
// conditional log-likelihood of the examples, minus the prior, when every
// parameter with a ground clause of two or more unknown atoms (a formula
// that links query atoms: transitivity, field ⇒ record, ...) is held at 0.
// Then each atom is independent of the others given the evidence, with
// log-odds linear in the weights, and the problem is a logistic
// regression, convex, solved exactly by L-BFGS. Atoms in a hard clause, or
// in a clause of fixed weight over two or more atoms, are left out of it.
// Parameters in no example keep 0.
func (pb *cllProblem) independentStart(ctx context.Context, w []float64) (*IndependentStart, error) {
	np := pb.np
	joint := make([]bool, np)
	type entry struct {
		atom  int32
		param int32
		val   float64
	}
	var rows []startRow
	for ei, e := range pb.exs {
		net := e.net
		n := net.NumAtoms()
		excluded := make([]bool, n)
		off := make([]float64, n)
		var ents []entry
		var atoms []int32
		for c := 0; c < net.NumClauses(); c++ {
			lits := net.Clause(c)
			atoms = atoms[:0]
			for _, l := range lits {
				if !slices.Contains(atoms, l.Atom()) {
					atoms = append(atoms, l.Atom())
				}
			}
			if len(atoms) == 0 {
				continue
			}
			p := net.Param(c)
			hard := net.IsHard(c)
			if hard || (p < 0 && len(atoms) > 1) {
				for _, a := range atoms {
					excluded[a] = true
				}
				continue
			}
			if len(atoms) > 1 {
				joint[p] = true
				continue
			}
			a := atoms[0]
			// The clause's satisfaction with the atom true minus false.
			var s1, s0 bool
			for _, l := range lits {
				if l.Neg() {
					s0 = true
				} else {
					s1 = true
				}
			}
			d := 0.0
			switch {
			case s1 && !s0:
				d = 1
			case s0 && !s1:
				d = -1
			}
			if d == 0 {
				continue
			}
			if p < 0 {
				off[a] += d * net.Weight(c)
				continue
			}
			ents = append(ents, entry{a, p, d * net.Coef(c)})
		}
		slices.SortFunc(ents, func(x, y entry) int {
			if x.atom != y.atom {
				return int(x.atom - y.atom)
			}
			return int(x.param - y.param)
		})
		k := 0
		for a := int32(0); int(a) < n; a++ {
			r := startRow{ex: ei, atom: a, off: off[a], truth: e.y[a]}
			for ; k < len(ents) && ents[k].atom == a; k++ {
				x := ents[k]
				if m := len(r.cols); m > 0 && r.cols[m-1] == x.param {
					r.vals[m-1] += x.val
				} else {
					r.cols = append(r.cols, x.param)
					r.vals = append(r.vals, x.val)
				}
			}
			if !excluded[a] {
				rows = append(rows, r)
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	info := &IndependentStart{Atoms: len(rows)}
	for _, j := range joint {
		if j {
			info.Joint++
		}
	}
	// Drop the joint parameters' columns (they are 0).
	for i := range rows {
		r := &rows[i]
		m := 0
		for k, c := range r.cols {
			if !joint[c] {
				r.cols[m], r.vals[m] = c, r.vals[k]
				m++
			}
		}
		r.cols, r.vals = r.cols[:m], r.vals[:m]
	}
	// Free parameters: those some row uses.
	used := make([]bool, np)
	for _, r := range rows {
		for _, c := range r.cols {
			used[c] = true
		}
	}
	var free []int32
	idx := make([]int32, np)
	for p := range used {
		idx[p] = -1
		if used[p] {
			idx[p] = int32(len(free))
			free = append(free, int32(p))
		}
	}
	clear(w)
	for i := range rows {
		for k, c := range rows[i].cols {
			rows[i].cols[k] = idx[c]
		}
	}
	groups := groupRows(rows)
	prec := pb.prec
	if pb.tune && len(pb.exs) >= 2 && len(free) > 0 {
		best := math.Inf(-1)
		for _, sd := range TunedPriorStdDevs {
			held := 0.0
			for k := range pb.exs {
				var train, test []startGroup
				for _, r := range groups {
					if r.ex == k {
						test = append(test, r)
					} else {
						train = append(train, r)
					}
				}
				x, _, err := fitRows(ctx, train, len(free), 1/(sd*sd))
				if err != nil {
					return nil, err
				}
				held -= rowsObjective(test, x, nil, 0)
			}
			if held > best {
				best, info.PriorStdDev = held, sd
			}
		}
		prec = 1 / (info.PriorStdDev * info.PriorStdDev)
		pb.prec = prec
		info.HeldOutCLL = best
	}
	x, iters, err := fitRows(ctx, groups, len(free), prec)
	if err != nil {
		return nil, err
	}
	info.Iterations = iters
	for k, p := range free {
		if math.IsNaN(x[k]) || math.IsInf(x[k], 0) {
			clear(w)
			return nil, errors.New("learn: the independent start diverged")
		}
		w[p] = x[k]
	}
	// Each atom's probability of being true at the start (-1: left out).
	for _, e := range pb.exs {
		e.startP = make([]float64, e.net.NumAtoms())
		for a := range e.startP {
			e.startP[a] = -1
		}
	}
	for _, r := range rows {
		z := r.off
		for k, c := range r.cols {
			z += r.vals[k] * x[c]
		}
		pb.exs[r.ex].startP[r.atom] = 1 / (1 + math.Exp(-z))
	}
	g := make([]float64, len(free))
	rowsObjective(groups, x, g, prec)
	for _, v := range g {
		info.GradNorm = max(info.GradNorm, math.Abs(v))
	}
	info.CLL = -rowsObjective(groups, x, nil, 0)
	return info, nil
}

// rowsObjective returns −Σ_atoms log P(truth) + prec·|x|²/2 over the
// groups' atoms and, when g is not nil, stores its gradient in g.
func rowsObjective(rows []startGroup, x, g []float64, prec float64) float64 {
	f := 0.0
	for k := range x {
		f += prec * x[k] * x[k] / 2
	}
	for k := range g {
		g[k] = prec * x[k]
	}
	for _, r := range rows {
		z := r.off
		for k, c := range r.cols {
			z += r.vals[k] * x[c]
		}
		// −log P(truth) = log(1+e^z) − t·z; its derivative in z is σ(z) − t.
		// One exponential, e = exp(−|z|), gives both.
		e := math.Exp(-math.Abs(z))
		n := r.pos + r.neg
		nll := math.Log1p(e)
		var sig float64
		if z > 0 {
			nll += z
			sig = 1 / (1 + e)
		} else {
			sig = e / (1 + e)
		}
		f += n*nll - r.pos*z
		if g != nil {
			dz := n*sig - r.pos
			for k, c := range r.cols {
				g[c] += dz * r.vals[k]
			}
		}
	}
	return f
}

// fitRows minimises rowsObjective over n weights by L-BFGS from 0.
func fitRows(ctx context.Context, rows []startGroup, n int, prec float64) ([]float64, int, error) {
	x := make([]float64, n)
	if n == 0 {
		return x, 0, nil
	}
	prob := lbfgs.Problem(ctx, n, func(x, g []float64) float64 { return rowsObjective(rows, x, g, prec) })
	settings := &optimize.Settings{
		MajorIterations:   independentStartMaxIter,
		GradientThreshold: 1e-8,
		Converger:         &optimize.FunctionConverge{Relative: 1e-12, Iterations: 5},
	}
	res, err := optimize.Minimize(prob, x, settings, &optimize.LBFGS{})
	if ctx.Err() != nil {
		return nil, 0, ctx.Err()
	}
	if res == nil {
		return nil, 0, err
	}
	if err != nil && !errors.Is(err, optimize.ErrNoProgress) && !errors.Is(err, optimize.ErrLinesearcherFailure) &&
		!errors.Is(err, optimize.ErrNonDescentDirection) {
		return nil, 0, err
	}
	return res.X, res.MajorIterations, nil
}

// worldSetter is a sampler whose chain can be moved to a given world.
type worldSetter interface {
	SetWorld(y []bool)
}

// startWorlds moves every example's chain to a world drawn exactly from the
// independent start's distribution (the atoms it left out at their gold
// values), so that a model without joint formulas samples at equilibrium
// from the first step, and a joint model starts from its best independent
// approximation rather than from a random world.
func (pb *cllProblem) startWorlds(seed int64) {
	for i, e := range pb.exs {
		ws, ok := e.sampler.(worldSetter)
		if !ok || e.startP == nil {
			continue
		}
		r := rand.New(rand.NewPCG(uint64(seed)+uint64(i), 0x3c6ef372fe94f82b))
		y := slices.Clone(e.y)
		for a, p := range e.startP {
			if p >= 0 {
				y[a] = r.Float64() < p
			}
		}
		ws.SetWorld(y)
	}
}
