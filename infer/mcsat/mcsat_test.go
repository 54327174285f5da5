package mcsat

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// exactMarginals enumerates all worlds: P(y) ∝ exp(score(y) + bias·y) over
// the worlds violating no hard clause.
func exactMarginals(net *ground.Network, bias []float64) ([]float64, bool) {
	n := net.NumAtoms()
	y := make([]bool, n)
	marg := make([]float64, n)
	type world struct {
		score float64
		mask  int
	}
	var ws []world
	maxS := math.Inf(-1)
	for mask := 0; mask < 1<<n; mask++ {
		for a := range y {
			y[a] = mask>>a&1 == 1
		}
		s, h := net.Score(y)
		if h > 0 {
			continue
		}
		for a, b := range bias {
			if y[a] {
				s += b
			}
		}
		ws = append(ws, world{s, mask})
		maxS = math.Max(maxS, s)
	}
	if len(ws) == 0 {
		return nil, false
	}
	z := 0.0
	for _, w := range ws {
		p := math.Exp(w.score - maxS)
		z += p
		for a := range marg {
			if w.mask>>a&1 == 1 {
				marg[a] += p
			}
		}
	}
	for a := range marg {
		marg[a] /= z
	}
	return marg, true
}

// connected reports whether the worlds satisfying the hard clauses are
// connected by single flips (so that Gibbs sampling with hard constraints
// is ergodic).
func connected(net *ground.Network) bool {
	n := net.NumAtoms()
	y := make([]bool, n)
	ok := make([]bool, 1<<n)
	start, total := -1, 0
	for mask := range ok {
		for a := range y {
			y[a] = mask>>a&1 == 1
		}
		if _, h := net.Score(y); h == 0 {
			ok[mask] = true
			total++
			if start < 0 {
				start = mask
			}
		}
	}
	seen := make([]bool, 1<<n)
	stack := []int{start}
	seen[start] = true
	cnt := 0
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		cnt++
		for a := range n {
			z := x ^ 1<<a
			if ok[z] && !seen[z] {
				seen[z] = true
				stack = append(stack, z)
			}
		}
	}
	return cnt == total
}

func lits(spec ...int) []ground.Lit {
	var ls []ground.Lit
	for _, x := range spec {
		if x < 0 {
			ls = append(ls, ground.MakeLit(int32(-x-1), true))
		} else {
			ls = append(ls, ground.MakeLit(int32(x-1), false))
		}
	}
	return ls
}

// randomModel returns a random small model with at least one world
// satisfying its hard clauses.
func randomModel(rng *rand.Rand, needConnected bool) (*ground.Network, []float64, []float64) {
	for {
		n := 2 + rng.IntN(7)
		net := ground.NewNetwork(n)
		m := 1 + rng.IntN(2*n)
		for range m {
			k := 1 + rng.IntN(3)
			var ls []ground.Lit
			for range k {
				ls = append(ls, ground.MakeLit(int32(rng.IntN(n)), rng.IntN(2) == 0))
			}
			w := 5*rng.Float64() - 2.5
			if rng.IntN(7) == 0 {
				w = math.Inf(1)
			}
			net.AddClause(ls, w, -1, -1, 1)
		}
		var bias []float64
		if rng.IntN(4) == 0 {
			bias = make([]float64, n)
			for a := range bias {
				bias[a] = 2*rng.Float64() - 1
			}
		}
		exact, ok := exactMarginals(net, bias)
		if !ok || (needConnected && !connected(net)) {
			continue
		}
		return net, bias, exact
	}
}

func maxErr(got, want []float64) (float64, int) {
	e, at := 0.0, -1
	for a := range got {
		if d := math.Abs(got[a] - want[a]); d > e {
			e, at = d, a
		}
	}
	return e, at
}

func TestUniformOverSatisfyingWorlds(t *testing.T) {
	// One hard clause H(A) v S(C): three satisfying worlds, P(H(A)) = 2/3.
	net := ground.NewNetwork(2)
	net.AddClause(lits(1, 2), math.Inf(1), -1, -1, 1)
	got, err := MCSAT(context.Background(), net, Options{Options: infer.Options{Seed: 1}, Samples: 40000})
	if err != nil {
		t.Fatal(err)
	}
	for a, p := range got {
		if math.Abs(p-2.0/3) > 0.01 {
			t.Errorf("P(atom %d) = %.4f, want 2/3", a, p)
		}
	}
	g, err := Gibbs(context.Background(), net, Options{Options: infer.Options{Seed: 1}, Samples: 40000})
	if err != nil {
		t.Fatal(err)
	}
	for a, p := range g {
		if math.Abs(p-2.0/3) > 0.01 {
			t.Errorf("Gibbs: P(atom %d) = %.4f, want 2/3", a, p)
		}
	}
}

func TestUniformRandomSAT(t *testing.T) {
	// Hard clauses only: the marginals are solution counts, which SampleSAT
	// must reproduce without WalkSAT's bias towards some solutions.
	rng := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 5; {
		n := 8
		net := ground.NewNetwork(n)
		for range 14 {
			var ls []ground.Lit
			for range 3 {
				ls = append(ls, ground.MakeLit(int32(rng.IntN(n)), rng.IntN(2) == 0))
			}
			net.AddClause(ls, math.Inf(1), -1, -1, 1)
		}
		exact, ok := exactMarginals(net, nil)
		if !ok {
			continue
		}
		got, err := MCSAT(context.Background(), net, Options{Options: infer.Options{Seed: int64(i)}, Samples: 20000})
		if err != nil {
			t.Fatal(err)
		}
		if e, a := maxErr(got, exact); e > 0.03 {
			t.Errorf("model %d: atom %d: %.4f, exact %.4f", i, a, got[a], exact[a])
		} else {
			t.Logf("model %d: max error %.4f", i, e)
		}
		i++
	}
}

// TestMCSATMatchesExact checks MC-SAT's marginals against enumeration, with
// each way of drawing the clause selection.
func TestMCSATMatchesExact(t *testing.T) {
	for _, mode := range []struct {
		name string
		sel  selectMode
	}{{"auto", selectAuto}, {"skip", selectSkip}, {"atoms", selectAtoms}, {"naive", selectNaive}} {
		t.Run(mode.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			worst := 0.0
			for i := range 25 {
				net, bias, exact := randomModel(rng, false)
				opt := Options{Options: infer.Options{Bias: bias, Seed: int64(i)}, Samples: 100000, selection: mode.sel}
				got, err := MCSAT(context.Background(), net, opt)
				if err != nil {
					t.Fatal(err)
				}
				e, a := maxErr(got, exact)
				worst = math.Max(worst, e)
				if e > 0.03 {
					t.Errorf("model %d (%d atoms, %d clauses): atom %d: %.4f, exact %.4f", i, net.NumAtoms(), net.NumClauses(), a, got[a], exact[a])
				}
			}
			t.Logf("worst error %.4f", worst)
		})
	}
}

// TestSkipSelectionRate checks that the grouped selection (geometric
// skipping and thinning) selects each clause with its own probability,
// independently of the others.
func TestSkipSelectionRate(t *testing.T) {
	sel := []float64{0.001, 0.0015, 0.02, 0.03, 0.1, 0.11, 0.3, 0.9, 1, 0.05}
	m := &model{start: []int32{0}}
	for range 20 {
		for _, p := range sel {
			m.lits = append(m.lits, ground.MakeLit(0, false), ground.MakeLit(1, false))
			m.start = append(m.start, int32(len(m.lits)))
			m.w = append(m.w, -math.Log1p(-min(p, 0.999999)))
			m.sel = append(m.sel, p)
		}
	}
	m.group()
	s := &state{m: m, rng: rand.New(rand.NewPCG(5, 6))}
	hits := make([]int, len(m.sel))
	pairs := 0 // clauses 6 and 7 (0.3 and 0.9) selected together
	const rounds = 100000
	for range rounds {
		on := map[int32]bool{}
		for _, c := range m.denseMulti {
			if m.sel[c] >= 1 || s.rng.Float64() < m.sel[c] {
				hits[c]++
				on[c] = true
			}
		}
		for g := range m.sparseMulti {
			grp := &m.sparseMulti[g]
			for i := s.next(grp, 0); i < len(grp.clauses); i = s.next(grp, i+1) {
				if c := grp.clauses[i]; s.keep(grp, c) {
					hits[c]++
					on[c] = true
				}
			}
		}
		if on[6] && on[7] {
			pairs++
		}
	}
	for c, h := range hits {
		p := m.sel[c]
		if f := float64(h) / rounds; math.Abs(f-p) > 5*math.Sqrt(p*(1-p)/rounds)+1e-9 {
			t.Errorf("clause %d (p=%v) selected %.5f of the time", c, p, f)
		}
	}
	if f, want := float64(pairs)/rounds, 0.3*0.9; math.Abs(f-want) > 5*math.Sqrt(want*(1-want)/rounds) {
		t.Errorf("pair selected %.4f of the time, want %.4f", f, want)
	}
}

func TestGibbsMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	worst := 0.0
	for i := range 25 {
		net, bias, exact := randomModel(rng, true)
		got, err := Gibbs(context.Background(), net, Options{Options: infer.Options{Bias: bias, Seed: int64(i)}, Samples: 10000, Chains: 2})
		if err != nil {
			t.Fatal(err)
		}
		e, a := maxErr(got, exact)
		worst = math.Max(worst, e)
		if e > 0.03 {
			t.Errorf("model %d (%d atoms, %d clauses): atom %d: %.4f, exact %.4f", i, net.NumAtoms(), net.NumClauses(), a, got[a], exact[a])
		}
	}
	t.Logf("worst error %.4f", worst)
}

func TestDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	net, bias, _ := randomModel(rng, false)
	for _, f := range []func(context.Context, *ground.Network, Options) ([]float64, error){MCSAT, Gibbs} {
		opt := Options{Options: infer.Options{Bias: bias, Seed: 9}, Samples: 500, Chains: 2}
		a, _ := f(context.Background(), net, opt)
		b, _ := f(context.Background(), net, opt)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("same seed, different marginals: %v %v", a, b)
			}
		}
	}
}

func TestHardNegativeAndErrors(t *testing.T) {
	// A -Inf clause must be false: atom 0 false, atom 1 true.
	net := ground.NewNetwork(3)
	net.AddClause(lits(1, -2), math.Inf(-1), -1, -1, 1)
	net.AddClause(lits(3), 1, -1, -1, 1)
	for _, f := range []func(context.Context, *ground.Network, Options) ([]float64, error){MCSAT, Gibbs} {
		got, err := f(context.Background(), net, Options{Samples: 20000})
		if err != nil {
			t.Fatal(err)
		}
		want := 1 / (1 + math.Exp(-1))
		if got[0] != 0 || got[1] != 1 || math.Abs(got[2]-want) > 0.02 {
			t.Errorf("got %v, want [0 1 %.3f]", got, want)
		}
	}
	bad := ground.NewNetwork(1)
	bad.AddClause(lits(1), math.Inf(1), -1, -1, 1)
	bad.AddClause(lits(-1), math.Inf(1), -1, -1, 1)
	if _, err := MCSAT(context.Background(), bad, Options{InitSteps: 1000}); !errors.Is(err, ErrHard) || !errors.Is(err, infer.ErrInfeasible) {
		t.Errorf("unsatisfiable hard clauses: got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MCSAT(ctx, net, Options{}); err == nil {
		t.Error("cancelled context: no error")
	}
	if _, err := Gibbs(context.Background(), net, Options{Options: infer.Options{Bias: []float64{1}}}); err == nil {
		t.Error("short bias: no error")
	}
}

// TestSampleSATBookkeeping checks the clause counts and the list of false
// active clauses against recomputation after MC-SAT steps.
func TestSampleSATBookkeeping(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20 {
		net, bias, _ := randomModel(rng, false)
		opt := Options{Options: infer.Options{Bias: bias}}
		m, _ := prepare(context.Background(), net, &opt)
		s, err := newChain(m, &opt, 0)
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			s.mcsatStep(&opt)
			inUnsat := make(map[int32]bool)
			for i, c := range s.unsat {
				inUnsat[c] = true
				if s.unsatPos[c] != int32(i) {
					t.Fatal("unsat position wrong")
				}
			}
			for c := range m.numClauses() {
				nt := int32(0)
				for _, l := range m.clause(c) {
					if l.True(s.y) {
						nt++
					}
				}
				if nt != s.numTrue[c] {
					t.Fatalf("clause %d: count %d, want %d", c, s.numTrue[c], nt)
				}
				if nt == 0 && s.activeAt[c] == s.epoch {
					t.Fatalf("clause %d: selected clause false after SampleSAT", c)
				}
				if inUnsat[int32(c)] {
					t.Fatalf("clause %d listed false", c)
				}
				if math.IsInf(m.w[c], 1) && nt == 0 {
					t.Fatalf("hard clause %d violated", c)
				}
			}
		}
	}
}

// BenchmarkMCSAT measures MC-SAT steps on a random network of 10k atoms and
// 40k clauses of length 1 to 3, 5% of them hard.
func BenchmarkMCSAT(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 9))
	const n, m = 10000, 40000
	net := ground.NewNetwork(n)
	for range m {
		var ls []ground.Lit
		for range 1 + rng.IntN(3) {
			ls = append(ls, ground.MakeLit(int32(rng.IntN(n)), rng.IntN(2) == 0))
		}
		w := 3*rng.Float64() - 1
		if rng.IntN(20) == 0 && len(ls) > 1 {
			w = math.Inf(1)
		}
		net.AddClause(ls, w, -1, -1, 1)
	}
	const samples = 100
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := MCSAT(context.Background(), net, Options{Options: infer.Options{Seed: int64(i)}, Samples: samples, BurnIn: -1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(samples)*float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

// TestDuplicatesPullingBothWays checks MC-SAT on atoms with many duplicate
// unit clauses pulling both ways (as structure learning's clauses with
// free variables ground): unmerged, every state holds some selected copy
// and the chain keeps its initial values.
func TestDuplicatesPullingBothWays(t *testing.T) {
	net := ground.NewNetwork(4)
	for a := range 4 {
		for range 10 + a {
			net.AddClause(lits(a+1), -4.3, -1, -1, 1)
		}
		for range 70 {
			net.AddClause(lits(-(a + 1)), -0.59, -1, -1, 1)
		}
	}
	for range 30 {
		net.AddClause(lits(2, -1), 0.05, -1, -1, 1)
		net.AddClause(lits(-1, 2), 0.02, -1, -1, 1)
		net.AddClause(lits(3, 4), -0.1, -1, -1, 1)
	}
	exact, ok := exactMarginals(net, nil)
	if !ok {
		t.Fatal("no world")
	}
	for _, sampler := range []struct {
		name string
		run  func(context.Context, *ground.Network, Options) ([]float64, error)
	}{{"mcsat", MCSAT}, {"gibbs", Gibbs}} {
		got, err := sampler.run(context.Background(), net, Options{Options: infer.Options{Seed: 3}, Samples: 20000})
		if err != nil {
			t.Fatal(err)
		}
		if e, a := maxErr(got, exact); e > 0.03 {
			t.Errorf("%s: atom %d: %.4f, exact %.4f (all %.3f, exact %.3f)", sampler.name, a, got[a], exact[a], got, exact)
		}
	}
}
