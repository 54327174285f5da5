package mws

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// randomNet builds a random network over at most maxAtoms atoms with mixed
// weights, hard clauses, repeated atoms and sometimes a bias.
func randomNet(rng *rand.Rand, maxAtoms int) (*ground.Network, []float64) {
	n := 1 + rng.IntN(maxAtoms)
	net := ground.NewNetwork(n)
	m := 1 + rng.IntN(3*n)
	var lits []ground.Lit
	for range m {
		k := 1 + rng.IntN(4)
		lits = lits[:0]
		for range k {
			lits = append(lits, ground.MakeLit(int32(rng.IntN(n)), rng.IntN(2) == 0))
		}
		var w float64
		switch r := rng.Float64(); {
		case r < 0.1:
			w = math.Inf(1)
		case r < 0.4:
			w = -3 * rng.Float64()
		default:
			w = 3 * rng.Float64()
		}
		net.AddClause(lits, w, -1, -1, 1)
	}
	var bias []float64
	if rng.IntN(3) == 0 {
		bias = make([]float64, n)
		for a := range bias {
			if rng.IntN(2) == 0 {
				bias[a] = 4*rng.Float64() - 2
			}
		}
	}
	return net, bias
}

// bruteMin enumerates all assignments and returns the least number of hard
// violations and the least biased cost among assignments with that number.
func bruteMin(net *ground.Network, bias []float64) (int, float64) {
	n := net.NumAtoms()
	y := make([]bool, n)
	bestHard, bestCost := math.MaxInt, math.Inf(1)
	for mask := 0; mask < 1<<n; mask++ {
		for a := range y {
			y[a] = mask>>a&1 == 1
		}
		c, h := infer.BiasedCost(net, bias, y)
		if h < bestHard || (h == bestHard && c < bestCost) {
			bestHard, bestCost = h, c
		}
	}
	return bestHard, bestCost
}

func TestSolveMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const instances = 300
	optimalSeen := 0
	for i := range instances {
		net, bias := randomNet(rng, 12)
		wantHard, wantCost := bruteMin(net, bias)
		res, err := Solve(context.Background(), net, Options{
			Options:  infer.Options{Bias: bias, Seed: int64(i)},
			MaxSteps: 20000,
		})
		if err != nil {
			t.Fatal(err)
		}
		c, h := infer.BiasedCost(net, bias, res.Assign)
		if h != res.HardViolated || math.Abs(c-res.Cost) > 1e-9 {
			t.Fatalf("instance %d: result reports cost %v/%d, assignment has %v/%d", i, res.Cost, res.HardViolated, c, h)
		}
		if h != wantHard || math.Abs(c-wantCost) > 1e-9 {
			t.Fatalf("instance %d (%d atoms, %d clauses): got cost %v hard %d, optimum %v hard %d",
				i, net.NumAtoms(), net.NumClauses(), c, h, wantCost, wantHard)
		}
		if res.Optimal {
			optimalSeen++
			if res.Bound != res.Cost {
				t.Fatalf("instance %d: optimal but bound %v != cost %v", i, res.Bound, res.Cost)
			}
		} else if !math.IsInf(res.Bound, -1) {
			t.Fatalf("instance %d: bound %v without optimality", i, res.Bound)
		}
	}
	t.Logf("%d of %d results proved optimal", optimalSeen, instances)
}

// check recomputes every incremental quantity of w from scratch.
func (w *walker) check(t *testing.T) {
	t.Helper()
	p := w.p
	hard, soft := 0, 0.0
	nbad := 0
	for c := 0; c < p.numClauses(); c++ {
		nt, x := int32(0), int32(0)
		for _, l := range p.clause(c) {
			if l.True(w.y) {
				nt++
				x ^= l.Atom()
			}
		}
		cs := w.cl[c]
		if nt != cs.numTrue {
			t.Fatalf("clause %d: numTrue %d, want %d", c, cs.numTrue, nt)
		}
		if nt == 1 && x != cs.xorTrue {
			t.Fatalf("clause %d: critical atom %d, want %d", c, cs.xorTrue, x)
		}
		isBad := (p.s[c] > 0) == (nt == 0)
		if isBad != (cs.badPos >= 0) {
			t.Fatalf("clause %d: bad %v, listed %v", c, isBad, cs.badPos >= 0)
		}
		if isBad {
			nbad++
			list := w.badSoft
			if p.hard[c] {
				list = w.badHard
				hard++
			} else {
				soft += math.Abs(p.s[c])
			}
			if list[cs.badPos] != int32(c) {
				t.Fatalf("clause %d: bad position wrong", c)
			}
		}
	}
	if nbad != w.numBad() || hard != w.hardBad || hard != len(w.badHard) || math.Abs(soft-w.softCost) > 1e-9 {
		t.Fatalf("bad list %d/%d, hard %d/%d, soft %v/%v", w.numBad(), nbad, w.hardBad, hard, w.softCost, soft)
	}
	// total returns the cost and the set of costly hard clauses.
	total := func() (float64, []bool) {
		s := 0.0
		badHard := make([]bool, p.numClauses())
		for c := 0; c < p.numClauses(); c++ {
			sat := false
			for _, l := range p.clause(c) {
				if l.True(w.y) {
					sat = true
				}
			}
			if sat != (p.s[c] > 0) {
				s += math.Abs(p.s[c])
				badHard[c] = p.hard[c]
			}
		}
		return s, badHard
	}
	base, baseBad := total()
	for a := range w.y {
		w.y[a] = !w.y[a]
		cost, bad := total()
		w.y[a] = !w.y[a]
		if d := cost - base; math.Abs(d-w.at[a].delta) > 1e-9 {
			t.Fatalf("atom %d: delta %v, want %v", a, w.at[a].delta, d)
		}
		brk := int32(0)
		for c := range bad {
			if bad[c] && !baseBad[c] {
				brk++
			}
		}
		if brk != w.at[a].brk {
			t.Fatalf("atom %d: breaks %d hard clauses, want %d", a, w.at[a].brk, brk)
		}
	}
}

func TestIncrementalBookkeeping(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 100 {
		net, bias := randomNet(rng, 12)
		p := newProblem(net, bias)
		w := newWalker(p)
		for a := range w.y {
			w.y[a] = rng.IntN(2) == 0
		}
		w.reset()
		w.check(t)
		for step := range 200 {
			var a int32
			if w.numBad() > 0 && step%2 == 0 {
				a = w.pick(rng, 0.3, 3, int64(step), w.hardBad, w.softCost)
				if a < 0 {
					continue
				}
			} else {
				a = int32(rng.IntN(p.n))
			}
			w.flip(a)
			w.at[a].last = int64(step)
			w.check(t)
		}
		_ = i
	}
}

func TestProblemNormalisation(t *testing.T) {
	net := ground.NewNetwork(2)
	a, na := ground.MakeLit(0, false), ground.MakeLit(0, true)
	b := ground.MakeLit(1, false)
	net.AddClause([]ground.Lit{a, a, b}, 1, -1, -1, 1) // duplicate literal
	net.AddClause([]ground.Lit{a, na}, -2, -1, -1, 1)  // tautology, always costs 2
	net.AddClause(nil, 3, -1, -1, 1)                   // empty, always costs 3
	net.AddClause([]ground.Lit{b}, 0, -1, -1, 1)       // zero weight
	p := newProblem(net, nil)
	if p.numClauses() != 1 || len(p.clause(0)) != 2 || p.constCost != 5 {
		t.Fatalf("got %d clauses, first of length %d, const cost %v", p.numClauses(), len(p.clause(0)), p.constCost)
	}
	res, err := Solve(context.Background(), net, Options{MaxSteps: 100})
	if err != nil {
		t.Fatal(err)
	}
	if res.Cost != 5 || !res.Optimal {
		t.Fatalf("cost %v optimal %v, want 5 true", res.Cost, res.Optimal)
	}
}

func TestDeterministicAndInit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	net := ground.NewNetwork(200)
	for range 800 {
		k := 2 + rng.IntN(3)
		var lits []ground.Lit
		for range k {
			lits = append(lits, ground.MakeLit(int32(rng.IntN(200)), rng.IntN(2) == 0))
		}
		net.AddClause(lits, 2*rng.Float64()-0.5, -1, -1, 1)
	}
	opt := Options{Options: infer.Options{Seed: 7}, MaxSteps: 20000, Tries: 2}
	r1, _ := Solve(context.Background(), net, opt)
	r2, _ := Solve(context.Background(), net, opt)
	for a := range r1.Assign {
		if r1.Assign[a] != r2.Assign[a] {
			t.Fatal("same seed, different assignments")
		}
	}
	// Starting from a good assignment with no steps to spare keeps it.
	init := append([]bool(nil), r1.Assign...)
	var steps []int
	r3, _ := Solve(context.Background(), net, Options{MaxSteps: 1, Init: init,
		Progress: func(step int, cost float64) { steps = append(steps, step) }})
	if r3.Cost > r1.Cost+1e-9 {
		t.Fatalf("cost from Init %v worse than Init's %v", r3.Cost, r1.Cost)
	}
	if len(steps) == 0 || steps[0] != 0 {
		t.Fatalf("progress steps %v", steps)
	}
}

func TestCancel(t *testing.T) {
	net := ground.NewNetwork(3)
	net.AddClause([]ground.Lit{ground.MakeLit(0, false)}, 1, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, true)}, 1, -1, -1, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Solve(ctx, net, Options{})
	if err == nil || res == nil || len(res.Assign) != 3 {
		t.Fatalf("got %v, %v", res, err)
	}
}

// BenchmarkFlips measures MaxWalkSAT steps per second on a random network of
// 100k atoms and 400k clauses of length 2 to 4.
func BenchmarkFlips(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 9))
	const n, m = 100000, 400000
	net := ground.NewNetwork(n)
	lits := make([]ground.Lit, 0, 4)
	for range m {
		lits = lits[:0]
		for range 2 + rng.IntN(3) {
			lits = append(lits, ground.MakeLit(int32(rng.IntN(n)), rng.IntN(2) == 0))
		}
		w := 0.5 + 2*rng.Float64()
		if rng.IntN(5) == 0 {
			w = -w
		}
		net.AddClause(lits, w, -1, -1, 1)
	}
	net.Occurrences(0)
	steps := 1000000
	if os.Getenv("MWS_BENCH_STEPS") != "" {
		steps, _ = strconv.Atoi(os.Getenv("MWS_BENCH_STEPS"))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Solve(context.Background(), net, Options{Options: infer.Options{Seed: int64(i)}, MaxSteps: steps})
		if err != nil {
			b.Fatal(err)
		}
		_ = res
	}
	b.ReportMetric(float64(steps)*float64(b.N)/b.Elapsed().Seconds(), "flips/s")
}
