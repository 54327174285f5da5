package exact

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/mws"
	"github.com/marple-mln/marple/internal/testenv"
)

// setWarm sets when the warm start is taken (see warmFirstLits) and
// returns a function restoring the defaults.
func setWarm(firstLits int, probePerAtom, probeMin int64) func() {
	f, pa, pm := warmFirstLits, warmProbePerAtom, warmProbeMin
	warmFirstLits, warmProbePerAtom, warmProbeMin = firstLits, probePerAtom, probeMin
	return func() { warmFirstLits, warmProbePerAtom, warmProbeMin = f, pa, pm }
}

// TestWarmStartKeepsOptimum forces random instances to the search with
// the warm start taken first, or after a few nodes, and checks the result
// against brute force and against the search without warm start: the
// warm start never changes a proved optimum, nor the minimal number of
// violated hard clauses of an infeasible instance.
func TestWarmStartKeepsOptimum(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	instances := 240
	if testenv.Short() {
		instances = 60
	}
	type when struct {
		name                   string
		firstLits              int
		probePerAtom, probeMin int64
	}
	whens := []when{{"first", 0, 0, 0}, {"after 3 nodes", 1 << 30, 0, 3}, {"after n nodes", 1 << 30, 1, 0}}
	warmed := 0
	for it := 0; it < instances; it++ {
		n := 2 + r.Intn(13)
		net := randNet(r, n, []float64{0, 0.1, 0.3}[it%3])
		var bias []float64
		if it%2 == 1 {
			bias = make([]float64, n)
			for a := range bias {
				bias[a] = r.NormFloat64()
			}
		}
		wantH, wantC := brute(net, bias)
		opts := []Options{
			{MaxWidth: 1, IBound: 1},
			{MaxWidth: 2, IBound: 1, Workers: 1},
			{Method: Search, IBound: 2},
		}
		for _, w := range whens {
			restore := setWarm(w.firstLits, w.probePerAtom, w.probeMin)
			for k, opt := range opts {
				opt.Seed = int64(it)
				label := fmt.Sprintf("instance %d (%d atoms, %d clauses) warm %s opts %d", it, n, net.NumClauses(), w.name, k)
				check(t, label, net, bias, opt, wantH, wantC)
				opt.Bias = bias
				res1, st, err := SolveStats(context.Background(), net, opt)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range st.Components {
					if c.Warm {
						warmed++
						if c.LPBound > c.Cost+1e-7*math.Max(1, math.Abs(c.Cost)) {
							t.Fatalf("%s: LP bound %v above the optimum %v", label, c.LPBound, c.Cost)
						}
					}
				}
				cold := opt
				cold.NoWarmStart = true
				res2, err := Solve(context.Background(), net, cold)
				if err != nil {
					t.Fatal(err)
				}
				if res1.HardViolated != res2.HardViolated || !near(res1.Cost, res2.Cost) || res1.Optimal != res2.Optimal {
					t.Fatalf("%s: warm %v/%d/%v, cold %v/%d/%v", label, res1.Cost, res1.HardViolated, res1.Optimal, res2.Cost, res2.HardViolated, res2.Optimal)
				}
				// Deterministic: the same seed gives the same assignment.
				res3, err := Solve(context.Background(), net, opt)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(res1.Assign, res3.Assign) {
					t.Fatalf("%s: two runs differ", label)
				}
			}
			restore()
		}
	}
	if warmed == 0 {
		t.Fatal("no warm start was taken")
	}
	t.Logf("%d components warm-started", warmed)
}

// denseNet is a dense random MaxSAT network of 3-literal clauses over
// distinct atoms, every atom in some clause and no unit clause: its only
// component is the network itself, clause for clause, so that the warm
// start's first walk is MaxWalkSAT's on the network.
func denseNet(n int, seed int64) *ground.Network {
	r := rand.New(rand.NewSource(seed))
	net := ground.NewNetwork(n)
	for c := 0; c < 6*n; c++ {
		var lits []ground.Lit
		for len(lits) < 3 {
			a := int32(r.Intn(n))
			if c < n && len(lits) == 0 {
				a = int32(c) // every atom occurs
			}
			dup := false
			for _, l := range lits {
				dup = dup || l.Atom() == a
			}
			if !dup {
				lits = append(lits, ground.MakeLit(a, r.Intn(2) == 0))
			}
		}
		net.AddClause(lits, 0.5+r.Float64(), -1, -1, 1)
	}
	return net
}

// TestWarmStartTimeLimit runs the search under tiny time limits on a dense
// instance far too wide for it: the result must be at least as good as
// the short MaxWalkSAT descent the warm start begins with, whatever the
// limit, and its bound at most its cost.
func TestWarmStartTimeLimit(t *testing.T) {
	const n = 400
	net := denseNet(n, 3)
	for _, limit := range []time.Duration{time.Nanosecond, time.Millisecond, 30 * time.Millisecond, 200 * time.Millisecond} {
		for seed := int64(1); seed <= 2; seed++ {
			opt := Options{TimeLimit: limit, MaxWidth: 8}
			opt.Seed = seed
			res, st, err := SolveStats(context.Background(), net, opt)
			if err != nil {
				t.Fatal(err)
			}
			mopt := mws.Options{MaxSteps: warmShortStepsPerAtom*n + warmMinSteps}
			mopt.Seed = seed
			mr, err := mws.Solve(context.Background(), net, mopt)
			if err != nil {
				t.Fatal(err)
			}
			c, h := infer.BiasedCost(net, nil, res.Assign)
			if c != res.Cost || h != res.HardViolated || h != 0 {
				t.Fatalf("limit %v: result %v/%d, assignment %v/%d", limit, res.Cost, res.HardViolated, c, h)
			}
			if res.Cost > mr.Cost+1e-9*math.Abs(mr.Cost) {
				t.Fatalf("limit %v seed %d: cost %v, MaxWalkSAT's %v", limit, seed, res.Cost, mr.Cost)
			}
			if !(res.Bound <= res.Cost) || math.IsInf(res.Bound, -1) {
				t.Fatalf("limit %v: bound %v, cost %v", limit, res.Bound, res.Cost)
			}
			cs := st.Components[0]
			if !cs.Warm || cs.Method != Search {
				t.Fatalf("limit %v: component %+v", limit, cs)
			}
			t.Logf("limit %v seed %d: cost %.4f (MaxWalkSAT %d steps: %.4f), bound %.4f (LP %.4f), %d nodes, %v",
				limit, seed, res.Cost, mopt.MaxSteps, mr.Cost, res.Bound, cs.LPBound, cs.Nodes, st.Elapsed)
		}
	}
}

// TestWarmStartLPBound checks the warm start's LP bound on an instance
// where the relaxation is tight: a path of atoms, each rewarded to be
// true, no two consecutive ones true (hard); the LP relaxation of the
// independent sets of a bipartite graph is integral. The bound must be
// valid and close to the optimum.
func TestWarmStartLPBound(t *testing.T) {
	defer setWarm(0, 0, 0)()
	r := rand.New(rand.NewSource(4))
	const n = 40
	net := ground.NewNetwork(n)
	inf := math.Inf(1)
	for a := int32(0); a < n; a++ {
		net.AddClause([]ground.Lit{ground.MakeLit(a, false)}, 1+r.Float64(), -1, -1, 1)
		if a+1 < n {
			net.AddClause([]ground.Lit{ground.MakeLit(a, true), ground.MakeLit(a+1, true)}, inf, -1, -1, 1)
		}
	}
	res, st, err := SolveStats(context.Background(), net, Options{Method: Search, IBound: 1})
	if err != nil {
		t.Fatal(err)
	}
	cs := st.Components[0]
	t.Logf("cost %v bound %v, warm %v, LP bound %v, %d nodes", res.Cost, res.Bound, cs.WarmCost, cs.LPBound, cs.Nodes)
	if !res.Optimal || res.HardViolated != 0 || !cs.Warm {
		t.Fatalf("not optimal: %+v", cs)
	}
	if _, want := brute2(net); !near(res.Cost, want) {
		t.Fatalf("cost %v, optimum %v", res.Cost, want)
	}
	if gap := cs.Cost - cs.LPBound; gap < -1e-9 || gap > 1e-2 {
		t.Fatalf("LP bound %v, optimum %v", cs.LPBound, cs.Cost)
	}
}

// brute2 solves a chain of "not both" hard pairs with unit rewards by
// dynamic programming (too long for brute force).
func brute2(net *ground.Network) ([]bool, float64) {
	n := net.NumAtoms()
	u := make([]float64, n) // cost of atom a false
	for c := 0; c < net.NumClauses(); c++ {
		if ls := net.Clause(c); len(ls) == 1 {
			u[ls[0].Atom()] += net.Weight(c)
		}
	}
	// f0, f1: least cost of atoms 0..a with atom a false / true.
	f0, f1 := u[0], 0.0
	for a := 1; a < n; a++ {
		f0, f1 = math.Min(f0, f1)+u[a], f0
	}
	return nil, math.Min(f0, f1)
}

// TestPortfolioAgainstPlainSearch checks the portfolio on random networks
// large enough to take it: a component it proves optimal has the cost the
// plain branch and bound (no warm start) proves, and its bound never
// exceeds that optimum.
func TestPortfolioAgainstPlainSearch(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	portfolioAgainstPlainSearch(t, r, r.NormFloat64)
}

// TestPortfolioDecimalWeights checks the portfolio against the plain
// branch and bound on small networks shaped like Tuffy's class sample
// (papers with at most one of a few categories, spread along citations,
// a priori unlikely) with weights of one decimal and a loose LP: a
// component proved because the LP's bound is within half a tenth of its
// cost (costQuantum) must have the optimal cost.
func TestPortfolioDecimalWeights(t *testing.T) {
	defer func(tol float64, lits int) { portfolioLPTol, portfolioMinLits = tol, lits }(portfolioLPTol, portfolioMinLits)
	portfolioLPTol, portfolioMinLits = 0.05, 1
	r := rand.New(rand.NewSource(16))
	ctx := context.Background()
	quantum := 0
	for i := 0; i < 40; i++ {
		papers, cats := 4+r.Intn(4), 3
		net := ground.NewNetwork(papers * cats)
		cat := func(p, c int) int32 { return int32(p*cats + c) }
		for p := 0; p < papers; p++ {
			for c := 0; c < cats; c++ {
				net.AddClause([]ground.Lit{ground.MakeLit(cat(p, c), false)}, -0.3, -1, -1, 1)
				for d := c + 1; d < cats; d++ {
					net.AddClause([]ground.Lit{ground.MakeLit(cat(p, c), true), ground.MakeLit(cat(p, d), true)}, 5, -1, -1, 1)
				}
			}
			if r.Intn(3) == 0 { // evidence of a category
				net.AddClause([]ground.Lit{ground.MakeLit(cat(p, r.Intn(cats)), false)}, 2.5, -1, -1, 1)
			}
			for k := 0; k < 3; k++ {
				q := r.Intn(papers)
				for c := 0; c < cats && q != p; c++ {
					net.AddClause([]ground.Lit{ground.MakeLit(cat(p, c), true), ground.MakeLit(cat(q, c), false)}, 1.2, -1, -1, 1)
				}
			}
		}
		want, err := Solve(ctx, net, Options{NoWarmStart: true, Workers: 1})
		if err != nil || !want.Optimal {
			t.Fatalf("case %d: plain search: %v, optimal %v", i, err, want != nil && want.Optimal)
		}
		got, st, err := SolveStats(ctx, net, Options{Options: infer.Options{Seed: int64(i)}, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got.Optimal && !near(got.Cost, want.Cost) {
			t.Errorf("case %d: portfolio proves cost %v, optimum %v", i, got.Cost, want.Cost)
		}
		if got.Bound > want.Cost+1e-7*math.Max(1, math.Abs(want.Cost)) {
			t.Errorf("case %d: portfolio bound %v above the optimum %v", i, got.Bound, want.Cost)
		}
		for _, cs := range st.Components {
			if cs.Optimal && cs.Method == Search && cs.Nodes == 0 && !warmOptimal(cs.Cost, cs.LPBound) {
				quantum++
			}
		}
	}
	if quantum == 0 {
		t.Error("no component proved by the cost quantum")
	}
	t.Logf("%d components proved by the cost quantum", quantum)
}

func portfolioAgainstPlainSearch(t *testing.T, r *rand.Rand, weight func() float64) {
	ctx := context.Background()
	proved := 0
	for i := 0; i < 30; i++ {
		n := 12 + r.Intn(7)
		net := ground.NewNetwork(n)
		for c := 0; c < 400+r.Intn(300); c++ {
			k := 2 + r.Intn(3)
			lits := make([]ground.Lit, k)
			for j := range lits {
				lits[j] = ground.MakeLit(int32(r.Intn(n)), r.Intn(2) == 0)
			}
			w := weight()
			if r.Float64() < 0.05 {
				w = math.Inf(1)
			}
			net.AddClause(lits, w, -1, -1, 1)
		}
		for a := 0; a < n; a++ {
			net.AddClause([]ground.Lit{ground.MakeLit(int32(a), r.Intn(2) == 0)}, weight(), -1, -1, 1)
		}
		want, err := Solve(ctx, net, Options{NoWarmStart: true, Workers: 1})
		if err != nil || !want.Optimal {
			t.Fatalf("case %d: plain search: %v, optimal %v", i, err, want != nil && want.Optimal)
		}
		got, err := Solve(ctx, net, Options{Options: infer.Options{Seed: int64(i)}, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got.Optimal {
			proved++
			if !near(got.Cost, want.Cost) {
				t.Errorf("case %d: portfolio proves cost %v, optimum %v", i, got.Cost, want.Cost)
			}
		}
		if got.Bound > want.Cost+1e-7*math.Max(1, math.Abs(want.Cost)) {
			t.Errorf("case %d: portfolio bound %v above the optimum %v", i, got.Bound, want.Cost)
		}
		if got.HardViolated != want.HardViolated {
			t.Errorf("case %d: %d hard clauses violated, optimum %d", i, got.HardViolated, want.HardViolated)
		}
	}
	t.Logf("%d of 30 proved by the portfolio", proved)
}

func TestCostQuantum(t *testing.T) {
	for _, c := range []struct {
		w, unary []float64
		want     float64
	}{
		{[]float64{5, 0.5, 1.2, math.Inf(1)}, []float64{-0.3, 0}, 0.1},
		{[]float64{2, -3, 0}, []float64{1}, 1},
		{[]float64{0.25, 1}, nil, 0.01},
		{[]float64{0.123, 7}, []float64{-1.000001}, 1e-6},
		{[]float64{math.Pi}, nil, 0},
		{[]float64{0.1 + 1e-9}, nil, 0},
		{[]float64{1e10, 1}, nil, 0}, // a sum beyond 10^9 quanta
		{nil, []float64{4e7, 0.5}, 0.1},
	} {
		p := &problem{w: c.w, unary: c.unary}
		if got := costQuantum(p); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("costQuantum(%v, %v) = %v, want %v", c.w, c.unary, got, c.want)
		}
	}
}
