package lifted

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/wmc"
	"github.com/marple-mln/marple/internal/testenv"
	"github.com/marple-mln/marple/mln"
)

// smokersModel returns friends and smokers over n people (the weights of
// examples/smokers/smoking-weighted.mln) with the given evidence.
func smokersModel(t testing.TB, n int, evidence string) (*mln.Model, *mln.Database, Options) {
	t.Helper()
	var b strings.Builder
	b.WriteString("person = {")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "P%d", i)
	}
	b.WriteString("}\nFriends(person, person)\nSmokes(person)\nCancer(person)\n1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))\n")
	m, err := mln.ParseModel("smokers.mln", b.String())
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "smokers.db", evidence)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	q, _ := m.PredIDs("Smokes,Cancer")
	ow, _ := m.PredIDs("Friends")
	return m, db, Options{Query: q, OpenWorld: ow, NoFallback: true}
}

// randomEvidence lists Smokes and Cancer of a random tenth of n people,
// and, with friends, a few Friends atoms.
func randomEvidence(n int, seed uint64, friends int) string {
	r := rand.New(rand.NewPCG(seed, 1))
	var ev strings.Builder
	for i := range n {
		if r.IntN(10) != 0 {
			continue
		}
		for _, p := range []string{"Smokes", "Cancer"} {
			if r.IntN(2) == 0 {
				ev.WriteString("!")
			}
			fmt.Fprintf(&ev, "%s(P%d)\n", p, i)
		}
	}
	seen := map[[2]int]bool{}
	for range friends {
		a, b := r.IntN(n), r.IntN(n)
		if seen[[2]int{a, b}] {
			continue
		}
		seen[[2]int{a, b}] = true
		if r.IntN(2) == 0 {
			ev.WriteString("!")
		}
		fmt.Fprintf(&ev, "Friends(P%d,P%d)\n", a, b)
	}
	return ev.String()
}

// TestSmokersGround compares friends and smokers with exact ground
// counting at sizes enumeration does not reach, with evidence on people
// and on friendships (special constants).
func TestSmokersGround(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ n, friends int }{{5, 0}, {6, 2}, {6, 4}} {
		for seed := range uint64(3) {
			m, db, opt := smokersModel(t, c.n, randomEvidence(c.n, seed, c.friends))
			r, err := Exact(ctx, m, db, opt)
			if err != nil {
				t.Fatal(err)
			}
			net, err := ground.Ground(ctx, m, db, ground.Options{Query: opt.Query, OpenWorld: opt.OpenWorld})
			if err != nil {
				t.Fatal(err)
			}
			g, err := wmc.Solve(ctx, net, wmc.Options{})
			if err != nil {
				t.Fatal(err)
			}
			g.LogZ += (unknownAtoms(m, db, opt) - float64(net.NumAtoms())) * math.Ln2
			if relErr(r.LogZ, g.LogZ) > 1e-9 {
				t.Fatalf("n=%d seed %d: log Z %.12g, wmc %.12g", c.n, seed, r.LogZ, g.LogZ)
			}
			for a := range net.NumAtoms() {
				if p, ok := r.Prob(net.AtomPred[a], net.AtomArgs[a]); ok && math.Abs(p-g.Marginals[a]) > 1e-9 {
					t.Fatalf("n=%d seed %d: P(%s) = %.12g, wmc %.12g", c.n, seed, net.AtomName(int32(a)), p, g.Marginals[a])
				}
			}
		}
	}
}

// TestSmokersLarge runs friends and smokers at 10^4 people (10^5 with
// MARPLE_LONG_TESTS=1), with and without evidence, and checks that the
// marginals are probabilities and that the people of a class share one.
func TestSmokersLarge(t *testing.T) {
	sizes := []int{10000}
	if testenv.Long() {
		sizes = append(sizes, 100000)
	}
	for _, n := range sizes {
		for _, ev := range []string{"", randomEvidence(n, 1, 0)} {
			m, db, opt := smokersModel(t, n, ev)
			r, err := Exact(context.Background(), m, db, opt)
			if err != nil {
				t.Fatal(err)
			}
			if math.IsNaN(r.LogZ) || math.IsInf(r.LogZ, 0) || len(r.Classes) != 2 {
				t.Fatalf("n=%d: log Z %v, %d classes", n, r.LogZ, len(r.Classes))
			}
			for _, c := range r.Classes {
				if !(c.Prob >= 0 && c.Prob <= 1) {
					t.Fatalf("n=%d: P = %v", n, c.Prob)
				}
			}
		}
	}
}
