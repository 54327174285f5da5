package wmc

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// Memory is what Solve takes per atom, clause and literal of the network
// on top of it, for the grounder's estimate (ground.Options.Engine); the
// circuit and the cache, bounded by Options.MaxMemory, come on top.
var Memory = ground.EngineCost{PerAtom: 64, PerClause: 48, PerLit: 8}

// Engine is the exact marginal engine (infer.Marginal), named "wmc": Solve
// with the linear terms of each call's infer.Options, counting the worlds
// of the network's clauses when the evidence alone falsifies some hard
// groundings (Options.AllowHardFalse), as the other marginal engines do.
type Engine struct {
	Options Options
	// Stats, when not nil, receives the result of every solve.
	Stats func(*Result)
}

// Name returns "wmc".
func (Engine) Name() string { return "wmc" }

// Marginals returns the exact marginal of every atom of net.
func (e Engine) Marginals(ctx context.Context, net *ground.Network, opt infer.Options) ([]float64, error) {
	o := e.Options
	o.Bias = opt.Bias
	o.AllowHardFalse = true
	o.NoMarginals = false
	r, err := Solve(ctx, net, o)
	if err != nil {
		return nil, fmt.Errorf("wmc: %w", err)
	}
	if e.Stats != nil {
		e.Stats(r)
	}
	return r.Marginals, nil
}

// LogZ returns the exact log partition function of net (Solve with
// opt.NoMarginals set): the natural log of the sum, over the worlds that
// satisfy the hard clauses, of exp(Network.Score), with opt.Bias.
func LogZ(ctx context.Context, net *ground.Network, opt Options) (float64, error) {
	opt.NoMarginals = true
	r, err := Solve(ctx, net, opt)
	if err != nil {
		return math.NaN(), err
	}
	return r.LogZ, nil
}

// Summary says in a line what a solve did: that its marginals and log Z
// are exact, and how they were counted.
func (r *Result) Summary() string {
	var b strings.Builder
	st := &r.Stats
	fmt.Fprintf(&b, "exact marginals and log Z = %.10g by weighted model counting (%d components, the largest of %d atoms", r.ModelLogZ(), st.Components, st.LargestComponent)
	if r.FreeAtoms > 0 {
		fmt.Fprintf(&b, "; %.0f unknown atoms in no clause, each a factor 2 of Z", r.FreeAtoms)
	}
	if st.Fixed > 0 {
		fmt.Fprintf(&b, "; %d atoms fixed by the hard clauses", st.Fixed)
	}
	if st.VEComponents > 0 {
		fmt.Fprintf(&b, "; %d by variable elimination, width %d", st.VEComponents, st.VEWidth)
	}
	if st.SearchComponents > 0 {
		fmt.Fprintf(&b, "; %d by DPLL search with component caching: %d nodes, %d cache hits, %d decompositions", st.SearchComponents, st.Nodes, st.CacheHits, st.Decompositions)
		if st.VELeaves > 0 {
			fmt.Fprintf(&b, ", %d components reached counted by variable elimination", st.VELeaves)
		}
	}
	b.WriteString(")")
	return b.String()
}
