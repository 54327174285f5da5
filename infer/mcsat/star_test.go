package mcsat

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// starModel returns a random network shaped like entity resolution's
// field and citation atoms: hubs (atoms 0..h-1) each tied by heavy
// clauses to leaves, every leaf to one or two hubs, plus units, clauses
// among the hubs and, now and then, a clause between two leaves or a hard
// clause; and its exact marginals.
func starModel(rng *rand.Rand) (*ground.Network, []float64) {
	for {
		h := 1 + rng.IntN(2)
		n := h + 3 + rng.IntN(5)
		net := ground.NewNetwork(n)
		lit := func(a int) ground.Lit { return ground.MakeLit(int32(a), rng.IntN(2) == 0) }
		w := func(scale float64) float64 { return scale * (2*rng.Float64() - 1) }
		for a := range n {
			net.AddClause([]ground.Lit{lit(a)}, w(1.5), -1, -1, 1)
		}
		for l := h; l < n; l++ {
			for range 1 + rng.IntN(2) {
				net.AddClause([]ground.Lit{lit(rng.IntN(h)), lit(l)}, w(4), -1, -1, 1)
			}
			if h == 2 && rng.IntN(3) == 0 {
				net.AddClause([]ground.Lit{lit(0), lit(1), lit(l)}, w(3), -1, -1, 1)
			}
		}
		if h == 2 {
			net.AddClause([]ground.Lit{lit(0), lit(1)}, w(2), -1, -1, 1)
		}
		if rng.IntN(3) == 0 {
			net.AddClause([]ground.Lit{lit(h + rng.IntN(n-h)), lit(h + rng.IntN(n-h))}, w(2), -1, -1, 1)
		}
		if rng.IntN(4) == 0 {
			net.AddClause([]ground.Lit{lit(rng.IntN(n)), lit(rng.IntN(n))}, math.Inf(1), -1, -1, 1)
		}
		if exact, ok := exactMarginals(net, nil); ok && connected(net) {
			return net, exact
		}
	}
}

// TestStars checks the stars' structure: the hub and its leaves are soft
// atoms, leaves have at most the given number of clauses, share a clause
// with the hub and no clause with each other.
func TestStars(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	found := 0
	for range 50 {
		net, _ := starModel(rng)
		m := testModel(net, nil)
		hard := make([]bool, m.n)
		for c := range m.numClauses() {
			if math.IsInf(m.w[c], 0) {
				for _, l := range m.clause(c) {
					hard[l.Atom()] = true
				}
			}
		}
		for _, st := range m.stars(4) {
			found++
			if len(st.leaves) < starMinLeaves {
				t.Fatalf("star %+v: too few leaves", st)
			}
			in := map[int32]bool{}
			for _, l := range st.leaves {
				if l == st.hub || in[l] || hard[l] || len(m.occurrences(l)) > 4 {
					t.Fatalf("star %+v: bad leaf %d", st, l)
				}
				in[l] = true
			}
			if hard[st.hub] {
				t.Fatalf("star %+v: hard hub", st)
			}
			for c := range m.numClauses() {
				k, hub := 0, false
				for _, lt := range m.clause(c) {
					if in[lt.Atom()] {
						k++
					}
					hub = hub || lt.Atom() == st.hub
				}
				if k > 1 {
					t.Fatalf("star %+v: clause %v holds two leaves", st, m.clause(c))
				}
			}
			for _, l := range st.leaves {
				tied := false
				for _, o := range m.occurrences(l) {
					for _, lt := range m.clause(int(o >> 1)) {
						tied = tied || lt.Atom() == st.hub
					}
				}
				if !tied {
					t.Fatalf("star %+v: leaf %d shares no clause with the hub", st, l)
				}
			}
		}
	}
	if found < 30 {
		t.Fatalf("only %d stars in 50 models", found)
	}
}

// TestStarMoveMatchesExact checks that star moves, between single-atom
// Gibbs moves (which make the chain ergodic), sample the exact
// distribution: a biased star move would show in the marginals.
func TestStarMoveMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	worst := 0.0
	for i := range 20 {
		net, exact := starModel(rng)
		m := testModel(net, nil)
		s, err := startChain(m, &Options{InitSteps: DefaultInitSteps, Noise: DefaultNoise}, rand.New(rand.NewPCG(uint64(i), 2)), 0)
		if err != nil {
			t.Fatal(err)
		}
		stars := m.stars(DefaultStarLeafDegree)
		gain := starScratch(stars)
		got := make([]float64, m.n)
		const n = 40000
		for range n {
			s.begin()
			for a := range s.y { // Gibbs, hard clauses kept
				if p := s.conditional(int32(a), 0); (s.rng.Float64() < p) != s.y[a] {
					s.flip(int32(a))
				}
			}
			for range 3 {
				s.starSweep(stars, gain)
			}
			for a, v := range s.y {
				if v {
					got[a]++
				}
			}
		}
		for a := range got {
			got[a] /= n
		}
		e, a := maxErr(got, exact)
		worst = max(worst, e)
		if e > 0.015 {
			t.Errorf("model %d (%d stars): atom %d: %.4f, exact %.4f", i, len(stars), a, got[a], exact[a])
		}
	}
	t.Logf("worst error %.4f", worst)
}

// TestStarChainMatchesExact checks a persistent MC-SAT chain with star
// moves against enumeration, and that a seed fixes its worlds.
func TestStarChainMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 10 {
		net, exact := starModel(rng)
		run := func() []float64 {
			ch, err := NewChain(net, Options{Options: infer.Options{Seed: int64(i)}, Stars: true})
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float64, net.NumAtoms())
			const n = 30000
			if err := ch.Sample(context.Background(), n, func(y []bool) {
				for a, v := range y {
					if v {
						got[a]++
					}
				}
			}); err != nil {
				t.Fatal(err)
			}
			for a := range got {
				got[a] /= n
			}
			return got
		}
		got := run()
		if e, a := maxErr(got, exact); e > 0.02 {
			t.Errorf("model %d: atom %d: %.4f, exact %.4f", i, a, got[a], exact[a])
		}
		if again := run(); maxDiff(again, got) != 0 {
			t.Errorf("model %d: the same seed gave other worlds", i)
		}
	}
}

func maxDiff(a, b []float64) float64 {
	e, _ := maxErr(a, b)
	return e
}

// hubModel returns a hub (atom 0) tied to k leaves by one clause of
// weight w each (hub ⇒ leaf), and a unit clause on every atom: its hub
// weighs k·w.
func hubModel(k int, w float64) *ground.Network {
	net := ground.NewNetwork(k + 1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, false)}, -0.3, -1, -1, 1)
	for l := 1; l <= k; l++ {
		net.AddClause([]ground.Lit{ground.MakeLit(0, true), ground.MakeLit(int32(l), false)}, w, -1, -1, 1)
		net.AddClause([]ground.Lit{ground.MakeLit(int32(l), false)}, -0.5, -1, -1, 1)
	}
	return net
}

// smokersNet returns the ground network of friends and smokers (1.5
// Smokes(x) ⇒ Cancer(x), 1.1 Friends(x, y) ⇒ (Smokes(x) ⇔ Smokes(y)))
// over n people in a ring, each the friend of the next two: atoms 0..n-1
// Smokes, n..2n-1 Cancer.
func smokersNet(n int) *ground.Network {
	net := ground.NewNetwork(2 * n)
	s := func(x int, neg bool) ground.Lit { return ground.MakeLit(int32(x%n), neg) }
	for x := range n {
		net.AddClause([]ground.Lit{s(x, true), ground.MakeLit(int32(n+x), false)}, 1.5, -1, -1, 1)
		for d := 1; d <= 2; d++ {
			for _, dir := range [][2]int{{x, x + d}, {x + d, x}} {
				net.AddClause([]ground.Lit{s(dir[0], true), s(dir[1], false)}, 1.1, -1, -1, 1)
			}
		}
	}
	return net
}

// TestAutoStarsTrigger checks the automatic rule of the star moves: a
// network with a hub of DefaultStarWeight or more gets every star move,
// one with lighter hubs only and the smokers' network none (and their
// chains then draw the same worlds as without star moves), Stars moves
// every star, and the marginals with the automatic moves are exact.
func TestAutoStarsTrigger(t *testing.T) {
	heavy, light := hubModel(8, 1.5), hubModel(8, 1.0) // 12 and 8 nats
	auto := Options{AutoStars: true}
	if st := testModel(heavy, nil).chooseStars(&auto); len(st) != 1 || st[0].hub != 0 || len(st[0].leaves) != 8 {
		t.Errorf("heavy hub: stars %v, want hub 0 with 8 leaves", st)
	}
	if st := testModel(light, nil).chooseStars(&auto); len(st) != 0 {
		t.Errorf("light hub: stars %v, want none", st)
	}
	if st := testModel(light, nil).chooseStars(&Options{Stars: true}); len(st) != 1 {
		t.Errorf("light hub with Stars: %d stars, want 1", len(st))
	}
	if st := testModel(light, nil).chooseStars(&Options{AutoStars: true, StarWeight: 7.5}); len(st) != 1 {
		t.Errorf("light hub with StarWeight 7.5: %d stars, want 1", len(st))
	}
	// A light hub in a network with a heavy one gets its move too.
	both := ground.NewNetwork(13)
	for c := range heavy.NumClauses() {
		both.AddClause(heavy.Clause(c), heavy.Weight(c), -1, -1, 1)
	}
	const lightHub = 9
	for l := int32(lightHub + 1); l < lightHub+4; l++ {
		both.AddClause([]ground.Lit{ground.MakeLit(lightHub, true), ground.MakeLit(l, false)}, 0.5, -1, -1, 1)
	}
	if st := testModel(both, nil).chooseStars(&auto); len(st) != 2 {
		t.Errorf("heavy and light hubs: %d automatic stars, want 2", len(st))
	}
	if st := testModel(light, nil).chooseStars(&Options{}); st != nil {
		t.Errorf("no star option: stars %v", st)
	}
	smokers := smokersNet(30)
	if st := testModel(smokers, nil).chooseStars(&Options{Stars: true}); len(st) == 0 {
		t.Fatal("smokers: no star at all; the test checks nothing")
	}
	if st := testModel(smokers, nil).chooseStars(&auto); len(st) != 0 {
		t.Errorf("smokers: %d automatic stars, want none", len(st))
	}

	ctx := context.Background()
	for _, c := range []struct {
		name  string
		net   *ground.Network
		stars int
	}{{"heavy", heavy, 1}, {"smokers", smokers, 0}} {
		opt := Options{Options: infer.Options{Seed: 5}, Samples: 20000, Chains: 2, ExactAtoms: -1}
		plain, err := NewSampling(ctx, c.net, 1, opt, MethodMCSAT)
		if err != nil {
			t.Fatal(err)
		}
		opt.AutoStars = true
		s, err := NewSampling(ctx, c.net, 1, opt, MethodMCSAT)
		if err != nil {
			t.Fatal(err)
		}
		if hubs, _ := s.StarMoves(); hubs != c.stars {
			t.Errorf("%s: star moves on %d hubs, want %d", c.name, hubs, c.stars)
		}
		if hubs, _ := plain.StarMoves(); hubs != 0 {
			t.Errorf("%s without star options: star moves on %d hubs", c.name, hubs)
		}
		n := 20000
		if c.stars == 0 {
			n = 300
		}
		for _, r := range []*Sampling{plain, s} {
			if err := r.Sample(ctx, n); err != nil {
				t.Fatal(err)
			}
		}
		got, without := s.Marginals(), plain.Marginals()
		if c.stars == 0 {
			if !slices.Equal(got, without) {
				t.Errorf("%s: the automatic rule made no star move but changed the marginals", c.name)
			}
			continue
		}
		exact, ok := exactMarginals(c.net, nil)
		if !ok {
			t.Fatalf("%s: no exact marginals", c.name)
		}
		if e, a := maxErr(got, exact); e > 0.02 {
			t.Errorf("%s: atom %d: %.4f, exact %.4f", c.name, a, got[a], exact[a])
		}
	}
}
