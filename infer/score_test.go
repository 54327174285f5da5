package infer_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// TestScoreWorld: on random MLNs, a world's log-weight is the network's
// score, its cost is a constant minus its log-weight (so cost differences
// between worlds are the log-weight differences, negated), and the
// formulas' parts add up to the cost and the hard clauses violated.
func TestScoreWorld(t *testing.T) {
	ctx := context.Background()
	tested := 0
	for seed := int64(0); seed < 40; seed++ {
		c := randmln.Generate(seed)
		m, err := mln.ParseModel("r.mln", c.MLN)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		db, err := mln.ParseDatabase(m, "r.db", c.DB)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := m.Compile(); err != nil {
			continue // a case the compiler refuses (weights too large, ...)
		}
		q, _ := m.PredIDs(c.Query...)
		ow, _ := m.PredIDs(c.OpenWorld...)
		net, err := ground.Ground(ctx, m, db, ground.Options{Query: q, OpenWorld: ow})
		if err != nil {
			continue
		}
		tested++
		r := rand.New(rand.NewPCG(uint64(seed), 3))
		var c0, l0 float64
		for w := 0; w < 8; w++ {
			y := make([]bool, net.NumAtoms())
			for a := range y {
				y[a] = r.IntN(2) == 0
			}
			s := infer.ScoreWorld(net, y)
			score, hard := net.Score(y)
			if s.LogWeight != score || s.HardViolated != hard {
				t.Fatalf("seed %d: log-weight %v (hard %d), network score %v (hard %d)", seed, s.LogWeight, s.HardViolated, score, hard)
			}
			sum, hs := 0.0, 0
			for _, f := range s.Formulas {
				sum += f.Cost
				hs += f.Hard
			}
			if math.Abs(sum-s.Cost) > 1e-9*math.Max(1, s.Cost) || hs+s.HardFalse != s.HardViolated {
				t.Fatalf("seed %d: formulas add to cost %v (hard %d), world %v (hard %d)", seed, sum, hs, s.Cost, s.HardViolated)
			}
			if w == 0 {
				c0, l0 = s.Cost, s.LogWeight
			} else if d := (s.Cost - c0) + (s.LogWeight - l0); math.Abs(d) > 1e-9*math.Max(1, math.Abs(l0)) {
				t.Fatalf("seed %d: cost moved by %v, log-weight by %v", seed, s.Cost-c0, s.LogWeight-l0)
			}
		}
	}
	if tested < 20 {
		t.Errorf("only %d of 40 random MLNs tested", tested)
	}
}
