package ground

import (
	"fmt"
	"slices"

	"github.com/marple-mln/marple/mln"
)

// domain is the domain of a type overridden by Options.Domains: the
// constants in the given order and the position of each.
type domain struct {
	consts []mln.ConstID
	index  map[mln.ConstID]int32
}

// setDomains validates Options.Domains and records them (indexed by type),
// in the order given.
func (g *grounder) setDomains(doms map[mln.TypeID][]mln.ConstID) error {
	if len(doms) == 0 {
		return nil
	}
	types := make([]mln.TypeID, 0, len(doms))
	for t := range doms {
		types = append(types, t)
	}
	slices.Sort(types) // the first error does not depend on map order
	for _, t := range types {
		if t < 0 || int(t) >= len(g.m.Types) {
			return fmt.Errorf("ground: Domains: type %d out of range", t)
		}
		typ := g.m.Types[t]
		d := &domain{consts: slices.Clone(doms[t]), index: make(map[mln.ConstID]int32, len(doms[t]))}
		for i, c := range d.consts {
			if !typ.Has(c) {
				name := fmt.Sprint(c)
				if c >= 0 && int(c) < g.m.NumConsts() {
					name = g.m.ConstName(c)
				}
				return fmt.Errorf("ground: Domains: constant %s is not of type %s", name, typ.Name)
			}
			if _, dup := d.index[c]; dup {
				return fmt.Errorf("ground: Domains: constant %s is given twice for type %s", g.m.ConstName(c), typ.Name)
			}
			d.index[c] = int32(i)
		}
		for int(t) >= len(g.doms) {
			g.doms = append(g.doms, nil)
		}
		g.doms[t] = d
	}
	return nil
}

// override returns the overridden domain of type t, or nil.
func (g *grounder) override(t mln.TypeID) *domain {
	if int(t) < len(g.doms) {
		return g.doms[t]
	}
	return nil
}

// consts returns the domain of type t for this grounding: Options.Domains[t]
// when given, else the model's.
func (g *grounder) consts(t mln.TypeID) []mln.ConstID {
	if d := g.override(t); d != nil {
		return d.consts
	}
	return g.m.Types[t].Consts
}

// size returns the size of the domain of type t for this grounding.
func (g *grounder) size(t mln.TypeID) int { return len(g.consts(t)) }

// index returns the position of constant c in the domain of type t for this
// grounding. It is safe for concurrent use.
func (g *grounder) index(t mln.TypeID, c mln.ConstID) (int32, bool) {
	if d := g.override(t); d != nil {
		i, ok := d.index[c]
		return i, ok
	}
	return g.m.Types[t].Index(c)
}
