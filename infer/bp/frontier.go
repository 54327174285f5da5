package bp

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"

	"github.com/marple-mln/marple/ground"
)

// DefaultFrontierTolerance is the smallest change of a message, in
// log-odds, that Frontier.SetBias propagates.
const DefaultFrontierTolerance = 1e-10

// Frontier is belief propagation kept converged across changes of the
// evidence: expanding frontier belief propagation (Nath and Domingos
// 2010). After a change of some atoms' bias terms (setting an action atom,
// or clamping an atom to a value by a large bias), only the clauses next
// to an atom whose belief changed are updated, and the frontier expands
// while messages keep changing by more than the tolerance. Repeated
// inference with a few atoms changed at a time (a search over actions in
// decision making) then costs in proportion to the part of the network
// the change reaches, not to the whole network.
type Frontier struct {
	g       *graph
	tol     float64
	max     int
	damping float64
	// Stats of the last run (Start or SetBias).
	Stats Stats
	// Updated is the number of clause updates done by the last SetBias.
	Updated int
}

// Start runs belief propagation on net to convergence (as Marginals, with
// its Merge, Damping and Check) and returns the state for later changes;
// Stats say whether it converged and what the check found (SetBias does
// not check again: Check does). opt.Tolerance is the tolerance of
// the first run; changes propagate down to DefaultFrontierTolerance.
// The network is only read, and must not change while the Frontier is in
// use.
func Start(ctx context.Context, net *ground.Network, opt Options) (*Frontier, error) {
	if opt.MaxIterations <= 0 {
		opt.MaxIterations = DefaultMaxIterations
	}
	if opt.Tolerance <= 0 {
		opt.Tolerance = DefaultTolerance
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	bias := make([]float64, net.NumAtoms())
	if opt.Bias != nil {
		if len(opt.Bias) != len(bias) {
			return nil, errors.New("bp: Bias has the wrong length")
		}
		copy(bias, opt.Bias)
	}
	if opt.Damping < 0 || opt.Damping >= 1 || opt.DampAfter < 0 {
		return nil, errors.New("bp: Damping must be in [0, 1) and DampAfter not negative")
	}
	bnet := net
	if opt.Merge {
		bnet = mergeClauses(net)
	}
	g, err := newGraph(bnet, bias, opt.Workers)
	if err != nil {
		return nil, err
	}
	f := &Frontier{g: g, tol: DefaultFrontierTolerance, max: opt.MaxIterations}
	if err := g.iterate(ctx, opt, &f.Stats); err != nil {
		return nil, err
	}
	// Later changes propagate with the damping the first run ended with.
	f.damping = f.Stats.Damping
	g.indexFactors()
	// Settle every message to the frontier's tolerance, so that a later
	// change propagates only its own effect.
	all := make(map[int32]bool, g.nAtoms)
	for a := 0; a < g.nAtoms; a++ {
		all[int32(a)] = true
	}
	st := f.Stats
	if err := f.propagate(ctx, all); err != nil {
		return nil, err
	}
	st.Iterations += f.Stats.Iterations
	st.Converged = f.Stats.Converged
	st.Damping = f.damping
	st.Changing, st.NumChanging = f.Stats.Changing, f.Stats.NumChanging
	f.Stats = st
	if opt.Check > 0 {
		o := opt
		o.Bias = bias
		if err := check(ctx, net, g.marginal, o, &f.Stats); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Marginals returns the current marginals (the slice is the Frontier's:
// it changes with SetBias).
func (f *Frontier) Marginals() []float64 { return f.g.marginal }

// SetBias sets the bias terms of atoms to values and propagates the
// change from those atoms outwards until no message changes by more than
// the tolerance, or until the iteration limit.
func (f *Frontier) SetBias(ctx context.Context, atoms []int32, values []float64) error {
	g := f.g
	if len(atoms) != len(values) {
		return errors.New("bp: SetBias: atoms and values differ in length")
	}
	dirty := make(map[int32]bool)
	for i, a := range atoms {
		if a < 0 || int(a) >= g.nAtoms {
			return errors.New("bp: SetBias: atom out of range")
		}
		if math.IsNaN(values[i]) {
			return errors.New("bp: SetBias: NaN bias")
		}
		if g.bias[a] != values[i] {
			g.bias[a] = values[i]
			dirty[a] = true
		}
	}
	if err := f.propagate(ctx, dirty); err != nil {
		return err
	}
	for _, a := range atoms {
		f.retotal(a)
	}
	return nil
}

// propagate updates the clauses around the dirty atoms, and then around
// the atoms whose messages changed by more than the tolerance, until none
// did or the iteration limit is reached.
func (f *Frontier) propagate(ctx context.Context, dirty map[int32]bool) error {
	g := f.g
	f.Stats, f.Updated = Stats{Damping: f.damping}, 0
	var logq []float64
	stamp := make(map[int32]bool)
	for len(dirty) > 0 {
		if f.Stats.Iterations >= f.max {
			// Not converged: Stats.Converged stays false.
			for a := range dirty {
				f.Stats.Changing = append(f.Stats.Changing, a)
			}
			slices.Sort(f.Stats.Changing)
			f.Stats.NumChanging = len(f.Stats.Changing)
			f.Stats.Changing = f.Stats.Changing[:min(len(f.Stats.Changing), MaxListed)]
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		f.Stats.Iterations++
		// Totals of the dirty atoms, then the clauses around them, in a
		// fixed order.
		order := make([]int32, 0, len(dirty))
		for a := range dirty {
			order = append(order, a)
		}
		slices.Sort(order)
		change := 0.0
		for _, a := range order {
			change = math.Max(change, f.retotal(a))
		}
		clear(stamp)
		var clauses []int32
		for _, a := range order {
			for _, k := range g.atomOcc[g.atomAt[a]:g.atomAt[a+1]] {
				c := g.litFactor[k]
				if !stamp[c] {
					stamp[c] = true
					clauses = append(clauses, c)
				}
			}
		}
		slices.Sort(clauses)
		clear(dirty)
		for _, c := range clauses {
			f.Updated++
			logq = g.updateClause(int(c), f.damping, logq, func(k int32, old, m float64) {
				if math.Abs(m-old) > f.tol {
					dirty[g.lits[k].Atom()] = true
				}
			})
		}
		f.Stats.MaxChange = change
	}
	f.Stats.Converged = true
	return nil
}

// retotal recomputes atom a's total and marginal and returns the change
// of the marginal.
func (f *Frontier) retotal(a int32) float64 {
	g := f.g
	t := g.bias[a]
	for _, k := range g.atomOcc[g.atomAt[a]:g.atomAt[a+1]] {
		t += g.msg[k]
	}
	g.tot[a] = t
	p := sigmoid(t)
	d := math.Abs(p - g.marginal[a])
	g.marginal[a] = p
	return d
}
