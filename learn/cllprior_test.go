package learn

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/randmln"
)

// TestScaleJointPriorExact checks ScaleJointPrior on random MLNs against
// enumeration: each parameter's connections are recounted from the ground
// clauses (1 for a parameter whose clauses hold one atom each), and PSCG
// with exact expectations, from the independent start, reaches the point
// where the finite-difference gradient of the exact −CLL plus the scaled
// prior, Σ_p w_p²·c_p²/(2σ²), vanishes.
func TestScaleJointPriorExact(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(51, 52))
	done, scaled := 0, 0
	for seed := int64(2000); done < 12 || scaled < 8; seed++ {
		if seed > 4000 {
			t.Fatalf("only %d cases", done)
		}
		m, ex, ok := cllCase(t, r, seed, randmln.Config{MaxUnknown: 8})
		if !ok {
			continue
		}
		const sigma = 2.0
		const prec = 1 / (sigma * sigma)
		net := ex.Net
		// Connections by a plain count over (parameter, atom) pairs.
		want := make([]float64, len(m.Weights))
		for p := range want {
			want[p] = 1
			for a := 0; a < net.NumAtoms(); a++ {
				n := 0
				for c := 0; c < net.NumClauses(); c++ {
					if int(net.Param(c)) != p {
						continue
					}
					atoms := map[int32]bool{}
					for _, l := range net.Clause(c) {
						atoms[l.Atom()] = true
					}
					if len(atoms) >= 2 && atoms[int32(a)] {
						n++
					}
				}
				want[p] = max(want[p], float64(n))
			}
		}
		pb, err := newCLLProblem(ctx, m, Examples{ex}, exactSamplers, 1, prec)
		if err != nil {
			t.Fatal(err)
		}
		pb.scaleJointPrior()
		if !slices.Equal(pb.scale, want) {
			t.Fatalf("seed %d: connections %v, counted %v", seed, pb.scale, want)
		}
		if slices.ContainsFunc(want, func(c float64) bool { return c > 1 }) {
			scaled++
		}
		clear(m.Weights)
		st, err := Discriminative(ctx, m, Examples{ex}, DiscriminativeSettings{Sampler: exactSamplers, PriorStdDev: sigma,
			ScaleJointPrior: true, MaxIter: 500, MinLLChange: 1e-13, Workers: 1})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		w := slices.Clone(m.Weights)
		objective := func(x []float64) float64 {
			f := exactObjective(m, Examples{ex}, x, 0)
			for p, v := range x {
				f += prec * want[p] * want[p] * v * v / 2
			}
			return f
		}
		const h = 1e-5
		for p := range w {
			xp, xm := slices.Clone(w), slices.Clone(w)
			xp[p] += h
			xm[p] -= h
			if g := (objective(xp) - objective(xm)) / (2 * h); math.Abs(g) > 1e-4 {
				t.Fatalf("seed %d: gradient[%d] = %g at the weights learned %v (connections %v, %d iterations, converged %v)",
					seed, p, g, w, want, st.Iterations, st.Converged)
			}
		}
		done++
	}
	if scaled == 0 {
		t.Fatal("no case with a scaled prior")
	}
	t.Logf("%d cases, %d with a scaled prior", done, scaled)
}
