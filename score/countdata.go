package score

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/marple-mln/marple/mln"
)

// CountOptions configure PLLData.
type CountOptions struct {
	// PLLOptions: Unweighted (c_a = 1 instead of 1/groundings of a's
	// predicate), HardWeight (hard clauses' fixed weight), Workers.
	PLLOptions
	// Key returns the cache key of a clause (nil: its literals in their
	// order, variables renamed in order of appearance). Structure search
	// passes structure.CanonicalKey so that clauses equal up to literal
	// order and variable names share their counts.
	Key func(*mln.Clause) string
	// MaxGroundings bounds the groundings one clause's count may examine
	// in one database (0: no bound); beyond it Counts fails with an error
	// wrapping ErrTooManyGroundings.
	MaxGroundings int64
	// FractAtoms, MinAtomSamples and MaxAtomSamples sample the atoms of
	// each scored predicate in each database (Alchemy's -fractAtoms,
	// -minAtomSamples, -maxAtomSamples; a bound ≤ 0 is no bound):
	// FractAtoms 0 or 1 and no bounds score every atom (exact). Sampled
	// atoms weigh 1/(sampled atoms of the predicate). Seed draws the
	// sample.
	FractAtoms                     float64
	MinAtomSamples, MaxAtomSamples int
	Seed                           uint64
	// OwnDomains gives each database its own domains: the model files'
	// constants and those its atoms mention (Alchemy's -multipleDatabases),
	// instead of the model's domains (every database's constants).
	OwnDomains bool
	// ListedOnly scores only the atoms each database lists (true or
	// false; with sampling, a sample of them): for data whose unlisted
	// atoms are unknown rather than false (held-out folds). Unlisted atoms
	// are still false in the Markov blankets of the scored ones.
	ListedOnly bool
	// ScoredAt, when set, restricts the atoms at which a clause enters
	// the pseudo-log-likelihood: when it returns predicates for a clause,
	// the clause's counts are kept at those predicates' atoms only, and
	// every other atom's conditional is scored without it (a composite
	// pseudo-likelihood: the clause's weight is fit to the conditional
	// likelihood of those atoms given the rest). nil, or nil for a clause:
	// every scored atom. Structure search uses it for joins
	// (structure.Join), scored at their conclusion's atoms.
	ScoredAt func(*mln.Clause) []mln.PredID
	// CacheMB bounds the memory of cached counts in megabytes (0:
	// DefaultCacheMB, Alchemy's -cacheSize; negative: no bound). When a
	// new count would exceed it, the cache is emptied first (counts held
	// by Scorers stay valid).
	CacheMB int
	// Shared, when set, keeps each clause's counts per database, so that
	// PLLData built over overlapping sets of the same databases (the
	// training sets of held-out validation, each database in all but one)
	// count a clause in a database once. The counts are the same as
	// without it: a database's counts do not depend on the other
	// databases, and a sample of atoms keeps the sampled rows of the
	// exact counts.
	Shared *CountCache
}

// CountCache holds clause counts per database for PLLData that share it
// (CountOptions.Shared): PLLData over the same model, with the same
// scored predicates, domains (OwnDomains) and bound on groundings, over
// any sets of the same *mln.Database values. Its memory is bounded as
// the PLLData's own cache is (DefaultCacheMB). It is safe for concurrent
// use.
type CountCache struct {
	mu    sync.Mutex
	m     map[sharedKey]*sharedEntry
	bytes int64
}

// NewCountCache returns an empty CountCache.
func NewCountCache() *CountCache { return &CountCache{m: map[sharedKey]*sharedEntry{}} }

// sharedLayout is what a database's counts depend on besides the clause
// and the database.
type sharedLayout struct {
	m      *mln.Model
	own    bool
	max    int64
	scored string
}

type sharedKey struct {
	layout sharedLayout
	db     *mln.Database
	clause string
}

// sharedEntry is one clause's exact counts in one database: its column
// (every scored row), the groundings examined, and whether it passed the
// bound on groundings.
type sharedEntry struct {
	done     chan struct{}
	col      column
	examined int64
	over     bool
	err      error
}

// Len returns the number of (clause, database) counts held.
func (cc *CountCache) Len() int {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return len(cc.m)
}

// DefaultCacheMB is the default bound of the count cache (Alchemy's
// learnstruct -cacheSize).
const DefaultCacheMB = 500

// PLLData is training data for the weighted pseudo-log-likelihood computed
// from clause counts: the model, closed-world databases and the scored
// predicates. Its clause counts are cached; it is safe for concurrent use.
type PLLData struct {
	m      *mln.Model
	sp     *atomSpace
	worlds []*cworld
	opt    CountOptions
	scored []bool
	rowOff []int64 // per predicate: its first row (-1: not scored)
	nrows  int
	// per database: sampled atoms (nil: all) and each row's c_a.
	sampled [][]uint64
	mul     [][]float64 // per database, per predicate
	size    [][]int64   // per database, per predicate: groundings over its domains

	// dbs are the databases (the keys of the shared cache) and layout
	// what their counts depend on besides the clause; trueAtoms counts
	// each database's true atoms.
	dbs       []*mln.Database
	layout    sharedLayout
	trueAtoms []int

	mu         sync.Mutex
	cache      map[string]*countEntry
	cacheBytes int64
	pool       sync.Pool // *countScratch
	// args indexes the worlds' atoms by argument (argWorlds).
	argOnce sync.Once
	args    []argWorld
}

type countEntry struct {
	done chan struct{}
	cc   *ClauseCounts
	err  error
}

// ClauseCounts are the counts Δ_c(a) = n_c(x) − n_c(x with a flipped) of one
// first-order clause at every scored atom a of every database, sparse.
type ClauseCounts struct {
	cols     []column // per database
	examined int64
	// bindings lists the bindings of the clause's "+" variables met (in
	// the order met), for a clause that has them.
	bindings [][]mln.ConstID
	// mul, for a domain-size-aware clause (mln.Clause.DomainScaled), is
	// per database the factor of its counts, 1/mln.DomainScale over that
	// database's domains (nil: 1).
	mul []float64
}

// Scale returns the factor by which the counts of database db multiply
// the clause's weight: 1, or 1/mln.DomainScale over the database's domains
// for a domain-size-aware clause.
func (cc *ClauseCounts) Scale(db int) float64 {
	if cc.mul == nil {
		return 1
	}
	return cc.mul[db]
}

// scaled returns cc with the domain-size factors of clause c (cc itself
// when every factor is 1). The counts are shared: they do not depend on
// the scaling, so a clause and its domain-size-aware twin share a cache
// entry.
func (d *PLLData) scaled(c *mln.Clause, cc *ClauseCounts) *ClauseCounts {
	if cc == nil || !c.DomainScaled || len(mln.FreeVars(c)) == 0 {
		return cc
	}
	mul := make([]float64, len(d.worlds))
	one := true
	for db := range d.worlds {
		mul[db] = 1 / mln.DomainScale(c, func(t mln.TypeID) int { return d.domainSize(db, t) })
		one = one && mul[db] == 1
	}
	if one {
		return cc
	}
	x := *cc
	x.mul = mul
	return &x
}

// domainSize returns the number of constants of type t in database db's
// world.
func (d *PLLData) domainSize(db int, t mln.TypeID) int {
	if w := d.worlds[db]; w.dom != nil {
		return len(w.dom[t])
	}
	return d.m.Types[t].Size()
}

// column is a sparse vector over a database's rows, indices increasing;
// for a clause with "+" variables, bind gives each entry's binding (an
// index into ClauseCounts.bindings), entries sorted by (row, binding).
type column struct {
	idx  []int32
	val  []int32
	bind []int32
}

// Nonzeros returns the number of (database, atom) pairs with Δ ≠ 0.
func (cc *ClauseCounts) Nonzeros() int {
	n := 0
	for _, c := range cc.cols {
		n += len(c.idx)
	}
	return n
}

// Examined returns the number of groundings examined to count the clause.
func (cc *ClauseCounts) Examined() int64 { return cc.examined }

// NewPLLData indexes the databases (each a closed world: atoms not listed
// true are false) for counting. scored lists the predicates whose atoms
// are summed in the pseudo-log-likelihood (nil: every predicate); the
// others keep their values in the Markov blankets.
func NewPLLData(m *mln.Model, dbs []*mln.Database, scored []mln.PredID, opt CountOptions) (*PLLData, error) {
	if m == nil || len(dbs) == 0 {
		return nil, errors.New("score: NewPLLData needs a model and databases")
	}
	if opt.FractAtoms < 0 || opt.FractAtoms > 1 || math.IsNaN(opt.FractAtoms) {
		return nil, fmt.Errorf("score: NewPLLData: fraction of atoms %v", opt.FractAtoms)
	}
	if opt.HardWeight < 0 || math.IsNaN(opt.HardWeight) || math.IsInf(opt.HardWeight, 0) {
		return nil, fmt.Errorf("score: NewPLLData: hard weight %v", opt.HardWeight)
	}
	if opt.HardWeight == 0 {
		opt.HardWeight = DefaultHardWeight
	}
	sp, err := newAtomSpace(m)
	if err != nil {
		return nil, err
	}
	d := &PLLData{m: m, sp: sp, opt: opt, cache: map[string]*countEntry{}, dbs: slices.Clone(dbs)}
	d.scored = make([]bool, len(m.Preds))
	if scored == nil {
		for p := range d.scored {
			d.scored[p] = true
		}
	}
	for _, p := range scored {
		if p < 0 || int(p) >= len(m.Preds) {
			return nil, fmt.Errorf("score: NewPLLData: no predicate %d", p)
		}
		d.scored[p] = true
	}
	d.rowOff = make([]int64, len(m.Preds))
	var n int64
	for p := range m.Preds {
		d.rowOff[p] = -1
		if d.scored[p] {
			d.rowOff[p] = n
			n += sp.size[p]
		}
	}
	if n >= math.MaxInt32 {
		return nil, fmt.Errorf("score: NewPLLData: %d scored ground atoms; at most %d are supported", n, math.MaxInt32-1)
	}
	d.nrows = int(n)
	var sb strings.Builder
	for _, x := range d.scored {
		if x {
			sb.WriteByte('1')
		} else {
			sb.WriteByte('0')
		}
	}
	d.layout = sharedLayout{m: m, own: opt.OwnDomains, max: opt.MaxGroundings, scored: sb.String()}
	sampling := (opt.FractAtoms > 0 && opt.FractAtoms < 1) || opt.MaxAtomSamples > 0 || opt.ListedOnly
	rng := rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15))
	for _, db := range dbs {
		w := newCWorld(sp, db)
		if opt.OwnDomains {
			w.setDomains(sp, OwnDomains(m, db))
		}
		d.worlds = append(d.worlds, w)
		nt := 0
		for p := range w.preds {
			nt += w.preds[p].numTrue()
		}
		d.trueAtoms = append(d.trueAtoms, nt)
		sizes := make([]int64, len(m.Preds))
		mul := make([]float64, len(m.Preds))
		var bits []uint64
		if sampling {
			bits = make([]uint64, (d.nrows+63)/64)
		}
		for p := range m.Preds {
			if !d.scored[p] {
				continue
			}
			size := w.size(sp, mln.PredID(p))
			sizes[p] = size
			// The candidate atoms: all of the predicate's groundings in w, or
			// those the database lists.
			n := size
			pick := func(i int64) int64 { return w.atomID(sp, mln.PredID(p), i) }
			if opt.ListedOnly {
				var listed []int64
				db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
					if v != mln.Unknown {
						if id := sp.id(mln.PredID(p), args); id >= 0 {
							listed = append(listed, id)
						}
					}
				})
				n = int64(len(listed))
				pick = func(i int64) int64 { return listed[i] }
			}
			k := n
			if sampling {
				f := opt.FractAtoms
				if f == 0 {
					f = 1
				}
				k = int64(math.Round(f * float64(n)))
				if opt.MinAtomSamples > 0 {
					k = max(k, int64(opt.MinAtomSamples))
				}
				if opt.MaxAtomSamples > 0 {
					k = min(k, int64(opt.MaxAtomSamples))
				}
				k = min(max(k, 0), n)
				// Floyd's algorithm: k distinct candidates of [0, n).
				for j := n - k; j < n; j++ {
					t := rng.Int64N(j + 1)
					r := d.rowOff[p] + pick(t)
					if bits[r>>6]&(1<<(r&63)) != 0 {
						r = d.rowOff[p] + pick(j)
					}
					bits[r>>6] |= 1 << (r & 63)
				}
			}
			switch {
			case k == 0:
			case opt.Unweighted:
				mul[p] = 1
			default:
				mul[p] = 1 / float64(k)
			}
		}
		d.sampled = append(d.sampled, bits)
		d.mul = append(d.mul, mul)
		d.size = append(d.size, sizes)
	}
	return d, nil
}

// Model returns the model.
func (d *PLLData) Model() *mln.Model { return d.m }

// NumDatabases returns the number of databases.
func (d *PLLData) NumDatabases() int { return len(d.worlds) }

// key returns the cache key of c.
func (d *PLLData) key(c *mln.Clause) string {
	if d.opt.Key != nil {
		return d.opt.Key(c)
	}
	return literalKey(c)
}

// literalKey keys a clause by its literals in order, its variables renamed
// in order of appearance (with their types and quantifiers).
func literalKey(c *mln.Clause) string {
	var b strings.Builder
	rename := make([]int, len(c.Vars))
	for i := range rename {
		rename[i] = -1
	}
	exist := make([]bool, len(c.Vars))
	for _, v := range c.Exist {
		exist[v] = true
	}
	next := 0
	for _, l := range c.Lits {
		if l.Neg {
			b.WriteByte('!')
		}
		if l.Pred < 0 {
			b.WriteString("b" + strconv.Itoa(int(l.Builtin)))
		} else {
			b.WriteString(strconv.Itoa(int(l.Pred)))
		}
		b.WriteByte('(')
		for _, t := range l.Args {
			if t.IsVar() {
				v := t.Var()
				if rename[v] < 0 {
					rename[v] = next
					next++
				}
				b.WriteString("v" + strconv.Itoa(rename[v]) + ":" + strconv.Itoa(int(c.Vars[v].Type)))
				if exist[v] {
					b.WriteByte('E')
				}
			} else {
				b.WriteString(strconv.Itoa(int(t.Const())))
			}
			b.WriteByte(',')
		}
		b.WriteByte(')')
	}
	for _, v := range c.Plus {
		b.WriteString("+" + strconv.Itoa(rename[v]))
	}
	return b.String()
}

// countDenseMax is the number of scored atoms up to which a count
// accumulates in a dense array (8 bytes per atom per concurrent count);
// above it, in a map.
var countDenseMax = 1 << 22

// countScratch is a worker's accumulator over rows: dense (acc) or sparse
// (accMap).
type countScratch struct {
	acc     []int64
	accMap  map[int32]int64
	touched []int32
	// tbits marks the touched rows of acc.
	tbits []uint64
	cn    counter
}

// add adds n to row r of the dense accumulator.
func (sc *countScratch) add(r int64, n int64) {
	if sc.acc == nil {
		sc.accMap[int32(r)] += n
		return
	}
	if sc.acc[r] == 0 && sc.tbits[r>>6]&(1<<(r&63)) == 0 {
		sc.touched = append(sc.touched, int32(r))
		sc.tbits[r>>6] |= 1 << (r & 63)
	}
	sc.acc[r] += n
}

// scratch returns a count scratch from d's pool, or a new one sized for
// d's rows (a dense accumulator up to countDenseMax rows, else a map).
func (d *PLLData) scratch() *countScratch {
	if sc, _ := d.pool.Get().(*countScratch); sc != nil {
		return sc
	}
	sc := &countScratch{}
	if d.nrows <= countDenseMax {
		sc.acc = make([]int64, d.nrows)
		sc.tbits = make([]uint64, (d.nrows+63)/64)
	} else {
		sc.accMap = map[int32]int64{}
	}
	return sc
}

// counter returns the scratch's counter set to count in world w under
// d's groundings bound, keeping its buffers (tally is left to set).
func (sc *countScratch) counter(d *PLLData, w *cworld) *counter {
	cn := &sc.cn
	*cn = counter{sp: d.sp, w: w, m: d.m, limit: d.opt.MaxGroundings, bind: cn.bind, exAtoms: cn.exAtoms, mark: cn.mark, stamp: cn.stamp, suf: cn.suf, stepMarks: cn.stepMarks, stepCounts: cn.stepCounts, groups: cn.groups}
	return cn
}

// runPlans runs the plans whose pivot predicate is scored (or that have
// no pivot) until the groundings bound is passed.
func (d *PLLData) runPlans(cn *counter, plans []*countPlan) {
	for _, p := range plans {
		if p.pivot >= 0 && !d.scored[p.lits[p.pivot].pred] {
			continue
		}
		cn.run(p)
		if cn.over {
			break
		}
	}
}

// drain appends the non-zero accumulated counts to col, in row order,
// and leaves the scratch clean; it reports whether a count overflows 32
// bits.
func (sc *countScratch) drain(col *column) (overflow bool) {
	if sc.acc == nil {
		for r := range sc.accMap {
			sc.touched = append(sc.touched, r)
		}
	}
	if sc.acc != nil && len(sc.touched) > len(sc.tbits)/8 {
		// Many rows: in order from their marks rather than sorted.
		sc.touched = sc.touched[:0]
		for wi, w := range sc.tbits {
			for w != 0 {
				sc.touched = append(sc.touched, int32(wi*64+bits.TrailingZeros64(w)))
				w &= w - 1
			}
		}
	} else {
		slices.Sort(sc.touched)
	}
	if sc.acc != nil {
		for _, r := range sc.touched {
			sc.tbits[r>>6] = 0
		}
	}
	sc.touched = slices.Compact(sc.touched)
	if sc.acc != nil {
		nz := 0
		for _, r := range sc.touched {
			if sc.acc[r] != 0 {
				nz++
			}
		}
		col.idx = slices.Grow(col.idx, nz)
		col.val = slices.Grow(col.val, nz)
	}
	for _, r := range sc.touched {
		var v int64
		if sc.acc != nil {
			v = sc.acc[r]
			sc.acc[r] = 0 // the scratch goes back clean
		} else {
			v = sc.accMap[r]
		}
		if v == 0 {
			continue
		}
		if v > math.MaxInt32 || v < math.MinInt32 {
			overflow = true
		}
		col.idx = append(col.idx, r)
		col.val = append(col.val, int32(v))
	}
	sc.touched = sc.touched[:0]
	clear(sc.accMap)
	return overflow
}

// Counts returns the counts of clause c, computing them on the first call
// for its key and returning the cached ones afterwards. Concurrent calls
// for the same key wait for one computation. For a domain-size-aware
// clause the counts carry its per-database factors (ClauseCounts.Scale).
func (d *PLLData) Counts(c *mln.Clause) (*ClauseCounts, error) {
	cc, err := d.counts(c)
	return d.restricted(c, d.scaled(c, cc)), err
}

// restricted returns cc kept at the atoms of the predicates
// CountOptions.ScoredAt gives for c (cc itself when it gives none). Each
// predicate's rows are a contiguous range and each column's indices
// increase, so the kept entries are subslices of cc's (shared, not
// copied) when one predicate is kept.
func (d *PLLData) restricted(c *mln.Clause, cc *ClauseCounts) *ClauseCounts {
	if cc == nil || d.opt.ScoredAt == nil {
		return cc
	}
	preds := d.opt.ScoredAt(c)
	if preds == nil {
		return cc
	}
	preds = slices.Clone(preds)
	slices.Sort(preds)
	preds = slices.Compact(preds)
	x := *cc
	x.cols = make([]column, len(cc.cols))
	for db, col := range cc.cols {
		var out column
		for _, q := range preds {
			if q < 0 || int(q) >= len(d.rowOff) || d.rowOff[q] < 0 {
				continue
			}
			lo, _ := slices.BinarySearch(col.idx, int32(d.rowOff[q]))
			hi, _ := slices.BinarySearch(col.idx, int32(d.rowOff[q]+d.sp.size[q]))
			if len(preds) == 1 {
				out.idx, out.val = col.idx[lo:hi:hi], col.val[lo:hi:hi]
				if col.bind != nil {
					out.bind = col.bind[lo:hi:hi]
				}
				break
			}
			out.idx = append(out.idx, col.idx[lo:hi]...)
			out.val = append(out.val, col.val[lo:hi]...)
			if col.bind != nil {
				out.bind = append(out.bind, col.bind[lo:hi]...)
			}
		}
		x.cols[db] = out
	}
	return &x
}

func (d *PLLData) counts(c *mln.Clause) (*ClauseCounts, error) {
	if d.opt.Shared != nil && len(c.Plus) == 0 && len(d.sampled) > 0 && d.sampled[0] != nil {
		// A sample's counts are a filtered copy of the shared exact
		// ones: made again when asked (a pass over them) rather than
		// kept, which would add most of their memory again per sample.
		return d.countShared(c)
	}
	k := d.key(c)
	d.mu.Lock()
	e, ok := d.cache[k]
	if !ok {
		e = &countEntry{done: make(chan struct{})}
		d.cache[k] = e
	}
	d.mu.Unlock()
	if ok {
		<-e.done
		return e.cc, e.err
	}
	e.cc, e.err = d.count(c)
	close(e.done)
	if e.cc != nil {
		d.mu.Lock()
		d.cacheBytes += e.cc.bytes()
		if limit := d.cacheLimit(); limit > 0 && d.cacheBytes > limit {
			// Over the bound: start again with this clause only.
			d.cache = map[string]*countEntry{k: e}
			d.cacheBytes = e.cc.bytes()
		}
		d.mu.Unlock()
	}
	return e.cc, e.err
}

// cacheLimit returns the cache bound in bytes (0: none).
func (d *PLLData) cacheLimit() int64 {
	switch mb := d.opt.CacheMB; {
	case mb < 0:
		return 0
	case mb == 0:
		return DefaultCacheMB << 20
	default:
		return int64(mb) << 20
	}
}

// CachedCounts returns the number of clauses whose counts are cached and
// their approximate size in bytes.
func (d *PLLData) CachedCounts() (clauses int, bytes int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.cache), d.cacheBytes
}

// bytes approximates the memory of the counts.
func (cc *ClauseCounts) bytes() int64 {
	n := int64(64)
	for _, c := range cc.cols {
		n += 4*int64(cap(c.idx)+cap(c.val)+cap(c.bind)) + 72
	}
	for _, b := range cc.bindings {
		n += 4*int64(cap(b)) + 24
	}
	return n
}

// count computes the counts of c.
func (d *PLLData) count(c *mln.Clause) (*ClauseCounts, error) {
	if d.opt.Shared != nil && len(c.Plus) == 0 {
		return d.countShared(c)
	}
	plans, err := d.compile(c)
	if err != nil {
		return nil, err
	}
	sc := d.scratch()
	defer d.pool.Put(sc)
	cc := &ClauseCounts{}
	bindIdx := map[string]int32{} // "+" binding -> index into cc.bindings
	for wi, w := range d.worlds {
		bits := d.sampled[wi]
		cn := sc.counter(d, w)
		type rb struct{ r, b int32 }
		var plusAcc map[rb]int64
		if len(c.Plus) > 0 {
			plusAcc = map[rb]int64{}
		}
		cn.tally = func(p mln.PredID, id int64, n int64, plus []mln.ConstID) {
			off := d.rowOff[p]
			if off < 0 {
				return
			}
			r := off + id
			if bits != nil && bits[r>>6]&(1<<(r&63)) == 0 {
				return
			}
			if plusAcc != nil {
				k := mln.BindingKey(plus)
				b, ok := bindIdx[k]
				if !ok {
					b = int32(len(cc.bindings))
					cc.bindings = append(cc.bindings, slices.Clone(plus))
					bindIdx[k] = b
				}
				plusAcc[rb{int32(r), b}] += n
				return
			}
			sc.add(r, n)
		}
		d.runPlans(cn, plans)
		cc.examined += cn.seen
		var col column
		if plusAcc != nil {
			keys := make([]rb, 0, len(plusAcc))
			for k, v := range plusAcc {
				if v != 0 {
					keys = append(keys, k)
				}
			}
			slices.SortFunc(keys, func(a, b rb) int {
				if a.r != b.r {
					return int(a.r - b.r)
				}
				return int(a.b - b.b)
			})
			for _, k := range keys {
				v := plusAcc[k]
				if v > math.MaxInt32 || v < math.MinInt32 {
					return nil, clauseError(d.m, c, errors.New("score: counting: a count overflows 32 bits"))
				}
				col.idx = append(col.idx, k.r)
				col.val = append(col.val, int32(v))
				col.bind = append(col.bind, k.b)
			}
		}
		if sc.drain(&col) {
			return nil, clauseError(d.m, c, errors.New("score: counting: a count overflows 32 bits"))
		}
		if cn.over {
			return nil, clauseError(d.m, c, fmt.Errorf("score: counting: more than %d groundings: %w", d.opt.MaxGroundings, ErrTooManyGroundings))
		}
		cc.cols = append(cc.cols, col)
	}
	return cc, nil
}

// compile returns the counting plans of c placed in d's atom space.
func (d *PLLData) compile(c *mln.Clause) ([]*countPlan, error) {
	plans, err := compileClause(d.m, c)
	if err != nil {
		return nil, clauseError(d.m, c, err)
	}
	for _, p := range plans {
		p.prepare(d.sp)
	}
	return plans, nil
}

// countShared computes the counts of c (no "+" variables) from its exact
// counts in each database, taken from the shared cache or counted there:
// a sampled PLLData keeps the sampled rows. The result is the one count
// computes: every row's count is the same sum, and a sample only drops
// rows.
func (d *PLLData) countShared(c *mln.Clause) (*ClauseCounts, error) {
	sh := d.opt.Shared
	ck := d.key(c)
	// The plans are compiled for the first database counted here: a
	// clause counted before (by this search or another) in every
	// database needs none.
	var plans []*countPlan
	// A clause past the bound on groundings in one database fails in all
	// of them: the databases whose counts are known are looked at first,
	// then the others largest first (the likeliest to pass the bound), so
	// that such a clause is not counted in the others for nothing.
	order := make([]int, len(d.worlds))
	for i := range order {
		order[i] = i
	}
	known := make([]bool, len(d.worlds))
	sh.mu.Lock()
	for wi := range d.worlds {
		if e, ok := sh.m[sharedKey{layout: d.layout, db: d.dbs[wi], clause: ck}]; ok {
			select {
			case <-e.done:
				known[wi] = true
			default:
			}
		}
	}
	sh.mu.Unlock()
	slices.SortStableFunc(order, func(a, b int) int {
		if known[a] != known[b] {
			if known[a] {
				return -1
			}
			return 1
		}
		return cmp.Compare(d.trueAtoms[b], d.trueAtoms[a])
	})
	cols := make([]column, len(d.worlds))
	cc := &ClauseCounts{}
	for _, wi := range order {
		k := sharedKey{layout: d.layout, db: d.dbs[wi], clause: ck}
		sh.mu.Lock()
		e, ok := sh.m[k]
		if !ok {
			e = &sharedEntry{done: make(chan struct{})}
			sh.m[k] = e
		}
		sh.mu.Unlock()
		if ok {
			<-e.done
		} else {
			if plans == nil {
				plans, e.err = d.compile(c)
			}
			if e.err == nil {
				e.col, e.examined, e.over, e.err = d.countWorld(c, plans, wi)
			}
			close(e.done)
			n := e.col.bytes()
			sh.mu.Lock()
			sh.bytes += n
			if limit := d.cacheLimit(); limit > 0 && sh.bytes > limit {
				sh.m = map[sharedKey]*sharedEntry{k: e}
				sh.bytes = n
			}
			sh.mu.Unlock()
		}
		if e.err != nil {
			return nil, e.err
		}
		cc.examined += e.examined
		if e.over {
			return nil, clauseError(d.m, c, fmt.Errorf("score: counting: more than %d groundings: %w", d.opt.MaxGroundings, ErrTooManyGroundings))
		}
		col := e.col
		if bits := d.sampled[wi]; bits != nil {
			nk := 0
			for _, r := range col.idx {
				if bits[r>>6]&(1<<(r&63)) != 0 {
					nk++
				}
			}
			kept := column{idx: make([]int32, 0, nk), val: make([]int32, 0, nk)}
			for i, r := range col.idx {
				if bits[r>>6]&(1<<(r&63)) != 0 {
					kept.idx = append(kept.idx, r)
					kept.val = append(kept.val, col.val[i])
				}
			}
			col = kept
		}
		cols[wi] = col
	}
	cc.cols = cols
	return cc, nil
}

// countWorld counts c (no "+" variables) in database wi at every scored
// row, sampled or not: its column, the groundings examined and whether
// they passed the bound.
func (d *PLLData) countWorld(c *mln.Clause, plans []*countPlan, wi int) (column, int64, bool, error) {
	sc := d.scratch()
	defer d.pool.Put(sc)
	cn := sc.counter(d, d.worlds[wi])
	cn.direct, cn.rowOff = sc, d.rowOff
	d.runPlans(cn, plans)
	var col column
	if sc.drain(&col) {
		return column{}, cn.seen, cn.over, clauseError(d.m, c, errors.New("score: counting: a count overflows 32 bits"))
	}
	return col, cn.seen, cn.over, nil
}

// bytes approximates the memory of a column.
func (c column) bytes() int64 { return 4*int64(cap(c.idx)+cap(c.val)+cap(c.bind)) + 72 }

// Delta returns Δ_c(a) for atom pred(args) of database db (0 for an atom
// that is not scored or not sampled), summed over the bindings of the
// clause's "+" variables.
func (cc *ClauseCounts) Delta(d *PLLData, db int, pred mln.PredID, args []mln.ConstID) int64 {
	return cc.delta(d, db, pred, args, nil)
}

// delta returns Δ for one "+" binding (nil: all).
func (cc *ClauseCounts) delta(d *PLLData, db int, pred mln.PredID, args, plus []mln.ConstID) int64 {
	off := d.rowOff[pred]
	id := d.sp.id(pred, args)
	if off < 0 || id < 0 {
		return 0
	}
	col := cc.cols[db]
	r := int32(off + id)
	var n int64
	for i, _ := slices.BinarySearch(col.idx, r); i < len(col.idx) && col.idx[i] == r; i++ {
		if plus == nil || slices.Equal(cc.bindings[col.bind[i]], plus) {
			n += int64(col.val[i])
		}
	}
	return n
}

// countAll counts clauses concurrently (Workers goroutines), in order,
// stopping between clauses when ctx is cancelled.
func (d *PLLData) countAll(ctx context.Context, cs []*mln.Clause) ([]*ClauseCounts, error) {
	out := make([]*ClauseCounts, len(cs))
	errs := make([]error, len(cs))
	parallelChunks(len(cs), 1, d.opt.Workers, func() func(lo, hi int) {
		return func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if errs[i] = ctx.Err(); errs[i] == nil {
					out[i], errs[i] = d.Counts(cs[i])
				}
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
