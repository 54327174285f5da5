package experiment

import (
	"context"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/datadir"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/exact"
	"github.com/marple-mln/marple/infer/lp"
	"github.com/marple-mln/marple/infer/mws"
	"github.com/marple-mln/marple/learn"
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

// BenchmarkLPWebKBLossAugmented is one round of max-margin learning's
// separation oracle on WebKB: the Hamming-loss-augmented LP relaxation with
// ROUNDUP on each of the three training departments of the dept1 fold
// (about 1,870 query atoms and 26-34k ground clauses each), one worker,
// at the weights of 10 rounds of max-margin learning with C = 10 (random
// weights give an easy, almost integral LP; these leave about half the
// atoms at ½). It reports the mean ADMM iterations and the fraction of
// atoms the LP leaves integral.
func BenchmarkLPWebKBLossAugmented(b *testing.B) {
	datadir.Require(b, "webkb")
	depts, err := readWebKB(filepath.Join(datadir.Root(), "webkb"))
	if err != nil {
		b.Fatal(err)
	}
	f, err := loadWebKBFold(context.Background(), depts, "dept1")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := learn.Batch(context.Background(), f.train, f.src, learn.MaxMargin{C: 10, MaxIter: 10, Cache: learn.DefaultMaxMarginCache},
		learn.Settings{Solver: mapEngine("lp", 1), Seed: 1}); err != nil {
		b.Fatal(err)
	}
	var iters, integral float64
	solves := 0
	for b.Loop() {
		for _, ex := range f.src {
			ex.Net.SetWeights()
			bias := learn.HammingBias(nil, ex.Truth, ex.Query)
			_, st, err := lp.Solve(context.Background(), ex.Net, lp.Options{Options: infer.Options{Bias: bias}, Workers: 1})
			if err != nil {
				b.Fatal(err)
			}
			iters += float64(st.Iterations)
			integral += st.FracIntegral
			solves++
		}
	}
	b.ReportMetric(iters/float64(solves), "iters/solve")
	b.ReportMetric(integral/float64(solves), "integral")
}
