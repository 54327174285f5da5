package bp

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// checkModel compares LiftModel with ground BP on the network ground.Ground
// builds; it reports false when the model is not liftable.
func checkModel(t *testing.T, name string, m *mln.Model, db *mln.Database, query []mln.PredID) bool {
	t.Helper()
	ctx := context.Background()
	net, err := ground.Ground(ctx, m, db, ground.Options{Query: query})
	if err != nil {
		t.Fatal(err)
	}
	want, wst, err := Marginals(ctx, net, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mm, st, err := LiftModel(ctx, m, db, query, Options{})
	if errors.Is(err, ErrNotLiftable) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	if st.Iterations != wst.Iterations {
		t.Errorf("%s: lifted %d iterations, ground %d", name, st.Iterations, wst.Iterations)
	}
	for a := range want {
		got := mm.Prob(net.AtomPred[a], net.AtomArgs[a])
		if math.Abs(got-want[a]) > 1e-6 {
			t.Fatalf("%s: atom %s: lifted %v, ground %v", name, atomName(m, net, a), got, want[a])
		}
	}
	return true
}

func atomName(m *mln.Model, net *ground.Network, a int) string {
	s := m.Preds[net.AtomPred[a]].Name + "("
	for i, c := range net.AtomArgs[a] {
		if i > 0 {
			s += ","
		}
		s += m.ConstName(c)
	}
	return s + ")"
}

func TestLiftModelRandom(t *testing.T) {
	lifted, liftedNoEvidence := 0, 0
	for seed := int64(1); seed <= 400; seed++ {
		c := randmln.Generate(seed)
		if len(c.OpenWorld) > 0 {
			continue
		}
		m, db, query, _, err := c.Load()
		if err != nil {
			t.Fatal(err)
		}
		if checkModel(t, c.String(), m, db, query) {
			lifted++
		}
		// Without evidence.
		c.DB = ""
		if m, db, query, _, err = c.Load(); err != nil {
			t.Fatal(err)
		}
		if checkModel(t, c.String(), m, db, query) {
			liftedNoEvidence++
		}
	}
	t.Logf("%d random models lifted with their evidence, %d without", lifted, liftedNoEvidence)
	if lifted < 50 || liftedNoEvidence < 50 {
		t.Errorf("only %d random models lifted with their evidence, %d without", lifted, liftedNoEvidence)
	}
}

func TestLiftModelFriendsSmokers(t *testing.T) {
	for _, extra := range []string{"", "Friends(P3, P4)\nFriends(P4, P3)\nCancer(P7)\n"} {
		m, db, q := friendsSmokersModel(t, 30, extra)
		if !checkModel(t, "friends and smokers", m, db, q) {
			t.Fatalf("friends and smokers (evidence %q) not lifted", extra)
		}
		mm, st, _ := LiftModel(context.Background(), m, db, q, Options{})
		_ = mm
		t.Logf("evidence %q: %d atom classes, %d clause classes", extra, st.AtomClusters, st.FactorClusters)
	}
}
