package learn

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/testkit/randmln"
)

// walkSampler draws a random walk of worlds: each world flips one to
// three atoms of the last one, and now and then (jump) is drawn afresh, so
// that both the incremental and the full count of countNext are taken.
type walkSampler struct {
	r     *rand.Rand
	y     []bool
	steps int
	jump  int // one world in jump is drawn afresh (0: never)
	seen  [][]bool
}

func (s *walkSampler) Sample(_ context.Context, fn func(y []bool, p float64)) error {
	for i := 0; i < s.steps; i++ {
		if s.jump > 0 && s.r.IntN(s.jump) == 0 {
			s.y = randomBools(s.r, len(s.y))
		} else {
			for k := 1 + s.r.IntN(3); k > 0; k-- {
				a := s.r.IntN(len(s.y))
				s.y[a] = !s.y[a]
			}
		}
		s.seen = append(s.seen, slices.Clone(s.y))
		fn(s.y, 1)
	}
	return nil
}

// TestIncrementalCountsMatchDirect checks the counts of the sampled
// worlds, which countNext takes from the atoms that changed since the
// last world, against the full count of every clause of each world (bit
// for bit) and the plain sum of the coefficients (to rounding), on
// random networks (coefficients 1, 1/2 and −1/3) and ground random MLNs,
// over several calls of the sampler.
func TestIncrementalCountsMatchDirect(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(61, 62))
	var nets []*ground.Network
	for i := 0; i < 30; i++ {
		n := 8 + r.IntN(20)
		nets = append(nets, randomNetwork(r, n, 5*n+r.IntN(5*n), 1+r.IntN(6), i%2 == 0))
	}
	for seed := int64(3000); len(nets) < 60; seed++ {
		if seed > 5000 {
			t.Fatalf("only %d networks", len(nets))
		}
		m, db, query, ow, err := randmln.GenerateConfig(seed, randmln.Config{}).Load()
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		net, err := ground.Ground(ctx, m, db, ground.Options{Query: query, OpenWorld: ow, Workers: 1})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if net.NumAtoms() >= 2 && net.NumClauses() >= 4 && len(m.Weights) > 0 {
			nets = append(nets, net)
		}
	}
	incremental := 0
	for i, net := range nets {
		e := newCLLExample(&Example{Net: net, Truth: randomBools(r, net.NumAtoms())})
		ws := &walkSampler{r: r, y: randomBools(r, net.NumAtoms()), steps: 40, jump: 10 * (i % 3)}
		e.sampler = ws
		np := int(net.MaxParam()) + 1
		w := make([]float64, np)
		for call := 0; call < 3; call++ {
			for p := range w {
				w[p] = r.NormFloat64()
			}
			ws.seen = ws.seen[:0]
			if err := e.sample(ctx, w, call == 2); err != nil {
				t.Fatal(err)
			}
			L := len(e.params)
			first := len(e.wts) - len(ws.seen)
			for s, y := range ws.seen {
				full := make([]float64, L) // the full count of every clause
				e.count(y, full)
				plain := make([]float64, L) // Σ Coef over the satisfied clauses
				for c := 0; c < net.NumClauses(); c++ {
					if p := net.Param(c); p >= 0 && net.Satisfied(c, y) {
						plain[slices.Index(e.params, p)] += net.Coef(c)
					}
				}
				got := e.rows[(first+s)*L : (first+s+1)*L]
				if !slices.Equal(got, full) {
					t.Fatalf("network %d, call %d, world %d: counts %v, full count %v", i, call, s, got, full)
				}
				for k := range plain {
					if !near(got[k], plain[k], 1e-12) {
						t.Fatalf("network %d, call %d, world %d: counts %v, plain sum %v", i, call, s, got, plain)
					}
				}
			}
		}
		if e.hasLast && len(e.changed) > 0 {
			incremental++
		}
	}
	if incremental < 20 {
		t.Fatalf("the incremental count was taken on %d networks only", incremental)
	}
}
