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
// may not converge, and when it does its marginals are approximate.
// Marginals reports whether the messages converged.
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
	"sync"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
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
	// Workers is the number of goroutines (default GOMAXPROCS). The result
	// does not depend on it.
	Workers int
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
}

// Memory is what Marginals takes on top of the network
// (ground.Options.Engine): a message and an index per literal, and
// per-atom sums.
var Memory = ground.EngineCost{PerAtom: 24, PerClause: 4, PerLit: 16}

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
			change = math.Max(change, math.Abs(p-g.marginal[a]))
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
	if opt.Damping < 0 || opt.Damping >= 1 {
		return nil, nil, errors.New("bp: Damping must be in [0, 1)")
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	g, err := newGraph(net, opt.Bias, opt.Workers)
	if err != nil {
		return nil, nil, err
	}
	st := &Stats{}
	g.sums()
	for st.Iterations < opt.MaxIterations {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		g.update(opt.Damping)
		st.Iterations++
		st.MaxChange = g.sums()
		if st.MaxChange <= opt.Tolerance {
			st.Converged = true
			break
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

// Marginals runs Lifted with the engine's options and opt's seed and bias.
func (e LiftedEngine) Marginals(ctx context.Context, net *ground.Network, opt infer.Options) ([]float64, error) {
	o := e.Options
	o.Options = opt
	p, st, err := lifted(ctx, net, o, e.Rounds)
	if err == nil && e.Stats != nil {
		e.Stats(st)
	}
	return p, err
}
