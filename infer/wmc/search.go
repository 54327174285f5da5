package wmc

import (
	"context"
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"
	"sync/atomic"

	"github.com/marple-mln/marple/ground"
)

// span is a range of a searcher's pool.
type span struct{ lo, hi int32 }

// branch is one value of a node's atom: the log-weight of the worlds of
// the component with the atom at that value (-Inf: none satisfies the
// hard clauses), and, for the marginals, the literals it made true
// (decision and propagation), the atoms it left free and the components
// it split into.
type branch struct {
	v             float64
	lits, free, c span
}

// node is a component branched on: the log-weight of its worlds and its
// two branches (atom true, atom false); or a leaf counted by variable
// elimination, whose atoms (b[0].free) have the marginals probs.
type node struct {
	v     float64
	b     [2]branch
	leaf  bool
	probs []float64
}

// cacheKey identifies a component: a 128-bit hash of its atoms and of
// its clauses not yet satisfied (which, with its atoms, fix what is left
// of each clause). Two keyed hashes of that length collide with
// probability about 2^-128 per pair.
type cacheKey [2]uint64

// nodeBytes is the memory estimate of a node with its cache entry.
const nodeBytes = int64(8+2*(8+3*8)) + 48

// searcher counts components, one at a time, with its own copy of the
// root state, cache and circuit.
type searcher struct {
	p    *problem
	st   *state
	lim  *limits
	ctx  context.Context
	stop *atomic.Bool
	keep bool // keep the circuit for the marginals
	// leafEntries > 0 lets a component whose variable elimination takes
	// at most that many table entries be a leaf counted by VE.
	leafEntries int
	tmp         []float64 // per atom: a leaf's marginals

	nodes   []node
	pool    []int32
	cache   map[cacheKey]int32
	seeds   [2]maphash.Seed
	seeded  bool
	score   []int32
	cls     []int32
	kbuf    []byte
	mem     int64 // bytes counted in lim.mem
	count64 int64
}

// count returns the log-weight of component comp (-Inf when its hard
// clauses cannot hold) and, with marg not nil, writes the marginals of its
// atoms.
func (s *searcher) count(comp []int32, marg []float64) (float64, error) {
	if !s.seeded {
		s.seeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
		s.seeded = true
	}
	if s.cache == nil {
		s.cache = make(map[cacheKey]int32)
	}
	defer s.reset()
	r, err := s.compile(comp)
	if err != nil {
		return 0, err
	}
	v := s.nodes[r].v
	if marg != nil && !math.IsInf(v, -1) {
		s.marginals(r, marg)
	}
	return v, nil
}

// reset forgets the component's circuit and cache.
func (s *searcher) reset() {
	s.lim.mem.Add(-s.mem)
	s.mem = 0
	s.nodes = s.nodes[:0]
	s.pool = s.pool[:0]
	clear(s.cache)
}

// compile returns the node of the component of the atoms vars (sorted,
// unassigned, connected by clauses not yet satisfied).
func (s *searcher) compile(vars []int32) (int32, error) {
	st := s.st
	cls := s.gather(vars)
	key := s.key(vars, cls)
	if id, ok := s.cache[key]; ok {
		s.lim.hits.Add(1)
		return id, nil
	}
	if err := s.account(int64(len(vars)+len(cls)), true); err != nil {
		return 0, err
	}
	// A component with more atoms than half the entries, or with more
	// open clauses than twice them, is not worth planning for.
	if s.leafEntries > 0 && len(vars) <= s.leafEntries/2 && len(cls) <= 2*s.leafEntries {
		if pl := planVE(st, vars, MaxVEWidth, s.leafEntries, LeafVECost); pl != nil {
			if err := s.account(pl.cost, false); err != nil {
				return 0, err
			}
			return s.veLeaf(pl, vars, key), nil
		}
	}
	x := s.pick(vars, cls)
	var nd node
	for bi := range 2 {
		k := len(st.trail)
		f, ok := st.decide(ground.MakeLit(x, bi == 1))
		b := branch{v: math.Inf(-1)}
		if ok {
			v := f
			comps, free := st.split(vars)
			for _, a := range free {
				v += s.p.freeLog(a)
			}
			if len(comps) > 1 {
				s.lim.decomps.Add(1)
			}
			var ch []int32
			for _, c := range comps {
				id, err := s.compile(c)
				if err != nil {
					st.undo(k)
					return 0, err
				}
				cv := s.nodes[id].v
				if math.IsInf(cv, -1) {
					v = cv
					break
				}
				v += cv
				ch = append(ch, id)
			}
			b.v = v
			if s.keep && !math.IsInf(v, -1) {
				b.lits = s.put32(len(st.trail) - k)
				for i, l := range st.trail[k:] {
					s.pool[int(b.lits.lo)+i] = int32(l)
				}
				b.free = s.put(free)
				b.c = s.put(ch)
			}
		}
		st.undo(k)
		nd.b[bi] = b
	}
	nd.v = logAdd(nd.b[0].v, nd.b[1].v)
	id := int32(len(s.nodes))
	s.nodes = append(s.nodes, nd)
	s.cache[key] = id
	return id, nil
}

// veLeaf counts the component of vars by variable elimination plan pl.
func (s *searcher) veLeaf(pl *vePlan, vars []int32, key cacheKey) int32 {
	s.lim.veLeaves.Add(1)
	nd := node{leaf: true}
	var marg []float64
	if s.keep {
		if s.tmp == nil {
			s.tmp = make([]float64, s.p.n)
		}
		marg = s.tmp
	}
	nd.v = pl.run(s.p, marg)
	nd.b[0].v, nd.b[1].v = nd.v, math.Inf(-1)
	if s.keep && !math.IsInf(nd.v, -1) {
		nd.b[0].free = s.put(vars)
		nd.probs = make([]float64, len(vars))
		for i, a := range vars {
			nd.probs[i] = marg[a]
		}
		s.mem += 8 * int64(len(vars))
		s.lim.mem.Add(8 * int64(len(vars)))
	}
	id := int32(len(s.nodes))
	s.nodes = append(s.nodes, nd)
	s.cache[key] = id
	return id
}

// put appends xs to the pool.
func (s *searcher) put(xs []int32) span {
	lo := int32(len(s.pool))
	s.pool = append(s.pool, xs...)
	s.mem += 4 * int64(len(xs))
	s.lim.mem.Add(4 * int64(len(xs)))
	return span{lo, int32(len(s.pool))}
}

// put32 appends k zeros to the pool.
func (s *searcher) put32(k int) span {
	lo := int32(len(s.pool))
	s.pool = slices.Grow(s.pool, k)[:int(lo)+k]
	s.mem += 4 * int64(k)
	s.lim.mem.Add(4 * int64(k))
	return span{lo, int32(len(s.pool))}
}

// account counts work (and a node, with node set) against the bounds and
// checks for cancellation.
func (s *searcher) account(work int64, node bool) error {
	if !node {
		if w := s.lim.work.Add(work); s.lim.maxWork > 0 && w > s.lim.maxWork {
			return &LimitError{What: "units of work (atoms and open clauses of the components branched on, table entries of variable elimination)", Limit: s.lim.maxWork}
		}
		return nil
	}
	s.mem += nodeBytes
	m := s.lim.mem.Add(nodeBytes)
	for {
		pk := s.lim.peak.Load()
		if m <= pk || s.lim.peak.CompareAndSwap(pk, m) {
			break
		}
	}
	n := s.lim.nodes.Add(1)
	if s.lim.maxNodes > 0 && n > s.lim.maxNodes {
		return &LimitError{What: "search nodes", Limit: s.lim.maxNodes}
	}
	if s.lim.maxMem > 0 && m > s.lim.maxMem {
		return &LimitError{What: "bytes of memory", Limit: s.lim.maxMem}
	}
	if w := s.lim.work.Add(work); s.lim.maxWork > 0 && w > s.lim.maxWork {
		return &LimitError{What: "units of work (atoms and open clauses of the components branched on, table entries of variable elimination)", Limit: s.lim.maxWork}
	}
	s.count64++
	if s.count64&255 == 0 {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		if s.stop.Load() {
			return errStopped
		}
	}
	return nil
}

// errStopped is the error of a component stopped because another failed.
var errStopped = &stopped{}

type stopped struct{}

func (*stopped) Error() string { return "wmc: stopped" }

// gather returns the clauses of the atoms vars not yet satisfied, sorted.
func (s *searcher) gather(vars []int32) []int32 {
	st, p := s.st, s.p
	stamp := st.nextStamp()
	cls := s.cls[:0]
	for _, v := range vars {
		for _, o := range p.occ[p.occStart[v]:p.occStart[v+1]] {
			c := o >> 1
			if st.nTrue[c] == 0 && st.cmark[c] != stamp {
				st.cmark[c] = stamp
				cls = append(cls, c)
			}
		}
	}
	slices.Sort(cls)
	s.cls = cls
	return cls
}

// key hashes a component.
func (s *searcher) key(vars, cls []int32) cacheKey {
	b := s.kbuf[:0]
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vars)))
	for _, v := range vars {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	for _, c := range cls {
		b = binary.LittleEndian.AppendUint32(b, uint32(c))
	}
	s.kbuf = b
	return cacheKey{maphash.Bytes(s.seeds[0], b), maphash.Bytes(s.seeds[1], b)}
}

// pick returns the atom to branch on: the one of highest rank in the
// elimination order (see elimOrder).
func (s *searcher) pick(vars, cls []int32) int32 {
	best := vars[0]
	for _, v := range vars[1:] {
		if s.p.rank[v] > s.p.rank[best] {
			best = v
		}
	}
	return best
}

// marginals adds to marg the marginal of every atom of the component of
// node r: top down through the circuit (a node's index is above those of
// its descendants), each node's g is log ∂Z/∂(its value) relative to Z,
// and the worlds through a branch weigh exp(g + the branch's value).
func (s *searcher) marginals(r int32, marg []float64) {
	g := make([]float64, r+1)
	for i := range g {
		g[i] = math.Inf(-1)
	}
	g[r] = -s.nodes[r].v
	for id := r; id >= 0; id-- {
		if math.IsInf(g[id], -1) {
			continue
		}
		nd := &s.nodes[id]
		if nd.leaf {
			pm := math.Exp(g[id] + nd.v)
			for i, a := range s.pool[nd.b[0].free.lo:nd.b[0].free.hi] {
				marg[a] += pm * nd.probs[i]
			}
			continue
		}
		for bi := range 2 {
			b := &nd.b[bi]
			if math.IsInf(b.v, -1) {
				continue
			}
			m := g[id] + b.v
			pm := math.Exp(m)
			for _, l := range s.pool[b.lits.lo:b.lits.hi] {
				if l&1 == 0 {
					marg[l>>1] += pm
				}
			}
			for _, a := range s.pool[b.free.lo:b.free.hi] {
				marg[a] += pm * s.p.freeProb(a)
			}
			for _, c := range s.pool[b.c.lo:b.c.hi] {
				g[c] = logAdd(g[c], m-s.nodes[c].v)
			}
		}
	}
}
