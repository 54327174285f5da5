package ground

import (
	"fmt"
	"math"
	"math/bits"
	"sync"

	"github.com/marple-mln/marple/mln"
)

// u64map is an open-addressing hash table from uint64 keys to int32 values.
// It is safe for concurrent readers once no goroutine writes to it.
type u64map struct {
	keys  []uint64 // key+1; 0 marks an empty slot
	vals  []int32
	n     int
	shift uint
}

func (h *u64map) hash(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> h.shift }

// get returns the value stored under k.
func (h *u64map) get(k uint64) (int32, bool) {
	if h.n == 0 {
		return 0, false
	}
	k1 := k + 1
	mask := uint64(len(h.keys) - 1)
	for i := h.hash(k1); ; i = (i + 1) & mask {
		switch h.keys[i] {
		case k1:
			return h.vals[i], true
		case 0:
			return 0, false
		}
	}
}

// put stores v under k, replacing any earlier value.
func (h *u64map) put(k uint64, v int32) {
	if 4*(h.n+1) > 3*len(h.keys) {
		h.grow()
	}
	k1 := k + 1
	mask := uint64(len(h.keys) - 1)
	for i := h.hash(k1); ; i = (i + 1) & mask {
		switch h.keys[i] {
		case k1:
			h.vals[i] = v
			return
		case 0:
			h.keys[i] = k1
			h.vals[i] = v
			h.n++
			return
		}
	}
}

// slot returns the index in keys and vals of k's entry, or -1.
func (h *u64map) slot(k uint64) int {
	if h.n == 0 {
		return -1
	}
	k1 := k + 1
	mask := uint64(len(h.keys) - 1)
	for i := h.hash(k1); ; i = (i + 1) & mask {
		switch h.keys[i] {
		case k1:
			return int(i)
		case 0:
			return -1
		}
	}
}

// seenMark marks an evidence table entry while dedupRows runs (the values
// are truth values, far below it).
const seenMark = 1 << 30

// reset empties the table, keeping its memory.
func (h *u64map) reset() {
	if h.n > 0 {
		clear(h.keys)
		h.n = 0
	}
}

// reserve makes room for n entries without rehashing.
func (h *u64map) reserve(n int) {
	if h.n == 0 {
		// Empty: allocate the final size at once (the tables growing
		// one doubling at a time left their predecessors as garbage).
		size := max(16, len(h.keys))
		for 4*n > 3*size {
			size *= 2
		}
		if size != len(h.keys) {
			h.resize(size)
		}
		return
	}
	for 4*n > 3*len(h.keys) {
		h.grow()
	}
}

func (h *u64map) grow() { h.resize(max(16, 2*len(h.keys))) }

// resize moves the entries to a table of size slots (a power of two).
func (h *u64map) resize(size int) {
	old, oldv := h.keys, h.vals
	h.keys = make([]uint64, size)
	h.vals = make([]int32, size)
	h.shift = uint(64 - bits.TrailingZeros(uint(size)))
	h.n = 0
	mask := uint64(size - 1)
	for j, k1 := range old {
		if k1 == 0 {
			continue
		}
		i := h.hash(k1)
		for h.keys[i] != 0 {
			i = (i + 1) & mask
		}
		h.keys[i] = k1
		h.vals[i] = oldv[j]
		h.n++
	}
}

// predTable holds what the grounder knows about one predicate: how its
// ground atoms are packed into integer keys, its evidence, and the rows
// that generate bindings (closed-world predicates). Once built it is only
// read (its indexes are built under a lock), so that SharedEvidence can
// hand one table to many groundings; the IDs of its atoms in a network are
// in the grounder (atomIDs).
//
// A ground atom p(c_0..c_k-1) is packed as Σ idx_j·stride_j, idx_j being the
// position of c_j in the domain of argument j's type (mixed radix, the last
// argument varying fastest).
type predTable struct {
	id      mln.PredID
	name    string
	types   []mln.TypeID
	sizes   []int64
	strides []uint64
	total   uint64 // number of groundings (product of the domain sizes)
	open    bool   // unlisted atoms are unknown (else false)
	query   bool

	ev u64map // listed atoms: key -> mln.Truth

	// Generator rows: the listed atoms whose value is not False (True or
	// Unknown), used to enumerate the bindings of a negative literal of a
	// closed-world predicate. rowArgs holds arity local indices per row.
	rowArgs  []int32
	rowKey   []uint64
	rowTruth []mln.Truth
	distinct []int // per argument: distinct values among the rows

	mu      sync.Mutex
	indexes map[uint32]*genIndex // by mask of bound argument positions

	unknownOnce sync.Once
	unknownN    float64 // number of unknown atoms (see unknowns)
}

// unknowns returns the number of the predicate's atoms whose truth value
// the evidence leaves unknown: for an open-world predicate every grounding
// not listed as true or false, for a closed-world one the atoms listed
// as unknown ("?").
func (pt *predTable) unknowns() float64 {
	pt.unknownOnce.Do(func() {
		listedUnknown, listed := 0.0, 0.0
		for i, k := range pt.ev.keys {
			if k == 0 {
				continue
			}
			listed++
			if mln.Truth(pt.ev.vals[i]) == mln.Unknown {
				listedUnknown++
			}
		}
		if pt.open {
			pt.unknownN = math.Max(0, float64(pt.total)-listed) + listedUnknown
		} else {
			pt.unknownN = listedUnknown
		}
	})
	return pt.unknownN
}

// atomIDs holds the network IDs of one predicate's atoms: dense for query
// predicates (all groundings; -1 for evidence atoms), hashed for the
// others.
type atomIDs struct {
	dense []int32
	ids   u64map
}

func (pt *predTable) arity() int { return len(pt.types) }

// truth returns the evidence value of the atom with key k under the
// predicate's world assumption.
func (pt *predTable) truth(k uint64) mln.Truth {
	if v, ok := pt.ev.get(k); ok {
		return mln.Truth(v)
	}
	if pt.open {
		return mln.Unknown
	}
	return mln.False
}

// decode writes the local indices of key k into idx.
func (pt *predTable) decode(k uint64, idx []int32) {
	for j := range pt.types {
		idx[j] = int32(k / pt.strides[j])
		k %= pt.strides[j]
	}
}

// newPredTable builds the table of predicate p from the database (or from
// Options.Shared when it holds p).
func (g *grounder) newPredTable(p mln.PredID) (*predTable, error) {
	db := g.db
	if sh := g.shared; sh != nil && sh.has(p) {
		cacheable := true
		for _, t := range g.m.Preds[p].Args {
			if g.override(t) != nil {
				cacheable = false
			}
		}
		if cacheable {
			return sh.table(g, p)
		}
		db = sh.db
	}
	return g.buildPredTable(p, db)
}

// buildPredTable builds the table of predicate p from the atoms of db.
func (g *grounder) buildPredTable(p mln.PredID, db *mln.Database) (*predTable, error) {
	pr := g.m.Preds[p]
	pt := &predTable{id: p, name: pr.Name, types: pr.Args, open: g.open[p], query: g.query[p]}
	k := len(pr.Args)
	pt.sizes = make([]int64, k)
	pt.strides = make([]uint64, k)
	total := uint64(1)
	for j := k - 1; j >= 0; j-- {
		n := uint64(g.size(pr.Args[j]))
		pt.sizes[j] = int64(n)
		pt.strides[j] = total
		if n != 0 {
			hi, lo := bits.Mul64(total, n)
			if hi != 0 || lo >= 1<<62 {
				return nil, fmt.Errorf("ground: predicate %s has too many groundings to index", pr.Name)
			}
			total = lo
		}
	}
	for j := range pr.Args {
		if pt.sizes[j] == 0 {
			total = 0
		}
	}
	pt.total = total
	if db == nil {
		return pt, nil
	}
	pt.ev.reserve(db.Count(p))
	idx := make([]int32, k)
	db.Atoms(p, func(args []mln.ConstID, v mln.Truth) {
		if len(args) != k {
			return
		}
		key, ok := g.packConsts(pt, args, idx)
		if !ok {
			return
		}
		pt.ev.put(key, int32(v))
	})
	// Generator rows, in database order.
	if !pt.open {
		db.Atoms(p, func(args []mln.ConstID, _ mln.Truth) {
			if len(args) != k {
				return
			}
			key, ok := g.packConsts(pt, args, idx)
			if !ok {
				return
			}
			v := pt.truth(key)
			if v == mln.False {
				return
			}
			pt.rowArgs = append(pt.rowArgs, idx...)
			pt.rowKey = append(pt.rowKey, key)
			pt.rowTruth = append(pt.rowTruth, v)
		})
		if len(pt.rowKey) > pt.listedNotFalse() {
			pt.dedupRows()
		}
		pt.distinct = make([]int, k)
		for j := 0; j < k; j++ {
			seen := make([]bool, pt.sizes[j])
			for r := 0; r < len(pt.rowKey); r++ {
				if v := pt.rowArgs[r*k+j]; !seen[v] {
					seen[v] = true
					pt.distinct[j]++
				}
			}
		}
	}
	return pt, nil
}

// listedNotFalse returns the number of distinct atoms of the evidence
// table that are not false: the number of rows when no atom is listed
// twice (each row's key is in the table, with the truth of the row), so
// that dedupRows is needed only when there are more rows.
func (pt *predTable) listedNotFalse() int {
	n := 0
	for i, k1 := range pt.ev.keys {
		if k1 != 0 && mln.Truth(pt.ev.vals[i]) != mln.False {
			n++
		}
	}
	return n
}

// dedupRows removes rows listed more than once. It marks the rows seen in
// the evidence table itself (every row's key is there; seenMark is set in
// its value and cleared afterwards), so it allocates nothing.
func (pt *predTable) dedupRows() {
	k := pt.arity()
	w := 0
	for r, key := range pt.rowKey {
		i := pt.ev.slot(key)
		if i < 0 || pt.ev.vals[i]&seenMark != 0 {
			continue
		}
		pt.ev.vals[i] |= seenMark
		copy(pt.rowArgs[w*k:(w+1)*k], pt.rowArgs[r*k:(r+1)*k])
		pt.rowKey[w] = key
		pt.rowTruth[w] = pt.rowTruth[r]
		w++
	}
	for _, key := range pt.rowKey[:w] {
		pt.ev.vals[pt.ev.slot(key)] &^= seenMark
	}
	pt.rowArgs = pt.rowArgs[:w*k]
	pt.rowKey = pt.rowKey[:w]
	pt.rowTruth = pt.rowTruth[:w]
}

// packConsts packs atom args of pt, writing the local indices into idx. It
// fails when a constant is not in its argument's domain.
func (g *grounder) packConsts(pt *predTable, args []mln.ConstID, idx []int32) (uint64, bool) {
	var key uint64
	for j, c := range args {
		i := g.localIndex(pt.types[j], c)
		if i < 0 {
			return 0, false
		}
		idx[j] = i
		key += uint64(i) * pt.strides[j]
	}
	return key, true
}

// localIndex returns the position of constant c in type t's domain, or -1.
// After many lookups of one type it switches from the domain's map to a
// dense table over all constants, built once (not safe for concurrent use:
// workers use index).
func (g *grounder) localIndex(t mln.TypeID, c mln.ConstID) int32 {
	for int(t) >= len(g.local) {
		g.local = append(g.local, nil)
		g.lookups = append(g.lookups, 0)
	}
	tab := g.local[t]
	if len(tab) != g.m.NumConsts() {
		if g.lookups[t] < g.m.NumConsts()/16 {
			g.lookups[t]++
			i, ok := g.index(t, c)
			if !ok {
				return -1
			}
			return i
		}
		tab = make([]int32, g.m.NumConsts())
		for i := range tab {
			tab[i] = -1
		}
		for i, k := range g.consts(t) {
			tab[k] = int32(i)
		}
		g.local[t] = tab
	}
	if c < 0 || int(c) >= len(tab) {
		return -1
	}
	return tab[c]
}

// genIndex indexes the generator rows of a predicate by the values at a set
// of bound argument positions.
type genIndex struct {
	mask    uint32
	buckets u64map // bound key -> bucket
	start   []int32
	rows    []int32
}

// lookup returns the rows whose bound positions pack to key.
func (ix *genIndex) lookup(key uint64) []int32 {
	b, ok := ix.buckets.get(key)
	if !ok {
		return nil
	}
	return ix.rows[ix.start[b]:ix.start[b+1]]
}

// index returns the index of pt's rows on the positions in mask, building
// it on first use.
func (pt *predTable) index(mask uint32) *genIndex {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	if ix, ok := pt.indexes[mask]; ok {
		return ix
	}
	if pt.indexes == nil {
		pt.indexes = make(map[uint32]*genIndex)
	}
	k := pt.arity()
	n := len(pt.rowKey)
	ix := &genIndex{mask: mask}
	bucketOf := make([]int32, n)
	var counts []int32
	ix.buckets.reserve(n)
	for r := 0; r < n; r++ {
		key := pt.boundKey(pt.rowArgs[r*k:(r+1)*k], mask)
		b, ok := ix.buckets.get(key)
		if !ok {
			b = int32(len(counts))
			ix.buckets.put(key, b)
			counts = append(counts, 0)
		}
		counts[b]++
		bucketOf[r] = b
	}
	ix.start = make([]int32, len(counts)+1)
	for b, c := range counts {
		ix.start[b+1] = ix.start[b] + c
	}
	fill := append([]int32(nil), ix.start[:len(counts)]...)
	ix.rows = make([]int32, n)
	for r := 0; r < n; r++ {
		b := bucketOf[r]
		ix.rows[fill[b]] = int32(r)
		fill[b]++
	}
	pt.indexes[mask] = ix
	return ix
}

// boundKey packs the positions of idx selected by mask.
func (pt *predTable) boundKey(idx []int32, mask uint32) uint64 {
	var key uint64
	for j := range pt.types {
		if mask&(1<<uint(j)) != 0 {
			key += uint64(idx[j]) * pt.strides[j]
		}
	}
	return key
}
