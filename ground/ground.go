package ground

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/marple-mln/marple/mln"
)

// Options control grounding.
type Options struct {
	// Query lists the query predicates. They are open world: their atoms
	// listed in the database are evidence, the others (unlisted, or listed
	// with "?") are unknown. Every unknown atom of a query predicate is an
	// atom of the network, whether or not it occurs in a clause.
	Query []mln.PredID
	// OpenWorld lists further open-world predicates (Alchemy's -ow): their
	// unlisted atoms are unknown. ClosedWorld (Alchemy's -cw) lists
	// predicates that must be closed world; naming a predicate in both
	// ClosedWorld and Query or OpenWorld is an error. Every predicate not
	// named in Query or OpenWorld is closed world: unlisted atoms are false,
	// "?"-listed atoms unknown; except, when not named in ClosedWorld, those
	// the model's dialect makes open world (mln.Model.OpenByDefault).
	OpenWorld, ClosedWorld []mln.PredID
	// NonEvidenceOpen makes every predicate with no atom in the database
	// open world too, ClosedWorld's excepted: Alchemy's infer reads a
	// predicate the evidence does not mention as unknown, where Marple
	// reads it as false.
	NonEvidenceOpen bool
	// MaxBytes is the memory the grounding may take, as estimated before
	// it starts (Estimate), with the state of the engine that will run on
	// the network (Engine); above it Ground refuses with an error naming
	// the largest clause. Zero means 8 GiB; negative means no limit.
	MaxBytes int64
	// Engine is the memory the inference engine that will run on the
	// network takes on top of it (each engine package exports its own);
	// the zero value counts none.
	Engine EngineCost
	// Workers is the number of goroutines; zero means GOMAXPROCS. The
	// result does not depend on it.
	Workers int
	// Progress, when not nil, receives a progress line about once a second
	// once grounding has taken more than two seconds.
	Progress io.Writer
	// Domains overrides the domain of a type for this grounding: the
	// variables of type t range over Domains[t] (in that order) instead of
	// the model's domain, the query atoms are created only over those
	// constants, the totals behind EvidenceCount and ConstScore use the
	// overridden sizes, and evidence atoms with a constant outside them are
	// ignored. The result is the grounding of a model in which type t has
	// exactly the constants Domains[t]. The constants must belong to the
	// type (each once), and every constant the model's clauses mention in
	// an argument of type t must be among them. The model's domains are not
	// changed.
	Domains map[mln.TypeID][]mln.ConstID
	// Shared, when not nil, supplies the atoms of its predicates in place
	// of the database given to Ground (which may still list atoms of them:
	// they are ignored), and keeps their indexed evidence for the next
	// grounding that shares it.
	Shared *SharedEvidence
}

// EngineCost is the memory an inference engine takes on top of the
// network, per atom, per clause and per literal of the network. The
// figures are fitted to the peak live heap measured on real groundings
// (infer/memory_test.go).
type EngineCost struct {
	PerAtom, PerClause, PerLit float64
}

// Max returns the larger of c and d in each figure: the cost of running
// one engine after the other.
func (c EngineCost) Max(d EngineCost) EngineCost {
	return EngineCost{max(c.PerAtom, d.PerAtom), max(c.PerClause, d.PerClause), max(c.PerLit, d.PerLit)}
}

// ErrTooLarge is wrapped by the error of a grounding refused because its
// estimate exceeds Options.MaxBytes.
var ErrTooLarge = errors.New("refused: too large for the memory limit")

// DefaultMaxBytes is the memory limit used when Options.MaxBytes is zero.
const DefaultMaxBytes = 8 << 30

// grounder is the state grounding keeps, so that clauses can be added to a
// network later (Network.AddModelClause).
type grounder struct {
	m        *mln.Model
	db       *mln.Database
	open     []bool
	query    []bool
	tables   []*predTable
	atoms    []atomIDs // per predicate: network IDs of its atoms
	shared   *SharedEvidence
	workers  int
	progress io.Writer
	maxBytes int64
	engine   EngineCost

	doms       []*domain // per type: the domain given in Options.Domains, or nil
	local      [][]int32 // per type: constant -> position in the domain, or -1
	lookups    []int     // per type: localIndex calls before the table was built
	constNum   []float64
	constIsNum []bool

	typeSizes []int // domain sizes at grounding time

	fpStart, fpList []int32 // parameters by formula (formulaParams)
	fpN             int     // number of parameters indexed
	mark            []int32 // per parameter: markGen when seen (finalize)
	markGen         int32

	net       *Network
	stats     map[int]*clauseStats // per ground model clause
	paramMark int                  // parameters accounted for in EvidenceCount
	slab      []mln.ConstID        // backing store for AtomArgs
	pageMu    sync.Mutex           // guards net.pages while workers ground
}

// clauseStats records, for one ground model clause, how many groundings
// survived the evidence for each "+" binding, to account for the evidence
// counts (and to move them when a parameter appears later).
type clauseStats struct {
	pl     *plan
	bind   u64map // packed binding -> index
	keys   []uint64
	surv   []float64
	params []int32 // parameter of each binding; -1 when none (yet)
}

func (cs *clauseStats) slot(key uint64) int32 {
	if i, ok := cs.bind.get(key); ok {
		return i
	}
	i := int32(len(cs.keys))
	cs.bind.put(key, i)
	cs.keys = append(cs.keys, key)
	cs.surv = append(cs.surv, 0)
	cs.params = append(cs.params, -1)
	return i
}

func newGrounder(m *mln.Model, db *mln.Database, opt Options) (*grounder, error) {
	if m == nil {
		return nil, errors.New("ground: nil model")
	}
	g := &grounder{m: m, db: db, workers: opt.Workers, progress: opt.Progress, maxBytes: opt.MaxBytes, engine: opt.Engine}
	if g.workers <= 0 {
		g.workers = runtime.GOMAXPROCS(0)
	}
	if g.maxBytes == 0 {
		g.maxBytes = DefaultMaxBytes
	}
	n := len(m.Preds)
	g.open = make([]bool, n)
	g.query = make([]bool, n)
	closed := make([]bool, n)
	check := func(list []mln.PredID, what string) error {
		for _, p := range list {
			if p < 0 || int(p) >= n {
				return fmt.Errorf("ground: %s predicate %d out of range", what, p)
			}
		}
		return nil
	}
	for _, l := range []struct {
		list []mln.PredID
		what string
	}{{opt.Query, "query"}, {opt.OpenWorld, "open-world"}, {opt.ClosedWorld, "closed-world"}} {
		if err := check(l.list, l.what); err != nil {
			return nil, err
		}
	}
	for _, p := range opt.Query {
		g.query[p] = true
		g.open[p] = true
	}
	for _, p := range opt.OpenWorld {
		g.open[p] = true
	}
	for _, p := range opt.ClosedWorld {
		closed[p] = true
	}
	for p := range n {
		// The model's dialect may make a predicate open world by default
		// (mln.Model.OpenByDefault); naming it closed world overrides that.
		if !closed[p] && (m.OpenByDefault(mln.PredID(p), db) ||
			opt.NonEvidenceOpen && !m.Preds[p].Closed && (db == nil || db.Count(mln.PredID(p)) == 0)) {
			g.open[p] = true
		}
	}
	for _, p := range opt.ClosedWorld {
		if g.open[p] {
			what := "open world"
			if g.query[p] {
				what = "a query predicate"
			}
			return nil, fmt.Errorf("ground: predicate %s is declared closed world but is %s", m.Preds[p].Name, what)
		}
	}
	if err := g.setDomains(opt.Domains); err != nil {
		return nil, err
	}
	g.tables = make([]*predTable, n)
	g.atoms = make([]atomIDs, n)
	g.shared = opt.Shared
	g.stats = make(map[int]*clauseStats)
	for _, t := range m.Types {
		g.typeSizes = append(g.typeSizes, t.Size())
	}
	return g, nil
}

// table returns the table of predicate p, building it on first use.
func (g *grounder) table(p mln.PredID) (*predTable, error) {
	for int(p) >= len(g.tables) {
		// A predicate declared after grounding started: closed world.
		g.tables = append(g.tables, nil)
		g.atoms = append(g.atoms, atomIDs{})
		g.open = append(g.open, false)
		g.query = append(g.query, false)
	}
	if pt := g.tables[p]; pt != nil {
		return pt, nil
	}
	if len(g.m.Preds[p].Args) > 32 {
		return nil, fmt.Errorf("ground: predicate %s has more than 32 arguments", g.m.Preds[p].Name)
	}
	pt, err := g.newPredTable(p)
	if err != nil {
		return nil, err
	}
	g.tables[p] = pt
	return pt, nil
}

// needInts parses the constant names as numbers for the order
// comparisons.
func (g *grounder) needInts() {
	n := g.m.NumConsts()
	for c := len(g.constNum); c < n; c++ {
		v, err := strconv.ParseFloat(g.m.ConstName(mln.ConstID(c)), 64)
		g.constNum = append(g.constNum, v)
		g.constIsNum = append(g.constIsNum, err == nil)
	}
}

// compare orders two constants as mln.Model.EvalBuiltin does: as numbers
// when both names are numbers, else by name.
func (g *grounder) compare(a, b mln.ConstID) int {
	if int(a) < len(g.constIsNum) && int(b) < len(g.constIsNum) && g.constIsNum[a] && g.constIsNum[b] {
		x, y := g.constNum[a], g.constNum[b]
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	x, y := g.m.ConstName(a), g.m.ConstName(b)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// Estimate returns a rough upper estimate of the number of ground clauses
// and of the bytes that grounding m against db would take, with the
// engine's state (Options.Engine), without grounding. It reads the evidence and plans every clause, which costs
// time proportional to the size of the database.
func Estimate(m *mln.Model, db *mln.Database, opt Options) (clauses, bytes int64, err error) {
	g, err := newGrounder(m, db, opt)
	if err != nil {
		return 0, 0, err
	}
	plans, err := g.planAll(allClauses(m))
	if err != nil {
		return 0, 0, err
	}
	c, b, _ := g.estimate(plans)
	return c, b, nil
}

func allClauses(m *mln.Model) []int {
	cs := make([]int, len(m.Clauses))
	for i := range cs {
		cs[i] = i
	}
	return cs
}

func (g *grounder) planAll(cis []int) ([]*plan, error) {
	plans := make([]*plan, 0, len(cis))
	for _, ci := range cis {
		pl, err := g.makePlan(ci)
		if err != nil {
			return nil, err
		}
		plans = append(plans, pl)
	}
	return plans, nil
}

// Memory per ground clause (literal address and size, parameter, and the
// units' copies of the first two until assembly) and per literal (its page,
// occurrence lists).
const (
	bytesPerClause = 4 + 1 + 4 + 5
	bytesPerLit    = 4 + 4
	bytesPerAtom   = 4 + 24 + 8 + 4 + 4
)

// estimate sums the plans' estimates; it also returns the plan whose
// clauses take the most memory.
func (g *grounder) estimate(plans []*plan) (clauses, bytes int64, worst *plan) {
	var fc, fb, wb float64
	for _, pl := range plans {
		b := pl.materialised * (bytesPerClause + bytesPerLit*pl.estLits)
		fc += pl.materialised
		fb += b
		if worst == nil || b > wb {
			worst, wb = pl, b
		}
	}
	var atoms, lits float64
	for _, pl := range plans {
		lits += pl.materialised * pl.estLits
	}
	for p, pt := range g.tables {
		if pt != nil && g.query[p] {
			fb += float64(pt.total) * (bytesPerAtom + 4 + 4*float64(pt.arity()))
			atoms += float64(pt.total)
		}
	}
	fb += g.engine.PerAtom*atoms + g.engine.PerClause*fc + g.engine.PerLit*lits
	for _, pt := range g.tables {
		if pt != nil {
			fb += float64(len(pt.ev.keys))*12 + float64(len(pt.rowKey))*(13+4*float64(pt.arity()))
		}
	}
	return clampInt(fc), clampInt(fb), worst
}

// fmtBytes renders a byte count with a binary unit.
func fmtBytes(b int64) string {
	const unit = "KMGTPE"
	if b < 1024 {
		return fmt.Sprintf("%d bytes", b)
	}
	x, i := float64(b)/1024, 0
	for x >= 1024 && i < len(unit)-1 {
		x /= 1024
		i++
	}
	return fmt.Sprintf("%.3g %ciB", x, unit[i])
}

func clampInt(x float64) int64 {
	if x >= math.MaxInt64/2 || math.IsInf(x, 1) || math.IsNaN(x) {
		return math.MaxInt64 / 2
	}
	return int64(math.Ceil(x))
}

// Ground grounds every clause of the compiled model m against the evidence
// db and returns the network of the unknown atoms and the ground clauses
// the evidence leaves undecided.
//
// Query predicates and Options.OpenWorld predicates are open world (their
// listed atoms are evidence; unlisted and "?"-listed atoms are unknown);
// the others are closed world (unlisted atoms are false; "?"-listed atoms
// are unknown). The network's atoms are every unknown atom of a query
// predicate (first, by predicate and then argument order) followed by the
// other unknown atoms that occur in an undecided ground clause, in order of
// first occurrence. Clauses come in model clause order, then enumeration
// order; the result does not depend on Options.Workers.
//
// Groundings the evidence satisfies are never materialised: they are
// counted into EvidenceCount and ConstScore. A ground clause drops its false
// literals and merges duplicate ones; a grounding with a true literal, or
// with an atom and its negation, is satisfied; one with no literal left is
// false (a hard one counts in HardFalse). Parameters are allocated with
// Model.Param for the "+" bindings that produce an undecided clause.
//
// Ground refuses, naming the largest clause, when Estimate exceeds
// Options.MaxBytes. It stops with ctx.Err() when ctx is cancelled.
//
// Ground (like AddModelClause) allocates parameters in m: do not run two
// groundings of one model at the same time. EvidenceCount and ConstScore
// account for the parameters m has when grounding ends.
func Ground(ctx context.Context, m *mln.Model, db *mln.Database, opt Options) (*Network, error) {
	g, err := newGrounder(m, db, opt)
	if err != nil {
		return nil, err
	}
	for p := range m.Preds {
		if g.query[p] {
			if _, err := g.table(mln.PredID(p)); err != nil {
				return nil, err
			}
		}
	}
	plans, err := g.planAll(allClauses(m))
	if err != nil {
		return nil, err
	}
	if clauses, bytes, worst := g.estimate(plans); g.maxBytes > 0 && bytes > g.maxBytes {
		msg := fmt.Sprintf("ground: the grounding would take about %s (%d ground clauses), above the limit of %s",
			fmtBytes(bytes), clauses, fmtBytes(g.maxBytes))
		if worst != nil {
			msg += fmt.Sprintf("; the largest is %s with about %.3g ground clauses", g.clauseName(worst.ci), worst.materialised)
		}
		return nil, fmt.Errorf("%s: %w", msg, ErrTooLarge)
	}
	net := &Network{Model: m, g: g}
	g.net = net
	if err := g.queryAtoms(ctx); err != nil {
		return nil, err
	}
	if err := g.run(ctx, plans, true); err != nil {
		return nil, err
	}
	net.pw = slices.Clone(m.Weights)
	net.EvidenceCount = make([]float64, len(m.Weights))
	net.unalloc = make([]float64, len(m.Formulas))
	for _, pl := range plans {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		g.finalize(g.stats[pl.ci])
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g.paramMark = len(m.Weights)
	net.ConstScore = net.constScore()
	return net, nil
}

// queryAtoms gives IDs to every unknown atom of the query predicates.
func (g *grounder) queryAtoms(ctx context.Context) error {
	for p := range g.m.Preds {
		if !g.query[p] {
			continue
		}
		pt := g.tables[p]
		if pt.total > math.MaxInt32 || uint64(g.net.numAtoms)+pt.total > math.MaxInt32 {
			return fmt.Errorf("ground: query predicate %s has %d groundings, too many", pt.name, pt.total)
		}
		dense := make([]int32, pt.total)
		g.atoms[p].dense = dense
		n := g.net
		n.AtomPred = slices.Grow(n.AtomPred, int(pt.total))
		if err := ctx.Err(); err != nil {
			return err
		}
		n.AtomArgs = slices.Grow(n.AtomArgs, int(pt.total))
		if err := ctx.Err(); err != nil {
			return err
		}
		g.slab = make([]mln.ConstID, 0, int(pt.total)*pt.arity())
		for k := uint64(0); k < pt.total; k++ {
			if k&(1<<16-1) == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if v, ok := pt.ev.get(k); ok && mln.Truth(v) != mln.Unknown {
				dense[k] = -1
				continue
			}
			dense[k] = g.newAtom(pt, k)
		}
	}
	return nil
}

// newAtom appends the atom of pt with key k to the network.
func (g *grounder) newAtom(pt *predTable, k uint64) int32 {
	n := g.net
	a := int32(n.numAtoms)
	n.numAtoms++
	ar := pt.arity()
	if len(g.slab)+ar > cap(g.slab) {
		g.slab = make([]mln.ConstID, 0, max(4096, ar))
	}
	args := g.slab[len(g.slab) : len(g.slab)+ar : len(g.slab)+ar]
	g.slab = g.slab[:len(g.slab)+ar]
	for j := range pt.types {
		idx := k / pt.strides[j]
		k %= pt.strides[j]
		args[j] = g.consts(pt.types[j])[idx]
	}
	n.AtomPred = append(n.AtomPred, pt.id)
	n.AtomArgs = append(n.AtomArgs, args)
	return a
}

// atomID returns the network atom of pt with key k, adding it if needed.
func (g *grounder) atomID(pt *predTable, k uint64) int32 {
	ai := &g.atoms[pt.id]
	if ai.dense != nil {
		return ai.dense[k]
	}
	if a, ok := ai.ids.get(k); ok {
		return a
	}
	a := g.newAtom(pt, k)
	ai.ids.put(k, a)
	return a
}

// unit is a slice of one clause's enumeration, ground by one worker.
type unit struct {
	pl     *plan
	lo, hi int
	hint   int // expected ground clauses
	out    *unitOut
	err    error // why out is nil
	param  int32 // parameter of every clause of a unit whose plan has no "+" variable (set by merge)
	done   chan struct{}
}

// unitOut holds the surviving groundings of a unit. The literals of its
// clauses are already in the network's pages; the unit records where.
type unitOut struct {
	addr   []uint32   // per clause: address of its literals
	size   []uint8    // per clause: number of literals (sizeByte)
	long   [][2]int32 // clause (in the unit) and number of literals of the clauses of longSize
	nlits  int
	nfalse int // groundings the evidence falsifies (no clause)
	// "+" plans: the bindings of the unit's groundings (falsified ones
	// included) in order of first occurrence, the groundings of each, and
	// whether one gave a clause; order lists the bindings in the order of
	// their first clause (the order parameters are allocated in).
	keys  []uint64
	surv  []float64
	used  []bool
	order []int32
	// params holds for each clause of a soft "+" plan the binding's slot
	// in keys; merge maps the slots to parameters (pmap).
	params []int32
	pmap   []int32
	fix    []fixup // literals whose atom gets its ID in the merge
}

// fixup is a literal of an atom numbered on first occurrence: the worker
// leaves a placeholder at position pos of the clause at address addr, the
// merge gives the atom its ID (in clause order, so the numbering does not
// depend on the workers) and the assembly writes the literal.
type fixup struct {
	addr uint32
	pos  int32
	pred int32
	neg  bool
	key  uint64
	lit  Lit
}

type wlit struct {
	pred int32
	neg  bool
	key  uint64
}

// chunkSize is the expected number of ground clauses per work unit.
var chunkSize = 4096.0

// units splits the plans into work units.
func (g *grounder) units(plans []*plan) []*unit {
	var us []*unit
	for _, pl := range plans {
		n := 1
		if len(pl.steps) > 0 {
			s := &pl.steps[0]
			switch s.kind {
			case stepDomain:
				n = int(s.size)
			case stepGen:
				n = len(s.ix.lookup(s.keyConst))
			}
		}
		// Small units keep little of their output in flight (it waits
		// for the units before it to be merged) and few bytes of garbage.
		chunks := int(math.Min(pl.estimate/chunkSize+1, float64(n)))
		chunks = max(1, min(chunks, n))
		// Capacity hint for each unit's output, from the estimate.
		hint := int(math.Min(pl.materialised/float64(chunks)*1.1+16, 1<<18))
		for c := 0; c < chunks; c++ {
			us = append(us, &unit{pl: pl, lo: c * n / chunks, hi: (c + 1) * n / chunks, hint: hint, done: make(chan struct{})})
		}
	}
	return us
}

// run grounds the plans with the workers, which write the clauses'
// literals straight into pages of the network; the units are merged in
// order (numbering new atoms and allocating parameters, which is cheap)
// and at the end assembled into the network, each unit's clauses after
// those of the units before it, so the clause order does not depend on the
// workers. With stream set, units are merged as they complete; otherwise
// only once all are done (so that an error leaves the network untouched).
func (g *grounder) run(ctx context.Context, plans []*plan, stream bool) error {
	us := g.units(plans)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	var wg sync.WaitGroup
	nw := min(g.workers, len(us))
	n := g.net
	npages := len(n.pages)
	ws := make([]*worker, nw)
	for i := range ws {
		ws[i] = &worker{g: g, ctx: ctx, pages: litWriter{lock: &g.pageMu}}
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			for {
				j := int(next.Add(1)) - 1
				if j >= len(us) || ctx.Err() != nil {
					return
				}
				u := us[j]
				u.out = w.ground(u.pl, u.lo, u.hi, u.hint)
				if u.out == nil {
					u.err = w.err
				}
				close(u.done)
			}
		}(ws[i])
	}
	err := g.wait(ctx, us, stream)
	cancel()
	wg.Wait()
	if err != nil {
		n.pages = n.pages[:npages]
		return err
	}
	for _, w := range ws {
		w.pages.trim(n)
	}
	if !stream {
		for _, u := range us {
			g.merge(u)
		}
	}
	g.assemble(us)
	return nil
}

// wait waits for the units in order, merging each when stream is set, and
// prints the progress.
func (g *grounder) wait(ctx context.Context, us []*unit, stream bool) error {
	start := time.Now()
	var tick <-chan time.Time
	if g.progress != nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
	}
	merged := g.net.NumClauses()
	for _, u := range us {
	wait:
		for {
			select {
			case <-u.done:
				break wait
			case <-ctx.Done():
				return ctx.Err()
			case <-tick:
				if time.Since(start) > 2*time.Second {
					fmt.Fprintf(g.progress, "grounding: clause %d of %d, %d ground clauses, %d atoms, %.0fs\n",
						u.pl.ci+1, len(g.m.Clauses), merged, g.net.numAtoms, time.Since(start).Seconds())
				}
			}
		}
		if u.out == nil {
			if u.err != nil {
				return u.err
			}
			return ctx.Err()
		}
		merged += len(u.out.addr)
		if stream {
			g.merge(u)
		}
	}
	return ctx.Err()
}

// merge accounts for a unit's groundings in the clause statistics,
// allocates the parameters of its clauses and numbers the new atoms they
// reach, in the order of the clauses.
func (g *grounder) merge(u *unit) {
	pl, out, n, m := u.pl, u.out, g.net, g.m
	cs := g.stats[pl.ci]
	if cs == nil {
		cs = &clauseStats{pl: pl}
		g.stats[pl.ci] = cs
	}
	if pl.hard {
		n.HardFalse += out.nfalse
	}
	var binding []mln.ConstID
	u.param = -1
	if len(pl.plus) == 0 {
		si := cs.slot(0)
		cs.surv[si] += float64(len(out.addr) + out.nfalse)
		if !pl.hard && len(out.addr) > 0 {
			if cs.params[si] < 0 {
				binding = g.decodeBinding(pl, 0, binding[:0])
				cs.params[si] = int32(m.Param(pl.formula, binding))
			}
			u.param = cs.params[si]
		}
	} else {
		// The unit's bindings in order of first occurrence, so the
		// statistics list them as if the clauses came one by one.
		si := make([]int32, len(out.keys))
		for i, b := range out.keys {
			si[i] = cs.slot(b)
			cs.surv[si[i]] += out.surv[i]
		}
		if !pl.hard {
			out.pmap = make([]int32, len(out.keys))
			for _, i := range out.order {
				s := si[i]
				if cs.params[s] < 0 {
					binding = g.decodeBinding(pl, out.keys[i], binding[:0])
					cs.params[s] = int32(m.Param(pl.formula, binding))
				}
				out.pmap[i] = cs.params[s]
			}
		}
		out.keys, out.surv, out.used, out.order = nil, nil, nil, nil
	}
	for i := range out.fix {
		f := &out.fix[i]
		f.lit = MakeLit(g.atomID(g.tables[f.pred], f.key), f.neg)
	}
}

// assemble appends the merged units' clauses to the network in unit
// order: the per-clause arrays are copied (in parallel) at offsets given by
// a prefix sum over the units; the literals stay in their pages.
func (g *grounder) assemble(us []*unit) {
	n := g.net
	base := len(n.addr)
	off := make([]int, len(us)+1)
	off[0] = base
	plus := false
	for i, u := range us {
		off[i+1] = off[i] + len(u.out.addr)
		plus = plus || (len(u.pl.plus) > 0 && !u.pl.hard)
	}
	total := off[len(us)]
	if plus {
		n.ownParams()
	}
	n.addr = slices.Grow(n.addr, total-base)[:total]
	n.size = slices.Grow(n.size, total-base)[:total]
	if n.param != nil {
		n.param = slices.Grow(n.param, total-base)[:total]
	}
	var wg sync.WaitGroup
	nw := max(1, min(g.workers, len(us)))
	for k := 0; k < nw; k++ {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				u, o := us[i], off[i]
				copy(n.addr[o:], u.out.addr)
				copy(n.size[o:], u.out.size)
				if n.param != nil {
					ps := n.param[o:off[i+1]]
					if u.out.params != nil {
						for j, s := range u.out.params {
							ps[j] = u.out.pmap[s]
						}
					} else {
						for j := range ps {
							ps[j] = u.param
						}
					}
				}
				for _, f := range u.out.fix {
					n.pages[f.addr>>pageBits][int(f.addr&pageMask)+int(f.pos)] = f.lit
				}
			}
		}(k*len(us)/nw, (k+1)*len(us)/nw)
	}
	wg.Wait()
	for i, u := range us {
		out := u.out
		n.nlits += out.nlits
		for _, l := range out.long {
			if n.long == nil {
				n.long = make(map[int32]int32)
			}
			n.long[int32(off[i])+l[0]] = l[1]
		}
		if len(out.addr) > 0 {
			n.pushRun(int32(off[i]), int32(u.pl.ci), u.param, u.pl.coef, u.pl.hard)
		}
		if n.weight != nil {
			for j := off[i]; j < off[i+1]; j++ {
				w := math.Inf(1)
				if !u.pl.hard {
					p := u.param
					if n.param != nil {
						p = n.param[j]
					}
					w = g.m.Weights[p] * u.pl.coef
				}
				n.weight = append(n.weight, w)
			}
		}
		u.out = nil
	}
}

// decodeBinding turns a packed "+" binding into constants.
func (g *grounder) decodeBinding(pl *plan, b uint64, out []mln.ConstID) []mln.ConstID {
	for k, v := range pl.plus {
		idx := b / pl.pstride[k]
		b %= pl.pstride[k]
		out = append(out, g.consts(pl.clause.Vars[v].Type)[idx])
	}
	return out
}

// encodeBinding packs a binding of constants; ok is false when a constant
// is not in its variable's domain. Not safe for concurrent use.
func (g *grounder) encodeBinding(pl *plan, binding []mln.ConstID) (uint64, bool) {
	if len(binding) != len(pl.plus) {
		return 0, false
	}
	var b uint64
	for k, v := range pl.plus {
		i := g.localIndex(pl.clause.Vars[v].Type, binding[k])
		if i < 0 {
			return 0, false
		}
		b += uint64(i) * pl.pstride[k]
	}
	return b, true
}

// formulaParams returns the parameters of formula f (Model.ParamFormula),
// from an index of all parameters built when the model has gained
// parameters since the last call.
func (g *grounder) formulaParams(f int) []int32 {
	m := g.m
	np := min(len(m.ParamFormula), len(m.ParamBinding))
	if g.fpStart == nil || g.fpN != np || len(g.fpStart) != len(m.Formulas)+1 {
		start := make([]int32, len(m.Formulas)+1)
		for p := 0; p < np; p++ {
			if pf := m.ParamFormula[p]; pf >= 0 && pf < len(m.Formulas) {
				start[pf+1]++
			}
		}
		for i := 1; i < len(start); i++ {
			start[i] += start[i-1]
		}
		list := make([]int32, start[len(start)-1])
		fill := append([]int32(nil), start[:len(m.Formulas)]...)
		for p := 0; p < np; p++ {
			if pf := m.ParamFormula[p]; pf >= 0 && pf < len(m.Formulas) {
				list[fill[pf]] = int32(p)
				fill[pf]++
			}
		}
		g.fpStart, g.fpList, g.fpN = start, list, np
	}
	if f < 0 || f+1 >= len(g.fpStart) {
		return nil
	}
	return g.fpList[g.fpStart[f]:g.fpStart[f+1]]
}

// existingParam returns the parameter of formula f for a packed binding,
// without allocating one.
func (g *grounder) existingParam(pl *plan, b uint64) int32 {
	fm := g.m.Formulas[pl.formula]
	if fm.Params == nil {
		return -1
	}
	p, ok := fm.Params[mln.BindingKey(g.decodeBinding(pl, b, nil))]
	if !ok {
		return -1
	}
	return int32(p)
}

// growCounts extends EvidenceCount and unalloc to the model's sizes.
func (n *Network) growCounts() {
	if m := n.Model; m != nil {
		for len(n.EvidenceCount) < len(m.Weights) {
			n.EvidenceCount = append(n.EvidenceCount, 0)
		}
		for len(n.unalloc) < len(m.Formulas) {
			n.unalloc = append(n.unalloc, 0)
		}
	}
}

// finalize adds the evidence-satisfied groundings of a ground clause to
// EvidenceCount (bindings with a parameter) or to the formula's
// unallocated count.
func (g *grounder) finalize(cs *clauseStats) {
	if cs == nil || cs.pl.hard {
		return
	}
	n, pl := g.net, cs.pl
	n.growCounts()
	unalloc := 0.0
	for i, b := range cs.keys {
		sat := pl.perBinding - cs.surv[i]
		p := cs.params[i]
		if p < 0 {
			p = g.existingParam(pl, b)
			cs.params[i] = p
		}
		if p >= 0 {
			n.EvidenceCount[p] += pl.coef * sat
		} else {
			unalloc += sat
		}
	}
	others := pl.numBindings - float64(len(cs.keys))
	if others > 0 {
		// Bindings with no surviving grounding: all satisfied. Those with a
		// parameter count there (each parameter once, so the order does
		// not matter).
		// The parameters of the bindings seen are those in cs.params.
		if len(g.mark) < len(g.m.Weights) {
			g.mark = append(g.mark, make([]int32, len(g.m.Weights)-len(g.mark))...)
		}
		g.markGen++
		for _, p := range cs.params {
			if p >= 0 {
				g.mark[p] = g.markGen
			}
		}
		// A parameter's binding is in the model's domains; check it against
		// the domains only when Options.Domains overrides one.
		check := false
		for _, v := range pl.plus {
			check = check || g.override(pl.clause.Vars[v].Type) != nil
		}
		for _, p := range g.formulaParams(pl.formula) {
			if int(p) >= len(n.EvidenceCount) || g.mark[p] == g.markGen || len(g.m.ParamBinding[p]) != len(pl.plus) {
				continue
			}
			if check {
				if _, ok := g.encodeBinding(pl, g.m.ParamBinding[p]); !ok {
					continue
				}
			}
			n.EvidenceCount[p] += pl.coef * pl.perBinding
			others--
		}
		unalloc += others * pl.perBinding
	}
	n.unalloc[pl.formula] += pl.coef * unalloc
}

// account moves evidence counts from formulas' unallocated counts to the
// parameters allocated since the last call, for the clauses in done.
func (g *grounder) account(done []int) {
	n, m := g.net, g.m
	n.growCounts()
	for p := g.paramMark; p < len(m.Weights); p++ {
		f := m.ParamFormula[p]
		for _, ci := range done {
			cs := g.stats[ci]
			if cs == nil || cs.pl.hard || cs.pl.formula != f {
				continue
			}
			pl := cs.pl
			b, ok := g.encodeBinding(pl, m.ParamBinding[p])
			if !ok {
				continue
			}
			cnt := pl.perBinding
			if i, seen := cs.bind.get(b); seen {
				if cs.params[i] >= 0 {
					continue
				}
				cs.params[i] = int32(p)
				cnt -= cs.surv[i]
			}
			n.EvidenceCount[p] += pl.coef * cnt
			n.unalloc[f] -= pl.coef * cnt
		}
	}
	g.paramMark = len(m.Weights)
}

// AddModelClause grounds model clause ci (an index into Model.Clauses,
// typically a clause just appended) into the network, appending its ground
// clauses and any new atoms; nothing else is ground again. Evidence counts
// move to parameters the new clause allocates, the new clauses' weights come
// from the current Model.Weights, and ConstScore is recomputed from them.
// On error (including cancellation) the network is unchanged.
func (n *Network) AddModelClause(ctx context.Context, ci int) error {
	g := n.g
	if g == nil {
		return errors.New("ground: AddModelClause needs a network made by Ground")
	}
	if ci < 0 || ci >= len(g.m.Clauses) {
		return fmt.Errorf("ground: AddModelClause: clause %d out of range", ci)
	}
	if _, ok := g.stats[ci]; ok {
		return fmt.Errorf("ground: AddModelClause: %s is already ground", g.clauseName(ci))
	}
	for t, n := range g.typeSizes {
		if g.override(mln.TypeID(t)) == nil && g.m.Types[t].Size() != n {
			return fmt.Errorf("ground: AddModelClause: the domain of type %s changed since grounding; ground again", g.m.Types[t].Name)
		}
	}
	for i := len(g.open); i < len(g.m.Preds); i++ {
		if _, err := g.table(mln.PredID(i)); err != nil {
			return err
		}
	}
	pl, err := g.makePlan(ci)
	if err != nil {
		return err
	}
	if _, bytes, _ := g.estimate([]*plan{pl}); g.maxBytes > 0 && bytes > g.maxBytes {
		return fmt.Errorf("ground: %s would take about %s (%.3g ground clauses), above the limit of %s",
			g.clauseName(ci), fmtBytes(bytes), pl.materialised, fmtBytes(g.maxBytes))
	}
	var done []int
	for c := range g.stats {
		done = append(done, c)
	}
	sort.Ints(done)
	if err := g.run(ctx, []*plan{pl}, false); err != nil {
		return err
	}
	n.pw = append(n.pw, g.m.Weights[len(n.pw):]...)
	if g.stats[ci] == nil {
		g.stats[ci] = &clauseStats{pl: pl}
	}
	g.account(done)
	g.finalize(g.stats[ci])
	g.paramMark = len(g.m.Weights)
	n.ConstScore = n.constScore()
	return nil
}
