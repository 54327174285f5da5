package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// TestDiffMatchesCounts checks the sparse count difference against full
// counts by brute force on random networks and assignments.
func TestDiffMatchesCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var d differ
	for iter := 0; iter < 300; iter++ {
		n, np := 1+r.IntN(6), 1+r.IntN(4)
		net := randomNetwork(r, n, 1+r.IntN(12), np, true)
		net.EvidenceCount = make([]float64, np)
		for p := range net.EvidenceCount {
			net.EvidenceCount[p] = float64(r.IntN(3))
		}
		y, y2 := randomBools(r, n), randomBools(r, n)
		c1, c2 := countsOracle(net, y, np), countsOracle(net, y2, np)
		// The grounder's dense CountDiff must agree too.
		changed := []int32{}
		for a := range y {
			if y[a] != y2[a] {
				changed = append(changed, int32(a))
			}
		}
		acc := make([]float64, np)
		net.CountDiff(y, y2, changed, acc)
		var dense Sparse
		for p, v := range acc {
			if v != 0 {
				dense.Idx = append(dense.Idx, int32(p))
				dense.Val = append(dense.Val, v)
			}
		}
		for _, s := range []Sparse{new(differ).diff(net, y, y2, np), d.diff(net, y, y2, np), dense} {
			got := make([]float64, np)
			for k, p := range s.Idx {
				if got[p] != 0 {
					t.Fatalf("iter %d: parameter %d twice", iter, p)
				}
				got[p] = s.Val[k]
			}
			for p := range got {
				if want := c1[p] - c2[p]; !near(got[p], want, 1e-12) {
					t.Fatalf("iter %d: diff[%d] = %v, want %v", iter, p, got[p], want)
				}
			}
		}
	}
}

// countsOracle returns n_p(x,y) for p < np: EvidenceCount[p] plus Coef[c]
// for each satisfied clause c of parameter p.
func countsOracle(net *ground.Network, y []bool, np int) []float64 {
	n := make([]float64, np)
	copy(n, net.EvidenceCount)
	for c := 0; c < net.NumClauses(); c++ {
		if p := net.Param(c); p >= 0 && net.Satisfied(c, y) {
			n[p] += net.Coef(c)
		}
	}
	return n
}

// TestLossAugmented checks that MAP with HammingBias finds the argmax of
// score + Hamming loss, by enumeration, also with a query mask.
func TestLossAugmented(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 200; iter++ {
		n := 1 + r.IntN(6)
		net := randomNetwork(r, n, 1+r.IntN(10), 3, iter%2 == 0)
		setWeights(net, []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()})
		truth := randomBools(r, n)
		var query []bool
		if iter%3 == 0 {
			query = randomBools(r, n)
		}
		got := bruteMAP(net, HammingBias(nil, truth, query))
		// Enumerate score + loss directly.
		bestV, bestH := math.Inf(-1), math.MaxInt
		for mask := 0; mask < 1<<n; mask++ {
			y := assignment(mask, n)
			s, h := net.Score(y)
			v := s + HammingLoss(truth, y, query)
			if h < bestH || (h == bestH && v > bestV) {
				bestV, bestH = v, h
			}
		}
		s, h := net.Score(got)
		if v := s + HammingLoss(truth, got, query); h != bestH || !near(v, bestV, 1e-12) {
			t.Fatalf("iter %d: loss-augmented MAP value %v (hard %d), enumeration %v (hard %d)", iter, v, h, bestV, bestH)
		}
	}
}

func TestLosses(t *testing.T) {
	truth := []bool{true, true, false, false}
	pred := []bool{true, false, true, false}
	if got := HammingLoss(truth, pred, nil); got != 2 {
		t.Errorf("Hamming = %v, want 2", got)
	}
	// tp = 1, |gold| = 2, |pred| = 2: F1 = 2·1/4 = ½, loss 50.
	if got := F1Loss(truth, pred, nil); !near(got, 50, 1e-12) {
		t.Errorf("F1 loss = %v, want 50", got)
	}
	// Query {0, 2}: gold {0}, pred {0, 2}: Hamming 1, F1 = 2/3.
	q := []bool{true, false, true, false}
	if got := HammingLoss(truth, pred, q); got != 1 {
		t.Errorf("Hamming with query = %v, want 1", got)
	}
	if got := F1.Loss(truth, pred, q); !near(got, 100.0/3, 1e-12) {
		t.Errorf("F1 loss with query = %v, want 100/3", got)
	}
	if got := F1Loss([]bool{false}, []bool{false}, nil); got != 0 {
		t.Errorf("F1 loss with no true atoms = %v, want 0", got)
	}
}

// refLearner is a dense, eager implementation of each rule straight from
// the papers' formulas, for comparison with the sparse lazy learners.
type refLearner struct {
	kind               string
	sigma, c           float64
	lambda, eta, delta float64
	w, G, sum          []float64
	t                  int
}

func (r *refLearner) grow(v float64) {
	if (r.kind == "cda" || r.kind == "sub") && r.t > 0 {
		v = 0 // Algorithm 2 and the subgradient rule forget w_1
	}
	r.w = append(r.w, v)
	r.G = append(r.G, 0)
	r.sum = append(r.sum, float64(r.t)*v)
}

func (r *refLearner) step(d []float64, rho float64) {
	r.t++
	t := float64(r.t)
	var dot, norm2 float64
	for i := range d {
		dot += r.w[i] * d[i]
		norm2 += d[i] * d[i]
	}
	switch r.kind {
	case "cda":
		l := math.Max(0, rho-(t-1)/t*dot)
		step := 0.0
		if norm2 > 0 {
			step = math.Min(1/(r.sigma*t), l/norm2)
		}
		for i := range r.w {
			r.w[i] = (t-1)/t*r.w[i] + step*d[i]
		}
	case "sub":
		step := 0.0
		if rho-dot > 0 {
			step = 1 / (r.sigma * t)
		}
		for i := range r.w {
			r.w[i] = (t-1)/t*r.w[i] + step*d[i]
		}
	case "mira":
		l := math.Max(0, rho-dot)
		if l > 0 && norm2 > 0 {
			tau := l / norm2
			if r.c > 0 {
				tau = math.Min(tau, r.c)
			}
			for i := range r.w {
				r.w[i] += tau * d[i]
			}
		}
	case "ada":
		active := rho-dot > 0
		for i := range r.w {
			g := 0.0
			if active {
				g = d[i]
			}
			r.G[i] += g * g
			H := r.delta + math.Sqrt(r.G[i])
			if H == 0 { // infinite step: zeroed when λ > 0
				if r.lambda > 0 {
					r.w[i] = 0
				}
				continue
			}
			z := r.w[i] + r.eta/H*g
			a := math.Abs(z) - r.lambda*r.eta/H
			r.w[i] = math.Copysign(math.Max(a, 0), z)
		}
	}
	for i := range r.w {
		r.sum[i] += r.w[i]
	}
}

// TestLearnersMatchReference drives each learner and the dense reference
// with random sparse differences (many zero entries, so AdaGrad's lazy
// shrinkage is exercised) and a parameter vector that grows, comparing
// the weights after every step and the final averages.
func TestLearnersMatchReference(t *testing.T) {
	methods := []struct {
		m   Method
		ref refLearner
	}{
		{&CDA{Sigma: 0.7}, refLearner{kind: "cda", sigma: 0.7}},
		{&CDA{Sigma: 0.05}, refLearner{kind: "cda", sigma: 0.05}},
		{&Subgradient{Sigma: 1.3}, refLearner{kind: "sub", sigma: 1.3}},
		{DefaultMIRA(), refLearner{kind: "mira"}},
		{&MIRA{C: 0.4}, refLearner{kind: "mira", c: 0.4}},
		{&AdaGradFB{Lambda: 0.05, Eta: 0.8, Delta: 1}, refLearner{kind: "ada", lambda: 0.05, eta: 0.8, delta: 1}},
		{&AdaGradFB{Lambda: 0.3, Eta: 1, Delta: 0}, refLearner{kind: "ada", lambda: 0.3, eta: 1, delta: 0}},
		{DefaultAdaGradFB(), refLearner{kind: "ada", lambda: 0.001, eta: 1, delta: 1}},
	}
	for mi, tc := range methods {
		r := rand.New(rand.NewPCG(uint64(mi), 9))
		init := []float64{r.NormFloat64(), 0, r.NormFloat64()}
		ref := tc.ref
		for _, v := range init {
			ref.grow(v)
		}
		l, err := tc.m.NewLearner(init)
		if err != nil {
			t.Fatal(err)
		}
		all := append([]float64(nil), init...)
		for step := 0; step < 200; step++ {
			if r.IntN(10) == 0 { // new parameters
				k := 1 + r.IntN(2)
				for j := 0; j < k; j++ {
					v := 0.0
					if r.IntN(2) == 0 {
						v = r.NormFloat64()
					}
					all = append(all, v)
					ref.grow(v)
				}
				l.Grow(all)
			}
			np := len(all)
			d := make([]float64, np)
			var s Sparse
			for i := range d {
				if r.IntN(4) == 0 {
					d[i] = float64(r.IntN(5) - 2)
					if d[i] != 0 {
						s.Idx = append(s.Idx, int32(i))
						s.Val = append(s.Val, d[i])
					}
				}
			}
			rho := float64(r.IntN(4))
			if r.IntN(10) == 0 { // a step with no error
				s, rho = Sparse{}, 0
				clear(d)
			}
			// Read a random parameter between steps (lazy catch-up must
			// not change the result).
			_ = l.Weight(r.IntN(np))
			l.Step(s, rho)
			ref.step(d, rho)
			for i := 0; i < np; i++ {
				if got := l.Weight(i); !near(got, ref.w[i], 1e-9) {
					t.Fatalf("%s step %d: w[%d] = %v, reference %v", tc.m.Name(), step+1, i, got, ref.w[i])
				}
			}
		}
		got := make([]float64, l.Len())
		l.Final(got, true)
		for i := range got {
			if want := ref.sum[i] / float64(ref.t); !near(got[i], want, 1e-9) {
				t.Errorf("%s: average[%d] = %v, reference %v", tc.m.Name(), i, got[i], want)
			}
		}
		l.Final(got, false)
		for i := range got {
			if !near(got[i], ref.w[i], 1e-9) {
				t.Errorf("%s: last[%d] = %v, reference %v", tc.m.Name(), i, got[i], ref.w[i])
			}
		}
	}
}

// chainExample builds a chain of n atoms: atom i has a feature f_i in
// {0,1,2} tied to the unit clause (a_i) with parameter f_i, and
// consecutive atoms share parameter 3 through (¬a_i ∨ a_{i+1}) and
// (a_i ∨ ¬a_{i+1}), coefficient ½ each. Truth is the exact MAP under wStar.
func chainExample(r *rand.Rand, n int, wStar []float64) *Example {
	net := ground.NewNetwork(n)
	for i := 0; i < n; i++ {
		f := int32(r.IntN(3))
		net.AddClause([]ground.Lit{ground.MakeLit(int32(i), false)}, 0, f, f, 1)
	}
	for i := 0; i+1 < n; i++ {
		a, b := int32(i), int32(i+1)
		net.AddClause([]ground.Lit{ground.MakeLit(a, true), ground.MakeLit(b, false)}, 0, 3, 3, 0.5)
		net.AddClause([]ground.Lit{ground.MakeLit(a, false), ground.MakeLit(b, true)}, 0, 3, 3, 0.5)
	}
	setWeights(net, wStar)
	return &Example{Net: net, Truth: bruteMAP(net, nil)}
}

// TestSyntheticSeparable learns from examples labelled by a hidden weight
// vector: the training loss must reach 0 and the learned (averaged)
// weights must predict every training example exactly.
func TestSyntheticSeparable(t *testing.T) {
	wStar := []float64{1.5, -1, 0.3, 0.8}
	r := rand.New(rand.NewPCG(5, 6))
	var exs Examples
	for i := 0; i < 30; i++ {
		exs = append(exs, chainExample(r, 5, wStar))
	}
	// Which weights must separate the training set: the last ones, the
	// averaged ones, or both. (CDA's iterates shrink like 1/t between
	// mistakes, so its average leans on the early iterates; with σ = 1
	// the average does not separate here. Subgradient-ML only has to run.)
	cases := []struct {
		m           Method
		last, avg   bool
		zeroPLInEnd bool
	}{
		{DefaultCDA(), true, false, true},
		{&CDA{Sigma: 0.01}, true, true, true},
		{&CDA{Sigma: 0.01, Inference: MaxLoss}, false, true, false},
		{DefaultMIRA(), true, true, true},
		{DefaultAdaGradFB(), false, true, true},
		{&Subgradient{Sigma: 0.01}, false, false, false},
	}
	for _, tc := range cases {
		model := &mln.Model{Weights: make([]float64, 4)}
		st, err := Online(context.Background(), model, exs, tc.m,
			Settings{Solver: bruteSolver, Passes: 12, Shuffle: true, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		if last := st.PassLoss[len(st.PassLoss)-1]; tc.zeroPLInEnd && last != 0 {
			t.Errorf("%s: last pass loss %v, want 0 (per pass %v)", tc.m.Name(), last, st.PassLoss)
		}
		for k, w := range [][]float64{st.Last, model.Weights} {
			mistakes := 0
			for _, ex := range exs {
				setWeights(ex.Net, w)
				if HammingLoss(ex.Truth, bruteMAP(ex.Net, nil), nil) > 0 {
					mistakes++
				}
			}
			which := [2]string{"last", "averaged"}[k]
			if mistakes > 0 && [2]bool{tc.last, tc.avg}[k] {
				t.Errorf("%s: %s weights %v mispredict %d of %d training examples (pass losses %v)",
					tc.m.Name(), which, w, mistakes, len(exs), st.PassLoss)
			}
		}
	}
}

// growingSource allocates a new parameter in the model before returning
// each example (as grounding a "+" clause would), tying its unit clause to
// it.
type growingSource struct {
	model *mln.Model
	n     int
}

func (s *growingSource) Len() int { return s.n }

func (s *growingSource) Example(_ context.Context, i int) (*Example, error) {
	p := len(s.model.Weights)
	s.model.Weights = append(s.model.Weights, 5) // a written weight the learner must ignore
	net := ground.NewNetwork(2)
	net.AddClause([]ground.Lit{ground.MakeLit(0, false)}, 0, 0, 0, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(1, false)}, 0, 1, int32(p), 1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, true), ground.MakeLit(1, true)}, math.Inf(1), 2, -1, 1)
	return &Example{Net: net, Truth: []bool{i%2 == 0, i%2 == 1}}, nil
}

func TestGrowingParameters(t *testing.T) {
	for _, m := range []Method{DefaultCDA(), DefaultMIRA(), DefaultAdaGradFB(), DefaultSubgradient()} {
		model := &mln.Model{Weights: []float64{0}}
		src := &growingSource{model: model, n: 6}
		st, err := Online(context.Background(), model, src, m, Settings{Solver: bruteSolver})
		if err != nil {
			t.Fatal(err)
		}
		if len(model.Weights) != 7 || len(st.Last) != 7 {
			t.Fatalf("%s: %d weights, %d last, want 7", m.Name(), len(model.Weights), len(st.Last))
		}
		for p, w := range model.Weights {
			if w == 5 || math.IsNaN(w) {
				t.Errorf("%s: weight %d = %v", m.Name(), p, w)
			}
		}
	}
}

func TestKeepInitial(t *testing.T) {
	// With KeepInitial, MIRA's first prediction uses w_1 = (3, 0): ŷ has
	// a0 true; the truth (T,T) differs in a1 only.
	ex := handExample()
	model := &mln.Model{Weights: []float64{3, 0}}
	st, err := Online(context.Background(), model, Examples{ex}, DefaultMIRA(),
		Settings{Solver: bruteSolver, KeepInitial: true, NoAverage: true})
	if err != nil {
		t.Fatal(err)
	}
	// ŷ = (T,F), Δφ = (0,1), ρ = 1, τ = 1: w_2 = (3,1).
	if st.Last[0] != 3 || st.Last[1] != 1 {
		t.Errorf("w_2 = %v, want [3 1]", st.Last)
	}
}

func TestDeterministicShuffle(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	var exs Examples
	for i := 0; i < 10; i++ {
		exs = append(exs, chainExample(r, 4, []float64{1, -1, 0.5, 0.7}))
	}
	run := func(seed int64) []float64 {
		model := &mln.Model{Weights: make([]float64, 4)}
		if _, err := Online(context.Background(), model, exs, DefaultCDA(),
			Settings{Solver: bruteSolver, Shuffle: true, Seed: seed, Passes: 2}); err != nil {
			t.Fatal(err)
		}
		return model.Weights
	}
	a, b := run(1), run(1)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, different weights: %v vs %v", a, b)
		}
	}
}

func TestCancel(t *testing.T) {
	ex := handExample()
	exs := Examples{ex, ex, ex, ex, ex}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	solver := func(ctx context.Context, net *ground.Network, bias []float64) ([]bool, error) {
		calls++
		if calls == 3 {
			cancel()
		}
		return bruteMAP(net, bias), nil
	}
	model := &mln.Model{Weights: []float64{0, 0}}
	st, err := Online(ctx, model, exs, DefaultCDA(), Settings{Solver: solverFunc(solver), NoAverage: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// Three updates were done: w_4 = (⅓,⅓) as in TestHandCDAPL.
	if st.Steps != 3 || !near(model.Weights[0], 1.0/3, 1e-12) || !near(model.Weights[1], 1.0/3, 1e-12) {
		t.Errorf("after cancel: %d steps, weights %v", st.Steps, model.Weights)
	}
}

func TestSettingsErrors(t *testing.T) {
	ex := handExample()
	model := &mln.Model{Weights: []float64{0, 0}}
	ctx := context.Background()
	if _, err := Online(ctx, model, Examples{ex}, &CDA{Sigma: 1, Inference: MaxLoss},
		Settings{Solver: bruteSolver, Loss: F1}); err == nil {
		t.Error("CDA-ML with F1 loss: no error")
	}
	if _, err := Online(ctx, model, Examples{ex}, &CDA{}, Settings{Solver: bruteSolver}); err == nil {
		t.Error("sigma 0: no error")
	}
	// No solver: the default engine, exact MPE, learns what enumeration does.
	byDefault := &mln.Model{Weights: []float64{0, 0}}
	byBrute := &mln.Model{Weights: []float64{0, 0}}
	if _, err := Online(ctx, byDefault, Examples{ex, ex}, DefaultCDA(), Settings{}); err != nil {
		t.Errorf("no solver: %v", err)
	}
	if _, err := Online(ctx, byBrute, Examples{ex, ex}, DefaultCDA(), Settings{Solver: bruteSolver}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(byDefault.Weights, byBrute.Weights) {
		t.Errorf("default engine: weights %v, enumeration %v", byDefault.Weights, byBrute.Weights)
	}
	bad := &Example{Net: ex.Net, Truth: []bool{true}}
	if _, err := Online(ctx, model, Examples{bad}, DefaultCDA(), Settings{Solver: bruteSolver}); err == nil {
		t.Error("short truth: no error")
	}
	small := &mln.Model{Weights: []float64{0}}
	if _, err := Online(ctx, small, Examples{ex}, DefaultCDA(), Settings{Solver: bruteSolver}); err == nil {
		t.Error("parameter out of range: no error")
	}
}

func TestProgress(t *testing.T) {
	ex := handExample()
	var last Progress
	n := 0
	model := &mln.Model{Weights: []float64{0, 0}}
	_, err := Online(context.Background(), model, Examples{ex, ex}, DefaultCDA(),
		Settings{Solver: bruteSolver, Passes: 2, Progress: func(p Progress) { last = p; n++ }})
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 || last.Done != 4 || last.Total != 4 || last.Pass != 1 {
		t.Errorf("progress calls %d, last %+v", n, last)
	}
}

func TestDatabaseSource(t *testing.T) {
	m := &mln.Model{}
	typ := m.AddType("T", syntax.Pos{})
	a, b := m.AddToType(typ.ID, "A"), m.AddToType(typ.ID, "B")
	q := m.AddPred(&mln.Predicate{Name: "Q", Args: []mln.TypeID{typ.ID}})
	e := m.AddPred(&mln.Predicate{Name: "E", Args: []mln.TypeID{typ.ID}})
	db := mln.NewDatabase(m)
	db.Set(e.ID, []mln.ConstID{a}, mln.True)
	db.Set(q.ID, []mln.ConstID{a}, mln.True)
	db.Set(q.ID, []mln.ConstID{b}, mln.False)
	src := &DatabaseSource{Model: m, DBs: []*mln.Database{db}, Query: []mln.PredID{q.ID},
		Ground: func(_ context.Context, ev *mln.Database) (*ground.Network, error) {
			if ev.Count(q.ID) != 0 || ev.Count(e.ID) != 1 {
				t.Errorf("evidence has %d query and %d evidence atoms, want 0 and 1", ev.Count(q.ID), ev.Count(e.ID))
			}
			net := ground.NewNetwork(0)
			net.AddAtom(q.ID, []mln.ConstID{b})
			net.AddAtom(q.ID, []mln.ConstID{a})
			net.AddAtom(e.ID, []mln.ConstID{b}) // an open-world non-query atom
			return net, nil
		}}
	ex, err := src.Example(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ex.Truth) != "[false true false]" || fmt.Sprint(ex.Query) != "[true true false]" {
		t.Errorf("truth %v query %v", ex.Truth, ex.Query)
	}
}
