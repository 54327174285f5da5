// Package wmc computes the exact partition function (log Z) and the exact
// marginal probability of every atom of a ground Markov network by
// weighted model counting: DPLL search with unit propagation on the hard
// clauses, connected-component decomposition and component caching (Sang,
// Beame and Kautz, "Solving Bayesian networks by weighted model
// counting", AAAI 2005; the ideas of Cachet and sharpSAT), in log space so
// that nothing overflows.
//
// A world's weight is that of infer.ScoreWorld and ground.Network.Score:
// exp of the sum of the weights of the satisfied soft clauses (ConstScore
// included), zero when a hard clause is violated; Z sums it over every
// world of the network's atoms, so log Z equals the log-sum-exp of
// Network.Score over the worlds satisfying the hard clauses.
//
// A component whose min-degree elimination order is narrow is counted by
// variable elimination (sum-product in log space), its marginals by a
// backward pass through the buckets; the others by the search, which
// counts the narrow components it reaches by variable elimination too.
// The search records what it does as a decision-DNNF circuit (a node per
// component solved, shared between the branches that reach the same
// component), whose value is Z; one pass down the circuit then gives every
// atom's marginal (the derivative of Z by the atom's weight), at about
// the cost of the count itself. Independent components of the network are
// counted in parallel; the results do not depend on the number of
// workers. Options bounds the work: past the bound Solve fails with a
// *LimitError instead of running on.
//
// The cache identifies a component by a 128-bit hash of its atoms and
// open clauses: two components collide with probability about 2^-128.
package wmc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/internal/par"
)

// Defaults of Options.
const (
	// DefaultMaxNodes is the largest number of search nodes (components
	// branched on) of a solve.
	DefaultMaxNodes = 4_000_000
	// DefaultMaxMemory is the largest memory, in bytes, of the circuits
	// and caches of a solve.
	DefaultMaxMemory = 2 << 30
	// DefaultMaxWork is the most work of a solve (Options.MaxWork; about
	// 10 s of CPU).
	DefaultMaxWork = 1_000_000_000
)

// Method selects how the components are counted.
type Method int

const (
	// MethodAuto counts each component by variable elimination when its
	// elimination order is narrow enough (AutoVECost), by search
	// otherwise, the search counting by variable elimination the
	// components it reaches that are narrow enough (LeafVEEntries,
	// LeafVECost).
	MethodAuto Method = iota
	// MethodSearch counts every component by DPLL search with component
	// caching.
	MethodSearch
	// MethodVE counts every component by variable elimination; a
	// component beyond MaxVEWidth or MaxVEEntries fails with a
	// *LimitError.
	MethodVE
)

func (m Method) String() string {
	switch m {
	case MethodAuto:
		return "auto"
	case MethodSearch:
		return "search"
	case MethodVE:
		return "ve"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// MethodAuto takes variable elimination for a whole component when it
// costs at most AutoVECost (its tables' entries times the factors
// combined into them, which its time follows), and for a component the
// search reaches when its tables hold at most LeafVEEntries entries and
// cost at most LeafVECost.
const (
	AutoVECost    = 1 << 28
	LeafVEEntries = 1 << 12
	LeafVECost    = 1 << 15
)

// Options are the settings of Solve.
type Options struct {
	// Bias adds Bias[a] to the log-weight of every world in which atom a
	// is true (infer.Options.Bias); nil means none.
	Bias []float64
	// Method selects the counting method (MethodAuto by default).
	Method Method
	// Workers is the number of components counted at once (0:
	// GOMAXPROCS). The results do not depend on it.
	Workers int
	// MaxNodes bounds the search nodes of the whole solve (0:
	// DefaultMaxNodes; negative: no bound).
	MaxNodes int64
	// MaxMemory bounds the bytes of the circuits and caches held at once
	// (0: DefaultMaxMemory; negative: no bound).
	MaxMemory int64
	// MaxWork bounds the work, which the time follows: the atoms and open
	// clauses of the components branched on, summed over the search
	// nodes, plus, for variable elimination, the tables' entries times
	// the factors combined into them (0: DefaultMaxWork; negative: no
	// bound).
	MaxWork int64
	// NoMarginals computes log Z alone (the circuit is not kept).
	NoMarginals bool
	// AllowHardFalse counts the worlds of the network's clauses even when
	// the evidence alone falsifies some hard groundings
	// (Network.HardFalse > 0), as the marginal engines do after a
	// warning. Otherwise such a network has Z = 0 and Solve fails with an
	// error wrapping infer.ErrInfeasible.
	AllowHardFalse bool

	// noTopVE (tests) keeps MethodAuto from counting whole components by
	// variable elimination, so that the search's leaves are.
	noTopVE bool
}

// Stats describe a solve.
type Stats struct {
	// Components is the number of independent components of the network
	// once the hard unit clauses are propagated (an atom no clause ties to
	// another counts as one), and LargestComponent the atoms of the
	// largest.
	Components, LargestComponent int
	// VEComponents and SearchComponents are the components of two atoms or
	// more counted by variable elimination and by search.
	VEComponents, SearchComponents int
	// VEWidth is the largest scope, less one, of the tables variable
	// elimination built.
	VEWidth int
	// Nodes is the number of search nodes (components branched on or
	// counted by VE inside the search), CacheHits the components found in
	// the cache instead, Decompositions the branches that split into two
	// or more components, and VELeaves the components inside the search
	// counted by variable elimination.
	Nodes, CacheHits, Decompositions, VELeaves int64
	// Width is the induced width of the elimination order that guides
	// the branching, on the primal graph of the clauses of at most
	// MaxVEWidth+1 atoms (longer ones link their atoms in a path); above
	// 96, a lower bound on the order's width.
	Width int
	// Fixed is the number of atoms the hard clauses fix at the root.
	Fixed int
	// MaxMemory is an estimate of the largest memory the circuits and
	// caches held, in bytes.
	MaxMemory int64
	// Work is the solve's work (see Options.MaxWork).
	Work int64
}

// Result is the outcome of Solve.
type Result struct {
	// LogZ is the natural log of the partition function, ConstScore (the
	// groundings the evidence decides) included.
	LogZ float64
	// Marginals holds P(atom true) per atom of the network (nil with
	// Options.NoMarginals).
	Marginals []float64
	Stats     Stats
	// FreeAtoms counts the unknown atoms of the grounding the network
	// leaves out (ground.Network.FreeAtoms): each doubles the model's Z,
	// which ModelLogZ includes.
	FreeAtoms float64
}

// ModelLogZ is the natural log of the model's partition function over
// every unknown atom of the grounding: LogZ plus FreeAtoms·ln 2.
func (r *Result) ModelLogZ() float64 { return r.LogZ + r.FreeAtoms*math.Ln2 }

// ErrOutOfReach is wrapped by the error of a solve that exceeded its
// work bound.
var ErrOutOfReach = errors.New("exact model counting is out of reach")

// LimitError is the error of a solve stopped by Options.MaxNodes or
// Options.MaxMemory.
type LimitError struct {
	// What names the bound: "search nodes", "bytes of memory" or "units
	// of search work".
	What string
	// Limit is the bound.
	Limit int64
	// Atoms is the size of the largest component.
	Atoms int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%v: more than %d %s on a component of %d atoms (raise the bound, or use MC-SAT for approximate marginals)",
		ErrOutOfReach, e.Limit, e.What, e.Atoms)
}

// Is makes errors.Is(err, ErrOutOfReach) hold.
func (e *LimitError) Is(target error) bool { return target == ErrOutOfReach }

// Solve computes log Z and, unless opt.NoMarginals, every atom's
// marginal. It fails with an error wrapping infer.ErrInfeasible when no
// world satisfies the hard clauses (Z = 0), with a *LimitError when the
// work bound is exceeded, and with ctx's error when ctx is done.
func Solve(ctx context.Context, net *ground.Network, opt Options) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opt.Bias != nil && len(opt.Bias) != net.NumAtoms() {
		return nil, fmt.Errorf("wmc: %d linear terms for %d atoms", len(opt.Bias), net.NumAtoms())
	}
	if err := infer.CheckWeights(net, opt.Bias); err != nil {
		return nil, fmt.Errorf("wmc: %w", err)
	}
	if net.HardFalse > 0 && !opt.AllowHardFalse {
		return nil, fmt.Errorf("%w: the evidence alone falsifies %d hard ground clauses, so Z = 0 (log Z = -Inf)", infer.ErrInfeasible, net.HardFalse)
	}
	if math.IsInf(net.ConstScore, 0) || math.IsNaN(net.ConstScore) {
		return nil, fmt.Errorf("wmc: the evidence's score is %v", net.ConstScore)
	}
	p, err := build(net, opt.Bias)
	if err != nil {
		return nil, err
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	lim := &limits{maxNodes: opt.MaxNodes, maxMem: opt.MaxMemory, maxWork: opt.MaxWork}
	if lim.maxWork == 0 {
		lim.maxWork = DefaultMaxWork
	}
	if lim.maxNodes == 0 {
		lim.maxNodes = DefaultMaxNodes
	}
	if lim.maxMem == 0 {
		lim.maxMem = DefaultMaxMemory
	}
	if opt.Method < MethodAuto || opt.Method > MethodVE {
		return nil, fmt.Errorf("wmc: unknown method %d", int(opt.Method))
	}
	res, err := p.solve(ctx, workers, lim, !opt.NoMarginals, opt.Method, opt.noTopVE)
	if res != nil {
		res.FreeAtoms = net.FreeAtoms()
	}
	return res, err
}

// problem is the network in the form the search takes: literal weights
// (soft unit clauses and bias terms) and the other clauses.
type problem struct {
	n        int
	lw       []float64 // per literal: log-weight of its being true
	start    []int32   // clause c's literals are lits[start[c]:start[c+1]]
	lits     []ground.Lit
	w        []float64 // soft weight (0 for hard clauses)
	hard     []bool
	occStart []int32 // atom a's occurrences are occ[occStart[a]:occStart[a+1]]
	occ      []int32 // clause<<1 | 1 when the atom occurs negated
	constLog float64 // log-weight every world has
	rank     []int32 // per atom: its position in the elimination order
	width    int     // the order's induced width
}

// build turns net into a problem. It fails with infer.ErrInfeasible on an
// empty hard clause.
func build(net *ground.Network, bias []float64) (*problem, error) {
	n := net.NumAtoms()
	p := &problem{n: n, lw: make([]float64, 2*n), constLog: net.ConstScore, start: []int32{0}}
	for a, b := range bias {
		p.lw[2*a] += b
	}
	seen := make([]int32, 2*n) // clause index + 1 that last held the literal
	var buf []ground.Lit
	for c := range net.NumClauses() {
		w := net.Weight(c)
		hard := math.IsInf(w, 1)
		if !hard && w == 0 {
			continue
		}
		buf = buf[:0]
		taut := false
		for _, l := range net.Clause(c) {
			switch int32(c) + 1 {
			case seen[l]:
				continue
			case seen[l.Not()]:
				taut = true
			}
			seen[l] = int32(c) + 1
			buf = append(buf, l)
		}
		switch {
		case taut:
			if !hard {
				p.constLog += w
			}
			continue
		case len(buf) == 0:
			if hard {
				return nil, fmt.Errorf("%w: a hard ground clause has no literal", infer.ErrInfeasible)
			}
			continue
		case len(buf) == 1 && !hard:
			p.lw[buf[0]] += w
			continue
		}
		p.lits = append(p.lits, buf...)
		p.start = append(p.start, int32(len(p.lits)))
		if hard {
			w = 0
		}
		p.w = append(p.w, w)
		p.hard = append(p.hard, hard)
	}
	p.occStart = make([]int32, n+1)
	for _, l := range p.lits {
		p.occStart[l.Atom()+1]++
	}
	for a := range n {
		p.occStart[a+1] += p.occStart[a]
	}
	p.occ = make([]int32, len(p.lits))
	fill := slices.Clone(p.occStart[:n])
	for c := range p.w {
		for _, l := range p.lits[p.start[c]:p.start[c+1]] {
			a := l.Atom()
			p.occ[fill[a]] = int32(c)<<1 | int32(l&1)
			fill[a]++
		}
	}
	p.rank, p.width = elimOrder(p)
	return p, nil
}

func (p *problem) clause(c int32) []ground.Lit { return p.lits[p.start[c]:p.start[c+1]] }

// freeLog is the log-weight of atom a when no clause constrains it.
func (p *problem) freeLog(a int32) float64 { return logAdd(p.lw[2*a], p.lw[2*a+1]) }

// freeProb is P(a true) when no clause constrains it.
func (p *problem) freeProb(a int32) float64 {
	return 1 / (1 + math.Exp(p.lw[2*a+1]-p.lw[2*a]))
}

// logAdd returns log(exp(x) + exp(y)).
func logAdd(x, y float64) float64 {
	if x < y {
		x, y = y, x
	}
	if math.IsInf(y, -1) {
		return x
	}
	return x + math.Log1p(math.Exp(y-x))
}

// limits are a solve's work bounds and what its workers have used.
type limits struct {
	maxNodes, maxMem int64
	maxWork          int64
	nodes, mem, work atomic.Int64
	peak             atomic.Int64
	hits, decomps    atomic.Int64
	veLeaves         atomic.Int64
}

// solve propagates the hard units, splits the rest into components and
// counts each (in parallel).
func (p *problem) solve(ctx context.Context, workers int, lim *limits, marginals bool, method Method, noTopVE bool) (*Result, error) {
	root := newState(p)
	f, ok := root.decide(-1)
	if !ok {
		return nil, fmt.Errorf("%w: unit propagation of the hard clauses gives a conflict, so Z = 0 (log Z = -Inf)", infer.ErrInfeasible)
	}
	res := &Result{Stats: Stats{Fixed: len(root.trail), Width: p.width}}
	logZ := p.constLog + f
	var marg []float64
	if marginals {
		marg = make([]float64, p.n)
		for _, l := range root.trail {
			if !l.Neg() {
				marg[l.Atom()] = 1
			}
		}
	}
	all := make([]int32, 0, p.n)
	for a := range int32(p.n) {
		if root.val[a] == 0 {
			all = append(all, a)
		}
	}
	comps, free := root.split(all)
	for _, a := range free {
		logZ += p.freeLog(a)
		if marginals {
			marg[a] = p.freeProb(a)
		}
	}
	res.Stats.Components = len(comps) + len(free)
	if len(free) > 0 {
		res.Stats.LargestComponent = 1
	}
	for _, c := range comps {
		res.Stats.LargestComponent = max(res.Stats.LargestComponent, len(c))
	}
	// Largest first, so that one worker does not finish alone on it.
	order := make([]int, len(comps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return len(comps[j]) - len(comps[i]) })
	vals := make([]float64, len(comps))
	errs := make([]error, len(comps))
	byVE := make([]int, len(comps)) // per component: VE's width + 1, or 0
	pool := make(chan *searcher, workers)
	for range workers {
		pool <- nil
	}
	var stop atomic.Bool
	par.For(workers, len(order), func(k int) {
		i := order[k]
		if stop.Load() {
			return
		}
		s := <-pool
		if s == nil {
			s = &searcher{p: p, st: root.clone(), lim: lim, ctx: ctx, stop: &stop, keep: marginals}
			if method == MethodAuto {
				s.leafEntries = LeafVEEntries
			}
		}
		defer func() { pool <- s }()
		if method == MethodVE || (method == MethodAuto && !noTopVE) {
			maxCost := int64(AutoVECost)
			if lim.maxWork > 0 {
				maxCost = min(maxCost, lim.maxWork)
			}
			if method == MethodVE {
				maxCost = lim.maxWork
				if maxCost <= 0 {
					maxCost = -1
				}
			}
			if pl := planVE(s.st, comps[i], MaxVEWidth, MaxVEEntries, maxCost); pl != nil {
				if w := lim.work.Add(pl.cost); lim.maxWork > 0 && w > lim.maxWork {
					errs[i] = &LimitError{What: "units of work (atoms and open clauses of the components branched on, table entries of variable elimination)", Limit: lim.maxWork}
					stop.Store(true)
					return
				}
				vals[i], byVE[i] = pl.run(p, marg), pl.width+1
				return
			}
			if method == MethodVE {
				errs[i] = &LimitError{What: fmt.Sprintf("table entries, an elimination width above %d, or units of work for variable elimination", MaxVEWidth), Limit: MaxVEEntries}
				stop.Store(true)
				return
			}
		}
		v, err := s.count(comps[i], marg)
		if err != nil {
			errs[i] = err
			stop.Store(true)
			return
		}
		vals[i] = v
	})
	for i, w := range byVE {
		if w > 0 {
			res.Stats.VEComponents++
			res.Stats.VEWidth = max(res.Stats.VEWidth, w-1)
		} else if errs[i] == nil {
			res.Stats.SearchComponents++
		}
	}
	res.Stats.Nodes = lim.nodes.Load()
	res.Stats.Work = lim.work.Load()
	res.Stats.CacheHits = lim.hits.Load()
	res.Stats.Decompositions = lim.decomps.Load()
	res.Stats.VELeaves = lim.veLeaves.Load()
	res.Stats.MaxMemory = lim.peak.Load()
	for i, err := range errs {
		if err != nil && err != errStopped {
			var le *LimitError
			if errors.As(err, &le) {
				le.Atoms = len(comps[i])
			}
			return nil, err
		}
	}
	for i, v := range vals {
		if math.IsInf(v, -1) {
			return nil, fmt.Errorf("%w: no world of a component of %d atoms satisfies its hard clauses, so Z = 0 (log Z = -Inf)", infer.ErrInfeasible, len(comps[i]))
		}
		logZ += v
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for a, v := range marg {
		marg[a] = min(1, max(0, v))
	}
	res.LogZ = logZ
	res.Marginals = marg
	return res, nil
}

// state is an assignment under construction with its clause counters.
type state struct {
	p     *problem
	val   []int8  // per atom: 0 unassigned, 1 true, -1 false
	nTrue []int32 // per clause: literals true
	nFree []int32 // per clause: literals unassigned
	trail []ground.Lit
	queue []ground.Lit
	// scratch of split
	vmark, cmark []uint32
	stamp        uint32
	pos          []int32 // scratch of planVE
}

func newState(p *problem) *state {
	s := &state{p: p, val: make([]int8, p.n), nTrue: make([]int32, len(p.w)), nFree: make([]int32, len(p.w)),
		vmark: make([]uint32, p.n), cmark: make([]uint32, len(p.w))}
	for c := range p.w {
		s.nFree[c] = p.start[c+1] - p.start[c]
	}
	return s
}

func (s *state) clone() *state {
	return &state{p: s.p, val: slices.Clone(s.val), nTrue: slices.Clone(s.nTrue), nFree: slices.Clone(s.nFree),
		vmark: make([]uint32, s.p.n), cmark: make([]uint32, len(s.p.w))}
}

// decide sets literal l (none when l < 0: the hard unit clauses alone)
// and propagates the hard clauses. It returns the log-weight the new
// assignments add (the true literals' weights and the soft clauses they
// satisfy) and false on a conflict. The assignments stay on the trail
// either way, for undo.
func (s *state) decide(l ground.Lit) (float64, bool) {
	s.queue = s.queue[:0]
	if l >= 0 {
		s.queue = append(s.queue, l)
	} else {
		for c := range s.p.w {
			if s.p.hard[c] && s.nTrue[c] == 0 && s.nFree[c] == 1 {
				s.queue = append(s.queue, s.unit(int32(c)))
			}
		}
	}
	f := 0.0
	ok := true
	for i := 0; i < len(s.queue); i++ {
		l := s.queue[i]
		a := l.Atom()
		want := int8(1)
		if l.Neg() {
			want = -1
		}
		if v := s.val[a]; v != 0 {
			if v != want {
				return f, false
			}
			continue
		}
		s.val[a] = want
		s.trail = append(s.trail, l)
		f += s.p.lw[l]
		p := s.p
		for _, o := range p.occ[p.occStart[a]:p.occStart[a+1]] {
			c := o >> 1
			s.nFree[c]--
			if ground.Lit(o&1) == l&1 {
				s.nTrue[c]++
				if s.nTrue[c] == 1 {
					f += p.w[c]
				}
				continue
			}
			if s.nTrue[c] != 0 || !p.hard[c] {
				continue
			}
			switch s.nFree[c] {
			case 0:
				ok = false
			case 1:
				s.queue = append(s.queue, s.unit(c))
			}
		}
		if !ok {
			return f, false
		}
	}
	return f, true
}

// unit returns the unassigned literal of clause c.
func (s *state) unit(c int32) ground.Lit {
	for _, l := range s.p.clause(c) {
		if s.val[l.Atom()] == 0 {
			return l
		}
	}
	panic("wmc: no unassigned literal in a unit clause")
}

// undo takes back the assignments after the first k of the trail.
func (s *state) undo(k int) {
	p := s.p
	for i := len(s.trail) - 1; i >= k; i-- {
		l := s.trail[i]
		a := l.Atom()
		for _, o := range p.occ[p.occStart[a]:p.occStart[a+1]] {
			c := o >> 1
			s.nFree[c]++
			if ground.Lit(o&1) == l&1 {
				s.nTrue[c]--
			}
		}
		s.val[a] = 0
	}
	s.trail = s.trail[:k]
}

// split returns the connected components (by the clauses not yet
// satisfied) of the unassigned atoms of vars, each sorted, in the order of
// their least atom, and the unassigned atoms of vars in no such clause.
func (s *state) split(vars []int32) (comps [][]int32, free []int32) {
	st := s.nextStamp()
	p := s.p
	for _, v := range vars {
		if s.val[v] != 0 || s.vmark[v] == st {
			continue
		}
		s.vmark[v] = st
		comp := []int32{v}
		for i := 0; i < len(comp); i++ {
			u := comp[i]
			for _, o := range p.occ[p.occStart[u]:p.occStart[u+1]] {
				c := o >> 1
				if s.nTrue[c] != 0 || s.cmark[c] == st {
					continue
				}
				s.cmark[c] = st
				for _, l := range p.clause(c) {
					if x := l.Atom(); s.val[x] == 0 && s.vmark[x] != st {
						s.vmark[x] = st
						comp = append(comp, x)
					}
				}
			}
		}
		if len(comp) == 1 && !s.active(v) {
			free = append(free, v)
			continue
		}
		slices.Sort(comp)
		comps = append(comps, comp)
	}
	return comps, free
}

// nextStamp returns a new mark for vmark and cmark (clearing them when
// the counter wraps).
func (s *state) nextStamp() uint32 {
	s.stamp++
	if s.stamp == 0 {
		clear(s.vmark)
		clear(s.cmark)
		s.stamp = 1
	}
	return s.stamp
}

// active reports whether some clause of atom v is not yet satisfied.
func (s *state) active(v int32) bool {
	p := s.p
	for _, o := range p.occ[p.occStart[v]:p.occStart[v+1]] {
		if s.nTrue[o>>1] == 0 {
			return true
		}
	}
	return false
}
