package learn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// gauss solves A·x = rhs by Gaussian elimination with partial pivoting and
// reports false when A is (numerically) singular.
func gauss(A [][]float64, rhs []float64) ([]float64, bool) {
	n := len(rhs)
	M := make([][]float64, n)
	for i := range M {
		M[i] = append(append([]float64(nil), A[i]...), rhs[i])
	}
	for col := 0; col < n; col++ {
		piv := col
		for r := col + 1; r < n; r++ {
			if math.Abs(M[r][col]) > math.Abs(M[piv][col]) {
				piv = r
			}
		}
		if math.Abs(M[piv][col]) < 1e-10 {
			return nil, false
		}
		M[col], M[piv] = M[piv], M[col]
		for r := 0; r < n; r++ {
			if r == col {
				continue
			}
			f := M[r][col] / M[col][col]
			for c := col; c <= n; c++ {
				M[r][c] -= f * M[col][c]
			}
		}
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = M[i][n] / M[i][i]
	}
	return x, true
}

// dualValue returns Σ α_j b_j − ½ αᵀGα.
func dualValue(G [][]float64, b, alpha []float64) float64 {
	var s float64
	for j := range alpha {
		s += alpha[j] * b[j]
		for k := range alpha {
			s -= alpha[j] * alpha[k] * G[j][k] / 2
		}
	}
	return s
}

// bruteDual maximises the dual over {α ≥ 0, Σα ≤ C} by enumerating the
// faces: for each support S and each choice of whether Σα = C binds, it
// solves the face's stationarity conditions exactly and keeps the best
// feasible point. With positive definite G the maximiser is the
// stationary point of the face whose relative interior holds it.
func bruteDual(G [][]float64, b []float64, C float64) (float64, []float64) {
	m := len(b)
	best, bestA := 0.0, make([]float64, m) // α = 0
	for mask := 1; mask < 1<<m; mask++ {
		var S []int
		for j := 0; j < m; j++ {
			if mask>>j&1 == 1 {
				S = append(S, j)
			}
		}
		k := len(S)
		for _, sumBinds := range []bool{false, true} {
			n := k
			if sumBinds {
				n++
			}
			A := make([][]float64, n)
			rhs := make([]float64, n)
			for r := 0; r < k; r++ {
				A[r] = make([]float64, n)
				for c := 0; c < k; c++ {
					A[r][c] = G[S[r]][S[c]]
				}
				rhs[r] = b[S[r]]
				if sumBinds {
					A[r][k] = 1 // G α + λ·1 = b
				}
			}
			if sumBinds {
				A[k] = make([]float64, n)
				for c := 0; c < k; c++ {
					A[k][c] = 1
				}
				rhs[k] = C
			}
			x, ok := gauss(A, rhs)
			if !ok {
				continue
			}
			alpha := make([]float64, m)
			sum, feasible := 0.0, true
			for r, j := range S {
				if x[r] < -1e-12 {
					feasible = false
				}
				alpha[j] = math.Max(0, x[r])
				sum += alpha[j]
			}
			if !feasible || sum > C*(1+1e-12) {
				continue
			}
			if v := dualValue(G, b, alpha); v > best {
				best, bestA = v, alpha
			}
		}
	}
	return best, bestA
}

func TestDualQPClosedForm(t *testing.T) {
	// One plane: α = clip(b/‖a‖², 0, C).
	for _, tc := range []struct{ norm2, b, C, want float64 }{
		{4, 2, 10, 0.5}, {4, 2, 0.25, 0.25}, {1, -1, 5, 0}, {0.5, 3, 100, 6},
	} {
		q := &dualQP{C: tc.C}
		q.add(Sparse{Idx: []int32{3}, Val: []float64{math.Sqrt(tc.norm2)}}, tc.b)
		q.solve()
		if !near(q.alpha[0], tc.want, 1e-9) {
			t.Errorf("‖a‖² %v, b %v, C %v: α = %v, want %v", tc.norm2, tc.b, tc.C, q.alpha[0], tc.want)
		}
	}
	// A zero plane with positive b takes all of C (ξ = b); duplicates
	// share it.
	q := &dualQP{C: 2}
	q.add(Sparse{}, 1)
	q.add(Sparse{}, 1)
	q.solve()
	if !near(q.alpha[0]+q.alpha[1], 2, 1e-12) || !near(q.slack(), 1, 1e-12) || !near(q.dual(), 2, 1e-12) {
		t.Errorf("zero planes: α %v, ξ %v, D %v", q.alpha, q.slack(), q.dual())
	}
	// Two orthogonal planes a1 = e1, a2 = e2 with b = (2,1) (the hand
	// example): with C = 2 the optimum is w = (1.5, 0.5), ξ = 0.5.
	q = &dualQP{C: 2}
	q.add(Sparse{Idx: []int32{0}, Val: []float64{1}}, 2)
	q.add(Sparse{Idx: []int32{1}, Val: []float64{1}}, 1)
	q.solve()
	w := make([]float64, 2)
	q.weights(w)
	if !near(w[0], 1.5, 1e-10) || !near(w[1], 0.5, 1e-10) || !near(q.slack(), 0.5, 1e-10) {
		t.Errorf("orthogonal planes: w %v, ξ %v", w, q.slack())
	}
	if !near(q.primal(), q.dual(), 1e-10) {
		t.Errorf("orthogonal planes: primal %v, dual %v", q.primal(), q.dual())
	}
}

// randomPlane returns a plane over parameters [0, dim), each present with
// probability 2/3 with value scale(N(0,1)).
func randomPlane(r *rand.Rand, dim int, scale func(float64) float64) Sparse {
	var a Sparse
	for p := 0; p < dim; p++ {
		if r.IntN(3) > 0 {
			a.Idx = append(a.Idx, int32(p))
			a.Val = append(a.Val, scale(r.NormFloat64()))
		}
	}
	return a
}

// TestDualQPBrute compares the solution of solve (the active-set method)
// and of sequential minimal optimisation from scratch with exact face
// enumeration on random working sets of up to 5 planes, adding planes one
// at a time (the warm start of Batch).
func TestDualQPBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for iter := 0; iter < 300; iter++ {
		m, dim := 1+r.IntN(5), 1+r.IntN(6)
		C := []float64{0.01, 0.3, 1, 10, 1000}[r.IntN(5)]
		q := &dualQP{C: C}
		for j := 0; j < m; j++ {
			q.add(randomPlane(r, dim, func(v float64) float64 { return 2 * v }), r.NormFloat64()*3+1)
			q.solve()
			sum := 0.0
			for _, v := range q.alpha {
				if v < 0 {
					t.Fatalf("iter %d: negative α %v", iter, q.alpha)
				}
				sum += v
			}
			if sum > C*(1+1e-12) {
				t.Fatalf("iter %d: Σα = %v > C = %v", iter, sum, C)
			}
			scale := 1.0
			for _, b := range q.b {
				scale = math.Max(scale, math.Abs(b))
			}
			want, _ := bruteDual(q.G, q.b, C)
			ref := &dualQP{C: C, G: q.G, b: q.b, alpha: make([]float64, len(q.b)), s: C}
			ref.smo(ref.tolerance())
			for _, got := range []float64{q.dual(), ref.dual()} {
				if got < want-1e-8*scale*math.Max(1, C) || got > want+1e-9*scale*math.Max(1, C) {
					t.Fatalf("iter %d (m %d, C %v): dual %v (active set %v, SMO %v), brute force %v", iter, len(q.b), C, got, q.dual(), ref.dual(), want)
				}
			}
			got := q.dual()
			// Strong duality up to the tolerance: primal − dual ≈ 0.
			if gap := q.primal() - got; gap < -1e-9*scale || gap > 1e-8*scale*math.Max(1, C) {
				t.Fatalf("iter %d: duality gap %v", iter, gap)
			}
		}
	}
}

// TestDualQPPruneAndSetC checks that dropping the planes with α = 0 keeps
// the solution (weights, dual value, Gram matrix) and that a working set
// solved again with another C (setC, the warm start across C) reaches the
// brute-force optimum.
func TestDualQPPruneAndSetC(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for iter := 0; iter < 200; iter++ {
		m, dim := 2+r.IntN(5), 1+r.IntN(4)
		q := &dualQP{C: []float64{0.3, 1, 10}[r.IntN(3)]}
		for j := 0; j < m; j++ {
			var a Sparse
			for p := 0; p < dim; p++ {
				a.Idx = append(a.Idx, int32(p))
				a.Val = append(a.Val, r.NormFloat64()*2)
			}
			q.add(a, r.NormFloat64()*3+1)
			q.solve()
		}
		w0 := make([]float64, dim)
		q.weights(w0)
		d0 := q.dual()
		q.prune(1)
		w1 := make([]float64, dim)
		q.weights(w1)
		for p := range w0 {
			if math.Abs(w0[p]-w1[p]) > 1e-12 {
				t.Fatalf("iter %d: weights %v after pruning, %v before", iter, w1, w0)
			}
		}
		if math.Abs(q.dual()-d0) > 1e-9 {
			t.Fatalf("iter %d: dual %v after pruning, %v before", iter, q.dual(), d0)
		}
		for j, aj := range q.a {
			if q.alpha[j] == 0 {
				t.Fatalf("iter %d: plane %d with α = 0 kept", iter, j)
			}
			for k, ak := range q.a {
				var dot float64
				for x := range aj.Val {
					dot += aj.Val[x] * ak.Val[x]
				}
				if math.Abs(q.G[j][k]-dot) > 1e-9 {
					t.Fatalf("iter %d: G[%d][%d] = %v, want %v", iter, j, k, q.G[j][k], dot)
				}
			}
		}
		C := []float64{0.01, 0.5, 100}[r.IntN(3)]
		q.setC(C)
		q.solve()
		want, _ := bruteDual(q.G, q.b, C)
		if got := q.dual(); math.Abs(got-want) > 1e-7*math.Max(1, C)*10 {
			t.Fatalf("iter %d: dual %v with C %v, brute force %v", iter, got, C, want)
		}
	}
}

// bruteHinge returns the 1-slack hinge H(w) = (1/n)·Σ_i max_y [Δ(y_i,y) −
// ⟨w, n(x_i,y_i) − n(x_i,y)⟩] by enumerating every assignment that
// satisfies the hard clauses, with counts from countsOracle.
func bruteHinge(exs Examples, w []float64) float64 {
	var total float64
	for _, ex := range exs {
		k := ex.Net.NumAtoms()
		nt := countsOracle(ex.Net, ex.Truth, len(w))
		best := math.Inf(-1)
		for mask := 0; mask < 1<<k; mask++ {
			y := assignment(mask, k)
			if !hardOK(ex.Net, y) {
				continue
			}
			ny := countsOracle(ex.Net, y, len(w))
			v := HammingLoss(ex.Truth, y, ex.Query)
			for p := range w {
				v -= w[p] * (nt[p] - ny[p])
			}
			best = math.Max(best, v)
		}
		total += best
	}
	return total / float64(len(exs))
}

func hardOK(net *ground.Network, y []bool) bool {
	_, h := net.Score(y)
	return h == 0
}

func norm2(w []float64) float64 {
	var s float64
	for _, v := range w {
		s += v * v
	}
	return s
}

// randomExamples builds n examples of k atoms over np parameters, with
// truths drawn at random among the assignments that satisfy the hard
// clauses.
func randomExamples(r *rand.Rand, n, k, np int, hard bool) Examples {
	var exs Examples
	for len(exs) < n {
		net := randomNetwork(r, k, 2+r.IntN(6), np, hard)
		y := randomBools(r, k)
		if !hardOK(net, y) {
			continue
		}
		ex := &Example{Net: net, Truth: y}
		if r.IntN(3) == 0 {
			ex.Query = randomBools(r, k)
		}
		exs = append(exs, ex)
	}
	return exs
}

// TestBatchOptimality checks after convergence, by enumeration, that the
// most violated 1-slack constraint is violated by at most ε, and that the
// learned weights are ε-optimal for the full problem: their objective
// ½‖w‖² + C·H(w) is within C·ε of a fine grid search over w (two
// parameters), while the working set's dual value is a lower bound on it.
func TestBatchOptimality(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const eps = 1e-3
	for iter := 0; iter < 12; iter++ {
		np := 2
		exs := randomExamples(r, 2+r.IntN(3), 2+r.IntN(3), np, iter%2 == 1)
		C := []float64{0.1, 1, 10}[iter%3]
		model := &mln.Model{Weights: make([]float64, np)}
		// Three ways to the same optimum: without the constraint cache
		// (the default), with it, and warm-started (with the cache) from
		// the working set of a run with another C.
		mm := MaxMargin{C: C, Epsilon: eps, Workers: 2}
		switch iter % 4 {
		case 1:
			mm.Cache = DefaultMaxMarginCache
		case 2, 3:
			mm.Cache = DefaultMaxMarginCache
			mm.Planes = &WorkingSet{}
			other := &mln.Model{Weights: make([]float64, np)}
			if _, err := Batch(context.Background(), other, exs, MaxMargin{C: []float64{C / 10, C * 10}[iter%2], Epsilon: eps, Workers: 2, Planes: mm.Planes, Cache: mm.Cache},
				Settings{Solver: bruteSolver}); err != nil {
				t.Fatal(err)
			}
			if mm.Planes.Len() == 0 {
				t.Fatalf("iter %d: no plane carried over", iter)
			}
		}
		st, err := Batch(context.Background(), model, exs, mm, Settings{Solver: bruteSolver})
		if err != nil {
			t.Fatal(err)
		}
		if mm.Cache == 0 && st.CachedRounds != 0 {
			t.Errorf("iter %d: %d cached planes with the cache off", iter, st.CachedRounds)
		}
		if !st.Converged {
			t.Fatalf("iter %d: not converged after %d rounds", iter, st.Iterations)
		}
		w := model.Weights
		H := bruteHinge(exs, w)
		if H > st.Slack+eps+1e-9 {
			t.Errorf("iter %d: most violated constraint violated by %v > ε (H %v, ξ %v)", iter, H-st.Slack, H, st.Slack)
		}
		obj := norm2(w)/2 + C*H
		// Lower bound: the working set's objective (= its dual value).
		if obj < st.Objective-1e-9 || obj > st.Objective+C*eps+1e-9 {
			t.Errorf("iter %d: objective %v, working set %v", iter, obj, st.Objective)
		}
		// Grid search: ‖w*‖² ≤ 2·OPT ≤ 2·C·H(0).
		R := math.Sqrt(2*C*bruteHinge(exs, make([]float64, np))) + 1e-9
		F := func(v []float64) float64 { return norm2(v)/2 + C*bruteHinge(exs, v) }
		bestF, bw := math.Inf(1), []float64{0, 0}
		grid := func(cx, cy, half float64, steps int) {
			for i := -steps; i <= steps; i++ {
				for j := -steps; j <= steps; j++ {
					v := []float64{cx + half*float64(i)/float64(steps), cy + half*float64(j)/float64(steps)}
					if f := F(v); f < bestF {
						bestF, bw = f, v
					}
				}
			}
		}
		grid(0, 0, R, 40)
		for h := R / 20; h > 1e-7; h /= 10 {
			grid(bw[0], bw[1], h, 20)
		}
		if obj > bestF+C*eps+1e-9 {
			t.Errorf("iter %d (C %v): objective %v at %v, grid finds %v at %v", iter, C, obj, w, bestF, bw)
		}
		if st.Objective > bestF+1e-9 {
			t.Errorf("iter %d: working-set bound %v above the grid optimum %v", iter, st.Objective, bestF)
		}
	}
}

func TestBatchHand(t *testing.T) {
	// One example, truth (T,T); the planes (Δφ, Δ) are (1,0),2 for (F,F),
	// (0,1),1 for (T,F) and (1,0),1 for (F,T). With C = 2:
	// min ½(w0² + w1²) + 2ξ s.t. w0 ≥ 2−ξ, w1 ≥ 1−ξ gives ξ = ½,
	// w = (3/2, 1/2); with C = 10, ξ = 0 and w = (2, 1); with C = 1,
	// ξ = 1 and w = (1, 0).
	for _, tc := range []struct {
		C    float64
		w    [2]float64
		slck float64
	}{{2, [2]float64{1.5, 0.5}, 0.5}, {10, [2]float64{2, 1}, 0}, {1, [2]float64{1, 0}, 1}} {
		model := &mln.Model{Weights: []float64{0, 0}}
		st, err := Batch(context.Background(), model, Examples{handExample()}, MaxMargin{C: tc.C, Epsilon: 1e-9},
			Settings{Solver: bruteSolver})
		if err != nil {
			t.Fatal(err)
		}
		if !st.Converged || !near(model.Weights[0], tc.w[0], 1e-8) || !near(model.Weights[1], tc.w[1], 1e-8) || !near(st.Slack, tc.slck, 1e-8) {
			t.Errorf("C %v: w %v ξ %v converged %v (%d rounds, violations %v), want w %v ξ %v",
				tc.C, model.Weights, st.Slack, st.Converged, st.Iterations, st.Violation, tc.w, tc.slck)
		}
	}
}

// TestBatchSeparable learns from examples labelled by a hidden weight
// vector: with a large C the learned weights predict every training
// example exactly, with a margin: the truth beats every other assignment.
func TestBatchSeparable(t *testing.T) {
	wStar := []float64{1.5, -1, 0.3, 0.8}
	r := rand.New(rand.NewPCG(5, 6))
	var exs Examples
	for i := 0; i < 30; i++ {
		exs = append(exs, chainExample(r, 5, wStar))
	}
	model := &mln.Model{Weights: make([]float64, 4)}
	st, err := Batch(context.Background(), model, exs, MaxMargin{C: 1e5, Epsilon: 1e-4},
		Settings{Solver: bruteSolver})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Converged {
		t.Fatalf("not converged after %d rounds", st.Iterations)
	}
	w := model.Weights
	for i, ex := range exs {
		setWeights(ex.Net, w)
		if HammingLoss(ex.Truth, bruteMAP(ex.Net, nil), nil) > 0 {
			t.Errorf("example %d mispredicted with w = %v", i, w)
		}
		// Margin: ⟨w, n(y) − n(y')⟩ ≥ Δ(y,y') − n·(ξ + ε) for every y'.
		st0, _ := ex.Net.Score(ex.Truth)
		for mask := 0; mask < 1<<5; mask++ {
			y := assignment(mask, 5)
			s, _ := ex.Net.Score(y)
			loss := HammingLoss(ex.Truth, y, nil)
			if loss > 0 && st0-s <= 0 {
				t.Errorf("example %d: %v scores %v >= truth %v", i, y, s, st0)
			}
			if st0-s < loss-float64(len(exs))*(st.Slack+1e-4)-1e-9 {
				t.Errorf("example %d: margin %v against %v, loss %v, ξ %v", i, st0-s, y, loss, st.Slack)
			}
		}
	}
	t.Logf("%d rounds, %d planes, ξ %v, w %v", st.Iterations, st.Constraints, st.Slack, w)
	if H := bruteHinge(exs, w); H > 1e-3 || st.Slack > 1e-3 {
		t.Errorf("separable data: hinge %v, ξ %v; want about 0", H, st.Slack)
	}
	if last := st.PassLoss[len(st.PassLoss)-1]; st.Iterations < 2 || last <= 0 {
		t.Errorf("rounds %d, last loss %v", st.Iterations, last)
	}
}

func TestBatchDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	exs := randomExamples(r, 8, 4, 3, true)
	run := func(workers int) []float64 {
		model := &mln.Model{Weights: make([]float64, 3)}
		if _, err := Batch(context.Background(), model, exs, MaxMargin{C: 10, Epsilon: 1e-4, Workers: workers},
			Settings{Solver: bruteSolver}); err != nil {
			t.Fatal(err)
		}
		return model.Weights
	}
	a := run(1)
	for _, workers := range []int{1, 2, 5} {
		b := run(workers)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("workers %d: weights %v, with 1 worker %v", workers, b, a)
			}
		}
	}
}

func TestBatchCancel(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	exs := randomExamples(r, 5, 4, 3, false)
	ref := &mln.Model{Weights: make([]float64, 3)}
	if _, err := Batch(context.Background(), ref, exs, MaxMargin{C: 10, MaxIter: 1, Workers: 1},
		Settings{Solver: bruteSolver}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	solver := func(ctx context.Context, net *ground.Network, bias []float64) ([]bool, error) {
		calls++
		if calls == 8 { // in the second round
			cancel()
		}
		return bruteMAP(net, bias), nil
	}
	model := &mln.Model{Weights: make([]float64, 3)}
	st, err := Batch(ctx, model, exs, MaxMargin{C: 10, Workers: 1}, Settings{Solver: solverFunc(solver)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if st.Iterations != 1 {
		t.Errorf("%d rounds done, want 1", st.Iterations)
	}
	for i := range ref.Weights {
		if model.Weights[i] != ref.Weights[i] {
			t.Fatalf("after cancel: weights %v, want those of round 1 %v", model.Weights, ref.Weights)
		}
	}
}

func TestBatchGrowingParameters(t *testing.T) {
	model := &mln.Model{Weights: []float64{0}}
	src := &growingSource{model: model, n: 6}
	st, err := Batch(context.Background(), model, src, MaxMargin{C: 1, MaxIter: 3, Workers: 2}, Settings{Solver: bruteSolver})
	if err != nil {
		t.Fatal(err)
	}
	if len(model.Weights) != 1+6*st.Iterations || len(st.Last) != len(model.Weights) {
		t.Fatalf("%d weights, %d last after %d rounds", len(model.Weights), len(st.Last), st.Iterations)
	}
	for p, w := range model.Weights {
		if w == 5 || math.IsNaN(w) {
			t.Errorf("weight %d = %v", p, w)
		}
	}
}

func TestBatchErrorsAndProgress(t *testing.T) {
	ex := handExample()
	ctx := context.Background()
	model := &mln.Model{Weights: []float64{0, 0}}
	if _, err := Batch(ctx, model, Examples{ex}, MaxMargin{}, Settings{Solver: bruteSolver, Loss: F1}); err == nil {
		t.Error("F1 loss: no error")
	}
	if _, err := Batch(ctx, model, Examples{ex}, MaxMargin{C: -1}, Settings{Solver: bruteSolver}); err == nil {
		t.Error("negative C: no error")
	}
	if _, err := Batch(ctx, model, Examples{ex}, MaxMargin{}, Settings{}); err != nil {
		t.Errorf("no solver (the default engine): %v", err)
	}
	small := &mln.Model{Weights: []float64{0}}
	if _, err := Batch(ctx, small, Examples{ex}, MaxMargin{}, Settings{Solver: bruteSolver}); err == nil {
		t.Error("parameter out of range: no error")
	}
	failing := func(ctx context.Context, net *ground.Network, bias []float64) ([]bool, error) {
		return nil, errors.New("boom")
	}
	if _, err := Batch(ctx, model, Examples{handExample(), handExample(), handExample()}, MaxMargin{Workers: 2}, Settings{Solver: solverFunc(failing)}); err == nil {
		t.Error("failing solver: no error")
	}
	calls := 0
	var last Progress
	st, err := Batch(ctx, model, Examples{handExample(), handExample()}, MaxMargin{C: 2, Epsilon: 1e-9},
		Settings{Solver: bruteSolver, Progress: func(p Progress) { calls++; last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2*st.Iterations || last.Done != calls || last.Total != calls || last.Pass != st.Iterations-1 {
		t.Errorf("%d progress calls over %d rounds, last %+v", calls, st.Iterations, last)
	}
}

// TestDualQPActiveSetRankDeficient checks the active-set method on working
// sets with many more planes than parameters (a singular Gram matrix, as
// on WebKB's departments), added one at a time as Batch does and with C
// changed in between: it must finish (no fallback), meet the duality gap
// of its tolerance, and reach the brute-force optimum (up to 6 planes) and
// that of sequential minimal optimisation run from scratch (the last
// plane).
func TestDualQPActiveSetRankDeficient(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for iter := 0; iter < 60; iter++ {
		m, dim := 2+r.IntN(40), 1+r.IntN(4)
		C := []float64{0.01, 1, 10, 1000, 1e4}[r.IntN(5)]
		q := &dualQP{C: C}
		for j := 0; j < m; j++ {
			// Integer counts: repeated and parallel planes.
			q.add(randomPlane(r, dim, func(v float64) float64 { return math.Round(4 * v) }), math.Abs(r.NormFloat64()*3+1))
			if j == m/2 {
				C = []float64{0.1, 10, 1e4}[r.IntN(3)]
				q.setC(C)
				q.C = C
			}
			if !q.activeSet(q.tolerance()) {
				t.Fatalf("iter %d, plane %d: the active-set method did not finish", iter, j)
			}
			q.gradient()
			sum := q.s
			for _, v := range q.alpha {
				if v < 0 {
					t.Fatalf("iter %d: negative α %v", iter, q.alpha)
				}
				sum += v
			}
			if math.Abs(sum-C) > 1e-9*C {
				t.Fatalf("iter %d: Σα + s = %v, C = %v", iter, sum, C)
			}
			scale := 1.0
			for _, b := range q.b {
				scale = math.Max(scale, math.Abs(b))
			}
			got, want := q.dual(), math.Inf(-1)
			switch {
			case len(q.b) <= 6:
				want, _ = bruteDual(q.G, q.b, C)
			case j == m-1:
				ref := &dualQP{C: C, G: q.G, b: q.b, alpha: make([]float64, len(q.b)), s: C}
				ref.smo(ref.tolerance())
				want = ref.dual()
			}
			if got < want-1e-8*scale*math.Max(1, C) {
				t.Fatalf("iter %d (m %d, dim %d, C %v): dual %v, reference %v", iter, len(q.b), dim, C, got, want)
			}
			if gap := q.primal() - got; gap < -1e-9*scale*math.Max(1, C) || gap > 1e-8*scale*math.Max(1, C) {
				t.Fatalf("iter %d (m %d, dim %d, C %v): duality gap %v", iter, len(q.b), dim, C, gap)
			}
		}
	}
}
