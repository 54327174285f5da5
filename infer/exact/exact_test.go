package exact

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/internal/testenv"
)

// randNet returns a random network over n atoms with real, negative and
// hard weights, duplicate and complementary literals, unit and long
// clauses.
func randNet(r *rand.Rand, n int, hardProb float64) *ground.Network {
	net := ground.NewNetwork(n)
	m := r.Intn(3*n + 2)
	for c := 0; c < m; c++ {
		k := 1 + r.Intn(3)
		switch x := r.Float64(); {
		case x < 0.01:
			k = 0
		case x < 0.08:
			k = 4 + r.Intn(n+1)
		case x < 0.3:
			k = 1
		}
		lits := make([]ground.Lit, k)
		for i := range lits {
			lits[i] = ground.MakeLit(int32(r.Intn(n)), r.Intn(2) == 0)
		}
		w := r.NormFloat64() * 2
		if r.Float64() < 0.1 {
			w = float64(r.Intn(5) - 2) // integer weights make ties
		}
		if r.Float64() < hardProb {
			w = math.Inf(1)
		}
		net.AddClause(lits, w, -1, -1, 1)
	}
	return net
}

// brute returns the least number of violated hard clauses and the least
// cost among the assignments violating that many.
func brute(net *ground.Network, bias []float64) (int, float64) {
	n := net.NumAtoms()
	y := make([]bool, n)
	bestH, bestC := math.MaxInt, math.Inf(1)
	for s := 0; s < 1<<n; s++ {
		for a := range y {
			y[a] = s>>a&1 == 1
		}
		c, h := infer.BiasedCost(net, bias, y)
		if h < bestH || h == bestH && c < bestC {
			bestH, bestC = h, c
		}
	}
	return bestH, bestC
}

func near(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-7*math.Max(1, math.Abs(b))
}

type config struct {
	name string
	opt  Options
}

func configs() []config {
	return []config{
		{"auto", Options{}},
		{"ve", Options{Method: VE, Workers: 1}},
		{"ve-mindeg", Options{Method: VE, Order: MinDegree}},
		{"search-i1", Options{Method: Search, IBound: 1}},
		{"search-i2", Options{Method: Search, IBound: 2, Workers: 1}},
		{"search-i3-mindeg", Options{Method: Search, IBound: 3, Order: MinDegree}},
		{"auto-w2", Options{MaxWidth: 2, IBound: 1}},
	}
}

func check(t *testing.T, label string, net *ground.Network, bias []float64, opt Options, wantH int, wantC float64) {
	t.Helper()
	opt.Bias = bias
	res, st, err := SolveStats(context.Background(), net, opt)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	c, h := infer.BiasedCost(net, bias, res.Assign)
	if c != res.Cost || h != res.HardViolated {
		t.Fatalf("%s: result cost %v/%d, assignment has %v/%d", label, res.Cost, res.HardViolated, c, h)
	}
	if h != wantH {
		t.Fatalf("%s: %d hard clauses violated, minimum %d", label, h, wantH)
	}
	if !near(c, wantC) {
		t.Fatalf("%s: cost %.12g, optimum %.12g", label, c, wantC)
	}
	if wantH == 0 {
		if !res.Optimal || res.Bound != res.Cost || st.Infeasible || !near(st.Bound, res.Cost) {
			t.Fatalf("%s: optimal %v bound %v cost %v infeasible %v", label, res.Optimal, res.Bound, res.Cost, st.Infeasible)
		}
	} else {
		if res.Optimal || !math.IsInf(res.Bound, 1) || !st.Infeasible || !st.HardMinimal {
			t.Fatalf("%s: infeasible but optimal %v bound %v stats %+v", label, res.Optimal, res.Bound, st)
		}
	}
	if st.TimedOut {
		t.Fatalf("%s: timed out", label)
	}
}

func TestBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	instances := 320
	if testenv.Short() {
		instances = 60
	}
	methods := map[Method]int{}
	for it := 0; it < instances; it++ {
		n := 1 + r.Intn(14)
		hp := []float64{0, 0.1, 0.3}[it%3]
		net := randNet(r, n, hp)
		var bias []float64
		switch it % 4 {
		case 1:
			bias = make([]float64, n)
			for a := range bias {
				bias[a] = r.NormFloat64()
			}
		case 2:
			// Hamming loss against a random gold assignment.
			bias = make([]float64, n)
			for a := range bias {
				if r.Intn(2) == 0 {
					bias[a] = 1
				} else {
					bias[a] = -1
				}
			}
		}
		wantH, wantC := brute(net, bias)
		for _, cf := range configs() {
			label := fmt.Sprintf("instance %d (%d atoms, %d clauses) %s", it, n, net.NumClauses(), cf.name)
			check(t, label, net, bias, cf.opt, wantH, wantC)
		}
		opt := Options{Options: infer.Options{Bias: bias}}
		_, st, _ := SolveStats(context.Background(), net, opt)
		for _, c := range st.Components {
			methods[c.Method]++
		}
	}
	t.Logf("auto components by method: %v", methods)
}

// TestStructured checks the solver on networks with many components,
// chains and long clauses against brute force.
func TestStructured(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for it := 0; it < 40; it++ {
		n := 8 + r.Intn(7)
		net := ground.NewNetwork(n)
		for a := 0; a < n; a++ {
			net.AddClause([]ground.Lit{ground.MakeLit(int32(a), false)}, r.NormFloat64(), -1, -1, 1)
			if a+1 < n && r.Intn(4) != 0 {
				net.AddClause([]ground.Lit{ground.MakeLit(int32(a), true), ground.MakeLit(int32(a+1), r.Intn(2) == 0)}, r.NormFloat64()*3, -1, -1, 1)
			}
			if a+2 < n && r.Intn(5) == 0 {
				net.AddClause([]ground.Lit{ground.MakeLit(int32(a), true), ground.MakeLit(int32(a+2), true)}, math.Inf(1), -1, -1, 1)
			}
		}
		// A long clause with a negative weight (a conjunction rewarded).
		long := make([]ground.Lit, 0, n)
		for a := 0; a < n; a += 2 {
			long = append(long, ground.MakeLit(int32(a), r.Intn(3) == 0))
		}
		net.AddClause(long, -3-r.Float64(), -1, -1, 1)
		bias := make([]float64, n)
		for a := range bias {
			bias[a] = float64(r.Intn(3) - 1)
		}
		for _, b := range [][]float64{nil, bias} {
			wantH, wantC := brute(net, b)
			for _, cf := range configs() {
				check(t, fmt.Sprintf("structured %d %s bias=%v", it, cf.name, b != nil), net, b, cf.opt, wantH, wantC)
			}
		}
	}
}

// TestVEvsSearch compares the two paths on networks too large for brute
// force.
func TestVEvsSearch(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for it := 0; it < 30; it++ {
		n := 30 + r.Intn(30)
		net := ground.NewNetwork(n)
		for a := 0; a < n; a++ {
			net.AddClause([]ground.Lit{ground.MakeLit(int32(a), r.Intn(2) == 0)}, r.NormFloat64(), -1, -1, 1)
			for k := 0; k < 2; k++ {
				b := a + 1 + r.Intn(4)
				if b < n {
					w := r.NormFloat64() * 2
					if r.Intn(10) == 0 {
						w = math.Inf(1)
					}
					net.AddClause([]ground.Lit{ground.MakeLit(int32(a), r.Intn(2) == 0), ground.MakeLit(int32(b), r.Intn(2) == 0)}, w, -1, -1, 1)
				}
			}
		}
		ve, err := Solve(context.Background(), net, Options{Method: VE})
		if err != nil {
			t.Fatal(err)
		}
		for _, ib := range []int{1, 3} {
			se, err := Solve(context.Background(), net, Options{Method: Search, IBound: ib})
			if err != nil {
				t.Fatal(err)
			}
			if se.HardViolated != ve.HardViolated || !near(se.Cost, ve.Cost) || se.Optimal != ve.Optimal {
				t.Fatalf("instance %d i=%d: search %v/%d/%v, ve %v/%d/%v", it, ib, se.Cost, se.HardViolated, se.Optimal, ve.Cost, ve.HardViolated, ve.Optimal)
			}
		}
	}
}

func TestInfeasible(t *testing.T) {
	inf := math.Inf(1)
	net := ground.NewNetwork(3)
	a, b, c := ground.MakeLit(0, false), ground.MakeLit(1, false), ground.MakeLit(2, false)
	net.AddClause([]ground.Lit{a}, inf, -1, -1, 1)
	net.AddClause([]ground.Lit{a.Not(), b}, inf, -1, -1, 1)
	net.AddClause([]ground.Lit{b.Not()}, inf, -1, -1, 1) // conflicts with the two above
	net.AddClause([]ground.Lit{c}, 1, -1, -1, 1)
	for _, cf := range configs() {
		res, st, err := SolveStats(context.Background(), net, cf.opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.HardViolated != 1 || res.Optimal || !math.IsInf(res.Bound, 1) || !st.Infeasible || !st.HardMinimal || !res.Assign[2] {
			t.Fatalf("%s: %+v %+v", cf.name, res, st)
		}
	}
	// An empty hard clause is violated by every assignment.
	net2 := ground.NewNetwork(1)
	net2.AddClause(nil, inf, -1, -1, 1)
	net2.AddClause([]ground.Lit{a}, -2, -1, -1, 1)
	res, st, err := SolveStats(context.Background(), net2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.HardViolated != 1 || res.Assign[0] || !st.Infeasible || res.Optimal {
		t.Fatalf("empty clause: %+v %+v", res, st)
	}
}

// hardNet is a dense random MaxSAT network far too wide for variable
// elimination.
func hardNet(n int, seed int64) *ground.Network {
	r := rand.New(rand.NewSource(seed))
	net := ground.NewNetwork(n)
	for c := 0; c < 5*n; c++ {
		lits := make([]ground.Lit, 3)
		for i := range lits {
			lits[i] = ground.MakeLit(int32(r.Intn(n)), r.Intn(2) == 0)
		}
		net.AddClause(lits, 0.5+r.Float64(), -1, -1, 1)
	}
	return net
}

func TestTimeLimit(t *testing.T) {
	net := hardNet(150, 4)
	res, st, err := SolveStats(context.Background(), net, Options{TimeLimit: 100 * time.Millisecond, Method: Search, IBound: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Assign) != 150 || res.Bound > res.Cost+1e-9 {
		t.Fatalf("bad result %+v", res)
	}
	if !res.Optimal && !st.TimedOut {
		t.Fatalf("not optimal and not timed out: %+v", st)
	}
	if res.Optimal {
		t.Logf("solved within the limit")
	} else {
		t.Logf("cost %v bound %v after %v", res.Cost, res.Bound, st.Elapsed)
	}

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	res, _, err = SolveStats(ctx, net, Options{Method: Search, IBound: 2})
	if res == nil || len(res.Assign) != 150 {
		t.Fatalf("no result after cancel")
	}
	if !res.Optimal && !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err %v", err)
	}
}

func TestErrors(t *testing.T) {
	net := ground.NewNetwork(2)
	net.AddClause([]ground.Lit{ground.MakeLit(0, false), ground.MakeLit(1, false)}, math.NaN(), -1, -1, 1)
	if _, err := Solve(context.Background(), net, Options{}); err == nil {
		t.Fatal("NaN weight accepted")
	}
	if _, err := Solve(context.Background(), ground.NewNetwork(2), Options{Options: infer.Options{Bias: []float64{1}}}); err == nil {
		t.Fatal("short bias accepted")
	}
	if _, err := Solve(context.Background(), hardNet(60, 1), Options{Method: VE, MaxWidth: 5}); err == nil {
		t.Fatal("VE beyond MaxWidth accepted")
	}
}

func TestDeterministic(t *testing.T) {
	net := citeseerLike(20, 5)
	var first []bool
	for _, w := range []int{1, 2, 3} {
		res, err := Solve(context.Background(), net, Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Optimal {
			t.Fatal("not optimal")
		}
		if first == nil {
			first = res.Assign
			continue
		}
		for a := range first {
			if first[a] != res.Assign[a] {
				t.Fatalf("workers=%d: atom %d differs", w, a)
			}
		}
	}
}

// TestLongClause checks clauses longer than any bucket table: a
// conjunction over 40 atoms with a negative weight (rewarded when all are
// false) against linear terms.
func TestLongClause(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for it := 0; it < 20; it++ {
		n := 40
		net := ground.NewNetwork(n)
		lits := make([]ground.Lit, n)
		for a := 0; a < n; a++ {
			lits[a] = ground.MakeLit(int32(a), false)
			net.AddClause([]ground.Lit{lits[a].Not()}, r.NormFloat64(), -1, -1, 1)
		}
		w := -float64(it)
		net.AddClause(lits, w, -1, -1, 1)
		// Atom a true costs max(u,0), false max(-u,0). The long clause
		// costs -w unless every atom is false.
		best, allFalse := -w, 0.0
		for c := 0; c < n; c++ {
			u := net.Weight(c)
			best += math.Min(math.Max(u, 0), math.Max(-u, 0))
			allFalse += math.Max(-u, 0)
		}
		best = math.Min(best, allFalse)
		for _, cf := range []Options{{}, {Method: Search, IBound: 2}, {Method: Search, IBound: 5, Order: MinDegree}} {
			res, err := Solve(context.Background(), net, cf)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Optimal || !near(res.Cost, best) {
				t.Fatalf("it %d %+v: cost %v optimal %v, want %v", it, cf, res.Cost, res.Optimal, best)
			}
		}
		if _, err := Solve(context.Background(), net, Options{Method: VE}); err == nil {
			t.Fatal("VE accepted a 40-literal clause")
		}
	}
}

// TestTimeLimitVE interrupts variable elimination on a wide grid: the
// result must still be a full assignment with a valid bound.
func TestTimeLimitVE(t *testing.T) {
	net := grid(16, 1)
	for _, limit := range []time.Duration{time.Nanosecond, time.Millisecond, 10 * time.Millisecond} {
		res, st, err := SolveStats(context.Background(), net, Options{TimeLimit: limit, MaxWidth: 24})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Assign) != net.NumAtoms() || res.Bound > res.Cost+1e-9 || res.HardViolated != 0 {
			t.Fatalf("limit %v: bad result %+v", limit, res)
		}
		if !res.Optimal && !st.TimedOut {
			t.Fatalf("limit %v: not optimal and not timed out", limit)
		}
		c, _ := infer.BiasedCost(net, nil, res.Assign)
		if c != res.Cost {
			t.Fatalf("cost %v, assignment costs %v", res.Cost, c)
		}
		t.Logf("limit %v: optimal %v cost %v bound %v method %v", limit, res.Optimal, res.Cost, res.Bound, st.Components[0].Method)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res, err := Solve(ctx, net, Options{}); res != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v %v", res, err)
	}
}

func TestTrivial(t *testing.T) {
	res, err := Solve(context.Background(), ground.NewNetwork(0), Options{})
	if err != nil || len(res.Assign) != 0 || !res.Optimal || res.Cost != 0 {
		t.Fatalf("empty network: %+v %v", res, err)
	}
	bias := []float64{1, -1, 0}
	res, err = Solve(context.Background(), ground.NewNetwork(3), Options{Options: infer.Options{Bias: bias}})
	if err != nil || !res.Assign[0] || res.Assign[1] || res.Assign[2] || res.Cost != -1 || !res.Optimal {
		t.Fatalf("no clauses: %+v %v", res, err)
	}
}

// TestAllFalsePreferred checks the portfolio's first test against brute
// force: on random networks where all atoms false leaves every clause and
// linear term in its preferred state, Solve returns it proved optimal
// without simplifying the network; with one clause or term out of its
// preferred state, the components are solved as usual.
func TestAllFalsePreferred(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	for i := 0; i < 200; i++ {
		n := 1 + r.Intn(10)
		net := ground.NewNetwork(n)
		for c := r.Intn(3 * n); c >= 0; c-- {
			k := r.Intn(4)
			lits := make([]ground.Lit, k)
			neg := false
			for j := range lits {
				lits[j] = ground.MakeLit(int32(r.Intn(n)), r.Intn(3) == 0)
				neg = neg || lits[j].Neg()
			}
			w := 0.5 + r.Float64()
			switch {
			case r.Intn(4) == 0:
				w = math.Inf(1)
			case r.Intn(8) == 0:
				w = 0
			}
			if !neg {
				w = -w // all positive: preferred false
				if math.IsInf(w, -1) {
					w = -1
				}
			}
			net.AddClause(lits, w, -1, -1, 1)
		}
		var bias []float64
		if r.Intn(2) == 0 {
			bias = make([]float64, n)
			for a := range bias {
				bias[a] = -float64(r.Intn(3))
			}
		}
		spoil := i%2 == 1
		if spoil {
			if bias != nil && r.Intn(2) == 0 {
				bias[r.Intn(n)] = 1
			} else {
				net.AddClause([]ground.Lit{ground.MakeLit(int32(r.Intn(n)), false)}, 1, -1, -1, 1)
			}
		}
		if got := allFalsePreferred(net, bias); got == spoil {
			t.Fatalf("case %d: allFalsePreferred %v, spoiled %v", i, got, spoil)
		}
		wantH, wantC := brute(net, bias)
		check(t, fmt.Sprintf("case %d", i), net, bias, Options{}, wantH, wantC)
		if !spoil {
			_, st, _ := SolveStats(context.Background(), net, Options{Options: infer.Options{Bias: bias}})
			if len(st.Components) != 0 || st.Forced != 0 {
				t.Fatalf("case %d: simplified (%d components, %d forced)", i, len(st.Components), st.Forced)
			}
		}
	}
}
