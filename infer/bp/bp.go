// Package bp computes approximate marginal probabilities of the atoms of a
// ground Markov network by loopy belief propagation (sum-product message
// passing on the factor graph whose factors are the ground clauses).
//
// A clause of weight w contributes the factor exp(w) when it holds and 1
// when it does not (a hard clause: 1 and 0). A clause is false in a single
// configuration of its atoms, so the message from a clause to one of its
// atoms needs only the product, over its other literals, of the
// probability that the literal is false: each message costs O(1) per
// literal, and an iteration O(literals). Messages are log-odds, so weights
// of any size stay finite in the arithmetic.
//
// On a network whose factor graph is a tree (no cycle through clauses and
// atoms) the fixed point gives the exact marginals; on a loopy network BP
// may not converge, and when it does its marginals are approximate, at
// times far off (atoms tied in short loops by strong or hard clauses).
// Marginals reports whether the messages converged and which atoms still
// changed; Options.Merge merges the copies of a ground clause (which BP
// would count as independent factors), Options.DampAfter damps the
// messages when they do not converge undamped, and Options.Check compares
// the marginals with MC-SAT's and lists the atoms it does not confirm.
//
// Lifted runs the same iterations on a network whose interchangeable atoms
// and clauses are merged (lifted BP), and Frontier keeps BP converged
// across changes of some atoms' evidence, updating only the part of the
// network a change reaches (expanding frontier BP); both give ground BP's
// marginals.
package bp

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/mcsat"
)

// Defaults.
const (
	// DefaultMaxIterations bounds the number of message-passing
	// iterations.
	DefaultMaxIterations = 1000
	// DefaultTolerance is the largest change of any atom's marginal
	// between two iterations at which the messages count as converged.
	DefaultTolerance = 1e-7
)

// maxLogOdds bounds the log-odds of a message, so that contradictory hard
// clauses give a finite (uninformative) sum instead of NaN; e^-100 is far
// below any tolerance.
const maxLogOdds = 100

// Options are BP's settings. Zero values select the defaults.
type Options struct {
	infer.Options
	// MaxIterations bounds the iterations (default DefaultMaxIterations).
	MaxIterations int
	// Tolerance is the convergence threshold on the change of the
	// marginals between iterations (default DefaultTolerance).
	Tolerance float64
	// Damping mixes each new message with the old one: new = (1-d)·new +
	// d·old in log-odds, 0 <= d < 1 (default 0). Damping helps loopy
	// networks converge and does not change the fixed points.
	Damping float64
	// DampAfter, when positive, raises the damping each time DampAfter
	// iterations pass without convergence: to 0.5 from 0, else half way to
	// 1, up to MaxAutoDamping. BP that converges undamped is left as it
	// is (the same iterations and marginals); BP whose messages oscillate
	// gets the damping it needs. Stats.Damping is the damping it ended
	// with.
	DampAfter int
	// Workers is the number of goroutines (default GOMAXPROCS). The result
	// does not depend on it.
	Workers int
	// Merge merges the ground clauses that have the same literals into one
	// clause of the summed weight before passing messages (the same
	// distribution). BP counts each of several factors over the same atoms
	// as independent evidence, so k copies of a clause push its atoms k
	// times; merged, a network that is a tree once its copies are merged
	// gets exact marginals.
	Merge bool
	// Check, when positive, compares the marginals with MC-SAT's (four
	// chains with block moves, Check samples per chain, more in up to
	// three doubling rounds while an
	// atom's sampling error is what keeps it from being confirmed;
	// components of at most mcsat.DefaultExactAtoms atoms are enumerated
	// exactly): Stats.Unreliable lists the atoms not confirmed within
	// CheckTolerance. The seed is infer.Options.Seed.
	Check int
	// CheckTolerance is the largest difference from the true marginal the
	// check accepts (default DefaultCheckTolerance).
	CheckTolerance float64
	// Progress, when set, is called after every iteration with the
	// iterations done and the largest change of a marginal in the last
	// one, and with iteration 0 before each round of the check (change:
	// the samples per chain of the round). The caller decides how often
	// to report.
	Progress func(iteration int, change float64)

	checkExact int // mcsat.Options.ExactAtoms of the check (tests)
}

// Stats describes a run.
type Stats struct {
	// Iterations is the number of iterations done.
	Iterations int
	// Converged is set when the largest change of a marginal in the last
	// iteration was at most the tolerance.
	Converged bool
	// MaxChange is that largest change.
	MaxChange float64
	// Damping is the damping of the last iteration (Options.DampAfter).
	Damping float64
	// Changing lists, when the run did not converge, the atoms whose
	// marginal changed by more than the tolerance in the last iteration,
	// the largest change first (at most MaxListed of them; NumChanging
	// counts them all).
	Changing    []int32
	NumChanging int
	// Checked is set when the marginals were compared with MC-SAT
	// (Options.Check); Unreliable then lists the atoms the check did not
	// confirm, the largest difference first, and CheckDiff is the largest
	// difference between BP's and the check's marginal of an atom (NaN
	// when the check found no world satisfying the hard clauses and lists
	// every atom).
	Checked    bool
	Unreliable []int32
	CheckDiff  float64
}

// MaxAutoDamping is the largest damping Options.DampAfter reaches.
const MaxAutoDamping = 0.9375

// iterate passes messages until they converge or opt.MaxIterations
// iterations are done, with the damping of opt (Damping, DampAfter), and
// records the run in st.
func (g *graph) iterate(ctx context.Context, opt Options, st *Stats) error {
	d, since := opt.Damping, 0
	g.sums()
	for st.Iterations < opt.MaxIterations {
		if err := ctx.Err(); err != nil {
			return err
		}
		if opt.DampAfter > 0 && since >= opt.DampAfter && d < MaxAutoDamping {
			if d == 0 {
				d = 0.5
			} else {
				d = min(MaxAutoDamping, (1+d)/2)
			}
			since = 0
		}
		g.update(d)
		st.Iterations++
		since++
		st.MaxChange = g.sums()
		if opt.Progress != nil {
			opt.Progress(st.Iterations, st.MaxChange)
		}
		if st.MaxChange <= opt.Tolerance {
			st.Converged = true
			break
		}
	}
	st.Damping = d
	return nil
}

// MaxListed bounds Stats.Changing.
const MaxListed = 10

// Reliable reports whether the run converged and the check, when it ran,
// confirmed every marginal.
func (st *Stats) Reliable() bool { return st.Converged && len(st.Unreliable) == 0 }

// changing returns the atoms whose entry of change exceeds tol, the
// largest first, at most MaxListed, and their number.
func changing(change []float64, tol float64) ([]int32, int) {
	var out []int32
	for a, d := range change {
		if d > tol {
			out = append(out, int32(a))
		}
	}
	slices.SortStableFunc(out, func(x, y int32) int {
		switch {
		case change[x] > change[y]:
			return -1
		case change[x] < change[y]:
			return 1
		}
		return 0
	})
	return out[:min(len(out), MaxListed)], len(out)
}

// Memory is what Marginals takes on top of the network
// (ground.Options.Engine): a message and an index per literal, and
// per-atom sums.
var Memory = ground.EngineCost{PerAtom: 24, PerClause: 4, PerLit: 16}

// CheckedMemory is Memory with what Options.Merge (a merged copy of the
// clauses and its index) and Options.Check (MC-SAT's chains, while BP's
// state is kept) take on top.
var CheckedMemory = func() ground.EngineCost {
	m := mcsat.RunMemory(checkChains, 1, mcsat.MethodMCSAT)
	return ground.EngineCost{
		PerAtom:   Memory.PerAtom + m.PerAtom,
		PerClause: Memory.PerClause + 64 + m.PerClause,
		PerLit:    Memory.PerLit + 8 + m.PerLit,
	}
}()

// graph is the factor graph: for each clause the flat positions of its
// literals, for each atom the flat positions where it occurs.
type graph struct {
	net       *ground.Network
	start     []int32 // clause c's literals are flat positions start[c]..start[c+1]
	lits      []ground.Lit
	w         []float64
	atomOcc   []int32 // flat positions of atom a: atomOcc[atomAt[a]:atomAt[a+1]]
	atomAt    []int32
	nAtoms    int
	bias      []float64
	workers   int
	litFactor []int32   // clause of each flat literal position (lifted BP)
	msg       []float64 // clause-to-atom messages, log-odds of the atom being true
	tot       []float64 // per atom: bias plus all incoming messages
	marginal  []float64
	change    []float64 // per atom: the last change of its marginal (when not nil)
}

func newGraph(net *ground.Network, bias []float64, workers int) (*graph, error) {
	n := net.NumAtoms()
	if bias != nil && len(bias) != n {
		return nil, errors.New("bp: Bias has the wrong length")
	}
	g := &graph{net: net, nAtoms: n, bias: bias, workers: workers}
	nc := net.NumClauses()
	g.start = make([]int32, nc+1)
	g.w = make([]float64, nc)
	g.lits = make([]ground.Lit, 0, net.NumLits())
	cnt := make([]int32, n+1)
	for c := 0; c < nc; c++ {
		w := net.Weight(c)
		if math.IsNaN(w) {
			return nil, errors.New("bp: a clause has weight NaN")
		}
		g.w[c] = w
		for _, l := range net.Clause(c) {
			g.lits = append(g.lits, l)
			cnt[l.Atom()+1]++
		}
		g.start[c+1] = int32(len(g.lits))
	}
	for a := 1; a <= n; a++ {
		cnt[a] += cnt[a-1]
	}
	g.atomAt = cnt
	g.atomOcc = make([]int32, len(g.lits))
	fill := append([]int32(nil), cnt[:n]...)
	for k, l := range g.lits {
		a := l.Atom()
		g.atomOcc[fill[a]] = int32(k)
		fill[a]++
	}
	g.msg = make([]float64, len(g.lits))
	g.tot = make([]float64, n)
	g.marginal = make([]float64, n)
	return g, nil
}

// parallel runs fn over [0, n) split into one contiguous range per worker
// and returns the largest of the values fn returns.
func (g *graph) parallel(n int, fn func(lo, hi int) float64) float64 {
	w := g.workers
	if n < 4096 || w <= 1 {
		return fn(0, n)
	}
	res := make([]float64, w)
	var wg sync.WaitGroup
	for i := 0; i < w; i++ {
		lo, hi := i*n/w, (i+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = fn(lo, hi)
		}()
	}
	wg.Wait()
	m := 0.0
	for _, r := range res {
		m = math.Max(m, r)
	}
	return m
}

// sums recomputes every atom's total and marginal, returning the largest
// change of a marginal.
func (g *graph) sums() float64 {
	return g.parallel(g.nAtoms, func(lo, hi int) float64 {
		change := 0.0
		for a := lo; a < hi; a++ {
			t := 0.0
			if g.bias != nil {
				t = g.bias[a]
			}
			for _, k := range g.atomOcc[g.atomAt[a]:g.atomAt[a+1]] {
				t += g.msg[k]
			}
			g.tot[a] = t
			p := sigmoid(t)
			d := math.Abs(p - g.marginal[a])
			change = math.Max(change, d)
			if g.change != nil {
				g.change[a] = d
			}
			g.marginal[a] = p
		}
		return change
	})
}

// update recomputes every clause's messages from the atoms' totals.
// Each clause reads only its own messages and the totals, so clauses are
// updated in place, in parallel.
func (g *graph) update(damping float64) {
	g.parallel(len(g.w), func(lo, hi int) float64 {
		var logq []float64
		for c := lo; c < hi; c++ {
			logq = g.updateClause(c, damping, logq, nil)
		}
		return 0
	})
}

// updateClause recomputes clause c's messages from the atoms' totals
// (mixed with the old ones by damping). When changed is not nil it is
// called with each literal position whose message moved. logq is scratch
// space, returned for reuse.
func (g *graph) updateClause(c int, damping float64, logq []float64, changed func(k int32, old, new float64)) []float64 {
	s, e := g.start[c], g.start[c+1]
	logq = logq[:0]
	sum, zeros := 0.0, 0
	for k := s; k < e; k++ {
		l := g.lits[k]
		// The atom's belief without this clause's message.
		v := g.tot[l.Atom()] - g.msg[k]
		if l.Neg() {
			v = -v
		}
		// log P(literal false) = log sigmoid(-v).
		lq := logSigmoid(-v)
		logq = append(logq, lq)
		if math.IsInf(lq, -1) {
			zeros++
		} else {
			sum += lq
		}
	}
	em := math.Expm1(-g.w[c]) // e^-w - 1
	for i, k := 0, s; k < e; i, k = i+1, k+1 {
		m := clauseMessage(logq, i, sum, zeros, em, g.lits[k].Neg())
		if damping > 0 {
			m = (1-damping)*m + damping*g.msg[k]
		}
		if changed != nil {
			changed(k, g.msg[k], m)
		}
		g.msg[k] = m
	}
	return logq
}

// Marginals returns the probability of each atom of net being true
// estimated by loopy belief propagation, and how the run went. Bias terms
// (infer.Options.Bias) are unit factors exp(Bias[a]) on atom a being true.
// The network is only read. When ctx is cancelled Marginals stops and
// returns its error.
func Marginals(ctx context.Context, net *ground.Network, opt Options) ([]float64, *Stats, error) {
	if opt.MaxIterations <= 0 {
		opt.MaxIterations = DefaultMaxIterations
	}
	if opt.Tolerance <= 0 {
		opt.Tolerance = DefaultTolerance
	}
	if opt.Damping < 0 || opt.Damping >= 1 || opt.DampAfter < 0 {
		return nil, nil, errors.New("bp: Damping must be in [0, 1) and DampAfter not negative")
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	bnet := net
	if opt.Merge {
		bnet = mergeClauses(net)
	}
	g, err := newGraph(bnet, opt.Bias, opt.Workers)
	if err != nil {
		return nil, nil, err
	}
	g.change = make([]float64, g.nAtoms)
	st := &Stats{}
	if err := g.iterate(ctx, opt, st); err != nil {
		return nil, nil, err
	}
	if !st.Converged {
		st.Changing, st.NumChanging = changing(g.change, opt.Tolerance)
	}
	if opt.Check > 0 {
		if err := check(ctx, net, g.marginal, opt, st); err != nil {
			return nil, nil, err
		}
	}
	return g.marginal, st, nil
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// logSigmoid returns log(1/(1+e^-x)) without overflow.
func logSigmoid(x float64) float64 {
	if x >= 0 {
		return -math.Log1p(math.Exp(-x))
	}
	return x - math.Log1p(math.Exp(x))
}

// Engine is loopy BP as an infer.Marginal engine. Stats, when not nil,
// receives each run's statistics.
type Engine struct {
	Options
	Stats func(*Stats)
}

// Name returns "bp".
func (Engine) Name() string { return "bp" }

// Marginals runs Marginals with the engine's options and opt's seed and
// bias.
func (e Engine) Marginals(ctx context.Context, net *ground.Network, opt infer.Options) ([]float64, error) {
	o := e.Options
	o.Options = opt
	p, st, err := Marginals(ctx, net, o)
	if err == nil && e.Stats != nil {
		e.Stats(st)
	}
	return p, err
}

// LiftedEngine is lifted BP (Lifted, on the ground network) as an
// infer.Marginal engine. Rounds > 0 runs LiftedApprox with that many
// rounds instead.
type LiftedEngine struct {
	Options
	Stats  func(*LiftedStats)
	Rounds int
}

// Name returns "lifted-bp".
func (LiftedEngine) Name() string { return "lifted-bp" }

// Marginals runs Lifted with the engine's options and opt's seed and bias
// (on the network with its clauses merged when Options.Merge is set), and
// the check when Options.Check is set.
func (e LiftedEngine) Marginals(ctx context.Context, net *ground.Network, opt infer.Options) ([]float64, error) {
	o := e.Options
	o.Options = opt
	bnet := net
	if o.Merge {
		bnet = mergeClauses(net)
	}
	lo := o
	lo.Merge, lo.Check = false, 0 // merged above, checked below (also after a fall-back to ground BP)
	p, st, err := lifted(ctx, bnet, lo, e.Rounds)
	if err == nil && o.Check > 0 {
		err = check(ctx, net, p, o, &st.Stats)
	}
	if err != nil {
		return nil, err
	}
	if e.Stats != nil {
		e.Stats(st)
	}
	return p, nil
}

// Check compares marginals p of net (for the bias terms of opt) with
// MC-SAT's as Options.Check does (opt.Check samples per chain, default
// mcsat.DefaultSamples) and returns the atoms not confirmed within
// opt.CheckTolerance, the largest difference first, and the largest
// difference. It serves engines that compute BP's marginals another way
// (LiftModel, Frontier after SetBias).
func Check(ctx context.Context, net *ground.Network, p []float64, opt Options) (unreliable []int32, maxDiff float64, err error) {
	if len(p) != net.NumAtoms() {
		return nil, 0, errors.New("bp: Check: the marginals have the wrong length")
	}
	if opt.Check <= 0 {
		opt.Check = mcsat.DefaultSamples
	}
	var st Stats
	if err := check(ctx, net, p, opt, &st); err != nil {
		return nil, 0, err
	}
	return st.Unreliable, st.CheckDiff, nil
}
