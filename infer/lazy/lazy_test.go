package lazy_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/lazy"
	"github.com/marple-mln/marple/internal/testenv"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// load returns random case seed with its eager grounding.
func load(t *testing.T, seed int64) (lazy.Problem, *ground.Network, bool) {
	t.Helper()
	c := randmln.Generate(seed)
	m, db, query, ow, err := c.Load()
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: query, OpenWorld: ow, Workers: 1})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	return lazy.Problem{Model: m, DB: db, Query: query, OpenWorld: ow}, net, true
}

func atomKey(p mln.PredID, args []mln.ConstID) string {
	return mln.BindingKey(append([]mln.ConstID{mln.ConstID(p)}, args...))
}

// onto maps the lazy network's assignment onto the eager network's atoms.
func onto(t *testing.T, eager, lz *ground.Network, y []bool) []bool {
	t.Helper()
	idx := map[string]int{}
	for a := 0; a < eager.NumAtoms(); a++ {
		idx[atomKey(eager.AtomPred[a], eager.AtomArgs[a])] = a
	}
	out := make([]bool, eager.NumAtoms())
	for a := 0; a < lz.NumAtoms(); a++ {
		i, ok := idx[atomKey(lz.AtomPred[a], lz.AtomArgs[a])]
		if !ok {
			if y[a] {
				t.Fatalf("lazy atom %d is true but not in the eager network", a)
			}
			continue
		}
		out[i] = y[a]
	}
	return out
}

// TestMAPAgainstBruteForce: on random small MLNs, lazy MaxWalkSAT reaches
// the enumerated MAP cost of the eager grounding, and the cost it reports
// over the clauses it built is the eager cost of its state.
func TestMAPAgainstBruteForce(t *testing.T) {
	ctx := context.Background()
	checked := 0
	for seed := int64(0); seed < 300; seed++ {
		pr, net, ok := load(t, seed)
		if !ok || net.NumAtoms() == 0 {
			continue
		}
		yb, _, _ := brute.MAP(net)
		best, bestHard := net.Cost(yb)
		res, err := lazy.MAP(ctx, pr, lazy.MWSOptions{MaxSteps: 3000, Tries: 2, Seed: seed})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		y := onto(t, net, res.Net, res.Assign)
		cost, hard := net.Cost(y)
		if hard != res.HardViolated || math.Abs(cost-res.Cost) > 1e-6*math.Max(1, math.Abs(cost)) {
			t.Errorf("seed %d: lazy reports cost %v (%d hard), the eager network gives %v (%d hard)", seed, res.Cost, res.HardViolated, cost, hard)
		}
		if hard != bestHard || math.Abs(cost-best) > 1e-6*math.Max(1, math.Abs(best)) {
			t.Errorf("seed %d: lazy cost %v (%d hard), optimum %v (%d hard)\n%s", seed, cost, hard, best, bestHard, randmln.Generate(seed))
		}
		if res.Clauses > net.NumClauses() {
			t.Errorf("seed %d: lazy built %d clauses, eager %d", seed, res.Clauses, net.NumClauses())
		}
		checked++
	}
	if checked < 100 {
		t.Errorf("only %d models checked", checked)
	}
}

// TestMarginalsAgainstBruteForce: lazy MC-SAT's marginals are within
// sampling noise of enumeration on random small MLNs.
func TestMarginalsAgainstBruteForce(t *testing.T) {
	if testenv.Short() {
		t.Skip("sampling")
	}
	ctx := context.Background()
	models := 0
	for seed := int64(0); models < 12 && seed < 300; seed++ {
		pr, net, ok := load(t, 5000+seed)
		if !ok || net.NumAtoms() == 0 || net.NumAtoms() > 10 || net.HardFalse > 0 {
			continue
		}
		if _, _, hard := brute.MAP(net); hard-net.HardFalse > 0 {
			continue
		}
		heavy := false
		for c := 0; c < net.NumClauses(); c++ {
			if w := net.Weight(c); !math.IsInf(w, 1) && math.Abs(w) > 4 {
				heavy = true
			}
		}
		if heavy {
			continue
		}
		models++
		exactP := brute.Marginals(net)
		res, err := lazy.Marginals(ctx, pr, lazy.MCSATOptions{Samples: 10000, BurnIn: 200, SASteps: 20, Seed: seed})
		if err != nil {
			t.Fatalf("seed %d: %v", 5000+seed, err)
		}
		idx := map[string]int{}
		for a := 0; a < res.Net.NumAtoms(); a++ {
			idx[atomKey(res.Net.AtomPred[a], res.Net.AtomArgs[a])] = a
		}
		for a := range exactP {
			p := 0.0
			if i, ok := idx[atomKey(net.AtomPred[a], net.AtomArgs[a])]; ok {
				p = res.Marginals[i]
			}
			if math.Abs(p-exactP[a]) > 0.04 {
				t.Errorf("seed %d atom %d: lazy MC-SAT %.3f, exact %.3f", 5000+seed, a, p, exactP[a])
			}
		}
	}
	if models < 12 {
		t.Errorf("only %d models", models)
	}
}

// smokers is a model whose eager grounding is quadratic in the people
// while lazy inference builds a handful of clauses.
func smokers(t *testing.T, n int) (m *mln.Model, db *mln.Database, query, open []mln.PredID) {
	t.Helper()
	var b strings.Builder
	b.WriteString("person = {")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("P" + itoa(i))
	}
	b.WriteString("}\nSmokes(person)\nFriends(person, person)\n-1 Friends(x, y)\n-0.5 Smokes(x)\n1.5 Smokes(x) ^ Friends(x, y) => Smokes(y)\n")
	m, err := mln.ParseModel("smokers.mln", b.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	db = mln.NewDatabase(m)
	smokes, _ := m.Pred("Smokes")
	friends, _ := m.Pred("Friends")
	c := func(s string) mln.ConstID { x, _ := m.Const(s); return x }
	db.Set(smokes.ID, []mln.ConstID{c("P0")}, mln.True)
	db.Set(friends.ID, []mln.ConstID{c("P0"), c("P1")}, mln.True)
	db.Set(friends.ID, []mln.ConstID{c("P1"), c("P2")}, mln.True)
	return m, db, []mln.PredID{smokes.ID}, []mln.PredID{friends.ID}
}

func itoa(i int) string {
	const d = "0123456789"
	if i < 10 {
		return d[i : i+1]
	}
	return itoa(i/10) + d[i%10:i%10+1]
}

// TestLazyRunsWhereEagerIsRefused: under a limit the eager grounder's
// estimate refuses, lazy MaxWalkSAT and MC-SAT run and find the MAP state.
func TestLazyRunsWhereEagerIsRefused(t *testing.T) {
	ctx := context.Background()
	m, db, q, ow := smokers(t, 300)
	const limit = 4 << 20
	_, err := ground.Ground(ctx, m, db, ground.Options{Query: q, OpenWorld: ow, MaxBytes: limit, Workers: 1})
	if !errors.Is(err, ground.ErrTooLarge) {
		t.Fatalf("eager grounding under %d bytes: %v, want a refusal", limit, err)
	}
	pr := lazy.Problem{Model: m, DB: db, Query: q, OpenWorld: ow, MaxBytes: limit}
	res, err := lazy.MAP(ctx, pr, lazy.MWSOptions{MaxSteps: 10000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var trueAtoms []string
	for a, v := range res.Assign {
		if v {
			trueAtoms = append(trueAtoms, m.AtomString(res.Net.AtomPred[a], res.Net.AtomArgs[a]))
		}
	}
	// Smokes(P1) and Smokes(P2) each cost 0.5 and save 1.5.
	if strings.Join(trueAtoms, " ") != "Smokes(P1) Smokes(P2)" || math.Abs(res.Cost-1) > 1e-9 {
		t.Errorf("MAP: true %v, cost %v; want Smokes(P1) Smokes(P2), cost 1", trueAtoms, res.Cost)
	}
	if res.Net.NumAtoms() < 299 || res.Net.AtomPred[298] != q[0] {
		t.Errorf("%d atoms in the result, want every unknown query atom", res.Net.NumAtoms())
	}
	if res.Clauses > 1000 {
		t.Errorf("%d clauses built", res.Clauses)
	}
	mres, err := lazy.Marginals(ctx, pr, lazy.MCSATOptions{Samples: 20, BurnIn: -1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(mres.Marginals) != mres.Net.NumAtoms() {
		t.Fatal("marginals do not cover the atoms")
	}
	// A memory limit below what the run needs stops it.
	pr.MaxBytes = 1 << 10
	if _, err := lazy.MAP(ctx, pr, lazy.MWSOptions{MaxSteps: 10000, Seed: 1}); !errors.Is(err, lazy.ErrTooLarge) {
		t.Errorf("under 1 KiB: %v, want ErrTooLarge", err)
	}
}

// TestDeterministic: the same seed gives the same MAP state and marginals.
func TestDeterministic(t *testing.T) {
	ctx := context.Background()
	for seed := int64(0); seed < 20; seed++ {
		pr, _, ok := load(t, seed)
		if !ok {
			continue
		}
		m1, err1 := lazy.MAP(ctx, pr, lazy.MWSOptions{MaxSteps: 500, Seed: seed})
		m2, err2 := lazy.MAP(ctx, pr, lazy.MWSOptions{MaxSteps: 500, Seed: seed})
		if err1 != nil || err2 != nil {
			t.Fatalf("seed %d: %v / %v", seed, err1, err2)
		}
		if m1.Cost != m2.Cost || m1.Expanded != m2.Expanded || len(m1.Assign) != len(m2.Assign) {
			t.Fatalf("seed %d: MAP runs differ", seed)
		}
		for i := range m1.Assign {
			if m1.Assign[i] != m2.Assign[i] {
				t.Fatalf("seed %d: MAP states differ", seed)
			}
		}
		a, err1 := lazy.Marginals(ctx, pr, lazy.MCSATOptions{Samples: 50, Seed: seed})
		b, err2 := lazy.Marginals(ctx, pr, lazy.MCSATOptions{Samples: 50, Seed: seed})
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("seed %d: %v / %v", seed, err1, err2)
		}
		if err1 != nil {
			continue
		}
		for i := range a.Marginals {
			if a.Marginals[i] != b.Marginals[i] {
				t.Fatalf("seed %d: marginals differ", seed)
			}
		}
	}
}

// TestCancel: a cancelled context stops a run.
func TestCancel(t *testing.T) {
	m, db, q, ow := smokers(t, 30)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lazy.Marginals(ctx, lazy.Problem{Model: m, DB: db, Query: q, OpenWorld: ow}, lazy.MCSATOptions{Samples: 1000}); !errors.Is(err, context.Canceled) {
		t.Errorf("Marginals: %v", err)
	}
}

// TestCostDoesNotDrift: the cost lazy MaxWalkSAT reports is the exact cost
// of its state, never below zero on a model with only positive weights,
// however many flips added and removed weights of very different sizes.
func TestCostDoesNotDrift(t *testing.T) {
	ctx := context.Background()
	var b strings.Builder
	b.WriteString("person = {")
	for i := 0; i < 12; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("P" + itoa(i))
	}
	b.WriteString("}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n" +
		"0.1 Smokes(x) => Cancer(x)\n987654.321 Cancer(x) => Smokes(x)\n0.7 Smokes(x)\n" +
		"3.3e-3 Friends(x, y) ^ Smokes(x) => Smokes(y)\n123.456 Friends(x, y)\n")
	m, err := mln.ParseModel("drift.mln", b.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	db := mln.NewDatabase(m)
	var query []mln.PredID
	for _, p := range m.Preds {
		query = append(query, p.ID)
	}
	pr := lazy.Problem{Model: m, DB: db, Query: query}
	for seed := int64(0); seed < 20; seed++ {
		res, err := lazy.MAP(ctx, pr, lazy.MWSOptions{MaxSteps: 4000, Tries: 2, Noise: 0.9, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if res.Cost < 0 {
			t.Fatalf("seed %d: cost %v below zero with positive weights", seed, res.Cost)
		}
		if res.Optimal != (res.Cost == 0 && res.HardViolated == 0) {
			t.Errorf("seed %d: optimal %v with cost %v", seed, res.Optimal, res.Cost)
		}
	}
}
