package mcsat

import (
	"context"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// TestSampleSlices: advancing the chains in slices (as marple infer does
// to report progress) gives the same marginals and diagnostics as one call.
func TestSampleSlices(t *testing.T) {
	net := ground.NewNetwork(6)
	for c := 0; c < 2; c++ {
		b := int32(3 * c)
		net.AddClause([]ground.Lit{ground.MakeLit(b, false), ground.MakeLit(b+1, true)}, 1.3, -1, -1, 1)
		net.AddClause([]ground.Lit{ground.MakeLit(b+1, false), ground.MakeLit(b+2, false)}, -0.4, -1, -1, 1)
		net.AddClause([]ground.Lit{ground.MakeLit(b+2, false)}, 2.5, -1, -1, 1)
	}
	for _, method := range []Method{MethodMCSAT, MethodGibbs} {
		opt := Options{Options: infer.Options{Seed: 3}, Samples: 400, BurnIn: 20, Chains: 2, Replicas: 2, BlockWeight: 1, ExactAtoms: -1}
		run := func(slices []int) ([]float64, *Diagnostics) {
			s, err := NewSampling(context.Background(), net, 2, opt, method)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range slices {
				if err := s.Sample(context.Background(), n); err != nil {
					t.Fatal(err)
				}
			}
			return s.Marginals(), s.Diagnostics()
		}
		p1, d1 := run([]int{400})
		p2, d2 := run([]int{1, 15, 64, 100, 220})
		for a := range p1 {
			if p1[a] != p2[a] || d1.Rhat[a] != d2.Rhat[a] || d1.ESS[a] != d2.ESS[a] {
				t.Fatalf("method %d atom %d: one call %v %v %v, slices %v %v %v", method, a, p1[a], d1.Rhat[a], d1.ESS[a], p2[a], d2.Rhat[a], d2.ESS[a])
			}
		}
	}
}
