package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/mln"
)

// MaxMargin configures Batch, the batch max-margin weight learner of Huynh
// & Mooney (ECML-PKDD 2009): the 1-slack structural SVM of Joachims,
// Finley & Yu (2009) with margin rescaling and Hamming loss,
//
//	min_{w,ξ≥0} ½‖w‖² + C·ξ
//	s.t. ∀(ŷ_1..ŷ_n): (1/n)·Σ_i ⟨w, n(x_i,y_i) − n(x_i,ŷ_i)⟩ ≥ (1/n)·Σ_i Δ(y_i,ŷ_i) − ξ
//
// trained by cutting planes. Δ is the Hamming loss over the query atoms
// (learn.HammingLoss), so ξ and ε are in Hamming-loss units per example.
//
// The slides print no default C: their experiments train with C in {1, 10,
// 100, 1000, 10000} and test with the value that does best on the training
// data. With exact loss-augmented MAP the training F1 on CiteSeer only
// grows with C (it would pick 10000, which overfits), so
// DefaultMaxMarginC = 1000 is the value that did best in a
// cross-validation inside the training topics (train on two, validate on
// the third) with Marple's example grouping (one citation per example).
// The slides give no ε either; DefaultMaxMarginEpsilon is 0.01 Hamming
// loss per example (SVMstruct's default is 0.1), well below the ~30 atoms
// per citation the loss-augmented labels still get wrong at C = 1000.
type MaxMargin struct {
	// C is the trade-off between the margin and the slack (> 0; 0 means
	// DefaultMaxMarginC).
	C float64
	// Epsilon is the stopping tolerance ε: training stops when the most
	// violated constraint, found by loss-augmented MAP on every example,
	// is violated by at most ε, i.e. when the exact 1-slack hinge of the
	// current weights is at most ξ + ε (0 means DefaultMaxMarginEpsilon).
	// ε is in the units of the constraint: Hamming loss per example.
	Epsilon float64
	// MaxIter bounds the cutting-plane rounds (0 means
	// DefaultMaxMarginIter).
	MaxIter int
	// Workers is the number of goroutines that solve the examples'
	// loss-augmented MAP problems of a round concurrently (0 means
	// GOMAXPROCS). The solver is then called concurrently on different
	// networks, and the examples of a source must not share a network
	// (ComponentSource and DatabaseSource build a new one per call). The
	// result does not depend on Workers.
	Workers int
	// Cache is the number of loss-augmented labels kept per example for
	// the constraint cache of Joachims, Finley & Yu (2009, Algorithm 5):
	// before each round of loss-augmented MAP, the plane built from every
	// example's most violated cached label under the current weights is
	// added instead if it is violated by more than ε, so most planes cost
	// dot products rather than MAP calls (at most CachedRounds in a row).
	// Training still stops only when a round of loss-augmented MAP finds
	// no plane violated by more than ε, so the stopping criterion and
	// the optimum are those of the plain algorithm. 0 turns the cache
	// off (DefaultMaxMarginCache is a good size).
	Cache int
	// CachedRounds bounds the planes taken from the cache between two
	// rounds of loss-augmented MAP (0 means DefaultMaxMarginCachedRounds).
	CachedRounds int
	// Planes, if not nil, is a working set carried over from an earlier
	// Batch run on the same examples and model (for example with another
	// C): its planes and cached labels are valid constraints for any C,
	// so training starts from them (the dual QP is solved again with this
	// C before the first round) and leaves the grown working set in it.
	// The first round's weights are then the working set's, not w = 0.
	Planes *WorkingSet
}

// WorkingSet is the state that Batch can carry from one run to the next
// (MaxMargin.Planes): the cutting planes and every example's cached
// loss-augmented labels. Its zero value is an empty working set.
type WorkingSet struct {
	qp    dualQP
	cache [][]cachedLabel
	clock int
}

// Len returns the number of planes in the working set.
func (ws *WorkingSet) Len() int { return len(ws.qp.b) }

// cachedLabel is one loss-augmented label of an example, kept as its count
// difference n(x,y) − n(x,ŷ) and loss Δ(y,ŷ).
type cachedLabel struct {
	diff Sparse
	loss float64
	used int // clock of the last time it was added or chosen
}

// Defaults of MaxMargin.
const (
	// DefaultMaxMarginC is the default C (see MaxMargin).
	DefaultMaxMarginC = 1000
	// DefaultMaxMarginEpsilon is the default ε, in Hamming loss per
	// example.
	DefaultMaxMarginEpsilon = 0.01
	// DefaultMaxMarginIter is the default bound on cutting-plane rounds.
	DefaultMaxMarginIter = 1000
	// DefaultMaxMarginCache is a number of cached labels per example that
	// works (MaxMargin.Cache; the experiments use it).
	DefaultMaxMarginCache = 20
	// DefaultMaxMarginCachedRounds is the default bound on cached planes
	// between two rounds of loss-augmented MAP.
	DefaultMaxMarginCachedRounds = 50
	// planeIdle is the number of QP solves after which a plane that has
	// had α = 0 in each of them leaves the working set (Joachims et al.
	// 2009 drop inactive constraints the same way); it stays a valid
	// constraint, which the oracle or the cache produces again if needed.
	planeIdle = 100
)

func (mm MaxMargin) resolve() (c, eps float64, maxIter, workers int, err error) {
	c, eps, maxIter, workers = mm.C, mm.Epsilon, mm.MaxIter, mm.Workers
	if c < 0 || math.IsNaN(c) || math.IsInf(c, 0) {
		return 0, 0, 0, 0, fmt.Errorf("learn: MaxMargin needs 0 < C < Inf, have %v", c)
	}
	if eps < 0 || math.IsNaN(eps) || math.IsInf(eps, 0) {
		return 0, 0, 0, 0, fmt.Errorf("learn: MaxMargin needs 0 < epsilon < Inf, have %v", eps)
	}
	if maxIter < 0 || workers < 0 {
		return 0, 0, 0, 0, fmt.Errorf("learn: MaxMargin needs MaxIter >= 0 and Workers >= 0, have %d and %d", maxIter, workers)
	}
	if c == 0 {
		c = DefaultMaxMarginC
	}
	if eps == 0 {
		eps = DefaultMaxMarginEpsilon
	}
	if maxIter == 0 {
		maxIter = DefaultMaxMarginIter
	}
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return c, eps, maxIter, workers, nil
}

// Batch learns the weights of model from examples with the 1-slack
// structural SVM of mm (Joachims, Finley & Yu 2009, Algorithm 4, "1-slack
// formulation, dual"; Huynh & Mooney 2009) and writes them into
// model.Weights.
//
// Each round visits every example: with the current weights w it computes
// the Hamming-loss-augmented MAP label ŷ_i = argmax_y ⟨w, n(x_i,y)⟩ +
// Δ(y_i,y) with settings.Solver (and the bias of HammingBias), and forms
// the cutting plane a = (1/n)·Σ_i (n(x_i,y_i) − n(x_i,ŷ_i)), b =
// (1/n)·Σ_i Δ(y_i,ŷ_i). When b − ⟨w,a⟩ ≤ ξ + ε (ξ the slack of the
// working set's solution) training stops; otherwise the plane joins the
// working set and the dual QP over the working set,
//
//	max_α Σ_j α_j·b_j − ½·Σ_jk α_j·α_k·⟨a_j,a_k⟩,  α ≥ 0, Σ_j α_j ≤ C,
//
// is solved again (to about 1e-10 relative accuracy) and w = Σ_j α_j·a_j.
// Between two such rounds, planes built from each example's cached labels
// are added while they are violated by more than ε (if mm.Cache > 0; planes
// whose α stayed 0 in the last 100 solves then leave the working set). The
// first round uses w = 0 (or, with settings.KeepInitial, the model's
// weights, or with mm.Planes the carried-over working set's). The
// examples' networks must refer to model's parameters as for Online;
// parameters allocated while examples are ground start at 0 (they are in
// no plane yet); hard clauses (Param −1) are not learned.
//
// Only settings.Solver, Loss (must be Hamming), KeepInitial and Progress
// are used; Passes, Shuffle, Seed and NoAverage are ignored. Progress is
// called after every example with Pass the round. The returned Stats count
// in Steps the loss-augmented MAP calls and hold per round the mean loss
// b (PassLoss), the examples whose ŷ_i differs from the truth
// (PassMistakes) and the violation b − ⟨w,a⟩ − ξ (Violation); Hinge is
// n·(b − ⟨w,a⟩) of the last round (with exact MAP: the summed structured
// hinge loss of that round's weights, which after convergence are the
// returned ones).
//
// If ctx is cancelled, Batch stops (within a round, when the solver
// returns), writes the weights of the last solved working set into the
// model and returns the Stats with ctx's error.
func Batch(ctx context.Context, model *mln.Model, examples ExampleSource, mm MaxMargin, settings Settings) (*Stats, error) {
	start := time.Now()
	if model == nil || examples == nil {
		return nil, errors.New("learn: Batch needs a model and examples")
	}
	if settings.Loss != Hamming {
		return nil, fmt.Errorf("learn: max-margin learning needs the Hamming loss (loss-augmented MAP), not %v", settings.Loss)
	}
	C, eps, maxIter, workers, err := mm.resolve()
	if err != nil {
		return nil, err
	}
	st := &Stats{Method: "MM-HM"}
	w := make([]float64, len(model.Weights))
	if settings.KeepInitial {
		copy(w, model.Weights)
	}
	ws := mm.Planes
	if ws == nil {
		ws = &WorkingSet{}
	}
	cacheSize, cachedRounds := mm.Cache, mm.CachedRounds
	if cachedRounds <= 0 {
		cachedRounds = DefaultMaxMarginCachedRounds
	}
	qp := &ws.qp
	qp.C = C
	var xi float64
	warm := len(qp.b) > 0
	if warm {
		// Planes from an earlier run: rescale its α to this C (feasible:
		// Σα ≤ C) and solve again.
		qp.setC(C)
		qp.solve()
		clear(w)
		for len(w) < qp.maxIdx()+1 {
			w = append(w, 0)
		}
		qp.weights(w)
		xi = qp.slack()
	}
	finish := func() {
		for len(w) < len(model.Weights) {
			w = append(w, 0)
		}
		copy(model.Weights, w)
		st.Last = append([]float64(nil), w...)
		st.Constraints = len(qp.b)
		st.Slack = xi
		st.Objective = qp.primal()
		st.Elapsed = time.Since(start)
	}
	n := examples.Len()
	if n == 0 {
		st.Converged = true
		finish()
		return st, nil
	}
	if len(ws.cache) < n {
		ws.cache = append(ws.cache, make([][]cachedLabel, n-len(ws.cache))...)
	}
	r := &mmRound{src: examples, model: model, solver: engine(settings.Solver), seed: settings.Seed, workers: workers,
		keepInitial: settings.KeepInitial && !warm, progress: settings.Progress, start: start, st: st}
	if cacheSize > 0 {
		r.onResult = func(i int, diff Sparse, loss float64) { ws.remember(i, diff, loss, cacheSize) }
	}
	var dense []float64
	// addPlane adds (a, b) to the working set and solves the dual again.
	addPlane := func(a Sparse, b float64) {
		qp.add(a, b)
		qp.solve()
		if cacheSize > 0 {
			qp.prune(planeIdle)
		}
		clear(w)
		qp.weights(w)
		xi = qp.slack()
	}
	for iter := 0; iter < maxIter; iter++ {
		// Planes from the cache while they are violated by more than ε.
		for k := 0; cacheSize > 0 && k < cachedRounds && (iter > 0 || warm); k++ {
			b := ws.cachedPlane(w, &dense)
			a := sparsePlane(dense, n)
			clear(dense)
			b /= float64(n)
			if b-sparseDot(w, a)-xi <= eps {
				break
			}
			addPlane(a, b)
			st.CachedRounds++
			if err := ctx.Err(); err != nil {
				finish()
				return st, err
			}
		}
		w, err = r.run(ctx, iter, w, &dense)
		if err != nil {
			// w may have grown; the weights themselves are those of the
			// last working set.
			finish()
			return st, err
		}
		a := sparsePlane(dense, n)
		clear(dense)
		b := r.lossSum / float64(n)
		wa := sparseDot(w, a)
		viol := b - wa - xi
		st.Iterations++
		st.PassLoss = append(st.PassLoss, b)
		st.PassMistakes = append(st.PassMistakes, r.mistakes)
		st.Violation = append(st.Violation, viol)
		st.Hinge = float64(n) * (b - wa)
		if viol <= eps && !(iter == 0 && settings.KeepInitial) {
			st.Converged = true
			break
		}
		addPlane(a, b)
		if err := ctx.Err(); err != nil {
			finish()
			return st, err
		}
	}
	finish()
	return st, nil
}

// sparsePlane returns dense/n as a sparse vector (entries below diffEps
// dropped).
func sparsePlane(dense []float64, n int) Sparse {
	a := Sparse{}
	for p, v := range dense {
		if math.Abs(v) > diffEps {
			a.Idx = append(a.Idx, int32(p))
			a.Val = append(a.Val, v/float64(n))
		}
	}
	return a
}

// sparseDot returns ⟨w, a⟩ (indices of a beyond w count as 0).
func sparseDot(w []float64, a Sparse) float64 {
	var s float64
	for k, p := range a.Idx {
		if int(p) < len(w) {
			s += w[p] * a.Val[k]
		}
	}
	return s
}

// remember adds example i's label (count difference diff, loss) to its
// cache unless an equal one is there, evicting the least recently used
// label beyond size.
func (ws *WorkingSet) remember(i int, diff Sparse, loss float64, size int) {
	ws.clock++
	if loss == 0 && len(diff.Idx) == 0 {
		return // the truth: the plane's zero contribution
	}
	c := ws.cache[i]
	for k := range c {
		if c[k].loss == loss && slices.Equal(c[k].diff.Idx, diff.Idx) && slices.Equal(c[k].diff.Val, diff.Val) {
			c[k].used = ws.clock
			return
		}
	}
	e := cachedLabel{diff: Sparse{Idx: slices.Clone(diff.Idx), Val: slices.Clone(diff.Val)}, loss: loss, used: ws.clock}
	if len(c) < size {
		ws.cache[i] = append(c, e)
		return
	}
	old := 0
	for k := range c {
		if c[k].used < c[old].used {
			old = k
		}
	}
	c[old] = e
}

// cachedPlane adds into *dense (grown as needed) the count difference of
// every example's most violated cached label under w (none when no label
// is violated: the truth) and returns the sum of their losses.
func (ws *WorkingSet) cachedPlane(w []float64, dense *[]float64) float64 {
	ws.clock++
	var loss float64
	for _, c := range ws.cache {
		best, bv := -1, 0.0
		for k := range c {
			if v := c[k].loss - sparseDot(w, c[k].diff); v > bv {
				best, bv = k, v
			}
		}
		if best < 0 {
			continue
		}
		c[best].used = ws.clock
		d := c[best].diff
		for k, p := range d.Idx {
			if int(p) >= len(*dense) {
				*dense = append(*dense, make([]float64, int(p)+1-len(*dense))...)
			}
			(*dense)[p] += d.Val[k]
		}
		loss += c[best].loss
	}
	return loss
}

// mmRound runs the loss-augmented MAP problems of one cutting-plane round.
type mmRound struct {
	onResult    func(i int, diff Sparse, loss float64) // per example, in example order (optional)
	src         ExampleSource
	model       *mln.Model
	solver      infer.MAP
	seed        int64
	workers     int
	keepInitial bool
	progress    func(Progress)
	start       time.Time
	st          *Stats

	// Results of the last round.
	lossSum  float64
	mistakes int
}

type mmJob struct {
	i  int
	ex *Example
	np int // parameters when the example was ground
}

type mmResult struct {
	i       int
	np      int
	diff    Sparse
	loss    float64
	mistake bool
	err     error
}

// run solves every example's loss-augmented MAP problem under the weights
// w and adds the count differences, in example order, into *sum (grown to
// the number of parameters). It returns w grown to the model's parameters.
func (r *mmRound) run(ctx context.Context, iter int, w []float64, sum *[]float64) ([]float64, error) {
	n := r.src.Len()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan mmJob, r.workers)
	results := make(chan mmResult, r.workers)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // producer: the source and w are touched by this goroutine only
		defer wg.Done()
		defer close(jobs)
		for i := 0; i < n; i++ {
			if rctx.Err() != nil {
				return
			}
			ex, err := r.src.Example(rctx, i)
			if err == nil {
				err = ex.validate()
			}
			if err != nil {
				results <- mmResult{i: i, err: fmt.Errorf("learn: example %d: %w", i, err)}
				return
			}
			np := len(r.model.Weights)
			for len(w) < np {
				v := 0.0
				if r.keepInitial && iter == 0 {
					v = r.model.Weights[len(w)]
				}
				w = append(w, v)
			}
			net := ex.Net
			if p := net.MaxParam(); int(p) >= np {
				results <- mmResult{i: i, err: fmt.Errorf("learn: example %d (%s): a clause has parameter %d, model has %d", i, ex.Name, p, np)}
				return
			}
			net.SetParamWeights(w)
			select {
			case jobs <- mmJob{i: i, ex: ex, np: np}:
			case <-rctx.Done():
				return
			}
		}
	}()
	for k := 0; k < r.workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var (
				d    differ
				bias []float64
			)
			for job := range jobs {
				res := mmResult{i: job.i, np: job.np}
				ex := job.ex
				if err := rctx.Err(); err != nil {
					res.err = err
				} else {
					bias = HammingBias(bias, ex.Truth, ex.Query)
					yhat, err := solveMAP(rctx, r.solver, ex.Net, bias, r.seed)
					if err != nil {
						res.err = fmt.Errorf("learn: example %d (%s): %w", job.i, ex.Name, err)
					} else {
						res.loss = HammingLoss(ex.Truth, yhat, ex.Query)
						res.mistake = res.loss > 0
						df := d.diff(ex.Net, ex.Truth, yhat, job.np)
						res.diff = Sparse{Idx: append([]int32(nil), df.Idx...), Val: append([]float64(nil), df.Val...)}
					}
				}
				results <- res
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	// Reduce in example order so that the sums do not depend on timing.
	pending := make([]*mmResult, n)
	next := 0
	r.lossSum, r.mistakes = 0, 0
	var (
		firstErr error
		errIdx   = n
	)
	for res := range results {
		if res.err != nil {
			// Errors caused by our own cancellation after a first error
			// are not reported.
			if !(errors.Is(res.err, context.Canceled) && ctx.Err() == nil && firstErr != nil) && res.i < errIdx {
				firstErr, errIdx = res.err, res.i
			}
			cancel()
			continue
		}
		if firstErr != nil {
			continue
		}
		pending[res.i] = &res
		for next < n && pending[next] != nil {
			p := pending[next]
			pending[next] = nil
			next++
			if len(*sum) < p.np {
				*sum = append(*sum, make([]float64, p.np-len(*sum))...)
			}
			s := *sum
			for k, idx := range p.diff.Idx {
				s[idx] += p.diff.Val[k]
			}
			if r.onResult != nil {
				r.onResult(p.i, p.diff, p.loss)
			}
			r.lossSum += p.loss
			if p.mistake {
				r.mistakes++
			}
			r.st.Steps++
			if r.progress != nil {
				el := time.Since(r.start)
				pr := Progress{Pass: iter, Done: r.st.Steps, Total: r.st.Steps - next + n,
					Elapsed: el, Loss: r.lossSum / float64(next), Mistakes: r.mistakes}
				if sec := el.Seconds(); sec > 0 {
					pr.Rate = float64(r.st.Steps) / sec
					pr.ETA = time.Duration(float64(n-next) / pr.Rate * float64(time.Second))
				}
				r.progress(pr)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return w, err
	}
	if firstErr != nil {
		return w, firstErr
	}
	if len(*sum) < len(w) {
		*sum = append(*sum, make([]float64, len(w)-len(*sum))...)
	}
	return w, nil
}

// dualQP is the dual of the 1-slack problem over a working set of cutting
// planes (a_j, b_j):
//
//	max_α D(α) = Σ_j α_j·b_j − ½·αᵀGα,  α ≥ 0, Σ_j α_j ≤ C,  G_jk = ⟨a_j,a_k⟩.
//
// With a slack variable α_s = C − Σ_j α_j (a plane a_s = 0, b_s = 0) the
// feasible set is the simplex {α ≥ 0, Σ α = C}, on which solve runs an
// active-set method (activeSet) or, as a fallback, sequential minimal
// optimisation (smo): it moves weight between the pair of
// coordinates that violates the optimality conditions most (the one with
// the largest gradient g_i = b_i − (Gα)_i receives, the one with α > 0
// chosen by second-order gain gives) with an exact line search, until
// max_i g_i − min_{k: α_k>0} g_k is below a relative 1e-10. At the
// optimum every plane with α_j > 0 has g_j = ξ = max(0, max_j g_j), the
// primal slack, and the duality gap ½‖w‖² + C·ξ − D(α) = Σ_j α_j·(ξ − g_j)
// is at most C times that tolerance.
type dualQP struct {
	C     float64
	a     []Sparse
	b     []float64
	G     [][]float64 // lower and upper triangle both filled
	alpha []float64
	s     float64 // slack variable C − Σ α
	g     []float64
	dense []float64 // scratch for Gram products
	iters int       // SMO steps of the last solve
	idle  []int     // per plane: consecutive solves with α = 0
}

// setC changes C, scaling α into the new simplex when Σα exceeds it.
func (q *dualQP) setC(C float64) {
	var sum float64
	for _, a := range q.alpha {
		sum += a
	}
	if sum > C {
		for j := range q.alpha {
			q.alpha[j] *= C / sum
		}
		sum = C
	}
	q.C = C
	q.s = C - sum
}

// maxIdx returns the largest parameter index in a plane (−1 if none).
func (q *dualQP) maxIdx() int {
	m := -1
	for _, a := range q.a {
		for _, p := range a.Idx {
			m = max(m, int(p))
		}
	}
	return m
}

// prune drops the planes whose α has been 0 in the last idle solves.
func (q *dualQP) prune(idle int) {
	for len(q.idle) < len(q.b) {
		q.idle = append(q.idle, 0)
	}
	keep := make([]int, 0, len(q.b))
	for j, a := range q.alpha {
		if a == 0 {
			q.idle[j]++
		} else {
			q.idle[j] = 0
		}
		if q.idle[j] < idle {
			keep = append(keep, j)
		}
	}
	if len(keep) == len(q.b) {
		return
	}
	for jj, j := range keep {
		row := q.G[j]
		for kk, k := range keep {
			row[kk] = row[k]
		}
		q.G[jj] = row[:len(keep)]
		q.a[jj], q.b[jj], q.alpha[jj], q.idle[jj] = q.a[j], q.b[j], q.alpha[j], q.idle[j]
	}
	m := len(keep)
	clear(q.G[m:])
	clear(q.a[m:])
	q.G, q.a, q.b, q.alpha, q.idle = q.G[:m], q.a[:m], q.b[:m], q.alpha[:m], q.idle[:m]
}

// add appends the plane (a, b) with α = 0; a's indices must be distinct.
func (q *dualQP) add(a Sparse, b float64) {
	if len(q.b) == 0 {
		q.s = q.C
	}
	maxIdx := -1
	for _, p := range a.Idx {
		maxIdx = max(maxIdx, int(p))
	}
	if len(q.dense) <= maxIdx {
		q.dense = append(q.dense, make([]float64, maxIdx+1-len(q.dense))...)
	}
	for k, p := range a.Idx {
		q.dense[p] = a.Val[k]
	}
	m := len(q.b)
	row := make([]float64, m+1)
	for j, aj := range q.a {
		var dot float64
		for k, p := range aj.Idx {
			if int(p) < len(q.dense) {
				dot += q.dense[p] * aj.Val[k]
			}
		}
		row[j] = dot
		q.G[j] = append(q.G[j], dot)
	}
	row[m] = a.Norm2()
	for _, p := range a.Idx {
		q.dense[p] = 0
	}
	q.G = append(q.G, row)
	q.a = append(q.a, a)
	q.b = append(q.b, b)
	q.alpha = append(q.alpha, 0)
}

// gradient recomputes g = b − Gα.
func (q *dualQP) gradient() {
	m := len(q.b)
	if cap(q.g) < m {
		q.g = make([]float64, m)
	}
	q.g = q.g[:m]
	for j := 0; j < m; j++ {
		v := q.b[j]
		for k, ak := range q.alpha {
			if ak != 0 {
				v -= q.G[j][k] * ak
			}
		}
		q.g[j] = v
	}
}

// solve maximises D over the simplex, warm-started from the current α: by
// the active-set method (activeSet), or, should that fail to finish, by
// sequential minimal optimisation from the point it left.
func (q *dualQP) solve() {
	m := len(q.b)
	q.iters = 0
	if m == 0 {
		return
	}
	tol := q.tolerance()
	if q.activeSet(tol) {
		q.gradient()
		return
	}
	q.smo(tol)
}

// tolerance returns the optimality tolerance on the gradients: 1e-10
// relative to the largest |b_j| (at least 1e-10).
func (q *dualQP) tolerance() float64 {
	scale := 1.0
	for _, b := range q.b {
		scale = max(scale, math.Abs(b))
	}
	return 1e-10 * scale
}

// smo maximises D by sequential minimal optimisation until the violation
// of the optimality conditions is at most tol.
func (q *dualQP) smo(tol float64) {
	m := len(q.b)
	q.gradient()
	const tau = 1e-14 // floor on curvature, as in LIBSVM's WSS2
	maxSteps := 200000 + 2000*m
	refreshed := false
	for {
		// i: the largest gradient (the slack's gradient is 0), to increase.
		i, gi := -1, 0.0
		for j, v := range q.g {
			if v > gi {
				i, gi = j, v
			}
		}
		// First-order violation: the smallest gradient among α > 0.
		gmin := math.Inf(1)
		if q.s > 0 {
			gmin = 0
		}
		for j, v := range q.g {
			if q.alpha[j] > 0 && v < gmin {
				gmin = v
			}
		}
		if gi-gmin <= tol || q.iters >= maxSteps {
			if refreshed || q.iters == 0 {
				break
			}
			// Recompute the gradient from scratch before accepting.
			q.gradient()
			refreshed = true
			continue
		}
		refreshed = false
		gii := 0.0
		if i >= 0 {
			gii = q.G[i][i]
		}
		// k: among α > 0 with g_k < g_i, the largest second-order gain
		// (g_i − g_k)²/η_ik, η_ik = G_ii + G_kk − 2G_ik.
		k, best, bestEta := -2, -1.0, 0.0
		consider := func(j int, gj, eta float64) {
			d := gi - gj
			if d <= 0 {
				return
			}
			e := max(eta, tau)
			if gain := d * d / e; gain > best {
				k, best, bestEta = j, gain, eta
			}
		}
		if q.s > 0 && i >= 0 {
			consider(-1, 0, gii)
		}
		for j, v := range q.g {
			if q.alpha[j] > 0 && j != i {
				eta := gii + q.G[j][j]
				if i >= 0 {
					eta -= 2 * q.G[i][j]
				}
				consider(j, v, eta)
			}
		}
		if k == -2 {
			break // cannot happen when the violation exceeds tol
		}
		gk, ak := 0.0, q.s
		if k >= 0 {
			gk, ak = q.g[k], q.alpha[k]
		}
		t := ak
		if bestEta > 0 {
			t = min(t, (gi-gk)/bestEta)
		}
		// Move t from k to i.
		if k >= 0 {
			if t == ak {
				q.alpha[k] = 0
			} else {
				q.alpha[k] -= t
			}
		} else {
			if t == ak {
				q.s = 0
			} else {
				q.s -= t
			}
		}
		if i >= 0 {
			q.alpha[i] += t
		} else {
			q.s += t
		}
		for j := range q.g {
			var d float64
			if i >= 0 {
				d += q.G[j][i]
			}
			if k >= 0 {
				d -= q.G[j][k]
			}
			q.g[j] -= t * d
		}
		q.iters++
	}
}

// weights adds Σ_j α_j·a_j into w (long enough for every index).
func (q *dualQP) weights(w []float64) {
	for j, aj := range q.a {
		if q.alpha[j] == 0 {
			continue
		}
		for k, p := range aj.Idx {
			w[p] += q.alpha[j] * aj.Val[k]
		}
	}
}

// slack returns ξ = max(0, max_j b_j − ⟨w,a_j⟩) for w = Σ_j α_j·a_j.
func (q *dualQP) slack() float64 {
	q.gradient()
	xi := 0.0
	for _, v := range q.g {
		xi = max(xi, v)
	}
	return xi
}

// normW2 returns ‖w‖² = αᵀGα.
func (q *dualQP) normW2() float64 {
	var s float64
	for j, aj := range q.alpha {
		if aj == 0 {
			continue
		}
		for k, ak := range q.alpha {
			s += aj * ak * q.G[j][k]
		}
	}
	return s
}

// dual returns D(α).
func (q *dualQP) dual() float64 {
	var s float64
	for j, aj := range q.alpha {
		s += aj * q.b[j]
	}
	return s - q.normW2()/2
}

// primal returns ½‖w‖² + C·ξ for w = Σ_j α_j·a_j over the working set.
func (q *dualQP) primal() float64 {
	if len(q.b) == 0 {
		return 0
	}
	return q.normW2()/2 + q.C*q.slack()
}
