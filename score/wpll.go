package score

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"gonum.org/v1/gonum/optimize"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/lbfgs"
	"github.com/marple-mln/marple/mln"
)

// Defaults of generative (pseudo-likelihood) weight learning, Alchemy's
// `learnwts -g` where it has one.
const (
	// DefaultPLLPriorStdDev is the standard deviation of the Gaussian prior
	// on the weights (Alchemy's GEN_DEFAULT_STD_DEV, the default of
	// -priorStdDev with -g).
	DefaultPLLPriorStdDev = 100
	// DefaultPLLMaxIter bounds the L-BFGS iterations (Alchemy's -gMaxIter).
	DefaultPLLMaxIter = 10000
	// DefaultPLLConvThresh is the relative change of the objective under
	// which L-BFGS stops (Alchemy's -gConvThresh).
	DefaultPLLConvThresh = 1e-5
	// DefaultHardWeight is the fixed weight a hard clause has in the
	// conditional probabilities of the pseudo-likelihood (see
	// PLLOptions.HardWeight).
	DefaultHardWeight = 100
)

// PLLOptions configure a WPLL.
type PLLOptions struct {
	// Unweighted gives every atom weight 1 in the sum (the plain
	// pseudo-log-likelihood). By default each atom is weighted by
	// 1/(number of included atoms of its predicate), Alchemy's default
	// (its -gNoEqualPredWt turns this off), so that every predicate counts
	// the same whatever its number of groundings.
	Unweighted bool
	// HardWeight is the fixed weight of hard clauses in the conditional
	// distributions (0 means DefaultHardWeight). Alchemy, too, gives hard
	// clauses a large finite weight while learning. A hard clause the
	// truth satisfies and a flip would break then makes the flipped value
	// e^-HardWeight times as likely: with the default that atom's term is 0
	// to within 1e-43 and adds nothing to the gradient, as if the clause
	// were a constraint. A hard clause the truth violates costs a finite
	// penalty instead of making the pseudo-likelihood zero.
	HardWeight float64
	// Workers is the number of goroutines an evaluation uses (0 means
	// GOMAXPROCS). The result does not depend on it.
	Workers int
}

// WPLL is the weighted pseudo-log-likelihood of a ground network whose
// atoms all have known truth values x (Besag 1975; Richardson & Domingos
// 2006; Kok & Domingos 2005):
//
//	WPLL(w) = Σ_a c_a · log P_w(X_a = x_a | MB_x(X_a)),
//
// the sum running over the included atoms, c_a = 1/(included atoms of a's
// predicate) or 1 (PLLOptions.Unweighted). With s_a(w) = S_w(x) − S_w(x
// with a flipped), S_w the log-potential,
//
//	log P_w(X_a = x_a | MB) = log σ(s_a),   ∂/∂w_p = σ(−s_a) · Δ_ap,
//
// where Δ_ap = n_p(x) − n_p(x with a flipped) is the change of parameter
// p's count when a is flipped, and s_a = Σ_p w_p·Δ_ap + o_a with o_a the
// contribution of clauses without a parameter (hard clauses at
// PLLOptions.HardWeight, fixed-weight clauses at their weight).
//
// NewWPLL computes the Δ_a once, in compressed sparse rows (dense int32
// parameter IDs), and merges atoms whose rows (Δ_a, o_a) are equal into one
// row with the summed c_a (Alchemy's "compress"); each evaluation is then
// one pass over the distinct rows, split into fixed blocks evaluated
// concurrently and reduced in block order (deterministic whatever the
// number of workers). Only the clauses containing an atom matter, and of
// those only the ones no other literal satisfies under x.
//
// PLLData.ModelRows and Scorer build the same rows from first-order clause
// counts, without a network.
//
// Extend picks up clauses appended to the network
// after NewWPLL (ground.Network.AddModelClause), recomputing only the rows
// of the atoms they contain, and returns a new WPLL; the old one stays
// valid. A WPLL is safe for concurrent evaluations.
type WPLL struct {
	net     *ground.Network
	truth   []bool
	include []bool
	opt     PLLOptions
	nc      int     // clauses covered
	np      int     // parameters (every Param < np)
	numTrue []int32 // per clause: true literals under truth

	// Per-atom rows (Δ_a, o_a): Δ_a is aIdx/aVal[aStart[a]:aStart[a+1]],
	// indices increasing.
	aStart []int
	aIdx   []int32
	aVal   []float64
	aOff   []float64
	aMul   []float64 // c_a, 0 for excluded atoms
	aRow   []int32   // per atom: its merged row (-1: merged into the constant, or excluded)
	// aGlobal, for a WPLL built from clause counts, gives the global row
	// (PLLData) of each atom.
	aGlobal []int32

	// Distinct rows with a parameter, merged, and their blocks.
	rStart []int
	rIdx   []int32
	rVal   []float64
	rOff   []float64
	rMul   []float64
	blocks []int // row boundaries of the evaluation blocks
	// constant is the part of WPLL from rows without parameters.
	constant float64
	atoms    int // included atoms
}

// NewWPLL builds the pseudo-log-likelihood of net at the assignment truth
// (one value per atom), over the atoms marked in include (nil: all).
// Clauses with a parameter carry the weight w_Param·Coef; others keep a
// fixed weight (hard ones PLLOptions.HardWeight). The network's occurrence
// lists are built here.
func NewWPLL(net *ground.Network, truth, include []bool, opt PLLOptions) (*WPLL, error) {
	if net == nil {
		return nil, errors.New("score: NewWPLL needs a network")
	}
	n := net.NumAtoms()
	if len(truth) != n {
		return nil, fmt.Errorf("score: NewWPLL: truth has %d atoms, network %d", len(truth), n)
	}
	if include != nil && len(include) != n {
		return nil, fmt.Errorf("score: NewWPLL: include mask has %d atoms, network %d", len(include), n)
	}
	if opt.HardWeight < 0 || math.IsNaN(opt.HardWeight) || math.IsInf(opt.HardWeight, 0) {
		return nil, fmt.Errorf("score: NewWPLL: hard weight %v", opt.HardWeight)
	}
	if opt.HardWeight == 0 {
		opt.HardWeight = DefaultHardWeight
	}
	p := &WPLL{net: net, truth: slices.Clone(truth), opt: opt}
	if include != nil {
		p.include = slices.Clone(include)
	}
	dirty := make([]bool, n)
	for a := range dirty {
		dirty[a] = true
	}
	p.build(dirty, nil)
	return p, nil
}

// Extend returns the pseudo-log-likelihood of the network with the clauses
// appended to it since p was built (e.g. by ground.Network.AddModelClause
// for a clause just added to the model): only the atoms of the new clauses
// get new rows. When the network gained atoms too, truth and include give
// the values and the mask of all its atoms (include nil: all atoms);
// otherwise pass nil, nil to keep p's. p itself is not changed.
func (p *WPLL) Extend(truth, include []bool) (*WPLL, error) {
	net := p.net
	n := net.NumAtoms()
	if net.NumClauses() < p.nc {
		return nil, errors.New("score: WPLL.Extend: the network lost clauses")
	}
	q := &WPLL{net: net, truth: p.truth, include: p.include, opt: p.opt}
	if n != len(p.truth) || truth != nil {
		if len(truth) != n || (include != nil && len(include) != n) {
			return nil, fmt.Errorf("score: WPLL.Extend: the network has %d atoms: give their truth values and mask", n)
		}
		q.truth = slices.Clone(truth)
		q.include = slices.Clone(include)
	}
	dirty := make([]bool, n)
	for a := len(p.truth); a < n; a++ {
		dirty[a] = true
	}
	if truth != nil {
		for a := 0; a < len(p.truth); a++ {
			if truth[a] != p.truth[a] {
				for a := range dirty {
					dirty[a] = true // values changed: start again
				}
				break
			}
		}
	}
	for c := p.nc; c < net.NumClauses(); c++ {
		for _, l := range net.Clause(c) {
			dirty[l.Atom()] = true
		}
	}
	q.build(dirty, p)
	return q, nil
}

// NumParams returns the number of parameters the rows refer to: the
// weight vectors given to Eval must be at least this long.
func (p *WPLL) NumParams() int { return p.np }

// Atoms returns the number of atoms in the sum.
func (p *WPLL) Atoms() int { return p.atoms }

// Rows returns the number of distinct rows an evaluation visits.
func (p *WPLL) Rows() int { return len(p.rOff) }

// Eval returns WPLL(w) (no prior) and, when grad is not nil, stores its
// gradient in grad[:NumParams()] (entries beyond are left alone). w must
// have at least NumParams() entries.
func (p *WPLL) Eval(w, grad []float64) float64 {
	if len(w) < p.np || (grad != nil && len(grad) < p.np) {
		panic(fmt.Sprintf("score: WPLL.Eval: %d weights, %d parameters", len(w), p.np))
	}
	nb := len(p.blocks) - 1
	if nb <= 0 {
		if grad != nil {
			clear(grad[:p.np])
		}
		return p.constant
	}
	vals := make([]float64, nb)
	var grads [][]float64
	if grad != nil {
		grads = make([][]float64, nb)
		grads[0] = grad[:p.np]
		for b := 1; b < nb; b++ {
			grads[b] = make([]float64, p.np)
		}
	}
	workers := p.opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, nb)
	if workers == 1 {
		for b := 0; b < nb; b++ {
			vals[b] = p.evalBlock(b, w, grads)
		}
	} else {
		var wg sync.WaitGroup
		next := make(chan int)
		for k := 0; k < workers; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for b := range next {
					vals[b] = p.evalBlock(b, w, grads)
				}
			}()
		}
		for b := 0; b < nb; b++ {
			next <- b
		}
		close(next)
		wg.Wait()
	}
	v := p.constant
	for b := 0; b < nb; b++ {
		v += vals[b]
	}
	if grad != nil {
		g := grads[0]
		for b := 1; b < nb; b++ {
			for i, x := range grads[b] {
				g[i] += x
			}
		}
	}
	return v
}

// evalBlock evaluates block b, writing its gradient into grads[b] (when
// grads is not nil) and returning its value.
func (p *WPLL) evalBlock(b int, w []float64, grads [][]float64) float64 {
	var g []float64
	if grads != nil {
		g = grads[b]
		clear(g)
	}
	v := 0.0
	for r := p.blocks[b]; r < p.blocks[b+1]; r++ {
		lo, hi := p.rStart[r], p.rStart[r+1]
		s := p.rOff[r]
		for k := lo; k < hi; k++ {
			s += w[p.rIdx[k]] * p.rVal[k]
		}
		m := p.rMul[r]
		v += m * logSigmoid(s)
		if g != nil {
			f := m / (1 + math.Exp(s)) // m·σ(−s)
			for k := lo; k < hi; k++ {
				g[p.rIdx[k]] += f * p.rVal[k]
			}
		}
	}
	return v
}

// logSigmoid returns log σ(s) = −log(1 + e^−s), stably.
func logSigmoid(s float64) float64 {
	if s >= 0 {
		return -math.Log1p(math.Exp(-s))
	}
	return s - math.Log1p(math.Exp(s))
}

// diffEps is the magnitude under which an entry of a row is taken to be
// zero (rounding residue of coefficient sums such as 1/3+1/3+1/3−1).
const diffEps = 1e-12

// pllBlockNonzeros is the work (row entries) of one evaluation block, and
// pllMaxBlocks bounds their number.
const (
	pllBlockNonzeros = 1 << 15
	pllMaxBlocks     = 32
)

// build computes the rows of the dirty atoms, takes the others from old
// (nil when every atom is dirty), then weighs and merges the rows.
func (p *WPLL) build(dirty []bool, old *WPLL) {
	net := p.net
	n := net.NumAtoms()
	nc := net.NumClauses()
	p.nc = nc
	// True literals per clause.
	p.numTrue = make([]int32, nc)
	from := 0
	if old != nil && len(old.truth) == len(p.truth) && slices.Equal(old.truth, p.truth) {
		copy(p.numTrue, old.numTrue)
		from = old.nc
	}
	parallelChunks(nc-from, 1<<16, p.opt.Workers, func() func(lo, hi int) {
		return func(lo, hi int) {
			for c := from + lo; c < from+hi; c++ {
				t := int32(0)
				for _, l := range net.Clause(c) {
					if l.True(p.truth) {
						t++
					}
				}
				p.numTrue[c] = t
			}
		}
	})
	// Parameters.
	np := 0
	if net.Model != nil {
		np = len(net.Model.Weights)
	}
	np = max(np, int(net.MaxParam())+1)
	p.np = np
	if n > 0 {
		net.Occurrences(0) // build the index before any concurrent use
	}

	// Per-atom rows, computed by chunks of atoms concurrently and
	// concatenated in atom order.
	p.aOff = make([]float64, n)
	const chunk = 4096
	type piece struct {
		lens []int
		idx  []int32
		val  []float64
	}
	pieces := make([]piece, (n+chunk-1)/chunk)
	parallelChunks(n, chunk, p.opt.Workers, func() func(lo, hi int) {
		acc := make([]float64, np)
		seen := make([]bool, np)
		var touched []int32
		return func(lo, hi int) {
			pc := &pieces[lo/chunk]
			for a := lo; a < hi; a++ {
				if !dirty[a] && old != nil && a < len(old.aOff) {
					olo, ohi := old.aStart[a], old.aStart[a+1]
					pc.idx = append(pc.idx, old.aIdx[olo:ohi]...)
					pc.val = append(pc.val, old.aVal[olo:ohi]...)
					pc.lens = append(pc.lens, ohi-olo)
					p.aOff[a] = old.aOff[a]
					continue
				}
				k := len(pc.idx)
				pc.idx, pc.val, touched, p.aOff[a] = p.row(a, acc, seen, touched, pc.idx, pc.val)
				pc.lens = append(pc.lens, len(pc.idx)-k)
			}
		}
	})
	total := 0
	for _, pc := range pieces {
		total += len(pc.idx)
	}
	p.aStart = make([]int, 1, n+1)
	p.aIdx = make([]int32, 0, total)
	p.aVal = make([]float64, 0, total)
	for _, pc := range pieces {
		p.aIdx = append(p.aIdx, pc.idx...)
		p.aVal = append(p.aVal, pc.val...)
		for _, l := range pc.lens {
			p.aStart = append(p.aStart, p.aStart[len(p.aStart)-1]+l)
		}
	}

	// Atom weights c_a.
	p.aMul = make([]float64, n)
	count := map[mln.PredID]int{}
	pred := func(a int) mln.PredID {
		if a < len(net.AtomPred) {
			return net.AtomPred[a]
		}
		return -1
	}
	p.atoms = 0
	for a := 0; a < n; a++ {
		if p.include == nil || p.include[a] {
			count[pred(a)]++
			p.atoms++
		}
	}
	for a := 0; a < n; a++ {
		if p.include == nil || p.include[a] {
			if p.opt.Unweighted {
				p.aMul[a] = 1
			} else {
				p.aMul[a] = 1 / float64(count[pred(a)])
			}
		}
	}
	p.compress(true)
}

// row appends to idx and val the count differences Δ_a of atom a (indices
// increasing) and returns them with o_a. acc and seen (one entry per
// parameter, zero and false) and touched are scratch space, left clean.
func (p *WPLL) row(a int, acc []float64, seen []bool, touched []int32, idx []int32, val []float64) ([]int32, []float64, []int32, float64) {
	net := p.net
	touched = touched[:0]
	off := 0.0
	ya := p.truth[a]
	prev := int32(-1)
	for _, c := range net.Occurrences(int32(a)) {
		if c == prev {
			continue // the atom twice in one clause
		}
		prev = c
		// Literals of a: does one hold under the truth, under the flip?
		onTruth, onFlip := false, false
		trueHere := int32(0)
		for _, l := range net.Clause(int(c)) {
			if l.Atom() != int32(a) {
				continue
			}
			if ya != l.Neg() {
				onTruth = true
				trueHere++
			} else {
				onFlip = true
			}
		}
		if p.numTrue[c]-trueHere > 0 || onTruth == onFlip {
			continue // satisfied by another literal, or a tautology in a
		}
		d := 1.0 // satisfied under the truth only
		if onFlip {
			d = -1
		}
		if q := net.Param(int(c)); q >= 0 {
			acc[q] += d * net.Coef(int(c))
			if !seen[q] {
				seen[q] = true
				touched = append(touched, q)
			}
			continue
		}
		wc := net.Weight(int(c))
		switch {
		case math.IsInf(wc, 1):
			off += d * p.opt.HardWeight
		case math.IsInf(wc, -1):
			off -= d * p.opt.HardWeight
		case !math.IsNaN(wc):
			off += d * wc
		}
	}
	slices.Sort(touched)
	for _, q := range touched {
		v := acc[q]
		acc[q], seen[q] = 0, false
		if math.Abs(v) > diffEps {
			idx = append(idx, q)
			val = append(val, v)
		}
	}
	return idx, val, touched, off
}

// parallelChunks calls, for every chunk [lo, hi) of [0, n) of the given
// size, a function made by newWorker (one per goroutine, so that it may own
// scratch space), workers goroutines at a time (0: GOMAXPROCS).
func parallelChunks(n, size, workers int, newWorker func() func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	nch := (n + size - 1) / size
	workers = min(workers, nch)
	if workers == 1 {
		fn := newWorker()
		for lo := 0; lo < n; lo += size {
			fn(lo, min(lo+size, n))
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for k := 0; k < workers; k++ {
		fn := newWorker()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lo := range next {
				fn(lo, min(lo+size, n))
			}
		}()
	}
	for lo := 0; lo < n; lo += size {
		next <- lo
	}
	close(next)
	wg.Wait()
}

// compress merges equal atom rows (rows without parameters into the
// constant) and splits the distinct rows into evaluation blocks. The atoms
// are visited in atom order, or with canonical in the order of their rows'
// contents (then of their weights c_a): the distinct rows, their order and
// every sum are then the same whatever order the atoms were numbered in
// (the order of a database's lines, which decides the constants' numbers),
// so an evaluation's rounding, and an optimiser's path through it, is too.
func (p *WPLL) compress(canonical bool) {
	n := len(p.aOff)
	order := make([]int32, n)
	for a := range order {
		order[a] = int32(a)
	}
	if canonical {
		slices.SortStableFunc(order, p.compareAtoms)
	}
	p.rStart = []int{0}
	p.rIdx, p.rVal, p.rOff, p.rMul = nil, nil, nil, nil
	p.constant = 0
	// Rows without parameters, by offset, summed in atom order.
	constMul := map[float64]float64{}
	var constKeys []float64
	buckets := map[uint64][]int32{}
	p.aRow = make([]int32, n)
	for _, a := range order {
		p.aRow[a] = -1
		m := p.aMul[a]
		if m == 0 {
			continue
		}
		// The row in terms of s_a: Δ and o are already signed by the truth.
		lo, hi := p.aStart[a], p.aStart[a+1]
		off := p.aOff[a]
		if lo == hi {
			if _, ok := constMul[off]; !ok {
				constKeys = append(constKeys, off)
			}
			constMul[off] += m
			continue
		}
		h := hashRow(p.aIdx[lo:hi], p.aVal[lo:hi], off)
		found := int32(-1)
		for _, r := range buckets[h] {
			rlo, rhi := p.rStart[r], p.rStart[r+1]
			if p.rOff[r] == off && slices.Equal(p.rIdx[rlo:rhi], p.aIdx[lo:hi]) && slices.Equal(p.rVal[rlo:rhi], p.aVal[lo:hi]) {
				found = r
				break
			}
		}
		if found >= 0 {
			p.rMul[found] += m
			p.aRow[a] = found
			continue
		}
		p.aRow[a] = int32(len(p.rOff))
		buckets[h] = append(buckets[h], int32(len(p.rOff)))
		p.rIdx = append(p.rIdx, p.aIdx[lo:hi]...)
		p.rVal = append(p.rVal, p.aVal[lo:hi]...)
		p.rOff = append(p.rOff, off)
		p.rMul = append(p.rMul, m)
		p.rStart = append(p.rStart, len(p.rIdx))
	}
	for _, off := range constKeys {
		p.constant += constMul[off] * logSigmoid(off)
	}
	// Blocks of about pllBlockNonzeros entries (at most pllMaxBlocks).
	rows := len(p.rOff)
	nnz := len(p.rIdx) + rows
	per := max(pllBlockNonzeros, (nnz+pllMaxBlocks-1)/pllMaxBlocks)
	p.blocks = []int{0}
	work := 0
	for r := 0; r < rows; r++ {
		work += p.rStart[r+1] - p.rStart[r] + 1
		if work >= per && r+1 < rows {
			p.blocks = append(p.blocks, r+1)
			work = 0
		}
	}
	if rows > 0 {
		p.blocks = append(p.blocks, rows)
	}
}

// compareAtoms orders atoms a and b by their rows (offset, then entries:
// index and value in turn, a shorter prefix first), then by their weights.
func (p *WPLL) compareAtoms(a, b int32) int {
	if c := cmp.Compare(p.aOff[a], p.aOff[b]); c != 0 {
		return c
	}
	alo, ahi := p.aStart[a], p.aStart[a+1]
	blo, bhi := p.aStart[b], p.aStart[b+1]
	for k := 0; alo+k < ahi && blo+k < bhi; k++ {
		if c := cmp.Compare(p.aIdx[alo+k], p.aIdx[blo+k]); c != 0 {
			return c
		}
		if c := cmp.Compare(p.aVal[alo+k], p.aVal[blo+k]); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(ahi-alo, bhi-blo); c != 0 {
		return c
	}
	return cmp.Compare(p.aMul[a], p.aMul[b])
}

// hashRow hashes a row (FNV-1a over its words).
func hashRow(idx []int32, val []float64, off float64) uint64 {
	h := uint64(14695981039346656037)
	mix := func(x uint64) {
		h ^= x
		h *= 1099511628211
	}
	mix(math.Float64bits(off))
	for k, i := range idx {
		mix(uint64(uint32(i)))
		mix(math.Float64bits(val[k]))
	}
	return h
}

// checkFit validates opt's prior and stopping rules and fills in their
// defaults.
func checkFit(opt *FitOptions) error {
	sigma, maxIter, conv := opt.PriorStdDev, opt.MaxIter, opt.ConvThresh
	if sigma < 0 || math.IsNaN(sigma) || math.IsInf(sigma, 0) || maxIter < 0 || conv < 0 || conv >= 1 || math.IsNaN(conv) ||
		opt.GradTol < 0 || math.IsNaN(opt.GradTol) {
		return fmt.Errorf("score: bad fit options (prior σ %v, max iterations %d, threshold %v, gradient tolerance %v)", sigma, maxIter, conv, opt.GradTol)
	}
	if sigma == 0 {
		opt.PriorStdDev = DefaultPLLPriorStdDev
	}
	if maxIter == 0 {
		opt.MaxIter = DefaultPLLMaxIter
	}
	if conv == 0 {
		opt.ConvThresh = DefaultPLLConvThresh
	}
	return nil
}

// Maximize maximises Σ_p p.Eval(w) − Σ (w−μ)²/(2σ²) over np parameters
// (every p.NumParams() ≤ np; μ from opt.PriorMeans, the groups of
// opt.Shared fitted as one weight each) with L-BFGS from opt.Warm (missing
// entries start at 0), with opt's prior and stopping rules; opt.Workers is not used (each
// WPLL evaluates with its own PLLOptions.Workers). The fit's Elapsed is the
// time Maximize took. When ctx is cancelled, it returns the fit reached so
// far with ctx's error; on other failures a nil fit.
func Maximize(ctx context.Context, ps []*WPLL, np int, opt FitOptions) (*Fit, error) {
	begin := time.Now()
	if err := checkFit(&opt); err != nil {
		return nil, err
	}
	for _, p := range ps {
		if p.NumParams() > np {
			return nil, fmt.Errorf("score: Maximize: rows over %d parameters, %d asked", p.NumParams(), np)
		}
	}
	fit, err := maximize(ctx, ps, np, opt)
	if fit != nil {
		fit.Elapsed = time.Since(begin)
	}
	return fit, err
}

// maximize is Maximize for options that passed checkFit.
func maximize(ctx context.Context, ps []*WPLL, np int, opt FitOptions) (*Fit, error) {
	sigma, maxIter, conv := opt.PriorStdDev, opt.MaxIter, opt.ConvThresh
	prec := 0.0
	if !opt.NoPrior {
		prec = 1 / (sigma * sigma)
	}
	// The fitted variables: one per parameter, or per group of
	// opt.Shared. Parameter p is v[varOf[p]]·scale[p].
	varOf, scale := make([]int, np), make([]float64, np)
	for p := range varOf {
		varOf[p], scale[p] = -1, 1
	}
	nv := 0
	for _, g := range opt.Shared {
		for _, p := range g {
			if p < 0 || p >= np || varOf[p] >= 0 {
				return nil, fmt.Errorf("score: shared parameter %d out of range or in two groups", p)
			}
			varOf[p], scale[p] = nv, 1/float64(len(g))
		}
		if len(g) > 0 {
			nv++
		}
	}
	for p := range varOf {
		if varOf[p] < 0 {
			varOf[p] = nv
			nv++
		}
	}
	mean := make([]float64, nv)
	for p, x := range opt.PriorMeans {
		if p < np {
			mean[varOf[p]] += x
		}
	}
	theta := func(v []float64) []float64 {
		w := make([]float64, np)
		for p := range w {
			w[p] = v[varOf[p]] * scale[p]
		}
		return w
	}
	// objective returns −(WPLL − prior) at the variables v and its
	// gradient with respect to them.
	scratch := make([]float64, np)
	wgrad := make([]float64, np)
	objective := func(v, grad []float64) (f, wpll float64) {
		w := theta(v)
		clear(wgrad)
		for _, p := range ps {
			var g []float64
			if grad != nil {
				g = scratch
			}
			wpll += p.Eval(w, g)
			if grad != nil {
				for i := 0; i < p.NumParams(); i++ {
					wgrad[i] -= scratch[i]
				}
			}
		}
		if grad != nil {
			clear(grad)
			for p, x := range wgrad {
				grad[varOf[p]] += x * scale[p]
			}
		}
		f = -wpll
		for i, x := range v {
			d := x - mean[i]
			f += prec * d * d / 2
			if grad != nil {
				grad[i] += prec * d
			}
		}
		return f, wpll
	}
	v0 := make([]float64, nv)
	for p, x := range opt.Warm {
		if p < np {
			v0[varOf[p]] += x
		}
	}
	fit := &Fit{}
	finish := func(v []float64) *Fit {
		g := make([]float64, nv)
		f, wpll := objective(v, g)
		fit.Weights, fit.WPLL, fit.Objective = theta(v), wpll, -f
		fit.GradNorm = 0
		for _, x := range g {
			fit.GradNorm = max(fit.GradNorm, math.Abs(x))
		}
		return fit
	}
	if np == 0 {
		fit.Status = "no parameters"
		return finish(v0), nil
	}

	evals := 0
	fg := func(x, g []float64) float64 {
		evals++
		f, _ := objective(x, g)
		return f
	}
	if opt.AlchemySchedule {
		set := lbfgs.AlchemySettings{MaxIter: maxIter, RelTol: conv}
		if opt.Progress != nil {
			set.Progress = func(iter int, f float64) { opt.Progress(iter, -f) }
		}
		res, err := lbfgs.MinimizeAlchemy(ctx, fg, v0, set)
		if res == nil {
			return nil, fmt.Errorf("score: L-BFGS: %w", err)
		}
		fit.Evaluations, fit.Iterations, fit.Status = evals, res.Iterations, res.Status
		for _, x := range res.X {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, errors.New("score: L-BFGS diverged")
			}
		}
		finish(res.X)
		return fit, err
	}
	prob := lbfgs.Problem(ctx, nv, fg)
	settings := &optimize.Settings{
		MajorIterations:   maxIter,
		GradientThreshold: max(opt.GradTol, 1e-12),
		Converger:         &optimize.FunctionConverge{Relative: conv, Iterations: 1},
	}
	if opt.Progress != nil {
		settings.Recorder = fitRecorder(opt.Progress)
	}
	method := &optimize.LBFGS{}
	if opt.GradTol > 0 {
		method.GradStopThreshold = opt.GradTol
	}
	res, err := optimize.Minimize(prob, v0, settings, method)
	fit.Evaluations = evals
	if res == nil {
		if ctx.Err() != nil {
			return finish(v0), ctx.Err()
		}
		return nil, fmt.Errorf("score: L-BFGS: %w", err)
	}
	fit.Iterations = res.MajorIterations
	fit.Status = res.Status.String()
	v := res.X
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("score: L-BFGS diverged (%v)", err)
		}
	}
	finish(v)
	if err != nil {
		if ctx.Err() != nil {
			return fit, ctx.Err()
		}
		// A line search that can make no more progress (at the optimum,
		// to rounding) ends at the best point found, which we return.
		if errors.Is(err, optimize.ErrNoProgress) || errors.Is(err, optimize.ErrLinesearcherFailure) ||
			errors.Is(err, optimize.ErrNonDescentDirection) {
			fit.Status += " (" + err.Error() + ")"
			return fit, nil
		}
		return fit, fmt.Errorf("score: L-BFGS: %w", err)
	}
	return fit, nil
}

// fitRecorder passes each L-BFGS major iteration to a FitOptions.Progress
// callback.
type fitRecorder func(iter int, objective float64)

func (fitRecorder) Init() error { return nil }

func (r fitRecorder) Record(loc *optimize.Location, op optimize.Operation, st *optimize.Stats) error {
	if op == optimize.MajorIteration {
		r(st.MajorIterations, -loc.F)
	}
	return nil
}
