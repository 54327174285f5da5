package invent

import (
	"context"
	"sync"

	"github.com/marple-mln/marple/mln"
)

// Node is one problem of the refinement tree: its clusterings (one per set
// of symbols) and its cluster combinations, each a leaf or refined further
// by a child node.
type Node struct {
	Sets   []NodeSet
	Groups []NodeGroup
	// Gain is the log-posterior gain of the node's clustering over one
	// cluster per set (0 when no split helped; negative for a split of the
	// predicates alone that its combinations' refinements make up for).
	Gain float64
	// total is Gain plus the totals of the refining children.
	total float64
}

// NodeSet is the clustering of one set of symbols.
type NodeSet struct {
	Domain int
	// Clusters lists each cluster's members (local IDs of Domain).
	Clusters [][]int32
	of       []int32 // local ID -> cluster, -1 if absent
}

func (ns *NodeSet) index(n int) {
	ns.of = make([]int32, n)
	for i := range ns.of {
		ns.of[i] = -1
	}
	for c, ms := range ns.Clusters {
		for _, x := range ms {
			ns.of[x] = int32(c)
		}
	}
}

// NodeGroup is the combinations of one predicate group in a node.
type NodeGroup struct {
	// Group indexes Data.Groups; Pos maps each position (0: the predicate,
	// then the arguments) to an index of Node.Sets.
	Group int
	Pos   []int
	// Prior is the rate combinations are smoothed toward: the group's
	// training rate, at every node.
	Prior float64
	// Parent is the smoothed rate of the combination the node refines (the
	// group's rate at the root): the prediction for an atom whose
	// combination holds no training atom.
	Parent float64
	// Combos are the combinations holding training atoms.
	Combos []*Combo
	byKey  map[int64]*Combo
	radix  []int64
}

func (ng *NodeGroup) key(clusters []int) int64 {
	var k, m int64 = 0, 1
	for q, c := range clusters {
		k += int64(c) * m
		m *= ng.radix[q]
	}
	return k
}

// Combo is one cluster combination: a cluster per position, its training
// atoms' counts, and the node refining it (nil for a leaf).
type Combo struct {
	Clusters    []int
	True, False int
	Child       *Node
}

// Model is a learned MRC model.
type Model struct {
	Data *Data
	Root *Node
	Opt  Options
	// Stats describes the search.
	Stats Stats
}

// Stats counts the search's work.
type Stats struct {
	mu sync.Mutex
	// Problems is the number of nodes searched; Atoms the sum of their
	// atoms.
	Problems, Atoms int
}

func (s *Stats) add(atoms int) {
	s.mu.Lock()
	s.Problems++
	s.Atoms += atoms
	s.mu.Unlock()
}

// Learn runs MRC on d.
func Learn(ctx context.Context, d *Data, opt Options) (*Model, error) {
	opt = opt.WithDefaults()
	pr := rootProblem(d, opt)
	m := &Model{Data: d, Opt: opt}
	sv := &solver{ctx: ctx, d: d, opt: opt, stats: &m.Stats}
	if opt.Journal != nil {
		opt.Journal.beginLearn()
	}

	root, err := sv.solve(pr, nil)
	if err != nil {
		return nil, err
	}
	m.Root = root
	return m, nil
}

// Leaf is a leaf combination reached by an atom.
type Leaf struct {
	Node  *Node
	Group *NodeGroup
	// Combo is nil when the atom's combination holds no training atom.
	Combo *Combo
}

// find returns the leaf combination of the atom with local IDs local in
// group g, or ok false if a symbol is not clustered.
func (m *Model) find(g int, local []int32) (Leaf, bool) {
	n := m.Root
	for {
		var ng *NodeGroup
		for i := range n.Groups {
			if n.Groups[i].Group == g {
				ng = &n.Groups[i]
				break
			}
		}
		if ng == nil {
			return Leaf{}, false
		}
		var k, mul int64 = 0, 1
		for q, s := range ng.Pos {
			ns := &n.Sets[s]
			if int(local[q]) >= len(ns.of) || ns.of[local[q]] < 0 {
				return Leaf{}, false
			}
			k += int64(ns.of[local[q]]) * mul
			mul *= ng.radix[q]
		}
		c := ng.byKey[k]
		if c == nil || c.Child == nil {
			return Leaf{Node: n, Group: ng, Combo: c}, true
		}
		n = c.Child
	}
}

// Prob returns the probability that ground atom p(args) is true: the
// smoothed rate of its leaf combination; the rate of the combination its
// node refines when its own holds no training atom; 0.5 for a predicate without
// arguments or a constant the model has not seen.
func (m *Model) Prob(p mln.PredID, args []mln.ConstID) float64 {
	var buf [8]int32
	g, local, ok := m.Data.locate(p, args, buf[:0])
	if !ok {
		return 0.5
	}
	return m.probLocal(g, local)
}

// probLocal is Prob for the atom with local IDs local in group g.
func (m *Model) probLocal(g int, local []int32) float64 {
	leaf, ok := m.find(g, local)
	if !ok {
		return m.Data.Groups[g].Rate
	}
	if leaf.Combo == nil {
		return leaf.Group.Parent
	}
	return Rate(leaf.Combo.True, leaf.Combo.False, leaf.Group.Prior, m.Opt.Beta)
}

// LogPosterior returns the model's log-posterior up to a constant: the sum
// over leaf combinations of their log-likelihood, minus Lambda times the
// number of clusters beyond one per set and node (the clusters every
// clustering must have).
func (m *Model) LogPosterior() float64 {
	var walk func(n *Node) float64
	walk = func(n *Node) float64 {
		v := 0.0
		for _, s := range n.Sets {
			v -= m.Opt.Lambda * float64(len(s.Clusters)-1)
		}
		for _, ng := range n.Groups {
			pi := ng.Prior
			for _, c := range ng.Combos {
				if c.Child != nil {
					v += walk(c.Child)
				} else {
					v += LogLik(c.True, c.False, pi, m.Opt.Beta)
				}
			}
		}
		return v
	}
	return walk(m.Root)
}

// rootProblem is the top-level problem: every domain one set, every group
// with all its atoms.
func rootProblem(d *Data, opt Options) *problem {
	pr := &problem{seed: uint64(opt.Seed)}
	for i, dom := range d.Domains {
		ms := make([]int32, len(dom.Members))
		for j := range ms {
			ms[j] = int32(j)
		}
		pr.sets = append(pr.sets, pset{dom: i, members: ms})
	}
	for gi, g := range d.Groups {
		pg := pgroup{g: gi, pos: append([]int{g.Preds}, g.Args...), pi: g.Rate, parent: g.Rate}
		pg.atoms = make([]int32, g.Len())
		for a := range pg.atoms {
			pg.atoms[a] = int32(a)
		}
		pr.groups = append(pr.groups, pg)
	}
	return pr
}
