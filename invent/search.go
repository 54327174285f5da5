package invent

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// maxKeySpace bounds the dense table of cluster combinations of one
// predicate group in one problem (the product of its positions' set sizes).
const maxKeySpace = 1 << 24

// pset is one set of symbols of a problem.
type pset struct {
	dom     int
	members []int32 // domain-local symbols
}

// pgroup is the atoms of one predicate group in a problem; pos maps each
// position (0: the predicate, then the arguments) to a set.
type pgroup struct {
	g      int
	pos    []int
	atoms  []int32 // indices into Data.Groups[g]
	pi     float64 // prior rate: the group's training rate
	parent float64 // the smoothed rate of the combination refined
}

// problem is one node of the refinement: sets of symbols and their atoms.
type problem struct {
	sets   []pset
	groups []pgroup
	seed   uint64
	depth  int
}

// occurrence is one atom a symbol occurs in; mstride is the change of the
// atom's combination key per unit change of the symbol's cluster (the sum
// of the strides of the positions the symbol fills).
type occurrence struct {
	pg, atom, mstride int32
}

// prep holds what the restarts of one problem share, read-only.
type prep struct {
	d      *Data
	pr     *problem
	opt    Options
	loc    [][]int32 // per group: atom*(arity+1)+pos -> member index in its set
	truth  [][]bool
	stride [][]int32
	space  []int
	pi     []float64
	tab    []*llTable
	occAt  [][]int32 // per set: CSR starts, len(members)+1
	occ    [][]occurrence
}

func newPrep(d *Data, pr *problem, opt Options) (*prep, error) {
	p := &prep{d: d, pr: pr, opt: opt}
	idx := make([][]int32, len(pr.sets))
	for s, st := range pr.sets {
		m := make([]int32, len(d.Domains[st.dom].Members))
		for i := range m {
			m[i] = -1
		}
		for i, x := range st.members {
			m[x] = int32(i)
		}
		idx[s] = m
	}
	counts := make([][]int32, len(pr.sets))
	for s, st := range pr.sets {
		counts[s] = make([]int32, len(st.members)+1)
	}
	for _, g := range pr.groups {
		grp := &d.Groups[g.g]
		w := len(g.pos)
		stride := make([]int32, w)
		space := 1
		for q, s := range g.pos {
			stride[q] = int32(space)
			space *= len(pr.sets[s].members)
			if space > maxKeySpace {
				return nil, fmt.Errorf("invent: the cluster combinations of %s exceed %d", d.Domains[grp.Preds].Name, maxKeySpace)
			}
		}
		loc := make([]int32, len(g.atoms)*w)
		truth := make([]bool, len(g.atoms))
		for a, ai := range g.atoms {
			src := grp.Atoms[int(ai)*w : int(ai)*w+w]
			for q, s := range g.pos {
				loc[a*w+q] = idx[s][src[q]]
			}
			truth[a] = grp.Truth[ai]
			for q, s := range g.pos {
				if firstOcc(g.pos, loc[a*w:a*w+w], q) {
					counts[s][loc[a*w+q]+1]++
				}
			}
		}
		p.loc = append(p.loc, loc)
		p.truth = append(p.truth, truth)
		p.stride = append(p.stride, stride)
		p.space = append(p.space, space)
		p.pi = append(p.pi, g.pi)
		p.tab = append(p.tab, newLLTable(len(g.atoms), g.pi, opt.Beta))
	}
	p.occAt = make([][]int32, len(pr.sets))
	p.occ = make([][]occurrence, len(pr.sets))
	fill := make([][]int32, len(pr.sets))
	for s := range pr.sets {
		c := counts[s]
		for i := 1; i < len(c); i++ {
			c[i] += c[i-1]
		}
		p.occAt[s] = c
		p.occ[s] = make([]occurrence, c[len(c)-1])
		fill[s] = append([]int32(nil), c[:len(c)-1]...)
	}
	for gi, g := range pr.groups {
		w := len(g.pos)
		loc := p.loc[gi]
		for a := range g.atoms {
			l := loc[a*w : a*w+w]
			for q, s := range g.pos {
				if !firstOcc(g.pos, l, q) {
					continue
				}
				ms := int32(0)
				for r := q; r < w; r++ {
					if g.pos[r] == s && l[r] == l[q] {
						ms += p.stride[gi][r]
					}
				}
				i := l[q]
				p.occ[s][fill[s][i]] = occurrence{int32(gi), int32(a), ms}
				fill[s][i]++
			}
		}
	}
	return p, nil
}

// firstOcc reports whether position q is the first position of atom l
// holding the same symbol of the same set.
func firstOcc(pos []int, l []int32, q int) bool {
	for r := 0; r < q; r++ {
		if pos[r] == pos[q] && l[r] == l[q] {
			return false
		}
	}
	return true
}

// state is one hard assignment with its counts, updated incrementally.
type state struct {
	p       *prep
	assign  [][]int32 // per set: member -> cluster
	size    [][]int32 // per set: cluster -> members
	k       []int     // per set: non-empty clusters
	keys    [][]int32 // per group: atom -> combination key
	t, f    [][]int32 // per group: key -> true / false atoms
	dt, df  [][]int32 // scratch deltas
	mark    [][]int32
	epoch   int32
	frozen  []bool
	lambda  float64 // the prior's weight in the current phase
	touched []int64
	ll      float64
}

func newState(p *prep, assign [][]int32) *state {
	st := &state{p: p, assign: assign, lambda: p.opt.Lambda}
	st.size = make([][]int32, len(assign))
	st.k = make([]int, len(assign))
	for s, as := range assign {
		st.size[s] = make([]int32, len(as))
		for _, c := range as {
			if st.size[s][c] == 0 {
				st.k[s]++
			}
			st.size[s][c]++
		}
	}
	for gi, g := range p.pr.groups {
		w := len(g.pos)
		sp := p.space[gi]
		keys := make([]int32, len(g.atoms))
		t := make([]int32, sp)
		f := make([]int32, sp)
		loc := p.loc[gi]
		for a := range g.atoms {
			k := int32(0)
			for q, s := range g.pos {
				k += assign[s][loc[a*w+q]] * p.stride[gi][q]
			}
			keys[a] = k
			if p.truth[gi][a] {
				t[k]++
			} else {
				f[k]++
			}
		}
		st.keys = append(st.keys, keys)
		st.t = append(st.t, t)
		st.f = append(st.f, f)
		st.dt = append(st.dt, make([]int32, sp))
		st.df = append(st.df, make([]int32, sp))
		st.mark = append(st.mark, make([]int32, sp))
		for k := range t {
			if t[k] != 0 || f[k] != 0 {
				st.ll += p.tab[gi].ll(t[k], f[k])
			}
		}
	}
	return st
}

// score is the log-posterior relative to one cluster per set.
func (st *state) score() float64 {
	c := 0
	for _, k := range st.k {
		c += k - 1
	}
	return st.ll - st.lambda*float64(c)
}

func (st *state) touch(gi int32, k int32) {
	if st.p.space[gi] == 0 {
		return
	}
	if st.mark[gi][k] != st.epoch {
		st.mark[gi][k] = st.epoch
		st.touched = append(st.touched, int64(gi)<<32|int64(k))
	}
}

// evalMove returns the change of the log-likelihood if member x of set s
// moved to cluster b.
func (st *state) evalMove(s int, x int32, b int32) float64 {
	p := st.p
	diff := b - st.assign[s][x]
	st.epoch++
	if st.epoch == 0 {
		for _, m := range st.mark {
			clear(m)
		}
		st.epoch = 1
	}
	st.touched = st.touched[:0]
	occ := p.occ[s][p.occAt[s][x]:p.occAt[s][x+1]]
	for _, o := range occ {
		k := st.keys[o.pg][o.atom]
		nk := k + diff*o.mstride
		st.touch(o.pg, k)
		st.touch(o.pg, nk)
		if p.truth[o.pg][o.atom] {
			st.dt[o.pg][k]--
			st.dt[o.pg][nk]++
		} else {
			st.df[o.pg][k]--
			st.df[o.pg][nk]++
		}
	}
	delta := 0.0
	for _, tk := range st.touched {
		gi, k := int(tk>>32), int32(tk)
		t, f := st.t[gi][k], st.f[gi][k]
		dt, df := st.dt[gi][k], st.df[gi][k]
		if dt != 0 || df != 0 {
			tb := p.tab[gi]
			delta += tb.ll(t+dt, f+df) - tb.ll(t, f)
		}
		st.dt[gi][k], st.df[gi][k] = 0, 0
	}
	return delta
}

// move moves member x of set s to cluster b and returns the change of the
// score (log-likelihood and prior).
func (st *state) move(s int, x int32, b int32) float64 {
	p := st.p
	a := st.assign[s][x]
	if a == b {
		return 0
	}
	d := st.evalMove(s, x, b)
	diff := b - a
	for _, o := range p.occ[s][p.occAt[s][x]:p.occAt[s][x+1]] {
		k := st.keys[o.pg][o.atom]
		nk := k + diff*o.mstride
		if p.truth[o.pg][o.atom] {
			st.t[o.pg][k]--
			st.t[o.pg][nk]++
		} else {
			st.f[o.pg][k]--
			st.f[o.pg][nk]++
		}
		st.keys[o.pg][o.atom] = nk
	}
	st.ll += d
	st.assign[s][x] = b
	st.size[s][a]--
	if st.size[s][a] == 0 {
		st.k[s]--
		d += st.lambda
	}
	if st.size[s][b] == 0 {
		st.k[s]++
		d -= st.lambda
	}
	st.size[s][b]++
	return d
}

// priorDelta is the change of the prior if a member of cluster a of set s
// moved to cluster b.
func (st *state) priorDelta(s int, a, b int32) float64 {
	d := 0.0
	if st.size[s][a] == 1 {
		d += st.lambda
	}
	if st.size[s][b] == 0 {
		d -= st.lambda
	}
	return d
}

// freeCluster returns an empty cluster of set s, or -1.
func (st *state) freeCluster(s int) int32 {
	for c, n := range st.size[s] {
		if n == 0 {
			return int32(c)
		}
	}
	return -1
}

const eps = 1e-9

// minGain is the least log-posterior gain that makes a refinement.
const minGain = 1e-6

// sweep offers every member of every set its best move; it reports whether
// any improved the score.
func (st *state) sweep(rng *rand.Rand) bool {
	improved := false
	for s := range st.assign {
		n := len(st.assign[s])
		if n < 2 || st.frozen[s] {
			continue
		}
		perm := rng.Perm(n)
		for _, xi := range perm {
			x := int32(xi)
			a := st.assign[s][x]
			best, bestB := eps, int32(-1)
			for c := int32(0); c < int32(n); c++ {
				if c == a || st.size[s][c] == 0 {
					continue
				}
				if d := st.evalMove(s, x, c) + st.priorDelta(s, a, c); d > best {
					best, bestB = d, c
				}
			}
			if st.lambda > 0 && st.k[s] < st.p.opt.MaxClusters && st.size[s][a] > 1 {
				if c := st.freeCluster(s); c >= 0 {
					if d := st.evalMove(s, x, c) + st.priorDelta(s, a, c); d > best {
						best, bestB = d, c
					}
				}
			}
			if bestB >= 0 {
				st.move(s, x, bestB)
				improved = true
			}
		}
	}
	return improved
}

// merge applies the best merge of two clusters of a set if it improves the
// score, and reports whether it did.
func (st *state) merge() bool {
	best, bs, bInto, bFrom := eps, -1, int32(-1), int32(-1)
	var members []int32
	for s := range st.assign {
		n := int32(len(st.assign[s]))
		if st.frozen[s] {
			continue
		}
		for c1 := int32(0); c1 < n; c1++ {
			if st.size[s][c1] == 0 {
				continue
			}
			for c2 := c1 + 1; c2 < n; c2++ {
				if st.size[s][c2] == 0 {
					continue
				}
				members = members[:0]
				for x, c := range st.assign[s] {
					if c == c2 {
						members = append(members, int32(x))
					}
				}
				d := 0.0
				for _, x := range members {
					d += st.move(s, x, c1)
				}
				for _, x := range members {
					st.move(s, x, c2)
				}
				if d > best {
					best, bs, bInto, bFrom = d, s, c1, c2
				}
			}
		}
	}
	if bs < 0 {
		return false
	}
	for x, c := range st.assign[bs] {
		if c == bFrom {
			st.move(bs, int32(x), bInto)
		}
	}
	return true
}

// maxSweeps bounds the greedy passes of one restart.
const maxSweeps = 100

// restart runs one greedy search from a random split in two of every set
// not frozen and returns its assignment and score.
func (p *prep) restart(ctx context.Context, r int, frozen []bool, bisect bool) ([][]int32, float64, error) {
	rng := rand.New(rand.NewPCG(p.pr.seed, uint64(r)+1))
	assign := make([][]int32, len(p.pr.sets))
	for s, st := range p.pr.sets {
		a := make([]int32, len(st.members))
		if n := len(a); n >= 2 && !frozen[s] {
			for i := range a {
				a[i] = int32(rng.IntN(2))
			}
			// Both halves non-empty.
			a[rng.IntN(n)] = 0
			if countEq(a, 1) == 0 {
				a[1+rng.IntN(n-1)] = 1
			}
		}
		assign[s] = a
	}
	st := newState(p, assign)
	st.frozen = frozen
	// Phase 1 climbs between the two halves without the prior, so that a
	// random split's small fluctuations can grow into clusters before they
	// pay for themselves; phase 2 adds the prior, new clusters and merges.
	st.lambda = 0
	for i := 0; i < maxSweeps; i++ {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if !st.sweep(rng) {
			break
		}
	}
	st.lambda = p.opt.Lambda
	if bisect {
		return st.assign, st.score(), nil
	}
	for i := 0; i < maxSweeps; i++ {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if st.sweep(rng) {
			continue
		}
		if !st.merge() {
			break
		}
	}
	return st.assign, st.score(), nil
}

func countEq(a []int32, v int32) int {
	n := 0
	for _, x := range a {
		if x == v {
			n++
		}
	}
	return n
}

// best runs the restarts in parallel and returns the best assignment (the
// first in restart order among equal scores).
func (p *prep) best(ctx context.Context, frozen []bool, bisect bool) ([][]int32, error) {
	R := p.opt.Restarts
	type res struct {
		a     [][]int32
		score float64
		err   error
	}
	out := make([]res, R)
	workers := p.opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers > R {
		workers = R
	}
	j := p.opt.Journal
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range next {
				a, sc, err := p.restart(ctx, r, frozen, bisect)
				out[r] = res{a, sc, err}
				if j != nil && err == nil {
					j.addRestart(r, a, sc)
				}
			}
		}()
	}
	for r := 0; r < R; r++ {
		if j != nil {
			if rec, ok := j.restart(r); ok {
				out[r] = res{rec.Assign, rec.Score, nil}
				continue
			}
		}
		next <- r
	}
	close(next)
	wg.Wait()
	bi := -1
	for r, o := range out {
		if o.err != nil {
			return nil, o.err
		}
		if bi < 0 || o.score > out[bi].score {
			bi = r
		}
	}
	return out[bi].a, nil
}

// refinement is the bottom level's answer for a problem: the best
// assignment found (nil: one cluster per set) and its exact gain.
type refinement struct {
	assign [][]int32
	gain   float64
}

// bottom finds the clusters of problem p, the sets marked frozen kept in
// one cluster. Unless force is set, an assignment that does not improve on
// one cluster per set is no refinement. With force the search stops at the
// best bisection found without the prior (phase 1 of restart), which is
// returned with its gain, negative if it does not pay for itself, for the
// lookahead to weigh against its combinations' gains.
func (p *prep) bottom(ctx context.Context, frozen []bool, force bool) (refinement, error) {
	splittable := false
	for s, st := range p.pr.sets {
		splittable = splittable || len(st.members) >= 2 && !frozen[s]
	}
	if !splittable || p.opt.MaxDepth > 0 && p.pr.depth >= p.opt.MaxDepth {
		return refinement{}, nil
	}
	j := p.opt.Journal
	if j != nil {
		if r, ok := j.replay(); ok {
			return r, nil
		}
	}
	r, err := p.search(ctx, frozen, force)
	if err != nil {
		return refinement{}, err
	}
	if j != nil {
		if err := j.addStep(r); err != nil {
			return refinement{}, err
		}
	}
	return r, nil
}

// search is bottom's search of a splittable problem.
func (p *prep) search(ctx context.Context, frozen []bool, force bool) (refinement, error) {
	a, err := p.best(ctx, frozen, force)
	if err != nil {
		return refinement{}, err
	}
	// Rescore from scratch: the incremental score may have drifted.
	bs := newState(p, a)
	split := false
	for _, k := range bs.k {
		split = split || k > 1
	}
	gain := bs.score() - newState(p, p.trivial()).score()
	if !split || gain <= minGain && !force {
		return refinement{}, nil
	}
	return refinement{a, gain}, nil
}

func (p *prep) trivial() [][]int32 {
	a := make([][]int32, len(p.pr.sets))
	for s, st := range p.pr.sets {
		a[s] = make([]int32, len(st.members))
	}
	return a
}

// solver runs the top level: recursion into combinations, with a one-level
// lookahead choosing which sets a node clusters.
type solver struct {
	ctx   context.Context
	d     *Data
	opt   Options
	stats *Stats
}

// kid is a combination of a candidate node that will be refined.
type kid struct {
	combo *Combo
	pr    *problem
	ref   *refinement // the bottom level's answer, once computed
}

// candidate is one clustering of a node with its combinations.
type candidate struct {
	ref  refinement
	node *Node
	kids []kid
}

// lookaheadScore is the candidate's gain plus its children's gains at one
// more level of refinement (computed and kept for the children).
func (sv *solver) lookaheadScore(c *candidate) (float64, error) {
	total := c.ref.gain
	for i := range c.kids {
		k := &c.kids[i]
		p, err := newPrep(sv.d, k.pr, sv.opt)
		if err != nil {
			return 0, err
		}
		r, err := p.bottom(sv.ctx, make([]bool, len(k.pr.sets)), false)
		if err != nil {
			return 0, err
		}
		k.ref = &r
		total += r.gain
	}
	return total, nil
}

// solve refines problem pr; pre is its bottom-level answer if known.
func (sv *solver) solve(pr *problem, pre *refinement) (*Node, error) {
	if err := sv.ctx.Err(); err != nil {
		return nil, err
	}
	sv.stats.add(len(pr.groups[0].atoms))
	p, err := newPrep(sv.d, pr, sv.opt)
	if err != nil {
		return nil, err
	}
	frozen := make([]bool, len(pr.sets))
	var ref refinement
	if pre != nil {
		ref = *pre
	} else if ref, err = p.bottom(sv.ctx, frozen, false); err != nil {
		return nil, err
	}
	best := p.candidate(ref)
	// The top level: would clustering only the predicates here, and the
	// constants further down in each combination, score better?
	if ref.assign != nil && !sv.opt.NoLookahead {
		nPred, nConst := 0, 0
		for s, st := range pr.sets {
			if len(st.members) < 2 {
				continue
			}
			if sv.d.Domains[st.dom].Pred {
				nPred++
			} else {
				nConst++
				frozen[s] = true
			}
		}
		if nPred > 0 && nConst > 0 {
			// Forced: a split of the predicates alone may not pay for
			// itself but enable the combinations' clusterings that do.
			refP, err := p.bottom(sv.ctx, frozen, true)
			if err != nil {
				return nil, err
			}
			if refP.assign != nil {
				alt := p.candidate(refP)
				sA, err := sv.lookaheadScore(best)
				if err != nil {
					return nil, err
				}
				sB, err := sv.lookaheadScore(alt)
				if err != nil {
					return nil, err
				}
				if sB > sA+minGain {
					best = alt
				}
			}
		}
	}
	best.node.total = best.node.Gain
	for _, k := range best.kids {
		cn, err := sv.solve(k.pr, k.ref)
		if err != nil {
			return nil, err
		}
		if cn.total > 0 {
			k.combo.Child = cn
			best.node.total += cn.total
		}
	}
	return best.node, nil
}

// candidate builds the node of an assignment and the problems of its
// combinations worth refining (holding true and false atoms and a set of
// two or more symbols).
func (p *prep) candidate(ref refinement) *candidate {
	pr := p.pr
	d := p.d
	assign := ref.assign
	if assign == nil {
		assign = p.trivial()
	}
	st := newState(p, assign)
	c := &candidate{ref: ref}
	node := &Node{Gain: ref.gain}
	c.node = node
	renum := make([][]int32, len(pr.sets))
	for s, ps := range pr.sets {
		ns := NodeSet{Domain: ps.dom}
		renum[s] = make([]int32, len(ps.members))
		for i := range renum[s] {
			renum[s][i] = -1
		}
		for x, cl := range assign[s] {
			if renum[s][cl] < 0 {
				renum[s][cl] = int32(len(ns.Clusters))
				ns.Clusters = append(ns.Clusters, nil)
			}
			nc := renum[s][cl]
			ns.Clusters[nc] = append(ns.Clusters[nc], ps.members[x])
		}
		ns.index(len(d.Domains[ps.dom].Members))
		node.Sets = append(node.Sets, ns)
	}
	for gi, g := range pr.groups {
		ng := NodeGroup{Group: g.g, Pos: g.pos, Prior: g.pi, Parent: g.parent, byKey: map[int64]*Combo{}}
		ng.radix = make([]int64, len(g.pos))
		for q, s := range g.pos {
			ng.radix[q] = int64(len(node.Sets[s].Clusters))
		}
		byOld := map[int32][]int32{}
		for a, k := range st.keys[gi] {
			byOld[k] = append(byOld[k], g.atoms[a])
		}
		olds := make([]int32, 0, len(byOld))
		for k := range byOld {
			olds = append(olds, k)
		}
		sort.Slice(olds, func(i, j int) bool { return olds[i] < olds[j] })
		type oc struct {
			c   *Combo
			old int32
		}
		var ocs []oc
		for _, k := range olds {
			cb := &Combo{Clusters: make([]int, len(g.pos)), True: int(st.t[gi][k]), False: int(st.f[gi][k])}
			rem := int64(k)
			for q := len(g.pos) - 1; q >= 0; q-- {
				sd := int64(p.stride[gi][q])
				cb.Clusters[q] = int(renum[g.pos[q]][rem/sd])
				rem %= sd
			}
			ng.byKey[ng.key(cb.Clusters)] = cb
			ocs = append(ocs, oc{cb, k})
		}
		sort.Slice(ocs, func(i, j int) bool { return ng.key(ocs[i].c.Clusters) < ng.key(ocs[j].c.Clusters) })
		for ci, o := range ocs {
			ng.Combos = append(ng.Combos, o.c)
			if ref.assign == nil || o.c.True == 0 || o.c.False == 0 {
				continue
			}
			child := &problem{depth: pr.depth + 1, seed: mix(pr.seed, uint64(gi)<<32|uint64(ci))}
			cg := pgroup{g: g.g, pos: make([]int, len(g.pos)), atoms: byOld[o.old], pi: g.pi, parent: Rate(o.c.True, o.c.False, g.pi, p.opt.Beta)}
			big := false
			for q, s := range g.pos {
				m := node.Sets[s].Clusters[o.c.Clusters[q]]
				found := -1
				for j, cs := range child.sets {
					if cs.dom == pr.sets[s].dom && slices.Equal(cs.members, m) {
						found = j
					}
				}
				if found < 0 {
					found = len(child.sets)
					big = big || len(m) >= 2
					child.sets = append(child.sets, pset{dom: pr.sets[s].dom, members: m})
				}
				cg.pos[q] = found
			}
			if !big {
				continue
			}
			child.groups = []pgroup{cg}
			c.kids = append(c.kids, kid{combo: o.c, pr: child})
		}
		node.Groups = append(node.Groups, ng)
	}
	return c
}

// mix derives a child seed (splitmix64 of the parent's and an index).
func mix(seed, i uint64) uint64 {
	z := seed ^ (i+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
