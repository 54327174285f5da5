package structure

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/plant"
)

// TestLearnBatchBoundGolden: beam search with repeated predicates and
// clauses of up to four variables, on planted worlds, with a bound on
// groundings that refuses many candidates (long clauses over 12 or 14
// people), learns the models, and scores and prunes the candidates,
// recorded in testdata/bound: the models and the candidates scored are
// those of the counting before its suffixes were counted in closed form,
// the candidates pruned those of the bound before counting
// (score.Screen.Bound). MARPLE_UPDATE_GOLDEN=1 rewrites the files.
func TestLearnBatchBoundGolden(t *testing.T) {
	for _, cfg := range []struct {
		seed          uint64
		people        int
		maxGroundings int64
	}{{3, 12, 300}, {8, 14, 800}, {8, 14, 1500}} {
		name := fmt.Sprintf("planted-%d-%d-%d", cfg.seed, cfg.people, cfg.maxGroundings)
		t.Run(name, func(t *testing.T) {
			m, dbs, _, err := plant.Planted(context.Background(), cfg.seed, cfg.people, 2)
			if err != nil {
				t.Fatal(err)
			}
			s := DefaultSettings()
			s.Model = m
			s.MaxVars, s.MaxNumPredicates = 4, 4
			s.RepeatedPredicates = true
			sc := DefaultScoring()
			sc.MaxGroundings = cfg.maxGroundings
			r, err := LearnBatch(context.Background(), MethodBeam, dbs, s, sc)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%d candidates scored, %d pruned\n", r.Scored, r.Pruned)
			for i, c := range r.Clauses {
				w := r.Weights[i]
				if math.Abs(w) < 5e-5 {
					w = 0 // no "-0.0000"
				}
				got += fmt.Sprintf("%.4f %s\n", w, m.ClauseString(c))
			}
			path := filepath.Join("testdata", "bound", name+".txt")
			if os.Getenv("MARPLE_UPDATE_GOLDEN") == "1" {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("learned\n%s\nwant (%s)\n%s", got, path, want)
			}
		})
	}
}
