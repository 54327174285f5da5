package lbg

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/unionfind"
	"github.com/marple-mln/marple/mln"
)

// Clusters. As in Alchemy's lifted blocked Gibbs sampling, a cluster is a
// set of first-order atoms (predicates): clustering starts from one
// cluster per predicate, in the order the predicates first appear in the
// model's clauses (then those of atoms in no clause), and merges pairs of
// clusters that share a clause. A clustering is written and read as
// Alchemy's cluster file: one line "level i j" per merge, in order, where
// i and j index the list of clusters at that point (cluster j is merged
// into cluster i and removed from the list; the later ones move up one
// place).
//
// The blocks of a clustering are its clusters' ground atoms, linked when
// a ground clause whose atoms all belong to the cluster holds them both:
// the clauses that reach outside the cluster are its Markov blanket, on
// which the block is conditioned. A network built by hand (no predicates)
// has one cluster per atom.

// Merge is one merge of a clustering: at level Level, cluster J merged
// into cluster I (indices into the list of clusters before the merge).
type Merge struct {
	Level, I, J int
}

// Units returns the initial clusters of net: each a name and its atoms'
// predicate (or, for a network built by hand, atom) numbers, in Alchemy's
// order.
func units(net *ground.Network) (names []string, unitOf []int32) {
	n := net.NumAtoms()
	unitOf = make([]int32, n)
	if len(net.AtomPred) != n || net.Model == nil {
		for a := range unitOf {
			unitOf[a] = int32(a)
			names = append(names, "atom "+strconv.Itoa(a))
		}
		return names, unitOf
	}
	m := net.Model
	idx := map[mln.PredID]int32{}
	add := func(p mln.PredID) {
		if _, ok := idx[p]; !ok {
			idx[p] = int32(len(names))
			names = append(names, m.Preds[p].Name)
		}
	}
	for _, c := range m.Clauses {
		for _, l := range c.Lits {
			if l.Pred >= 0 {
				add(l.Pred)
			}
		}
	}
	for a := range unitOf {
		add(net.AtomPred[a])
		unitOf[a] = idx[net.AtomPred[a]]
	}
	return names, unitOf
}

// Clustering is a partition of a network's initial clusters.
type Clustering struct {
	// Names are the initial clusters' names (predicates).
	Names []string
	// Clusters lists each cluster's initial clusters.
	Clusters [][]int
	// Merges are the merges that made it, in order.
	Merges []Merge
}

// initial returns the clustering of one cluster per unit.
func initial(names []string) *Clustering {
	c := &Clustering{Names: names}
	for i := range names {
		c.Clusters = append(c.Clusters, []int{i})
	}
	return c
}

// apply merges cluster j into cluster i.
func (c *Clustering) apply(m Merge) error {
	if m.I < 0 || m.J < 0 || m.I >= len(c.Clusters) || m.J >= len(c.Clusters) || m.I == m.J {
		return fmt.Errorf("merge %d %d: there are %d clusters", m.I, m.J, len(c.Clusters))
	}
	c.Clusters[m.I] = append(c.Clusters[m.I], c.Clusters[m.J]...)
	c.Clusters = append(c.Clusters[:m.J], c.Clusters[m.J+1:]...)
	c.Merges = append(c.Merges, m)
	return nil
}

func (c *Clustering) clone() *Clustering {
	d := &Clustering{Names: c.Names, Merges: append([]Merge(nil), c.Merges...)}
	for _, cl := range c.Clusters {
		d.Clusters = append(d.Clusters, append([]int(nil), cl...))
	}
	return d
}

// String lists the clusters: "{Smokes, Cancer} {Friends}".
func (c *Clustering) String() string {
	var b strings.Builder
	for i, cl := range c.Clusters {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('{')
		for j, u := range cl {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(c.Names[u])
		}
		b.WriteByte('}')
	}
	return b.String()
}

// WriteClusterFile writes the merges in Alchemy's cluster file format.
func WriteClusterFile(w io.Writer, merges []Merge) error {
	bw := bufio.NewWriter(w)
	for _, m := range merges {
		fmt.Fprintf(bw, "%d %d %d\n", m.Level, m.I, m.J)
	}
	return bw.Flush()
}

// ReadClusterFile reads Alchemy's cluster file: one merge "level i j" per
// line (blank lines skipped). Errors name the file and line.
func ReadClusterFile(path string) ([]Merge, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Merge
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if len(fs) != 3 {
			return nil, fmt.Errorf("%s:%d:1: a cluster file line is \"level i j\", not %q", path, line, sc.Text())
		}
		var v [3]int
		for k, s := range fs {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%s:%d:%d: %q is not a non-negative integer", path, line, strings.Index(sc.Text(), s)+1, s)
			}
			v[k] = n
		}
		out = append(out, Merge{Level: v[0], I: v[1], J: v[2]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return out, nil
}

// Plan is a clustering of a network with its blocks.
type Plan struct {
	Clustering *Clustering
	blocks     []*block
	// Cost is the clause evaluations of a sweep over the blocks, and
	// GibbsCost that of a sweep of propositional Gibbs sampling (every
	// block one atom).
	Cost, GibbsCost float64
	// Split counts the atoms of blocks too large to sample jointly, which
	// are sampled one at a time instead.
	Split int
	// Largest is the number of atoms of the largest block.
	Largest int
}

// Blocks returns the number of blocks.
func (p *Plan) Blocks() int { return len(p.blocks) }

// planner builds the blocks of clusterings of one network. The blocks of
// a cluster depend on its atoms alone, so each cluster's blocks are
// built once and kept: a candidate merge costs only the merged cluster.
type planner struct {
	net       *ground.Network
	names     []string
	unitOf    []int32
	unitAtoms [][]int32
	local     map[int32]int32
	gibbs     float64
	cache     map[string]*clusterBlocks
}

// clusterBlocks are the blocks of one cluster.
type clusterBlocks struct {
	blocks         []*block
	cost           float64
	split, largest int
}

func newPlanner(net *ground.Network) *planner {
	names, unitOf := units(net)
	p := &planner{net: net, names: names, unitOf: unitOf, unitAtoms: make([][]int32, len(names)), local: map[int32]int32{}, cache: map[string]*clusterBlocks{}}
	for a := range int32(net.NumAtoms()) {
		p.gibbs += 2 * float64(len(net.Occurrences(a))+1)
		p.unitAtoms[unitOf[a]] = append(p.unitAtoms[unitOf[a]], a)
	}
	return p
}

// cluster returns the blocks of the cluster made of units.
func (p *planner) blocksOf(ctx context.Context, units []int) (*clusterBlocks, error) {
	us := append([]int(nil), units...)
	sort.Ints(us)
	key := fmt.Sprint(us)
	if cb, ok := p.cache[key]; ok {
		return cb, nil
	}
	in := map[int32]bool{}
	var atoms []int32
	for _, u := range us {
		in[int32(u)] = true
		atoms = append(atoms, p.unitAtoms[u]...)
	}
	sort.Slice(atoms, func(i, j int) bool { return atoms[i] < atoms[j] })
	idx := make(map[int32]int32, len(atoms))
	for i, a := range atoms {
		idx[a] = int32(i)
	}
	parent := unionfind.New[int32](len(atoms))
	find := parent.Find
	// Atoms are linked by the clauses whose atoms all belong to the
	// cluster.
	for i, a := range atoms {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for _, c := range p.net.Occurrences(a) {
			lits := p.net.Clause(int(c))
			if len(lits) < 2 {
				continue
			}
			if j, ok := idx[lits[0].Atom()]; ok && j < int32(i) {
				continue // seen from its first atom
			}
			all := true
			for _, l := range lits {
				if !in[p.unitOf[l.Atom()]] {
					all = false
					break
				}
			}
			if !all {
				continue
			}
			for _, l := range lits {
				if x, y := find(int32(i)), find(idx[l.Atom()]); x != y {
					parent[x] = y
				}
			}
		}
	}
	groups := map[int32][]int32{}
	var roots []int32
	for i, a := range atoms {
		r := find(int32(i))
		if _, ok := groups[r]; !ok {
			roots = append(roots, r)
		}
		groups[r] = append(groups[r], a)
	}
	cb := &clusterBlocks{}
	for i, r := range roots {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		ga := groups[r]
		b, ok := newBlock(p.net, ga, p.local)
		if !ok {
			// Too large to sample jointly: one atom at a time.
			cb.split += len(ga)
			for _, a := range ga {
				b, _ := newBlock(p.net, []int32{a}, p.local)
				cb.blocks = append(cb.blocks, b)
				cb.cost += b.cost
			}
			cb.largest = max(cb.largest, 1)
			continue
		}
		cb.blocks = append(cb.blocks, b)
		cb.cost += b.cost
		cb.largest = max(cb.largest, len(ga))
	}
	p.cache[key] = cb
	return cb, nil
}

// plan builds the blocks of clustering c. With bound > 0 it returns nil
// when the cost exceeds bound.
func (p *planner) plan(ctx context.Context, c *Clustering, bound float64) (*Plan, error) {
	pl := &Plan{Clustering: c, GibbsCost: p.gibbs}
	for _, cl := range c.Clusters {
		cb, err := p.blocksOf(ctx, cl)
		if err != nil {
			return nil, err
		}
		pl.blocks = append(pl.blocks, cb.blocks...)
		pl.Cost += cb.cost
		pl.Split += cb.split
		pl.Largest = max(pl.Largest, cb.largest)
		if bound > 0 && pl.Cost > bound {
			return nil, nil
		}
	}
	return pl, nil
}

// Mode is how clusters are merged.
type Mode int

const (
	// Sequential tries, at each level, the pairs of clusters that share
	// clauses in decreasing order of their coupling (the ground clauses
	// holding atoms of both) and keeps the first merge within the cost
	// bound (Alchemy's -cmode 0).
	Sequential Mode = iota
	// Randomized tries them in a random order (Alchemy's -cmode 1).
	Randomized
)

// DefaultBMF is Alchemy's baseline multiplicative factor: a clustering is
// kept when a sweep costs at most this times a sweep of propositional
// Gibbs sampling.
const DefaultBMF = 1.25

// pairs returns the pairs of clusters of c that share a ground clause,
// with their coupling (the number of such clauses).
func (p *planner) pairs(c *Clustering) [][3]int {
	clusterOf := make([]int, len(p.names))
	for k, cl := range c.Clusters {
		for _, u := range cl {
			clusterOf[u] = k
		}
	}
	cf := map[[2]int]int{}
	var ks []int
	for ci := range p.net.NumClauses() {
		ks = ks[:0]
		for _, l := range p.net.Clause(ci) {
			k := clusterOf[p.unitOf[l.Atom()]]
			dup := false
			for _, x := range ks {
				dup = dup || x == k
			}
			if !dup {
				ks = append(ks, k)
			}
		}
		for i := range ks {
			for j := i + 1; j < len(ks); j++ {
				a, b := min(ks[i], ks[j]), max(ks[i], ks[j])
				cf[[2]int{a, b}]++
			}
		}
	}
	out := make([][3]int, 0, len(cf))
	for k, v := range cf {
		out = append(out, [3]int{k[0], k[1], v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i][2] != out[j][2] {
			return out[i][2] > out[j][2]
		}
		if out[i][0] != out[j][0] {
			return out[i][0] < out[j][0]
		}
		return out[i][1] < out[j][1]
	})
	return out
}

// cluster merges clusters level by level from the initial clustering
// while a sweep costs at most bmf times a sweep of propositional Gibbs
// sampling (or of the initial clusters, when that is more). progress, when
// not nil, is told of each merge.
func (p *planner) cluster(ctx context.Context, mode Mode, bmf float64, rng *rand.Rand, progress func(string)) (*Plan, error) {
	c := initial(p.names)
	best, err := p.plan(ctx, c, 0)
	if err != nil {
		return nil, err
	}
	bound := bmf * max(best.GibbsCost, best.Cost)
	for level := 1; ; level++ {
		pairs := p.pairs(c)
		if mode == Randomized {
			rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
		}
		merged := false
		for _, pr := range pairs {
			d := c.clone()
			if err := d.apply(Merge{Level: level, I: pr[0], J: pr[1]}); err != nil {
				return nil, err
			}
			pl, err := p.plan(ctx, d, bound)
			if err != nil {
				return nil, err
			}
			if pl == nil || pl.Split > best.Split {
				continue
			}
			if progress != nil {
				progress(fmt.Sprintf("level %d: merged %s and %s; a sweep costs %.3g clause evaluations (bound %.3g, propositional Gibbs %.3g)",
					level, clusterName(p.names, c.Clusters[pr[0]]), clusterName(p.names, c.Clusters[pr[1]]), pl.Cost, bound, pl.GibbsCost))
			}
			c, best, merged = d, pl, true
			break
		}
		if !merged {
			return best, nil
		}
	}
}

func clusterName(names []string, units []int) string {
	s := make([]string, len(units))
	for i, u := range units {
		s[i] = names[u]
	}
	return "{" + strings.Join(s, ", ") + "}"
}
