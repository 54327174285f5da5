package transfer

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// varTypes returns the type and domain size of each object variable of t
// when its predicate variables are bound to preds, or ok false when the
// binding types an object variable two ways.
func varTypes(t *Template, preds []*SourcePred) (types []int32, sizes []int, ok bool) {
	types = make([]int32, t.NumVars)
	sizes = make([]int, t.NumVars)
	for i := range types {
		types[i] = -1
	}
	for _, l := range t.Lits {
		p := preds[l.Pred]
		for j, v := range l.Args {
			ty := int32(p.Types[j])
			if types[v] >= 0 && types[v] != ty {
				return nil, nil, false
			}
			types[v], sizes[v] = ty, p.Sizes[j]
		}
	}
	return types, sizes, true
}

// Count returns the clique's distribution over truth assignments, as
// counts: entry a counts the groundings of t's object variables by
// distinct constants (distinct within a type) under which literal i is
// true exactly when bit i of a is set, over the groundings whose atoms are
// all known. preds binds t's predicate variables.
//
// One object variable (the one in most literals) is counted a machine
// word at a time: for each binding of the others, the literals holding it
// are rows of the predicates' bit tables, and each truth assignment of
// those literals is the population count of an AND of rows.
func (s *Source) Count(t *Template, preds []*SourcePred) ([]int64, error) {
	counts, _, err := s.CountSampled(t, preds, 0, nil)
	return counts, err
}

// CountSampled is Count with a bound on the work: when the object
// variables other than the one counted by words have more than maxOuter
// bindings (maxOuter > 0), maxOuter of those bindings are drawn uniformly
// (with replacement) from rng and only their groundings are counted, a
// uniform sample of the clique's groundings in blocks. sampled says
// whether it sampled.
func (s *Source) CountSampled(t *Template, preds []*SourcePred, maxOuter int, rng *rand.Rand) (counts []int64, sampled bool, err error) {
	if len(preds) != t.NumPreds {
		return nil, false, fmt.Errorf("transfer: %d predicates bound, template has %d predicate variables", len(preds), t.NumPreds)
	}
	for i, p := range preds {
		if len(p.Types) != t.PredArity[i] {
			return nil, false, fmt.Errorf("transfer: %s has arity %d, predicate variable %s has %d", p.Pred.Name, len(p.Types), predNames[i], t.PredArity[i])
		}
	}
	types, sizes, ok := varTypes(t, preds)
	if !ok {
		return nil, false, fmt.Errorf("transfer: the predicates give an object variable two types")
	}
	var c counter
	c.init(t, preds, types, sizes)
	if maxOuter > 0 && rng != nil && c.outerBindings() > float64(maxOuter) {
		c.sample(maxOuter, rng)
		return c.counts, true, nil
	}
	c.loop(0)
	return c.counts, false, nil
}

// outerBindings returns the number of bindings of the outer variables by
// distinct constants.
func (c *counter) outerBindings() float64 {
	n := 1.0
	for k, v := range c.outer {
		same := 0
		for _, u := range c.outer[:k] {
			if c.types[u] == c.types[v] {
				same++
			}
		}
		n *= float64(c.sizes[v] - same)
	}
	return n
}

// sample counts the groundings of n outer bindings drawn uniformly.
func (c *counter) sample(n int, rng *rand.Rand) {
	for i := 0; i < n; i++ {
	draw:
		for k, v := range c.outer {
			c.bind[v] = rng.IntN(c.sizes[v])
			for _, u := range c.outer[:k] {
				if c.types[u] == c.types[v] && c.bind[u] == c.bind[v] {
					goto draw
				}
			}
		}
		c.inside()
	}
}

// counter holds the plan and buffers of one clique count.
type counter struct {
	t      *Template
	preds  []*SourcePred
	types  []int32
	sizes  []int
	inner  int   // the variable counted by words
	outer  []int // the other variables, bound by loops
	vecs   []int // literals holding the inner variable
	scal   []int // the other literals
	bind   []int // dense constant index per variable
	counts []int64
	rowsT  [][]uint64
	rowsF  [][]uint64
	nw     int
}

func (c *counter) init(t *Template, preds []*SourcePred, types []int32, sizes []int) {
	c.t, c.preds, c.types, c.sizes = t, preds, types, sizes
	occ := make([]int, t.NumVars)
	for _, l := range t.Lits {
		for _, v := range l.Args {
			occ[v]++
		}
	}
	c.inner = 0
	for v := range occ {
		if occ[v] >= occ[c.inner] {
			c.inner = v
		}
	}
	for v := 0; v < t.NumVars; v++ {
		if v != c.inner {
			c.outer = append(c.outer, v)
		}
	}
	for i, l := range t.Lits {
		has := false
		for _, v := range l.Args {
			if v == c.inner {
				has = true
			}
		}
		if has {
			c.vecs = append(c.vecs, i)
		} else {
			c.scal = append(c.scal, i)
		}
	}
	c.bind = make([]int, t.NumVars)
	c.counts = make([]int64, 1<<len(t.Lits))
	c.rowsT = make([][]uint64, len(c.vecs))
	c.rowsF = make([][]uint64, len(c.vecs))
	c.nw = words(sizes[c.inner])
}

// loop binds outer variable k and the rest, distinct from the earlier
// ones of the same type.
func (c *counter) loop(k int) {
	if k == len(c.outer) {
		c.inside()
		return
	}
	v := c.outer[k]
next:
	for a := 0; a < c.sizes[v]; a++ {
		for _, u := range c.outer[:k] {
			if c.types[u] == c.types[v] && c.bind[u] == a {
				continue next
			}
		}
		c.bind[v] = a
		c.loop(k + 1)
	}
}

// litValue returns the truth of literal i under the current binding
// (which must bind all its variables).
func (c *counter) litValue(i int) int {
	l := c.t.Lits[i]
	p := c.preds[l.Pred]
	if len(l.Args) == 1 {
		return p.value(c.bind[l.Args[0]], 0)
	}
	return p.value(c.bind[l.Args[0]], c.bind[l.Args[1]])
}

// inside counts the groundings of the inner variable for the current
// binding of the outer ones.
func (c *counter) inside() {
	base := 0
	for _, i := range c.scal {
		switch c.litValue(i) {
		case -1:
			return
		case 1:
			base |= 1 << uint(i)
		}
	}
	for j, i := range c.vecs {
		l := c.t.Lits[i]
		p := c.preds[l.Pred]
		if len(l.Args) == 1 {
			c.rowsT[j], c.rowsF[j] = p.row(0, 0)
			continue
		}
		if l.Args[0] == c.inner {
			c.rowsT[j], c.rowsF[j] = p.row(1, c.bind[l.Args[1]])
		} else {
			c.rowsT[j], c.rowsF[j] = p.row(0, c.bind[l.Args[0]])
		}
	}
	m := len(c.vecs)
	for combo := 0; combo < 1<<uint(m); combo++ {
		idx := base
		for j, i := range c.vecs {
			if combo&(1<<uint(j)) != 0 {
				idx |= 1 << uint(i)
			}
		}
		var n int
		for w := 0; w < c.nw; w++ {
			x := ^uint64(0)
			for j := 0; j < m; j++ {
				if combo&(1<<uint(j)) != 0 {
					x &= c.rowsT[j][w]
				} else {
					x &= c.rowsF[j][w]
				}
			}
			n += bits.OnesCount64(x)
		}
		c.counts[idx] += int64(n)
	}
	// The inner variable may not take the value of an outer variable of
	// its type: take those groundings back out.
	for _, u := range c.outer {
		if c.types[u] != c.types[c.inner] {
			continue
		}
		a := c.bind[u]
		idx := base
		known := true
		for j, i := range c.vecs {
			switch {
			case getBit(c.rowsT[j], a):
				idx |= 1 << uint(i)
			case getBit(c.rowsF[j], a):
			default:
				known = false
			}
		}
		if known {
			c.counts[idx]--
		}
	}
}

// partitions calls fn with every partition of 0..k-1 into at least two
// blocks, as a block number per element.
func partitions(k int, fn func(block []int, nBlocks int)) {
	b := make([]int, k)
	var rec func(i, n int)
	rec = func(i, n int) {
		if i == k {
			if n >= 2 {
				fn(b, n)
			}
			return
		}
		for x := 0; x <= n; x++ {
			b[i] = x
			nn := n
			if x == n {
				nn++
			}
			rec(i+1, nn)
		}
	}
	rec(0, 0)
}

// DecompositionKL returns the KL divergence (nats) between the
// distribution p (over the 2^k truth assignments of k literals, summing to
// one) and the product of its marginals over the blocks of a partition of
// the literals (block[i] is literal i's block, 0..nBlocks-1).
func DecompositionKL(p []float64, k int, block []int, nBlocks int) float64 {
	var marg [4][16]float64 // at most 4 blocks of at most 4 literals
	var masks [4]int
	for i := 0; i < k; i++ {
		masks[block[i]] |= 1 << uint(i)
	}
	for a, x := range p {
		for b := 0; b < nBlocks; b++ {
			marg[b][pext(a&masks[b], masks[b])] += x
		}
	}
	kl := 0.0
	for a, x := range p {
		if x == 0 {
			continue
		}
		q := 1.0
		for b := 0; b < nBlocks; b++ {
			q *= marg[b][pext(a&masks[b], masks[b])]
		}
		kl += x * math.Log(x/q)
	}
	if kl < 0 { // rounding
		kl = 0
	}
	return kl
}

// pext packs the bits of a selected by mask into the low bits.
func pext(a, mask int) int {
	r, j := 0, 0
	for i := 0; mask>>uint(i) != 0; i++ {
		if mask&(1<<uint(i)) != 0 {
			if a&(1<<uint(i)) != 0 {
				r |= 1 << uint(j)
			}
			j++
		}
	}
	return r
}

// Distribution turns counts into probabilities, adding alpha pseudo-counts
// to every truth assignment (alpha 0: the empirical distribution). It
// returns nil when there is nothing to count.
func Distribution(counts []int64, alpha float64) []float64 {
	total := alpha * float64(len(counts))
	for _, n := range counts {
		total += float64(n)
	}
	if total == 0 {
		return nil
	}
	p := make([]float64, len(counts))
	for a, n := range counts {
		p[a] = (float64(n) + alpha) / total
	}
	return p
}

// CliqueScore returns a clique's score, the least KL divergence over its
// decompositions into sub-cliques (partitions of its k literals into two
// or more blocks), and the best decomposition (block per literal). p is
// the clique's distribution over truth assignments (Distribution).
//
// Splitting a block further never lowers the divergence (the KL to a finer
// product adds the mutual information inside the split block), so the
// least is always reached by a split into two; all partitions are tried
// regardless.
func CliqueScore(p []float64, k int) (float64, []int) {
	best := math.Inf(1)
	var bestBlock []int
	partitions(k, func(block []int, n int) {
		if kl := DecompositionKL(p, k, block, n); kl < best {
			best, bestBlock = kl, append([]int(nil), block...)
		}
	})
	return best, bestBlock
}
