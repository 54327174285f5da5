package engines_test

import (
	"context"
	"math"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/mln"
)

// TestFirstOrder: the lifted engines of the first-order model give
// enumeration's log Z and marginals on friends and smokers with evidence
// (fomc exactly, lis within four standard errors).
func TestFirstOrder(t *testing.T) {
	m, err := mln.ParseModel("fs.mln", "person = {A, B, C}\nFriends(person, person)\nSmokes(person)\nCancer(person)\n1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))\n-0.3 Smokes(x)\n")
	if err == nil {
		err = m.Compile()
	}
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "ev.db", "Friends(A, B)\nFriends(B, C)\nSmokes(A)\n")
	if err != nil {
		t.Fatal(err)
	}
	query, err := m.PredIDs("Smokes,Cancer")
	if err != nil {
		t.Fatal(err)
	}
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: query, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	wantZ, want := brute.LogZ(net), brute.Marginals(net)
	s := engines.DefaultSettings()
	s.Samples = 4000
	if len(engines.FirstOrderNames()) != 2 || engines.Doc("fomc") == "" || engines.Doc("lis") == "" {
		t.Errorf("first-order engines %v", engines.FirstOrderNames())
	}
	for _, name := range engines.FirstOrderNames() {
		e, err := engines.NewFirstOrder(name, s)
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.Run(context.Background(), m, db, query, nil, false, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tol := func(se float64) float64 {
			if e.Exact() {
				return 1e-9
			}
			return 4*se + 1e-3
		}
		if math.Abs(r.LogZ-wantZ) > tol(r.LogZErr)*max(1, math.Abs(wantZ)) {
			t.Errorf("%s: log Z %v ± %v, enumeration %v", name, r.LogZ, r.LogZErr, wantZ)
		}
		for a := range want {
			p, ok := r.Prob(net.AtomPred[a], net.AtomArgs[a])
			if !ok || math.Abs(p-want[a]) > tol(r.Err(net.AtomPred[a], net.AtomArgs[a])) {
				t.Errorf("%s: atom %d: %v (%v), enumeration %v", name, a, p, ok, want[a])
			}
		}
	}
	if _, err := engines.NewFirstOrder("bogus", s); err == nil {
		t.Errorf("NewFirstOrder(bogus): no error")
	}
}
