package bp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// TestFrontierEqualsGround changes a few atoms' bias terms after
// convergence and compares expanding frontier BP with BP run from scratch
// on the new bias.
func TestFrontierEqualsGround(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	ctx := context.Background()
	for trial := 0; trial < 200; trial++ {
		var net *ground.Network
		if trial%2 == 0 {
			net = randomTree(rng, 2+rng.IntN(11), trial%4 == 0)
		} else {
			net = randomLoopy(rng, 8, 10, 1)
		}
		n := net.NumAtoms()
		bias := make([]float64, n)
		for a := range bias {
			bias[a] = rng.Float64() - 0.5
		}
		f, err := Start(ctx, net, Options{Options: infer.Options{Bias: bias}})
		if err != nil {
			t.Fatal(err)
		}
		for change := 0; change < 3; change++ {
			var atoms []int32
			var values []float64
			for i := 0; i < 1+rng.IntN(2); i++ {
				a := int32(rng.IntN(n))
				v := 6*rng.Float64() - 3
				atoms = append(atoms, a)
				values = append(values, v)
				bias[a] = v
			}
			if err := f.SetBias(ctx, atoms, values); err != nil {
				t.Fatal(err)
			}
			want, st, err := Marginals(ctx, net, Options{Options: infer.Options{Bias: bias}})
			if err != nil {
				t.Fatal(err)
			}
			if !st.Converged {
				continue
			}
			got := f.Marginals()
			for a := range want {
				if math.Abs(got[a]-want[a]) > 1e-6 {
					t.Fatalf("trial %d, change %d: atom %d: frontier %v, from scratch %v", trial, change, a, got[a], want[a])
				}
			}
		}
	}
}

// TestFrontierLocal: on a long chain with strong links broken by a weak
// one, a change at one end updates only the clauses it reaches.
func TestFrontierLocal(t *testing.T) {
	const n = 2000
	net := ground.NewNetwork(n)
	for a := 0; a+1 < n; a++ {
		w := 0.05
		net.AddClause([]ground.Lit{ground.MakeLit(int32(a), true), ground.MakeLit(int32(a+1), false)}, w, -1, -1, 1)
	}
	ctx := context.Background()
	f, err := Start(ctx, net, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.SetBias(ctx, []int32{0}, []float64{2}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d clause updates for a change at one end of a chain of %d clauses", f.Updated, n-1)
	if f.Updated > n/4 {
		t.Errorf("%d clause updates; want the change to stay local", f.Updated)
	}
	bias := make([]float64, n)
	bias[0] = 2
	want, _, err := Marginals(ctx, net, Options{Options: infer.Options{Bias: bias}})
	if err != nil {
		t.Fatal(err)
	}
	for a, p := range f.Marginals() {
		if math.Abs(p-want[a]) > 1e-6 {
			t.Fatalf("atom %d: frontier %v, from scratch %v", a, p, want[a])
		}
	}
}
