package mws

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
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
		brk := uint32(0)
		for c := range bad {
			if bad[c] && !baseBad[c] {
				brk++
			}
		}
		if got := w.at[a].brk &^ inGood; got != brk {
			t.Fatalf("atom %d: breaks %d hard clauses, want %d", a, got, brk)
		}
	}
	// The good list holds each flagged atom once, and every improving
	// atom when the walk tracks them.
	listed := make([]int, len(w.y))
	for _, a := range w.good {
		listed[a]++
	}
	for a := range w.y {
		flagged := w.at[a].brk&inGood != 0
		if listed[a] > 1 || flagged != (listed[a] == 1) {
			t.Fatalf("atom %d: listed %d times, flagged %v", a, listed[a], flagged)
		}
		if w.track && w.at[a].delta < w.eps && !flagged {
			t.Fatalf("atom %d: improving (delta %v) but not in the good list", a, w.at[a].delta)
		}
	}
}

func TestIncrementalBookkeeping(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 100 {
		net, bias := randomNet(rng, 12)
		if i%3 == 0 { // some hard clauses that must be false
			for c := range net.NumClauses() {
				if math.IsInf(net.Weight(c), 1) && rng.IntN(2) == 0 {
					net.SetWeight(c, math.Inf(-1))
				}
			}
		}
		p := newProblem(net, bias)
		w := newWalker(p)
		w.hardAware, w.track = i%2 == 0, i%4 < 2
		for a := range w.y {
			w.y[a] = rng.IntN(2) == 0
		}
		w.reset(0, int32(p.n), 0, int32(p.numClauses()))
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
			w.at[a].last = uint32(step)
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
// 100k atoms and 400k clauses of length 2 to 4 (one component), with the
// default options and with Alchemy's (Classic).
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
	for _, mode := range []struct {
		name string
		opt  Options
	}{{"default", Options{}}, {"classic", Options{Classic: true}}} {
		b.Run(mode.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				opt := mode.opt
				opt.Seed, opt.MaxSteps = int64(i), steps
				res, err := Solve(context.Background(), net, opt)
				if err != nil {
					b.Fatal(err)
				}
				_ = res
			}
			b.ReportMetric(float64(steps)*float64(b.N)/b.Elapsed().Seconds(), "flips/s")
		})
	}
}

// mutexNet builds a network like CiteSeer segmentation: chains of
// positions, each with three field atoms that hard clauses make mutually
// exclusive, unit clauses with random weights on every atom and soft
// clauses tying each field atom to the same field at the next position.
func mutexNet(rng *rand.Rand, chains, length int) *ground.Network {
	const fields = 3
	net := ground.NewNetwork(chains * length * fields)
	atom := func(c, i, f int) int32 { return int32((c*length+i)*fields + f) }
	for c := range chains {
		for i := range length {
			for f := range fields {
				a := atom(c, i, f)
				net.AddClause([]ground.Lit{ground.MakeLit(a, false)}, rng.NormFloat64(), -1, -1, 1)
				for g := f + 1; g < fields; g++ {
					net.AddClause([]ground.Lit{ground.MakeLit(a, true), ground.MakeLit(atom(c, i, g), true)}, math.Inf(1), -1, -1, 1)
				}
				if i+1 < length {
					b := atom(c, i+1, f)
					w := 1 + rng.Float64()
					net.AddClause([]ground.Lit{ground.MakeLit(a, true), ground.MakeLit(b, false)}, w, -1, -1, 1)
					net.AddClause([]ground.Lit{ground.MakeLit(b, true), ground.MakeLit(a, false)}, w, -1, -1, 1)
				}
			}
		}
	}
	return net
}

// TestStrictHardNeverBreaks checks that once every hard clause holds, the
// strict hard-aware walk never breaks one, and that the bookkeeping stays
// right along the way.
func TestStrictHardNeverBreaks(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 40 {
		var net *ground.Network
		if i%2 == 0 {
			net = mutexNet(rng, 1+rng.IntN(3), 2+rng.IntN(3))
		} else {
			// Random soft clauses plus hard clauses of negative literals
			// only, which all-false satisfies.
			net, _ = randomNet(rng, 12)
			n := net.NumAtoms()
			for range 1 + rng.IntN(2*n) {
				lits := []ground.Lit{ground.MakeLit(int32(rng.IntN(n)), true), ground.MakeLit(int32(rng.IntN(n)), true)}
				net.AddClause(lits, math.Inf(1), -1, -1, 1)
			}
			for c := range net.NumClauses() {
				if math.IsInf(net.Weight(c), 1) && !allNegative(net.Clause(c)) {
					net.SetWeight(c, 1)
				}
			}
		}
		p := newProblem(net, nil)
		w := newWalker(p)
		w.strict, w.track = true, i%4 < 2
		for a := range w.y {
			w.y[a] = rng.IntN(2) == 0
		}
		w.reset(0, int32(p.n), 0, int32(p.numClauses()))
		satisfied := w.hardBad == 0
		for step := range 3000 {
			if w.numBad() == 0 {
				break
			}
			a := w.pick(rng, 0.5, 3, int64(step), w.hardBad, w.softCost)
			if a < 0 {
				continue
			}
			w.flip(a)
			w.at[a].last = uint32(step)
			if satisfied && w.hardBad > 0 {
				t.Fatalf("instance %d step %d: flipping atom %d broke a hard clause", i, step, a)
			}
			satisfied = satisfied || w.hardBad == 0
			if step < 200 {
				w.check(t)
			}
		}
		if !satisfied {
			t.Fatalf("instance %d: hard clauses never all satisfied", i)
		}
	}
}

func allNegative(cl []ground.Lit) bool {
	for _, l := range cl {
		if !l.Neg() {
			return false
		}
	}
	return true
}

// TestModesMatchBruteForce runs every combination of options on small
// random networks: each must reach the brute-force optimum.
func TestModesMatchBruteForce(t *testing.T) {
	modes := map[string]Options{
		"classic":    {Classic: true},
		"breakHard":  {BreakHard: true},
		"strictHard": {StrictHard: true},
		"noGreedy":   {NoGreedy: true},
		"noSplit":    {NoSplit: true},
		"randomInit": {RandomInit: true, Tries: 2},
	}
	for name, mode := range modes {
		rng := rand.New(rand.NewPCG(13, 14))
		for i := range 60 {
			net, bias := randomNet(rng, 10)
			wantHard, wantCost := bruteMin(net, bias)
			opt := mode
			opt.Bias, opt.Seed, opt.MaxSteps = bias, int64(i), 20000
			res, err := Solve(context.Background(), net, opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.HardViolated != wantHard || math.Abs(res.Cost-wantCost) > 1e-9 {
				t.Fatalf("%s, instance %d: got cost %v hard %d, optimum %v hard %d",
					name, i, res.Cost, res.HardViolated, wantCost, wantHard)
			}
		}
	}
}

// TestSplit checks that split renumbers the clauses faithfully into
// components that share no atom.
func TestSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for i := range 100 {
		// Several random networks side by side, and some unused atoms.
		net := ground.NewNetwork(0)
		for range 1 + rng.IntN(4) {
			sub, _ := randomNet(rng, 8)
			base := int32(net.NumAtoms())
			for range sub.NumAtoms() + rng.IntN(2) {
				net.AddAtom(-1, nil)
			}
			for c := 0; c < sub.NumClauses(); c++ {
				var lits []ground.Lit
				for _, l := range sub.Clause(c) {
					lits = append(lits, ground.MakeLit(base+l.Atom(), l.Neg()))
				}
				net.AddClause(lits, sub.Weight(c), -1, -1, 1)
			}
		}
		p := newProblem(net, nil)
		q, perm, atomStart, clauseStart := p.split()
		if perm == nil {
			if q != p || len(atomStart) != 2 {
				t.Fatalf("instance %d: unsplit problem changed", i)
			}
			continue
		}
		// Same clauses (as sorted strings of original atoms).
		key := func(pr *problem, c int, m []int32) string {
			var ls []int
			for _, l := range pr.clause(c) {
				a := l.Atom()
				if m != nil {
					a = m[a]
				}
				ls = append(ls, int(ground.MakeLit(a, l.Neg())))
			}
			sort.Ints(ls)
			return fmt.Sprint(ls, pr.s[c], pr.hard[c])
		}
		count := map[string]int{}
		for c := 0; c < p.numClauses(); c++ {
			count[key(p, c, nil)]++
		}
		for c := 0; c < q.numClauses(); c++ {
			count[key(q, c, perm)]--
		}
		for k, v := range count {
			if v != 0 {
				t.Fatalf("instance %d: clause %s count off by %d", i, k, v)
			}
		}
		for k := 0; k+1 < len(atomStart); k++ {
			for c := clauseStart[k]; c < clauseStart[k+1]; c++ {
				for _, l := range q.clause(int(c)) {
					if l.Atom() < atomStart[k] || l.Atom() >= atomStart[k+1] {
						t.Fatalf("instance %d: clause %d of component %d has atom %d outside %d:%d", i, c, k, l.Atom(), atomStart[k], atomStart[k+1])
					}
				}
			}
		}
		if int(clauseStart[len(clauseStart)-1]) != q.numClauses() {
			t.Fatalf("instance %d: components cover %d of %d clauses", i, clauseStart[len(clauseStart)-1], q.numClauses())
		}
	}
}

// TestMutexChains runs the default and the classic walk on a CiteSeer-like
// network: the default walk leaves no hard clause violated and finds a
// cheaper state; the progress reports never get worse and end at the
// result's cost.
func TestMutexChains(t *testing.T) {
	net := mutexNet(rand.New(rand.NewPCG(17, 18)), 200, 15)
	var costs []float64
	res, err := Solve(context.Background(), net, Options{Options: infer.Options{Seed: 1}, MaxSteps: 200000,
		Progress: func(step int, cost float64) { costs = append(costs, cost) }})
	if err != nil {
		t.Fatal(err)
	}
	classic, err := Solve(context.Background(), net, Options{Options: infer.Options{Seed: 1}, MaxSteps: 200000, Classic: true})
	if err != nil {
		t.Fatal(err)
	}
	strict, err := Solve(context.Background(), net, Options{Options: infer.Options{Seed: 1}, MaxSteps: 200000, StrictHard: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("default cost %.2f hard %d; strict %.2f hard %d; classic %.2f hard %d",
		res.Cost, res.HardViolated, strict.Cost, strict.HardViolated, classic.Cost, classic.HardViolated)
	if res.HardViolated != 0 || strict.HardViolated != 0 {
		t.Fatalf("hard clauses violated: %d by default, %d strict", res.HardViolated, strict.HardViolated)
	}
	if classic.HardViolated == 0 && classic.Cost < res.Cost {
		t.Fatalf("classic walk found a cheaper state: %v < %v", classic.Cost, res.Cost)
	}
	for i := 1; i < len(costs); i++ {
		if costs[i] > costs[i-1] {
			t.Fatalf("progress got worse: %v then %v", costs[i-1], costs[i])
		}
	}
	if len(costs) == 0 || math.Abs(costs[len(costs)-1]-res.Cost) > 1e-6 {
		t.Fatalf("last progress cost %v, result %v", costs, res.Cost)
	}
}

// TestWalkerRuns checks that the runs of one Walker give what Solve gives
// with the same steps and start, whatever ran before on the Walker.
func TestWalkerRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for i := 0; i < 50; i++ {
		net, bias := randomNet(rng, 30)
		for _, opt := range []Options{
			{Options: infer.Options{Bias: bias, Seed: int64(i)}},
			{Options: infer.Options{Bias: bias, Seed: int64(i)}, Classic: true, Tries: 2},
		} {
			wk, err := NewWalker(context.Background(), net, opt)
			if err != nil {
				t.Fatal(err)
			}
			var init []bool
			for _, steps := range []int{5, 200, 1, 50} {
				o := opt
				o.MaxSteps, o.Init = steps, init
				want, err1 := Solve(context.Background(), net, o)
				got, err2 := wk.Run(context.Background(), steps, init)
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				if got.Cost != want.Cost || got.Optimal != want.Optimal || !slices.Equal(got.Assign, want.Assign) {
					t.Fatalf("case %d, %d steps: Run cost %v optimal %v, Solve %v %v", i, steps, got.Cost, got.Optimal, want.Cost, want.Optimal)
				}
				init = got.Assign
			}
		}
	}
}

// TestTarget: with a target cost the walk stops at the first state (over
// all components) that violates no hard clause and costs at most the
// target; a target above the start's cost takes no step.
func TestTarget(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200; i++ {
		net, bias := randomNet(rng, 10)
		hard, best := bruteMin(net, bias)
		if hard > 0 {
			continue
		}
		target := best + 1 + 2*rng.Float64()
		steps := 0
		opt := Options{MaxSteps: 100000, Target: target, Progress: func(s int, _ float64) { steps = s }}
		opt.Bias = bias
		res, err := Solve(context.Background(), net, opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.HardViolated > 0 || res.Cost > target+1e-4 {
			t.Errorf("net %d: cost %v (%d hard) above the target %v", i, res.Cost, res.HardViolated, target)
		}
		if steps > 1000 {
			t.Errorf("net %d: %d steps to reach the target %v", i, steps, target)
		}
		start, _ := infer.BiasedCost(net, bias, make([]bool, net.NumAtoms()))
		if _, h := net.Cost(make([]bool, net.NumAtoms())); h == 0 {
			opt.Target = start + 1
			steps = 0
			res, err := Solve(context.Background(), net, opt)
			if err != nil || steps != 0 || res.Cost != start {
				t.Errorf("net %d: target above the start: %d steps, cost %v (start %v), %v", i, steps, res.Cost, start, err)
			}
		}
	}
}
