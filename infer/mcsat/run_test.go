package mcsat

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/internal/testkit/brute"
)

// TestRunMatchesExact checks the pooled marginals of several chains, with
// and without tempering, against enumeration.
func TestRunMatchesExact(t *testing.T) {
	for _, method := range []Method{MethodMCSAT, MethodGibbs} {
		for _, set := range []struct {
			reps   int
			blockW float64
			stars  bool
		}{{1, -1, false}, {1, 0, false}, {3, 0, false}, {1, 1, false}, {1, -1, true}, {2, 1, true}} {
			reps := set.reps
			rng := rand.New(rand.NewPCG(3, 4))
			worst := 0.0
			for i := range 12 {
				net, bias, exact := randomModel(rng, method == MethodGibbs)
				opt := Options{Options: infer.Options{Bias: bias, Seed: int64(i)}, Samples: 10000, Replicas: reps, MinBeta: 0.3, BlockWeight: set.blockW, MaxBlock: 4, ExactAtoms: -1,
					Indicators: i%2 == 1, Stars: set.stars, StarLeafDegree: 3}
				got, d, err := Run(context.Background(), net, 2, opt, method)
				if err != nil {
					t.Fatal(err)
				}
				e, a := maxErr(got, exact)
				worst = math.Max(worst, e)
				if e > 0.03 {
					t.Errorf("method %d %+v model %d: atom %d: %.4f, exact %.4f (R-hat %.3f)", method, set, i, a, got[a], exact[a], d.Rhat[a])
				}
				if d.Chains != DefaultChains() || d.Samples != 10000 {
					t.Errorf("diagnostics of %d chains of %d samples", d.Chains, d.Samples)
				}
			}
			t.Logf("method %d %+v: worst error %.4f", method, set, worst)
		}
	}
}

// TestRunDeterministic checks that the result does not depend on the
// number of workers.
func TestRunDeterministic(t *testing.T) {
	net := ground.NewNetwork(9)
	for c := 0; c < 3; c++ { // three components
		b := int32(3 * c)
		net.AddClause([]ground.Lit{ground.MakeLit(b, false), ground.MakeLit(b+1, true)}, 1.3, -1, -1, 1)
		net.AddClause([]ground.Lit{ground.MakeLit(b+1, false), ground.MakeLit(b+2, false)}, -0.4, -1, -1, 1)
		net.AddClause([]ground.Lit{ground.MakeLit(b+2, false)}, 0.7, -1, -1, 1)
	}
	for _, method := range []Method{MethodMCSAT, MethodGibbs} {
		var first []float64
		var firstD *Diagnostics
		for _, workers := range []int{1, 2} {
			opt := Options{Options: infer.Options{Seed: 11}, Samples: 300, Chains: 3, Replicas: 2, BlockWeight: 1, ExactAtoms: -1}
			p, d, err := Run(context.Background(), net, workers, opt, method)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first, firstD = p, d
				continue
			}
			for a := range p {
				if p[a] != first[a] || d.Rhat[a] != firstD.Rhat[a] || d.ESS[a] != firstD.ESS[a] {
					t.Fatalf("method %d atom %d: workers 1: %v %v %v, workers 2: %v %v %v", method, a, first[a], firstD.Rhat[a], firstD.ESS[a], p[a], d.Rhat[a], d.ESS[a])
				}
			}
		}
	}
}

func TestSplitRhatDegenerate(t *testing.T) {
	if r := splitRhat([]float64{1, 1, 1, 1}, []float64{0, 0, 0, 0}, 10); r != 1 {
		t.Errorf("constant equal sequences: R-hat %v, want 1", r)
	}
	if r := splitRhat([]float64{0, 0, 1, 1}, []float64{0, 0, 0, 0}, 10); !math.IsInf(r, 1) {
		t.Errorf("constant different sequences: R-hat %v, want +Inf", r)
	}
	if r := splitRhat([]float64{0.5, 0.5, 0.5, 0.5}, []float64{0.25, 0.25, 0.25, 0.25}, 1000); math.Abs(r-1) > 1e-3 {
		t.Errorf("agreeing sequences: R-hat %v, want about 1", r)
	}
}

// TestAccumBatches checks the batch doubling: sums are kept exactly and
// the batches stay equal in size.
func TestAccumBatches(t *testing.T) {
	c := newAccum(1, true)
	total := 0.0
	for i := range 1000 {
		v := float64(i%7) / 7
		total += v
		c.addValues([]float64{v})
	}
	if c.nb < maxBatches/2 || c.nb >= maxBatches || c.count != 1000 {
		t.Fatalf("%d batches of %d, %d samples", c.nb, c.bsize, c.count)
	}
	s := 0.0
	for b := 0; b <= c.nb; b++ {
		x, _ := c.batch(b, 0)
		s += x
	}
	if math.Abs(s-total) > 1e-9 || math.Abs(c.sum[0]-total) > 1e-9 {
		t.Errorf("batch sums %v, total %v, want %v", s, c.sum[0], total)
	}
	if c.nb*c.bsize+c.cur != 1000 {
		t.Errorf("%d batches of %d plus %d != 1000", c.nb, c.bsize, c.cur)
	}
}

// plantedModes returns a network whose worlds fall in two modes that
// large weights separate: atoms x1..xk all equal and y1..yk all the
// opposite (ties of weight tie), x_i preferring true with weight wx and
// y_i with weight wy. The mode x = 1 has probability about
// 1/(1+exp(-k(wx-wy))); leaving a mode takes every unit of the mode's k
// preferred atoms unselected at once (probability exp(-k w)), so one
// MC-SAT chain stays in the mode it entered.
func plantedModes(k int, wx, wy, tie float64) *ground.Network {
	net := ground.NewNetwork(2 * k)
	x := func(i int) int32 { return int32(i) }
	y := func(i int) int32 { return int32(k + i) }
	lit := ground.MakeLit
	for i := 0; i < k; i++ {
		net.AddClause([]ground.Lit{lit(x(i), false)}, wx, -1, -1, 1)
		net.AddClause([]ground.Lit{lit(y(i), false)}, wy, -1, -1, 1)
		// x_i <=> !y_i
		net.AddClause([]ground.Lit{lit(x(i), false), lit(y(i), false)}, tie, -1, -1, 1)
		net.AddClause([]ground.Lit{lit(x(i), true), lit(y(i), true)}, tie, -1, -1, 1)
		if i > 0 { // x_{i-1} <=> x_i
			net.AddClause([]ground.Lit{lit(x(i-1), true), lit(x(i), false)}, tie, -1, -1, 1)
			net.AddClause([]ground.Lit{lit(x(i-1), false), lit(x(i), true)}, tie, -1, -1, 1)
		}
	}
	return net
}

// TestMovesCrossModes plants two modes of known probability and requires
// the estimate of every atom within 0.05 of brute force: one plain chain
// fails (it stays in one mode, and the diagnostics of several plain chains
// flag it); chains with block moves, or with tempering, pass.
func TestMovesCrossModes(t *testing.T) {
	net := plantedModes(5, 2.4, 2.16, 6)
	exact := brute.Marginals(net)
	if exact[0] < 0.6 || exact[0] > 0.9 {
		t.Fatalf("planted mode probability %.3f", exact[0])
	}
	for _, method := range []Method{MethodMCSAT, MethodGibbs} {
		run := func(chains, reps int, blockW float64) ([]float64, *Diagnostics) {
			opt := Options{Options: infer.Options{Seed: 1}, Samples: 4000, Chains: chains, Replicas: reps, MinBeta: 0.05, BlockWeight: blockW, ExactAtoms: -1}
			p, d, err := Run(context.Background(), net, 2, opt, method)
			if err != nil {
				t.Fatal(err)
			}
			return p, d
		}
		p, _ := run(1, 1, -1)
		if e, _ := maxErr(p, exact); e <= 0.05 {
			t.Errorf("method %d: one plain chain within %.3f of brute force: the test does not show stuck chains", method, e)
		}
		// Chains that all enter the same mode cannot tell; with 8 chains
		// from random worlds some enter each (for this seed).
		p, d := run(8, 1, -1)
		t.Logf("method %d: 8 plain chains: x1 %.3f (exact %.3f), max R-hat %.3f", method, p[0], exact[0], d.MaxRhat)
		if d.MaxRhat <= RhatThreshold {
			t.Errorf("method %d: 8 plain chains: max R-hat %.3f does not flag the stuck chains", method, d.MaxRhat)
		}
		for _, set := range []struct {
			name   string
			reps   int
			blockW float64
		}{{"block moves", 1, 0}, {"tempering", 8, -1}} {
			p, d = run(4, set.reps, set.blockW)
			e, a := maxErr(p, exact)
			t.Logf("method %d: 4 chains with %s: x1 %.3f (exact %.3f), max R-hat %.3f, min ESS %.0f", method, set.name, p[0], exact[0], d.MaxRhat, d.MinESS)
			if e > 0.05 {
				t.Errorf("method %d, %s: atom %d: %.3f, exact %.3f", method, set.name, a, p[a], exact[a])
			}
			if d.MaxRhat > RhatThreshold {
				t.Errorf("method %d, %s: max R-hat %.3f", method, set.name, d.MaxRhat)
			}
		}
	}
}

// TestRhatFlagsStuckGibbs: Gibbs sampling cannot flip atoms tied by a hard
// equivalence, so chains started in different modes keep them: R-hat is
// +Inf for those atoms (without block moves, which would resample them
// together).
func TestRhatFlagsStuckGibbs(t *testing.T) {
	net := ground.NewNetwork(3)
	lit := ground.MakeLit
	net.AddClause([]ground.Lit{lit(0, false), lit(1, true)}, math.Inf(1), -1, -1, 1)
	net.AddClause([]ground.Lit{lit(0, true), lit(1, false)}, math.Inf(1), -1, -1, 1)
	net.AddClause([]ground.Lit{lit(2, false)}, 0.5, -1, -1, 1)
	opt := Options{Options: infer.Options{Seed: 1}, Samples: 200, Chains: 8, BlockWeight: -1, ExactAtoms: -1}
	p, d, err := Run(context.Background(), net, 2, opt, MethodGibbs)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(d.Rhat[0], 1) || !math.IsInf(d.Rhat[1], 1) || d.NumAbove != 2 || d.Rhat[2] > RhatThreshold {
		t.Errorf("R-hat %v (%d above), marginals %v", d.Rhat, d.NumAbove, p)
	}
	if got := d.Above(nil, RhatThreshold); len(got) != 2 {
		t.Errorf("Above: %v", got)
	}
	// Block moves resample the tied atoms together: the chains mix.
	opt.BlockWeight = 0
	p, d, err = Run(context.Background(), net, 2, opt, MethodGibbs)
	if err != nil {
		t.Fatal(err)
	}
	if d.MaxRhat > RhatThreshold || math.Abs(p[0]-0.5) > 0.1 || p[0] != p[1] {
		t.Errorf("with block moves: R-hat %v, marginals %v", d.Rhat, p)
	}
}

// TestBlocks checks that heavy clauses tie their atoms into blocks, the
// heaviest first, without exceeding the size limit.
func TestBlocks(t *testing.T) {
	net := ground.NewNetwork(7)
	lit := ground.MakeLit
	net.AddClause([]ground.Lit{lit(0, false), lit(1, false)}, 9, -1, -1, 1)
	net.AddClause([]ground.Lit{lit(1, true), lit(2, false)}, -7, -1, -1, 1)
	net.AddClause([]ground.Lit{lit(2, false), lit(3, false)}, 6, -1, -1, 1) // would make 4 atoms
	net.AddClause([]ground.Lit{lit(4, false), lit(5, true)}, math.Inf(1), -1, -1, 1)
	net.AddClause([]ground.Lit{lit(5, false), lit(6, false)}, 1, -1, -1, 1) // too light
	got := testModel(net, nil).blocks(5, 3)
	want := [][]int32{{0, 1, 2}, {4, 5}}
	if len(got) != len(want) {
		t.Fatalf("blocks %v, want %v", got, want)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("blocks %v, want %v", got, want)
		}
	}
}

// TestBlockMoveAlone checks that block moves alone (every atom in one
// block) sample the exact distribution, hard clauses included.
func TestBlockMoveAlone(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 10 {
		net, bias, exact := randomModel(rng, false)
		m := testModel(net, bias)
		s, err := startChain(m, &Options{InitSteps: DefaultInitSteps, Noise: DefaultNoise}, rand.New(rand.NewPCG(uint64(i), 1)), i)
		if err != nil {
			t.Fatal(err)
		}
		s.begin()
		all := make([]int32, m.n)
		for a := range all {
			all[a] = int32(a)
		}
		score := make([]float64, 1<<m.n)
		hard := make([]int32, 1<<m.n)
		got := make([]float64, m.n)
		const n = 20000
		for range n {
			s.blockMove(all, 0, score, hard)
			for a, v := range s.y {
				if v {
					got[a]++
				}
			}
		}
		for a := range got {
			got[a] /= n
		}
		if e, a := maxErr(got, exact); e > 0.02 {
			t.Errorf("model %d: atom %d: %.4f, exact %.4f", i, a, got[a], exact[a])
		}
	}
}
