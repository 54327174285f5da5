package lazy

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/randmln"
)

// TestTrackedGains: along walks on random small MLNs, the flip gains kept
// up to date as atoms flip and clauses are built equal the gains counted
// afresh over the clauses built, and every improving atom is in the good
// list.
func TestTrackedGains(t *testing.T) {
	ctx := context.Background()
	checked := 0
	for seed := int64(0); seed < 80; seed++ {
		m, db, query, ow, err := randmln.Generate(seed).Load()
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		g, err := newGrounder(ctx, Problem{Model: m, DB: db, Query: query, OpenWorld: ow})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		s := newState(g)
		s.track = true
		if err := g.init(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		w := &walk{s: s, rng: rand.New(rand.NewSource(seed)), opt: MWSOptions{Tabu: 3, Noise: 0.3}}
		w.tryHard, w.trySoft = s.hardBad, s.soft
		for step := int64(1); step <= 200 && len(s.bad) > 0; step++ {
			a, err := w.pick(step)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if a < 0 {
				continue
			}
			s.flip(a)
			w.last[a] = step
			for b := range s.val {
				dh, ds := s.delta(int32(b))
				if int(s.dHard[b]) != dh || math.Abs(s.dSoft[b]-ds) > 1e-9*math.Max(1, math.Abs(ds)) {
					t.Fatalf("seed %d step %d: atom %d gains %d, %v tracked, %d, %v counted", seed, step, b, s.dHard[b], s.dSoft[b], dh, ds)
				}
				if s.improving(int32(b)) && !s.inGood[b] {
					t.Fatalf("seed %d step %d: improving atom %d not in the good list", seed, step, b)
				}
			}
			checked++
		}
	}
	if checked < 100 {
		t.Errorf("only %d steps checked", checked)
	}
}
