package mcsat

import (
	"context"
	"errors"

	"github.com/marple-mln/marple/ground"
)

// Chain is an MC-SAT chain that keeps its world between calls of Sample,
// for learners that sample a network whose clause weights change between
// calls (a persistent chain: each call continues from the last world
// instead of starting again).
type Chain struct {
	net *ground.Network
	opt Options
	s   *state
	// lay is the network's clause layout, kept across calls while the
	// hard clauses stay the same; ws the weights read at the last call.
	lay *layout
	ws  []float64
}

// NewChain starts an MC-SAT chain on net in a world satisfying the hard
// clauses, found from opt.Seed as chain 0 of MCSAT with the same options
// finds it (the hard clauses' atoms false where they can be). opt.Samples, BurnIn and Chains are not used.
func NewChain(net *ground.Network, opt Options) (*Chain, error) {
	if opt.Bias != nil && len(opt.Bias) != net.NumAtoms() {
		return nil, errors.New("mcsat: Bias has the wrong length")
	}
	opt.defaults()
	ws := net.Weights(nil)
	lay, err := newLayout(context.Background(), net, opt.Bias, ws)
	if err != nil {
		return nil, err
	}
	s, err := newChain(lay.model(ws, opt.Bias), &opt, 0)
	if err != nil {
		return nil, err
	}
	return &Chain{net: net, opt: opt, s: s, lay: lay, ws: ws}, nil
}

// SetWorld moves the chain to world y (copied), which should satisfy the
// hard clauses: the next Sample continues from it.
func (c *Chain) SetWorld(y []bool) {
	copy(c.s.y, y)
}

// World returns the chain's current world; it must not be modified.
func (c *Chain) World() []bool { return c.s.y }

// Sample reads the network's current clause weights, takes n MC-SAT steps
// from the chain's world and calls fn with the world after each step. fn
// must neither keep nor modify y. The weights may change between calls (the
// hard clauses must not). If ctx is cancelled Sample stops and returns its
// error; the chain stays usable.
func (c *Chain) Sample(ctx context.Context, n int, fn func(y []bool)) error {
	c.ws = c.net.Weights(c.ws)
	if c.lay == nil || !c.lay.fits(c.ws, c.opt.Bias) {
		lay, err := newLayout(ctx, c.net, c.opt.Bias, c.ws)
		if err != nil {
			return err
		}
		c.lay = lay
	}
	m := c.lay.model(c.ws, c.opt.Bias)
	s := newState(m, c.s.rng)
	copy(s.y, c.s.y)
	s.recount()
	c.s = s
	stars := m.chooseStars(&c.opt)
	var gain []float64
	if stars != nil {
		gain = starScratch(stars)
	}
	for step := 0; step < n; step++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.mcsatStep(&c.opt)
		s.starSweep(stars, gain)
		fn(s.y)
	}
	return nil
}
