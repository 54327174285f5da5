package lp

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/datadir"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// citeseerTopic grounds the isolated segmentation model
// (examples/citeseer/ism.mln) on one CiteSeer topic's evidence from the
// shared data ($MARPLE_DATA, or ../shared/data next to the repository),
// with InField as the query, and gives every parameter a random weight
// (seeded; the model in the repository has no weights). It skips when the
// data is absent.
func citeseerTopic(b testing.TB, topic string) *ground.Network {
	evidence := datadir.Require(b, "citeseer", topic+".evidence.db")
	m, err := mln.LoadModel(filepath.Join("..", "..", "examples", "citeseer", "ism.mln"))
	if err != nil {
		b.Fatal(err)
	}
	db, err := mln.LoadDatabase(m, evidence)
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		b.Fatal(err)
	}
	p, ok := m.Pred("InField")
	if !ok {
		b.Fatal("no InField")
	}
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: []mln.PredID{p.ID}})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	w := make([]float64, len(m.Weights))
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	net.SetParamWeights(w)
	return net
}

// BenchmarkCiteSeer solves one real CiteSeer topic (reasoning, the
// largest) under random weights to tolerance 1e-3.
func BenchmarkCiteSeer(b *testing.B) {
	net := citeseerTopic(b, "reasoning")
	b.Logf("atoms %d clauses %d literals %d", net.NumAtoms(), net.NumClauses(), net.NumLits())
	var st *Stats
	for b.Loop() {
		var err error
		_, st, err = Solve(context.Background(), net, Options{Tol: 1e-3})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Iterations), "iters")
	b.ReportMetric(100*(st.RoundedCost-st.LPBound)/math.Abs(st.LPBound), "%gap")
	b.ReportMetric(100*st.FracIntegral, "%integral")
}
