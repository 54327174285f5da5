package bp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// randomFriendships returns evidence giving each of n people 1 to 5
// random friends (both ways), from seed.
func randomFriendships(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 1))
	seen := map[[2]int]bool{}
	var b strings.Builder
	for i := 0; i < n; i++ {
		for k := 1 + rng.IntN(5); k > 0; {
			j := rng.IntN(n)
			if j == i || seen[[2]int{i, j}] {
				continue
			}
			seen[[2]int{i, j}], seen[[2]int{j, i}] = true, true
			fmt.Fprintf(&b, "Friends(P%d, P%d)\nFriends(P%d, P%d)\n", i, j, j, i)
			k--
		}
	}
	return b.String()
}

// friendsSmokersRandom is friends and smokers over n people with random
// friendships as evidence (Friends closed world) and Smokes and Cancer
// queried: evidence that tells most people apart.
func friendsSmokersRandom(tb testing.TB, n int, seed uint64) (*mln.Model, *mln.Database, []mln.PredID) {
	m, db, q := friendsSmokersModel(tb, n, randomFriendships(n, seed))
	return m, db, q[1:] // Smokes, Cancer
}

func equalMarginals(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	for a := range want {
		if math.Abs(got[a]-want[a]) > tol {
			t.Fatalf("%s: atom %d: %v, want %v", what, a, got[a], want[a])
		}
	}
}

// TestLiftedFallback: on friends and smokers with random friendships
// lifting does not compress; LiftModel refuses it before enumerating
// clause classes, and Lifted stops colour passing early and runs ground
// BP, saying so. With symmetric evidence both lift.
func TestLiftedFallback(t *testing.T) {
	ctx := context.Background()
	m, db, q := friendsSmokersRandom(t, 700, 1)
	if _, _, err := LiftModel(ctx, m, db, q, Options{}); !errors.Is(err, ErrNotLiftable) || !strings.Contains(err.Error(), "classes") {
		t.Fatalf("LiftModel on random friendships: %v, want ErrNotLiftable for too many classes", err)
	}
	net, err := ground.Ground(ctx, m, db, ground.Options{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	want, wst, err := Marginals(ctx, net, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, st, err := Lifted(ctx, net, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d atoms: %s", net.NumAtoms(), st.Compression())
	if !st.Ground || !strings.Contains(st.Compression(), "ran ground BP") {
		t.Fatalf("random friendships lifted: %+v", st)
	}
	if st.Iterations != wst.Iterations || st.Converged != wst.Converged {
		t.Fatalf("fallback: %d iterations (converged %v), ground %d (%v)", st.Iterations, st.Converged, wst.Iterations, wst.Converged)
	}
	equalMarginals(t, "fallback", got, want, 0)

	// The same people with symmetric evidence lift, from the model and
	// from the network.
	net = friendsSmokers(t, 40)
	if _, st, err := Lifted(ctx, net, Options{}); err != nil || st.Ground {
		t.Fatalf("symmetric evidence: %v, %+v", err, st)
	}
	m, db, q = friendsSmokersModel(t, 700, "")
	if _, st, err := LiftModel(ctx, m, db, q, Options{}); err != nil || st.AtomClusters > 20 {
		t.Fatalf("LiftModel, symmetric evidence: %v, %+v", err, st)
	} else {
		t.Logf("symmetric evidence, 700 people: %s", st.Compression())
	}
}

// TestLiftedRandomMLN compares Lifted with ground BP on the networks of
// random MLNs with their evidence and without it, lifting (the fallback
// off) and falling back (every network counts as large).
func TestLiftedRandomMLN(t *testing.T) {
	ctx := context.Background()
	defer func(n int) { fallbackMinAtoms = n }(fallbackMinAtoms)
	fell := 0
	for seed := int64(1); seed <= 150; seed++ {
		c := randmln.Generate(seed)
		for _, noEvidence := range []bool{false, true} {
			if noEvidence {
				c.DB = ""
			}
			m, db, query, ow, err := c.Load()
			if err != nil {
				t.Fatal(err)
			}
			net, err := ground.Ground(ctx, m, db, ground.Options{Query: query, OpenWorld: ow})
			if err != nil {
				t.Fatal(err)
			}
			want, wst, err := Marginals(ctx, net, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, minAtoms := range []int{1 << 30, 0} {
				fallbackMinAtoms = minAtoms
				got, st, err := Lifted(ctx, net, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if st.Ground {
					fell++
				}
				if st.Iterations != wst.Iterations || st.Converged != wst.Converged {
					t.Fatalf("%s: lifted %d iterations (converged %v), ground %d (%v)", c, st.Iterations, st.Converged, wst.Iterations, wst.Converged)
				}
				equalMarginals(t, c.String(), got, want, 1e-9)
			}
		}
	}
	if fell == 0 {
		t.Error("no random network fell back to ground BP")
	}
}

// TestLiftedTreeExact: on trees lifted BP gives the exact marginals.
func TestLiftedTreeExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 100; trial++ {
		net := randomTree(rng, 2+rng.IntN(11), trial%2 == 1)
		want, ok := exact(net, nil)
		if !ok {
			continue
		}
		got, _, err := Lifted(context.Background(), net, Options{MaxIterations: 100000, Tolerance: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		equalMarginals(t, fmt.Sprintf("trial %d", trial), got, want, 1e-6)
	}
}

// TestLiftedDeterministic: the clusters and marginals do not depend on the
// number of workers.
func TestLiftedDeterministic(t *testing.T) {
	ctx := context.Background()
	m, db, q := friendsSmokersModel(t, 60, "Friends(P3, P4)\nFriends(P4, P3)\nCancer(P7)\n")
	net, err := ground.Ground(ctx, m, db, ground.Options{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	p1, st1, err := Lifted(ctx, net, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	p2, st2, err := Lifted(ctx, net, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if *st1 != *st2 {
		t.Fatalf("1 worker: %+v; 2 workers: %+v", st1, st2)
	}
	equalMarginals(t, "workers", p2, p1, 0)
	t.Logf("%s", st1.Compression())
}
