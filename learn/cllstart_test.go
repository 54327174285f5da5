package learn

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/internal/testkit/randmln"
)

// TestIndependentStartExact checks the independent start on random MLNs
// against enumeration: the parameters of formulas that link two unknown
// atoms start at 0, and the exact gradient of −CLL + prior (with those
// held at 0) vanishes in every other parameter. When no formula links
// atoms, the start is the exact optimum, and Discriminative with exact
// expectations takes no step away from it.
func TestIndependentStartExact(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(41, 42))
	checked, independent := 0, 0
	for seed := int64(1000); checked < 25; seed++ {
		if seed > 1600 {
			t.Fatalf("only %d cases", checked)
		}
		m, ex, ok := cllCase(t, r, seed, randmln.Config{MaxUnknown: 8})
		if !ok {
			continue
		}
		const prec = 1 / 4.0
		pb, err := newCLLProblem(ctx, m, Examples{ex}, exactSamplers, 1, prec)
		if err != nil {
			t.Fatal(err)
		}
		w := make([]float64, pb.np)
		info, err := pb.independentStart(ctx, w)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if info.Atoms != ex.Net.NumAtoms() {
			continue // hard clauses: atoms left out, the start is approximate
		}
		// The joint parameters: a ground clause with two or more atoms.
		joint := make([]bool, pb.np)
		for c := 0; c < ex.Net.NumClauses(); c++ {
			p := ex.Net.Param(c)
			atoms := map[int32]bool{}
			for _, l := range ex.Net.Clause(c) {
				atoms[l.Atom()] = true
			}
			if p >= 0 && len(atoms) > 1 {
				joint[p] = true
			}
		}
		nj := 0
		for p, j := range joint {
			if j {
				nj++
				if w[p] != 0 {
					t.Fatalf("seed %d: joint parameter %d starts at %g", seed, p, w[p])
				}
			}
		}
		if nj != info.Joint {
			t.Fatalf("seed %d: %d joint parameters, start reports %d", seed, nj, info.Joint)
		}
		if err := pb.sample(ctx, w, false); err != nil {
			t.Fatal(err)
		}
		g := make([]float64, pb.np)
		pb.gradient(w, g, nil)
		for p, x := range g {
			if !joint[p] && math.Abs(x) > 1e-5 {
				t.Fatalf("seed %d: exact gradient[%d] = %g at the start %v (joint %v)", seed, p, x, w, joint)
			}
		}
		// Its CLL is the exact one.
		if want := -exactObjective(m, Examples{ex}, w, 0); math.Abs(info.CLL-want) > 1e-6*(1+math.Abs(want)) && nj == 0 {
			t.Fatalf("seed %d: start CLL %g, exact %g", seed, info.CLL, want)
		}
		if nj == 0 {
			independent++
			clear(m.Weights)
			st, err := Discriminative(ctx, m, Examples{ex}, DiscriminativeSettings{Sampler: exactSamplers, MaxIter: 50, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !st.Converged || st.Start == nil {
				t.Fatalf("seed %d: from the exact optimum: %+v", seed, st)
			}
			for p := range w {
				if math.Abs(m.Weights[p]-w[p]) > 1e-4 {
					t.Fatalf("seed %d: moved from the optimum: %v, start %v", seed, m.Weights, w)
				}
			}
		}
		checked++
	}
	if independent == 0 {
		t.Fatal("no case without joint formulas")
	}
	t.Logf("%d cases, %d without joint formulas", checked, independent)
}

// TestStartWorldsFollowStart checks that the chains start from worlds
// drawn from the independent start: over many draws each atom is true
// about as often as its start probability says.
func TestStartWorldsFollowStart(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(43, 44))
	for seed := int64(1000); ; seed++ {
		if seed > 1300 {
			t.Fatal("no case with an uncertain atom")
		}
		m, ex, ok := cllCase(t, r, seed, randmln.Config{MaxUnknown: 8})
		if !ok {
			continue
		}
		pb, err := newCLLProblem(ctx, m, Examples{ex}, MCSATSamplers(1, mcsat.Options{}), 1, 1/4.0)
		if err != nil {
			continue // no world satisfies the hard clauses
		}
		w := make([]float64, pb.np)
		if _, err := pb.independentStart(ctx, w); err != nil {
			t.Fatal(err)
		}
		e := pb.exs[0]
		if e.startP == nil || !slices.ContainsFunc(e.startP, func(p float64) bool { return p > 0.05 && p < 0.95 }) {
			continue
		}
		const n = 4000
		freq := make([]float64, len(e.startP))
		for k := 0; k < n; k++ {
			pb.startWorlds(int64(k))
			y := e.sampler.(*chainSampler).ch.World()
			for a, v := range y {
				if v {
					freq[a]++
				}
			}
		}
		for a, p := range e.startP {
			if p < 0 {
				continue
			}
			if f := freq[a] / n; math.Abs(f-p) > 4*math.Sqrt(p*(1-p)/n)+1e-9 {
				t.Fatalf("seed %d: atom %d true in %.3f of the start worlds, start probability %.3f", seed, a, f, p)
			}
		}
		return
	}
}
