package learn

import (
	"context"
	"sort"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/unionfind"
)

// ComponentSource is an ExampleSource over one ground network of a whole
// training set: each example is a group of the network's independent
// components (for CiteSeer, one citation). The full network is ground once;
// an example's network is cut out of it (ground.Network.Sub) when the
// example is asked for and not kept afterwards.
type ComponentSource struct {
	Net    *ground.Network
	Truth  []bool // gold assignment of Net's atoms
	Query  []bool // atoms the label loss counts (nil: all)
	Groups []ground.Component
	Names  []string // optional example names
}

// NewComponentSource groups the components of net into examples. When key
// is nil every component is an example; otherwise components whose atoms
// share a key value (key returns a value >= 0, or -1 for "no key") form one
// example, e.g. key(a) = the citation constant of atom a. Examples come in
// the order of their first atom.
func NewComponentSource(net *ground.Network, truth, query []bool, key func(atom int32) int64) *ComponentSource {
	comps := net.Components()
	s := &ComponentSource{Net: net, Truth: truth, Query: query}
	if key == nil {
		s.Groups = comps
		return s
	}
	// Union components that share a key.
	parent := unionfind.New[int](len(comps))
	find := parent.Find
	owner := make(map[int64]int)
	for ci, c := range comps {
		for _, a := range c.Atoms {
			k := key(a)
			if k < 0 {
				continue
			}
			if o, ok := owner[k]; ok {
				if ra, rb := find(o), find(ci); ra != rb {
					if ra < rb {
						parent[rb] = ra
					} else {
						parent[ra] = rb
					}
				}
			} else {
				owner[k] = ci
			}
		}
	}
	index := make(map[int]int)
	for ci := range comps {
		r := find(ci)
		g, ok := index[r]
		if !ok {
			g = len(s.Groups)
			index[r] = g
			s.Groups = append(s.Groups, ground.Component{})
		}
		s.Groups[g].Atoms = append(s.Groups[g].Atoms, comps[ci].Atoms...)
		s.Groups[g].Clauses = append(s.Groups[g].Clauses, comps[ci].Clauses...)
	}
	for i := range s.Groups {
		g := &s.Groups[i]
		sort.Slice(g.Atoms, func(a, b int) bool { return g.Atoms[a] < g.Atoms[b] })
		sort.Slice(g.Clauses, func(a, b int) bool { return g.Clauses[a] < g.Clauses[b] })
	}
	return s
}

// Len returns the number of examples.
func (s *ComponentSource) Len() int { return len(s.Groups) }

// Example cuts example i out of the network.
func (s *ComponentSource) Example(_ context.Context, i int) (*Example, error) {
	g := s.Groups[i]
	sub := s.Net.Sub(g)
	ex := &Example{Net: sub, Truth: make([]bool, len(g.Atoms))}
	for j, a := range g.Atoms {
		ex.Truth[j] = s.Truth[a]
	}
	if s.Query != nil {
		ex.Query = make([]bool, len(g.Atoms))
		for j, a := range g.Atoms {
			ex.Query[j] = s.Query[a]
		}
	}
	if i < len(s.Names) {
		ex.Name = s.Names[i]
	}
	return ex, nil
}
