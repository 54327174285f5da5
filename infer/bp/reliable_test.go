package bp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/internal/testkit/brute"
)

// TestMergeClausesSameDistribution: merging copies, repeated literals and
// tautologies keeps every world's weight (up to a constant) and the hard
// clauses.
func TestMergeClausesSameDistribution(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 200; trial++ {
		n := 2 + rng.IntN(5)
		net := ground.NewNetwork(n)
		for c := 0; c < 3+rng.IntN(8); c++ {
			var lits []ground.Lit
			for k := 0; k < 1+rng.IntN(3); k++ {
				lits = append(lits, ground.MakeLit(int32(rng.IntN(n)), rng.IntN(2) == 0))
			}
			w := 4*rng.Float64() - 2
			if rng.IntN(5) == 0 {
				w = math.Inf(1)
			}
			net.AddClause(lits, w, -1, -1, 1)
			if rng.IntN(3) == 0 { // a copy, literals reversed
				rev := make([]ground.Lit, len(lits))
				for i, l := range lits {
					rev[len(lits)-1-i] = l
				}
				net.AddClause(rev, w/2, -1, -1, 1)
			}
		}
		m := mergeClauses(net)
		var base float64
		first := true
		brute.Worlds(n, func(y []bool) {
			s1, h1 := net.Score(y)
			s2, h2 := m.Score(y)
			if (h1 > 0) != (h2 > 0) {
				t.Fatalf("trial %d: world %v: %d hard clauses false before merging, %d after", trial, y, h1, h2)
			}
			if h1 > 0 {
				return
			}
			if first {
				base, first = s1-s2, false
			} else if math.Abs(s1-s2-base) > 1e-9 {
				t.Fatalf("trial %d: world %v: score %v before merging, %v after (offset %v)", trial, y, s1, s2, base)
			}
		})
		seen := map[string]bool{}
		for c := 0; c < m.NumClauses(); c++ {
			atoms := map[int32]bool{}
			key := ""
			for _, l := range m.Clause(c) {
				if atoms[l.Atom()] {
					t.Fatalf("trial %d: merged clause %v repeats an atom", trial, m.Clause(c))
				}
				atoms[l.Atom()] = true
				key += string(rune(l)) + ","
			}
			if seen[key] {
				t.Fatalf("trial %d: merged clause %v twice", trial, m.Clause(c))
			}
			seen[key] = true
		}
	}
}

// TestMergeCopiesOfHardClause: BP counts k copies of a hard clause k
// times; merged, the network is a tree again and BP exact.
func TestMergeCopiesOfHardClause(t *testing.T) {
	net := ground.NewNetwork(2)
	for i := 0; i < 5; i++ {
		net.AddClause([]ground.Lit{ground.MakeLit(0, false), ground.MakeLit(1, false)}, math.Inf(1), -1, -1, 1)
	}
	net.AddClause([]ground.Lit{ground.MakeLit(0, false)}, -1, -1, -1, 1)
	want := brute.Marginals(net)
	ctx := context.Background()
	p, _, err := Marginals(ctx, net, Options{})
	if err != nil {
		t.Fatal(err)
	}
	q, st, err := Marginals(ctx, net, Options{Merge: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("exact %.4f, BP %.4f, merged %.4f", want, p, q)
	if !st.Converged || maxErr(q, want) > 1e-6 {
		t.Errorf("merged BP %v, exact %v", q, want)
	}
	if maxErr(p, want) < 0.05 {
		t.Errorf("unmerged BP %v is close to exact %v: the test shows nothing", p, want)
	}
}

// TestDampAfter: on random loopy networks with large weights, BP that does
// not converge undamped converges once DampAfter damps it, BP that
// converges undamped within DampAfter iterations is left as it is, and a run that does not converge names the atoms still
// changing.
func TestDampAfter(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	ctx := context.Background()
	oscillating, rescued := 0, 0
	for trial := 0; trial < 300; trial++ {
		net := randomLoopy(rng, 10, 25, 6)
		p, st, err := Marginals(ctx, net, Options{MaxIterations: 300})
		if err != nil {
			t.Fatal(err)
		}
		q, dst, err := Marginals(ctx, net, Options{MaxIterations: 300, DampAfter: 50})
		if err != nil {
			t.Fatal(err)
		}
		if st.Converged && st.Iterations <= 50 {
			if dst.Iterations != st.Iterations || dst.Damping != 0 || maxErr(p, q) != 0 {
				t.Fatalf("trial %d: DampAfter changed a run that converged undamped", trial)
			}
			continue
		}
		if st.Converged {
			continue
		}
		oscillating++
		if st.NumChanging == 0 || len(st.Changing) == 0 || len(st.Changing) > MaxListed {
			t.Fatalf("trial %d: not converged, %d atoms listed of %d changing", trial, len(st.Changing), st.NumChanging)
		}
		if dst.Converged {
			rescued++
			if dst.Damping == 0 {
				t.Fatalf("trial %d: converged after oscillating, without damping", trial)
			}
		}
	}
	t.Logf("%d of 300 networks did not converge undamped in 300 iterations; %d of them converged with DampAfter 50", oscillating, rescued)
	if oscillating == 0 || rescued < oscillating*3/4 {
		t.Errorf("%d of %d rescued", rescued, oscillating)
	}
}

// TestCheckFlagsStrongLoop: four atoms pairwise tied by implications of
// weight 3 (a loop BP is sure of) are flagged, by the exact check and by
// the sampled one; a tree is confirmed.
func TestCheckFlagsStrongLoop(t *testing.T) {
	ctx := context.Background()
	net := ground.NewNetwork(4)
	for a := int32(0); a < 4; a++ {
		net.AddClause([]ground.Lit{ground.MakeLit(a, false)}, 0.2, -1, -1, 1)
		for b := int32(0); b < 4; b++ {
			if a != b {
				net.AddClause([]ground.Lit{ground.MakeLit(a, true), ground.MakeLit(b, false)}, 3, -1, -1, 1)
			}
		}
	}
	want := brute.Marginals(net)
	for _, exact := range []int{0, -1} {
		p, st, err := Marginals(ctx, net, Options{Merge: true, Check: 1000, checkExact: exact, Options: infer.Options{Seed: 1}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("check exact %v: BP %.4f, exact %.4f, check difference %.3f, %d atoms unreliable", exact == 0, p[0], want[0], st.CheckDiff, len(st.Unreliable))
		if !st.Checked || len(st.Unreliable) != 4 || st.Reliable() {
			t.Errorf("check exact %v: %+v", exact == 0, *st)
		}
	}
	tree := randomTree(rand.New(rand.NewPCG(1, 1)), 12, false)
	for _, exact := range []int{0, -1} {
		_, st, err := Marginals(ctx, tree, Options{Merge: true, Check: 1000, checkExact: exact})
		if err != nil {
			t.Fatal(err)
		}
		if !st.Reliable() {
			t.Errorf("tree, check exact %v: not confirmed: %+v", exact == 0, *st)
		}
	}
}

// TestFrontierReports: Start names the atoms still changing when it stops
// at the iteration limit, and runs the check.
func TestFrontierReports(t *testing.T) {
	ctx := context.Background()
	net := randomLoopy(rand.New(rand.NewPCG(15, 16)), 10, 25, 6)
	f, err := Start(ctx, net, Options{MaxIterations: 2})
	if err != nil {
		t.Fatal(err)
	}
	if f.Stats.Converged || f.Stats.NumChanging == 0 || len(f.Stats.Changing) == 0 {
		t.Errorf("2 iterations: %+v", f.Stats)
	}
	f, err = Start(ctx, net, Options{Merge: true, DampAfter: 50, Check: 500})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Stats.Checked {
		t.Errorf("no check: %+v", f.Stats)
	}
	un, _, err := Check(ctx, net, f.Marginals(), Options{Check: 500})
	if err != nil {
		t.Fatal(err)
	}
	if len(un) != len(f.Stats.Unreliable) {
		t.Errorf("Check lists %d atoms, Start %d", len(un), len(f.Stats.Unreliable))
	}
}

// TestCheckNoClauses: the check of a network without atoms or clauses
// confirms it.
func TestCheckNoClauses(t *testing.T) {
	for _, n := range []int{0, 3} {
		p, st, err := Marginals(context.Background(), ground.NewNetwork(n), Options{Merge: true, DampAfter: 50, Check: 100})
		if err != nil || len(p) != n || !st.Checked || !st.Reliable() {
			t.Fatalf("%d atoms: %v %+v %v", n, p, st, err)
		}
	}
}
