package wmc

import (
	"context"
	"fmt"
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

// Summary says in a line what a solve did: that its marginals and log Z
// are exact, and how they were counted.
func (r *Result) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exact marginals and log Z = %.10g by weighted model counting (%s", r.LogZ, r.Stats.Method)
	st := &r.Stats
	fmt.Fprintf(&b, "; %d components, the largest of %d atoms", st.Components, st.LargestComponent)
	if st.Fixed > 0 {
		fmt.Fprintf(&b, "; %d atoms fixed by the hard clauses", st.Fixed)
	}
	if st.Method == MethodSearch {
		fmt.Fprintf(&b, "; %d search nodes, %d cache hits, %d decompositions", st.Nodes, st.CacheHits, st.Decompositions)
	}
	b.WriteString(")")
	return b.String()
}
