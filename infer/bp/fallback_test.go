package bp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
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

// TestLiftedTreeExact: on trees lifted BP gives the exact marginals
// (enumeration).
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
		// As many rounds as atoms reach across the tree: approximate
		// lifting is exact.
		got, _, err = LiftedApprox(context.Background(), net, Options{MaxIterations: 100000, Tolerance: 1e-12}, net.NumAtoms())
		if err != nil {
			t.Fatal(err)
		}
		equalMarginals(t, fmt.Sprintf("trial %d, approximate", trial), got, want, 1e-6)
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
	if !reflect.DeepEqual(st1, st2) {
		t.Fatalf("1 worker: %+v; 2 workers: %+v", st1, st2)
	}
	equalMarginals(t, "workers", p2, p1, 0)
	t.Logf("%s", st1.Compression())
}

// TestLiftedApproxFirstIterations: on random networks, approximate
// lifting with k rounds gives ground BP's marginals after k iterations
// exactly, and with enough rounds to be stable gives Lifted's result.
func TestLiftedApproxFirstIterations(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(9, 10))
	approx := 0
	for trial := 0; trial < 200; trial++ {
		var net *ground.Network
		if trial%2 == 0 {
			net = randomTree(rng, 2+rng.IntN(11), trial%4 == 0)
		} else {
			net = randomLoopy(rng, 8, 10, 1)
		}
		for k := 1; k <= 3; k++ {
			opt := Options{MaxIterations: k}
			want, _, err := Marginals(ctx, net, opt)
			if err != nil {
				t.Fatal(err)
			}
			got, st, err := LiftedApprox(ctx, net, opt, k)
			if err != nil {
				t.Fatal(err)
			}
			if st.Approximate {
				approx++
			}
			equalMarginals(t, fmt.Sprintf("trial %d, %d rounds", trial, k), got, want, 1e-9)
		}
		want, wst, _ := Lifted(ctx, net, Options{})
		got, st, err := LiftedApprox(ctx, net, Options{}, 100)
		if err != nil {
			t.Fatal(err)
		}
		if st.Approximate || st.Iterations != wst.Iterations {
			t.Fatalf("trial %d: 100 rounds: %+v, want Lifted's %+v", trial, st, wst)
		}
		equalMarginals(t, fmt.Sprintf("trial %d, 100 rounds", trial), got, want, 0)
	}
	if approx == 0 {
		t.Error("no partition was approximate")
	}
}

// friendsRing is friends and smokers over n people whose friendships form
// a ring (Friends evidence, both ways), one person known to smoke.
func friendsRing(tb testing.TB, n int) *ground.Network {
	var ev strings.Builder
	for i := 0; i < n; i++ {
		j := (i + 1) % n
		fmt.Fprintf(&ev, "Friends(P%d, P%d)\nFriends(P%d, P%d)\n", i, j, j, i)
	}
	var model strings.Builder
	model.WriteString("person = {")
	for i := 0; i < n; i++ {
		if i > 0 {
			model.WriteString(", ")
		}
		fmt.Fprintf(&model, "P%d", i)
	}
	model.WriteString("}\nFriends(person, person)\nSmokes(person)\nCancer(person)\n")
	model.WriteString("1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))\n")
	m, err := mln.ParseModel("ring.mln", model.String())
	if err != nil {
		tb.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "ring.db", ev.String()+"Smokes(P0)\n")
	if err != nil {
		tb.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		tb.Fatal(err)
	}
	var q []mln.PredID
	for _, name := range []string{"Smokes", "Cancer"} {
		p, _ := m.Pred(name)
		q = append(q, p.ID)
	}
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: q})
	if err != nil {
		tb.Fatal(err)
	}
	return net
}

// TestLiftedApproxRing: on a ring of friends with one known smoker exact
// lifting only halves the network (mirror images are alike) and falls
// back to ground BP; approximate lifting with a few rounds keeps a
// handful of clusters and marginals close to ground BP's, closer with
// more rounds.
func TestLiftedApproxRing(t *testing.T) {
	ctx := context.Background()
	net := friendsRing(t, 1000)
	want, _, err := Marginals(ctx, net, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, st, err := Lifted(ctx, net, Options{}); err != nil || !st.Ground {
		t.Fatalf("exact lifting: %v, %+v; want the fallback", err, st)
	}
	prev := math.Inf(1)
	for _, k := range []int{4, 8, 16} {
		got, st, err := LiftedApprox(ctx, net, Options{}, k)
		if err != nil {
			t.Fatal(err)
		}
		d := 0.0
		for a := range want {
			d = math.Max(d, math.Abs(got[a]-want[a]))
		}
		t.Logf("%d rounds: %s; largest difference from ground BP %.3g", k, st.Compression(), d)
		if !st.Approximate || st.AtomClusters > 4*k+4 {
			t.Fatalf("%d rounds: %+v", k, st)
		}
		if d > 0.05 || d > prev {
			t.Fatalf("%d rounds: largest difference %v from ground BP (%v with fewer rounds)", k, d, prev)
		}
		prev = d
	}
}
