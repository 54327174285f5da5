package mcsat

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/internal/testkit/datadir"
	"github.com/marple-mln/marple/mln"
)

// groundData grounds model against the evidence files with query as the
// query predicate; it skips without the shared data.
func groundData(tb testing.TB, model string, query string, evidence ...string) (*ground.Network, *mln.Model) {
	tb.Helper()
	m, err := mln.LoadModel(model)
	if err != nil {
		tb.Fatal(err)
	}
	db, err := mln.LoadDatabase(m, evidence...)
	if err != nil {
		tb.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		tb.Fatal(err)
	}
	p, ok := m.Pred(query)
	if !ok {
		tb.Fatalf("no predicate %s", query)
	}
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: []mln.PredID{p.ID}})
	if err != nil {
		tb.Fatal(err)
	}
	return net, m
}

// benchSelection runs MC-SAT on net with each selection mode and reports
// samples per second; the naive mode (one draw per clause) is the
// baseline the others are measured against in the same run.
func benchSelection(b *testing.B, net *ground.Network, sampler func(context.Context, *ground.Network, Options) ([]float64, error)) {
	for _, mode := range []struct {
		name string
		sel  selectMode
	}{{"naive", selectNaive}, {"auto", selectAuto}} {
		b.Run(mode.name, func(b *testing.B) {
			const samples = 200
			for i := 0; i < b.N; i++ {
				opt := Options{Options: infer.Options{Seed: int64(i)}, Samples: samples, BurnIn: -1, selection: mode.sel}
				if _, err := sampler(context.Background(), net, opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(samples)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

// BenchmarkSelectUWCSE samples advisedBy on UW-CSE AI with Tuffy's weights:
// one component of 4,589 atoms and 356,610 clauses.
func BenchmarkSelectUWCSE(b *testing.B) {
	dir := datadir.Require(b, "uw-cse")
	net, _ := groundData(b, filepath.Join(dir, "tuffy-weighted-prog.mln"), "advisedBy", filepath.Join(dir, "ai.db"))
	b.Logf("atoms %d clauses %d", net.NumAtoms(), net.NumClauses())
	benchSelection(b, net, MCSAT)
}

// BenchmarkSelectFace samples InField on CiteSeer's Face topic with the
// ISM model under random weights (seeded), component by component.
func BenchmarkSelectFace(b *testing.B) {
	ev := datadir.Require(b, "citeseer", "face.evidence.db")
	net, m := groundData(b, filepath.Join("..", "..", "examples", "citeseer", "ism.mln"), "InField", ev)
	rng := rand.New(rand.NewPCG(1, 1))
	w := make([]float64, len(m.Weights))
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	net.SetParamWeights(w)
	b.Logf("atoms %d clauses %d", net.NumAtoms(), net.NumClauses())
	benchSelection(b, net, func(ctx context.Context, net *ground.Network, opt Options) ([]float64, error) {
		return Components(ctx, net, 1, opt, MCSAT)
	})
}
