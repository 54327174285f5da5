package learn

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// BenchmarkOnlineOverhead measures the learner's own cost per example
// (setting clause weights, the count difference, the update) on networks
// of 20,000 atoms and 60,000 clauses over 5,000 parameters, with a
// stand-in solver that returns the truth with 10% of the atoms flipped.
func BenchmarkOnlineOverhead(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const nAtoms, nClauses, nParams, nEx = 20000, 60000, 5000, 8
	var exs Examples
	preds := map[*ground.Network][]bool{}
	for e := 0; e < nEx; e++ {
		net := ground.NewNetwork(nAtoms)
		for c := 0; c < nClauses; c++ {
			k := 1 + r.IntN(3)
			lits := make([]ground.Lit, k)
			for j := range lits {
				lits[j] = ground.MakeLit(int32(r.IntN(nAtoms)), r.IntN(2) == 0)
			}
			net.AddClause(lits, 0, 0, int32(r.IntN(nParams)), 1)
		}
		truth := randomBools(r, nAtoms)
		pred := append([]bool(nil), truth...)
		for a := range pred {
			if r.IntN(10) == 0 {
				pred[a] = !pred[a]
			}
		}
		preds[net] = pred
		exs = append(exs, &Example{Net: net, Truth: truth})
	}
	solver := func(_ context.Context, net *ground.Network, _ []float64) ([]bool, error) {
		return preds[net], nil
	}
	for _, m := range []Method{DefaultCDA(), DefaultMIRA(), DefaultAdaGradFB()} {
		b.Run(m.Name(), func(b *testing.B) {
			for b.Loop() {
				model := &mln.Model{Weights: make([]float64, nParams)}
				if _, err := Online(context.Background(), model, exs, m, Settings{Solver: solverFunc(solver)}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nEx)/1e3, "µs/example")
		})
	}
}
