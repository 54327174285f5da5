package structure

import (
	"context"
	"fmt"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/plant"
	"github.com/marple-mln/marple/mln"
)

// TestPruneSameSearch: beam search with candidates pruned by the bound on
// their screened gain learns exactly what it learns screening every
// candidate (clauses, weights, candidates scored), on planted worlds with
// and without repeated predicates and joins, every predicate scored or
// one, and prunes some.
func TestPruneSameSearch(t *testing.T) {
	defer func() { pruneCandidates = true }()
	pruned := 0
	for _, seed := range []uint64{3, 11, 23} {
		m, dbs, _, err := plant.Planted(context.Background(), seed, 12, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range []struct{ rep, joins, cancerOnly bool }{{false, false, false}, {true, false, false}, {false, true, false}, {false, false, true}, {true, false, true}} {
			s := DefaultSettings()
			s.Model = m
			s.MaxVars, s.MaxNumPredicates = 3, 3
			s.RepeatedPredicates, s.Joins = cfg.rep, cfg.joins
			if cfg.cancerOnly {
				// Only Cancer is scored: a candidate over Smokes and
				// Friends alone cannot gain, and is pruned.
				s.NonEvidence = []mln.PredID{1}
			}
			run := func(prune bool) (*Result, string) {
				pruneCandidates = prune
				r, err := LearnBatch(context.Background(), MethodBeam, dbs, s, DefaultScoring())
				if err != nil {
					t.Fatal(err)
				}
				var out string
				for i, c := range r.Clauses {
					out += fmt.Sprintf("%v %s\n", r.Weights[i], m.ClauseString(c))
				}
				return r, out
			}
			with, a := run(true)
			without, b := run(false)
			if a != b || with.Scored != without.Scored || with.Steps != without.Steps || with.Score != without.Score {
				t.Errorf("seed %d %+v: pruned search differs (%d scored, %d pruned; %d without pruning)\n%s\nwithout pruning:\n%s", seed, cfg, with.Scored, with.Pruned, without.Scored, a, b)
			}
			if without.Pruned != 0 {
				t.Errorf("pruning off, %d pruned", without.Pruned)
			}
			pruned += with.Pruned
		}
	}
	if pruned == 0 {
		t.Error("no candidate pruned")
	}
	t.Logf("%d candidates pruned", pruned)
}
