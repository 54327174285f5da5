package experiment

import (
	"context"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/marple-mln/marple/internal/datadir"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/exact"
	"github.com/marple-mln/marple/infer/lp"
	"github.com/marple-mln/marple/infer/mws"
)

// citeseerDir returns the CiteSeer data folder ($MARPLE_DATA/citeseer, by
// default ../shared/data/citeseer beside the repository), skipping the
// benchmark when it is absent.
func citeseerDir(b testing.TB) string {
	datadir.Require(b, "citeseer", "face.evidence.db")
	return filepath.Join(datadir.Root(), "citeseer")
}

// groundWithRandomWeights grounds the ISM model on the given topics and
// gives every parameter a weight drawn from N(0, 1).
func groundWithRandomWeights(b testing.TB, topics ...string) *ground.Network {
	dir := citeseerDir(b)
	var files []string
	for _, t := range topics {
		files = append(files, filepath.Join(dir, t+".evidence.db"), filepath.Join(dir, t+".infield.db"))
	}
	m, net, _, _, err := groundTopic(context.Background(), files)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	for i := range m.Weights {
		m.Weights[i] = r.NormFloat64()
	}
	net.SetWeights()
	return net
}

// BenchmarkExactAllCiteSeer is exact MPE of all 1,563 CiteSeer citations
// (the four topics ground together) under the ISM model with random
// weights. Target: under 2 s.
func BenchmarkExactAllCiteSeer(b *testing.B) {
	net := groundWithRandomWeights(b, Topics...)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := exact.Solve(context.Background(), net, exact.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if !res.Optimal || res.HardViolated > 0 {
			b.Fatalf("optimal %v, %d hard violated", res.Optimal, res.HardViolated)
		}
	}
	b.ReportMetric(float64(net.NumAtoms()), "atoms")
	b.ReportMetric(float64(net.NumClauses()), "clauses")
}

// BenchmarkLPTopic is the LP relaxation with ROUNDUP on one CiteSeer topic
// (reasoning, the largest) as a single network. Target: under 5 s.
func BenchmarkLPTopic(b *testing.B) {
	net := groundWithRandomWeights(b, "reasoning")
	ex, err := exact.Solve(context.Background(), net, exact.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, st, err := lp.Solve(context.Background(), net, lp.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(res.Bound, "lp-bound-cost")
		b.ReportMetric(res.Cost, "rounded-cost")
		b.ReportMetric(st.FracIntegral, "frac-integral")
	}
	b.ReportMetric(ex.Cost, "exact-cost")
	b.ReportMetric(float64(net.NumClauses()), "clauses")
}

// BenchmarkMAPCostFace compares, on the Face topic with the same (random)
// weights, the cost and hard violations of exact MPE and of MaxWalkSAT
// (Marple's default, and Classic: Alchemy's algorithm) with 1,000,000 flips.
func BenchmarkMAPCostFace(b *testing.B) {
	net := groundWithRandomWeights(b, "face")
	for i := 0; i < b.N; i++ {
		ex, err := exact.Solve(context.Background(), net, exact.Options{})
		if err != nil {
			b.Fatal(err)
		}
		mw, err := mws.Solve(context.Background(), net, mws.Options{Options: infer.Options{Seed: 1}})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(ex.Cost, "exact-cost")
		b.ReportMetric(float64(ex.HardViolated), "exact-hard")
		b.ReportMetric(mw.Cost, "mws-cost")
		b.ReportMetric(float64(mw.HardViolated), "mws-hard")
		cl, err := mws.Solve(context.Background(), net, mws.Options{Options: infer.Options{Seed: 1}, Classic: true})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(cl.Cost, "classic-mws-cost")
		b.ReportMetric(float64(cl.HardViolated), "classic-mws-hard")
	}
}
