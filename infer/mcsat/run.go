package mcsat

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// Method is the sampling algorithm of Run and Sampling.
type Method int

const (
	// MethodMCSAT samples by MC-SAT; the marginals average the atoms'
	// conditional probabilities given the rest of each recorded world
	// (Rao-Blackwellised), or with Options.Indicators their indicators.
	MethodMCSAT Method = iota
	// MethodGibbs samples by Gibbs sampling; the marginals average the
	// atoms' conditional probabilities (Rao-Blackwellised).
	MethodGibbs
)

// DefaultChains returns the number of chains Run and Sampling use when
// Options.Chains is 0: one per core (runtime.NumCPU), and at least 2 so
// that the chains can be compared (R-hat). The chains run in parallel on
// the workers given, and the result for a given seed is the same whatever
// their number; it depends on the number of chains, so a run on a machine
// with another number of cores gives other (equally valid) marginals:
// set Options.Chains to reproduce a run on any machine.
func DefaultChains() int { return max(2, runtime.NumCPU()) }

// LearnChains is the number of chains of a sampler inside a learner
// (engines.Settings.SplitSamples): fixed, so that learned weights for a
// given seed do not depend on the machine.
const LearnChains = 4

// Sampling is a run of several chains on every connected component of a
// network, each work unit (a component's chain) on its own random stream
// derived from (Options.Seed, component, chain), run on worker goroutines.
// The chains start from different worlds satisfying the hard clauses (in
// those of chains 0 and 1 the hard clauses' atoms are false and true where
// they can be, so that chains stuck in different modes show it: see
// startChain). Successive calls of Sample continue the chains, so sampling can
// go on in rounds until the diagnostics are good enough.
//
// After every step each chain makes block moves (see Options.BlockWeight):
// it resamples jointly, from their conditional distribution, the atoms
// that heavy clauses tie together, which moves a tied block between its
// modes in one step; and it proposes to flip together each class of atoms
// that pairs of hard binary clauses tie as equal or opposite (a fluent
// kept by inertia over a run of time points), which no single flip can
// move (Metropolis-Hastings). A negative BlockWeight turns both off.
//
// With Options.Replicas > 1 every chain is a ladder of tempered replicas
// (parallel tempering): replica i runs at weights beta_i*w (hard clauses
// stay hard), the betas geometric from 1 down to Options.MinBeta, and
// neighbouring replicas exchange worlds after every step; only the
// replicas at beta 1 are recorded. Tempering lets a chain cross between
// modes that large weights separate (blocks of atoms tied by heavy
// clauses, where one MC-SAT chain otherwise stays in the mode it entered).
type Sampling struct {
	net     *ground.Network
	opt     Options
	method  Method
	workers int

	comps  []ground.Component
	fixed  []float64 // exact marginals: atoms in no clause, small components (NaN: sampled)
	units  []*unit   // component-major, one per (sampled component, chain)
	byComp [][]*unit
	burned bool
	// recorded is the number of samples each chain has recorded.
	recorded int
}

// unit is one chain on one component.
type unit struct {
	comp, chain int
	atoms       []int32 // the component's atoms, as indices in the network
	lad         *ladder
	acc         *accum
	vals        []float64 // the recorded world's conditional probabilities (not with Indicators)
	diff        []float64 // MC-SAT: scratch of conditionals
	force       []uint8
	blocks      [][]int32 // the blocks of the block moves
	classes     [][]int32 // the classes of atoms hard clauses tie (tiedClasses)
	stars       []star    // the star moves (Options.Stars)
	sgain       []float64 // scratch of the star moves
	bscore      []float64 // scratch of the block moves
	bhard       []int32
	cost        int // literals: a rough cost per step, for scheduling
}

// NewSampling prepares a run on net: it splits net into its connected
// components and starts every chain (no step taken yet). workers <= 0 means
// GOMAXPROCS. Options.Chains 0 means DefaultChains(); Samples and BurnIn
// are the default round lengths of Sample (see Run).
func NewSampling(ctx context.Context, net *ground.Network, workers int, opt Options, method Method) (*Sampling, error) {
	if opt.Bias != nil && len(opt.Bias) != net.NumAtoms() {
		return nil, errors.New("mcsat: Bias has the wrong length")
	}
	if method != MethodMCSAT && method != MethodGibbs {
		return nil, errors.New("mcsat: unknown sampling method")
	}
	if opt.Chains <= 0 {
		opt.Chains = DefaultChains()
	}
	if opt.Replicas <= 0 {
		opt.Replicas = DefaultReplicas
	}
	if opt.MinBeta <= 0 || opt.MinBeta >= 1 {
		opt.MinBeta = DefaultMinBeta
	}
	if opt.BlockWeight == 0 {
		opt.BlockWeight = DefaultBlockWeight
	}
	if opt.MaxBlock <= 0 {
		opt.MaxBlock = DefaultMaxBlock
	}
	opt.MaxBlock = min(opt.MaxBlock, 20)
	opt.defaults()
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	r := &Sampling{net: net, opt: opt, method: method, workers: workers}
	r.comps = net.Components()
	r.fixed = make([]float64, net.NumAtoms())
	r.byComp = make([][]*unit, len(r.comps))
	for k, c := range r.comps {
		if len(c.Clauses) == 0 {
			for _, a := range c.Atoms {
				b := 0.0
				if opt.Bias != nil {
					b = opt.Bias[a]
				}
				r.fixed[a] = 1 / (1 + math.Exp(-b))
			}
			continue
		}
		if p, ok := enumerateMarginals(net, c, opt.Bias, exactLimit(opt)); ok {
			for i, a := range c.Atoms {
				r.fixed[a] = p[i]
			}
			continue
		}
		for _, a := range c.Atoms {
			r.fixed[a] = math.NaN()
		}
		cost := 0
		for _, cl := range c.Clauses {
			cost += len(net.Clause(int(cl)))
		}
		for ch := 0; ch < opt.Chains; ch++ {
			u := &unit{comp: k, chain: ch, cost: cost * opt.Replicas}
			u.atoms = make([]int32, len(c.Atoms))
			for i, a := range c.Atoms {
				u.atoms[i] = int32(a)
			}
			r.units = append(r.units, u)
			r.byComp[k] = append(r.byComp[k], u)
		}
	}
	// Build each component's models and blocks once, shared by its chains.
	models := make([][]*model, len(r.comps))
	blocks := make([][][]int32, len(r.comps))
	classes := make([][][]int32, len(r.comps))
	stars := make([][]star, len(r.comps))
	bs := betas(opt.Replicas, opt.MinBeta)
	err := r.parallel(ctx, len(r.comps), func(k int) error {
		if len(r.byComp[k]) == 0 {
			return nil
		}
		c := r.comps[k]
		sub := net.Sub(c)
		var bias []float64
		if opt.Bias != nil {
			bias = make([]float64, len(c.Atoms))
			for i, a := range c.Atoms {
				bias[i] = opt.Bias[a]
			}
		}
		m, err := newModel(ctx, sub, bias)
		if err != nil {
			return err
		}
		if opt.BlockWeight > 0 {
			blocks[k] = m.blocks(opt.BlockWeight, opt.MaxBlock)
			classes[k] = m.tiedClasses()
		}
		stars[k] = m.chooseStars(&opt)
		models[k] = make([]*model, len(bs))
		for i, b := range bs {
			models[k][i] = m.scaled(b)
		}
		return nil
	}, func(k int) int { return len(r.comps[k].Clauses) })
	if err != nil {
		return nil, err
	}
	err = r.parallel(ctx, len(r.units), func(i int) error {
		u := r.units[i]
		ms := models[u.comp]
		rng := rand.New(rand.NewPCG(splitmix(uint64(opt.Seed)^splitmix(uint64(u.comp)+0x9e3779b97f4a7c15)), splitmix(uint64(u.chain)+0x6a09e667f3bcc909)))
		l := &ladder{beta: bs, tried: make([]int, len(bs)), accepted: make([]int, len(bs))}
		var sw []float64
		if len(bs) > 1 {
			sw = ms[0].softWeights()
		}
		for j := range bs {
			s, err := startChain(ms[j], &r.opt, rng, u.chain)
			if err != nil {
				return err
			}
			if method == MethodGibbs {
				s.begin() // nothing active: flips need no clause lists
			}
			if sw != nil {
				s.track(sw)
			}
			l.reps = append(l.reps, s)
		}
		u.lad = l
		u.blocks = blocks[u.comp]
		u.classes = classes[u.comp]
		u.stars = stars[u.comp]
		u.sgain = starScratch(u.stars)
		big := 0
		for _, b := range u.blocks {
			big = max(big, len(b))
		}
		if big > 0 {
			u.bscore = make([]float64, 1<<big)
			u.bhard = make([]int32, 1<<big)
		}
		indicators := method == MethodMCSAT && opt.Indicators
		u.acc = newAccum(len(u.atoms), !indicators)
		if !indicators {
			u.vals = make([]float64, len(u.atoms))
		}
		if method == MethodMCSAT && !indicators {
			u.diff, u.force = make([]float64, len(u.atoms)), make([]uint8, len(u.atoms))
		}
		return nil
	}, func(i int) int { return r.units[i].cost })
	if err != nil {
		return nil, err
	}
	return r, nil
}

// splitmix is the SplitMix64 finaliser, used to derive the random
// streams of the work units.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// startChain returns a state of m drawing from rng for chain number
// chain, in a world satisfying the hard clauses, found by the exact search
// (infer.SAT, DPLL) from a starting world: the atoms of the hard clauses
// all false for chain 0, all true for chain 1, and random for the others
// (every other atom random), each atom the search branches on taking
// first its value there. The chains thus start apart, so that chains
// stuck in different modes that hard clauses separate (a long run of
// atoms that hard clauses tie, which local moves cannot flip) disagree and
// R-hat flags them, where chains started close together would agree on
// one mode. When the search gives up (after startNodes branchings), WalkSAT
// repairs the random world, within Options.InitSteps moves. It fails with
// an error wrapping ErrHard and infer.ErrInfeasible when the search
// proves that no world satisfies the hard clauses, and with one wrapping
// ErrHard otherwise.
func startChain(m *model, opt *Options, rng *rand.Rand, chain int) (*state, error) {
	s := newState(m, rng)
	for a := range s.y {
		s.y[a] = rng.Uint64()&1 == 1
	}
	var searchErr error
	if hard := m.hardClauses(); len(hard) > 0 {
		phase := append([]bool(nil), s.y...)
		if chain < 2 {
			for _, c := range hard {
				for _, l := range c {
					phase[l.Atom()] = chain == 1
				}
			}
		}
		sat := infer.NewSAT(hard)
		sat.Phase, sat.Rand, sat.MaxNodes = phase, rng, startNodes
		ok, err := sat.Solve()
		switch {
		case err == nil && !ok:
			return nil, errInfeasible
		case err == nil:
			copy(s.y, phase)
			sat.Fill(s.y)
		default:
			searchErr = err
		}
	}
	ok, err := s.initHard(opt.InitSteps, opt.Noise)
	switch {
	case err != nil:
		return nil, err
	case !ok && searchErr != nil:
		return nil, fmt.Errorf("%w: WalkSAT failed within %d moves, and the exact search: %w", ErrHard, opt.InitSteps, searchErr)
	case !ok:
		return nil, fmt.Errorf("mcsat: the world the exact search found violates a hard clause")
	}
	return s, nil
}

// startNodes bounds the branchings of the exact search for a chain's
// first world; beyond it WalkSAT tries (engines.CheckHard has already
// decided the network with a larger budget when the engine comes from the
// registry).
const startNodes = 100_000

// errInfeasible is the error of a chain whose hard clauses no world
// satisfies: it wraps ErrHard and infer.ErrInfeasible.
var errInfeasible error = infeasibleError{}

type infeasibleError struct{}

func (infeasibleError) Error() string {
	return "mcsat: " + infer.ErrInfeasible.Error() + ": no world satisfies them"
}
func (infeasibleError) Unwrap() []error { return []error{ErrHard, infer.ErrInfeasible} }

// initHard starts the bookkeeping of s from its world: the hard clauses
// of weight -Inf made false, those of weight +Inf active, and at most
// maxSteps WalkSAT moves to satisfy them (0: none). It reports whether
// they all hold.
func (s *state) initHard(maxSteps int, noise float64) (bool, error) {
	m := s.m
	s.recount()
	s.begin()
	for c := range m.w {
		if math.IsInf(m.w[c], -1) {
			s.fixFalse(c)
		}
	}
	for c := range m.w {
		if math.IsInf(m.w[c], 1) {
			s.activate(c)
		}
	}
	for c := range m.w {
		if math.IsInf(m.w[c], -1) && s.numTrue[c] != 0 {
			return false, errInfeasible // two must-be-false clauses disagree
		}
	}
	if len(s.unsat) == 0 {
		return true, nil
	}
	return s.walkSAT(maxSteps, noise), nil
}

// hardClauses returns the hard clauses of m as clauses that must hold: a
// clause of weight +Inf as it is, one of weight -Inf as the unit clauses
// of its negated literals.
func (m *model) hardClauses() [][]ground.Lit {
	var cls [][]ground.Lit
	for c, w := range m.w {
		switch {
		case math.IsInf(w, 1):
			cls = append(cls, m.clause(c))
		case math.IsInf(w, -1):
			for _, l := range m.clause(c) {
				cls = append(cls, []ground.Lit{l.Not()})
			}
		}
	}
	return cls
}

// parallel calls fn(i) for i in [0, n) on r.workers goroutines, the
// costliest first, and returns the first error (ctx's if cancelled).
func (r *Sampling) parallel(ctx context.Context, n int, fn func(i int) error, cost func(i int) int) error {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return cost(order[a]) > cost(order[b]) })
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     = make(chan int)
	)
	for w := 0; w < min(r.workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, i := range order {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// Sample advances every chain by n recorded steps (MC-SAT steps or Gibbs
// sweeps), after Options.BurnIn unrecorded ones on the first call.
func (r *Sampling) Sample(ctx context.Context, n int) error {
	burn := 0
	if !r.burned {
		burn = r.opt.BurnIn
	}
	err := r.parallel(ctx, len(r.units), func(i int) error {
		u := r.units[i]
		for step := 0; step < burn+n; step++ {
			// Every step: one step of a network of a million atoms
			// takes about a second.
			if err := ctx.Err(); err != nil {
				return err
			}
			r.step(u, step >= burn)
		}
		return nil
	}, func(i int) int { return r.units[i].cost })
	if err != nil {
		return err
	}
	r.burned = true
	r.recorded += n
	return nil
}

// step moves every replica of u once, exchanges worlds between them and
// records replica 0 when record is set.
func (r *Sampling) step(u *unit, record bool) {
	l := u.lad
	for j, s := range l.reps {
		if r.method == MethodMCSAT {
			s.mcsatStep(&r.opt)
		} else {
			for a := range s.y {
				p := s.conditional(int32(a), r.opt.HardWeight)
				if j == 0 && record {
					u.vals[a] = p
				}
				if v := s.rng.Float64() < p; v != s.y[a] {
					s.flip(int32(a))
				}
			}
		}
		for _, b := range u.blocks {
			s.blockMove(b, r.opt.HardWeight, u.bscore, u.bhard)
		}
		for _, b := range u.classes {
			s.classMove(b, r.opt.HardWeight)
		}
		s.starSweep(u.stars, u.sgain)
	}
	switch {
	case !record:
	case r.method == MethodMCSAT && r.opt.Indicators:
		u.acc.addBool(l.reps[0].y)
	case r.method == MethodMCSAT:
		l.reps[0].conditionals(u.vals, u.diff, u.force, r.opt.HardWeight)
		u.acc.addValues(u.vals)
	default:
		u.acc.addValues(u.vals)
	}
	l.exchange()
}

// Marginals returns the marginal probability of every atom of the
// network: the samples of all chains pooled (closed form for atoms in no
// clause).
func (r *Sampling) Marginals() []float64 {
	probs := append([]float64(nil), r.fixed...)
	for _, us := range r.byComp {
		if len(us) == 0 {
			continue
		}
		total := 0
		for _, u := range us {
			total += u.acc.count
		}
		for i, a := range us[0].atoms {
			s := 0.0
			for _, u := range us {
				s += u.acc.sum[i]
			}
			probs[a] = s / float64(total)
		}
	}
	return probs
}

// Diagnostics returns the per-atom R-hat and ESS of the samples so far,
// summarized over all atoms with RhatThreshold (see Summarize).
func (r *Sampling) Diagnostics() *Diagnostics {
	n := r.net.NumAtoms()
	d := &Diagnostics{Chains: r.opt.Chains, Samples: r.recorded, Rhat: make([]float64, n), ESS: make([]float64, n), StdErr: make([]float64, n)}
	for a := range d.Rhat {
		d.Rhat[a], d.ESS[a] = 1, math.Inf(1)
	}
	for _, us := range r.byComp {
		if len(us) == 0 {
			continue
		}
		accs := make([]*accum, len(us))
		for i, u := range us {
			accs[i] = u.acc
		}
		diagnose(accs, us[0].atoms, d.Rhat, d.ESS, d.StdErr)
	}
	d.Summarize(nil, RhatThreshold)
	return d
}

// StarMoves returns the number of hubs whose star moves the chains make
// (Options.Stars, AutoStars) and the number of their leaves, over all
// components.
func (r *Sampling) StarMoves() (hubs, leaves int) {
	for _, us := range r.byComp {
		if len(us) == 0 {
			continue
		}
		hubs += len(us[0].stars)
		for _, st := range us[0].stars {
			leaves += len(st.leaves)
		}
	}
	return hubs, leaves
}

// SwapRates returns, for each pair of neighbouring replicas (i, i+1), the
// fraction of proposed exchanges accepted over all chains (nil without
// tempering).
func (r *Sampling) SwapRates() []float64 {
	if r.opt.Replicas < 2 {
		return nil
	}
	tried := make([]int, r.opt.Replicas-1)
	acc := make([]int, r.opt.Replicas-1)
	for _, u := range r.units {
		for i := range tried {
			tried[i] += u.lad.tried[i]
			acc[i] += u.lad.accepted[i]
		}
	}
	out := make([]float64, len(tried))
	for i := range out {
		if tried[i] > 0 {
			out[i] = float64(acc[i]) / float64(tried[i])
		}
	}
	return out
}

// Run estimates the marginal probability of every atom of net with
// several chains (Options.Chains, default DefaultChains()) on every
// connected component, run in parallel on workers goroutines (0:
// GOMAXPROCS), each chain taking Options.BurnIn then Options.Samples
// steps; the samples of all chains are pooled. The result for a given
// seed does not depend on workers. It also returns the chains'
// convergence diagnostics.
func Run(ctx context.Context, net *ground.Network, workers int, opt Options, method Method) ([]float64, *Diagnostics, error) {
	r, err := NewSampling(ctx, net, workers, opt, method)
	if err != nil {
		return nil, nil, err
	}
	if err := r.Sample(ctx, r.opt.Samples); err != nil {
		return nil, nil, err
	}
	return r.Marginals(), r.Diagnostics(), nil
}

// RunMemory is what Run and Sampling take on top of the network with the
// given numbers of chains and of replicas per chain (0: the defaults):
// Memory for the model and one world, every further world's counts, and
// each chain's batch sums (twice as many for Gibbs, which also keeps sums
// of squares). The per-atom figures of the worlds and the batch sums are
// from the sizes of the arrays, not measured.
func RunMemory(chains, replicas int, method Method) ground.EngineCost {
	if chains <= 0 {
		chains = DefaultChains()
	}
	if replicas <= 0 {
		replicas = DefaultReplicas
	}
	worlds := float64(chains*replicas - 1)
	batch := float64(8 * (maxBatches + 2))
	if method == MethodGibbs {
		batch = 2*batch + 8
	}
	return ground.EngineCost{
		PerAtom:   Memory.PerAtom + worlds*9 + float64(chains)*batch,
		PerClause: Memory.PerClause + worlds*16,
		PerLit:    Memory.PerLit,
	}
}

// RunEngine is Run as an infer.Marginal: several chains on every
// connected component (Options.Chains, default DefaultChains()) with block
// moves (Options.BlockWeight, MaxBlock) and optional tempering, pooled,
// Workers goroutines at a time (0: GOMAXPROCS). Options.Samples and
// BurnIn are per chain. Each call replaces the infer.Options part of
// Options (bias and seed); the marginals for a seed do not depend on
// Workers. Report, when set, receives each call's diagnostics.
type RunEngine struct {
	Method  Method
	Options Options
	Workers int
	Report  func(*Diagnostics)
}

// Name returns "mcsat" or "gibbs".
func (e RunEngine) Name() string {
	if e.Method == MethodGibbs {
		return "gibbs"
	}
	return "mcsat"
}

// Marginals returns the marginal probability of each atom of net being
// true, with the engine's options and the call's bias and seed.
func (e RunEngine) Marginals(ctx context.Context, net *ground.Network, opt infer.Options) ([]float64, error) {
	o := e.Options
	o.Options = opt
	probs, d, err := Run(ctx, net, e.Workers, o, e.Method)
	if err != nil {
		return nil, err
	}
	if e.Report != nil {
		e.Report(d)
	}
	return probs, nil
}
