package structure

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testenv"
	"github.com/marple-mln/marple/internal/testkit/plant"
)

// TestLearnValidatedGolden: LearnValidated with default settings learns,
// on planted worlds, the models (clauses and weights) and choices recorded
// in testdata/validated, which the searches run one at a time, every
// validation search run and counts not shared gave before the searches
// ran concurrently, shared their counts and stopped when the choice was
// decided. Three of the cases choose against repeated predicates before
// every held-out predicate of the last search with them run is inferred
// (Choice.Bounded), one of them before every search with them has run;
// the first admits them. The default run
// checks two cases, MARPLE_LONG_TESTS=1 all four. MARPLE_UPDATE_GOLDEN=1
// rewrites the files.
func TestLearnValidatedGolden(t *testing.T) {
	for _, cfg := range []struct {
		seed           uint64
		people, worlds int
		long           bool
	}{{11, 30, 4, true}, {23, 8, 3, false}, {36, 8, 3, true}, {31, 10, 4, false}} {
		name := fmt.Sprintf("planted-%d-%d-%d", cfg.seed, cfg.people, cfg.worlds)
		t.Run(name, func(t *testing.T) {
			if cfg.long && testenv.Short() {
				t.Skip("a few seconds (MARPLE_LONG_TESTS=1)")
			}
			m, dbs, _, err := plant.Planted(context.Background(), cfg.seed, cfg.people, cfg.worlds)
			if err != nil {
				t.Fatal(err)
			}
			s := DefaultSettings()
			s.Model = m
			s.MaxVars, s.MaxNumPredicates = 2, 3
			r, ch, err := LearnValidated(context.Background(), MethodBeam, dbs, s, DefaultScoring(), Validation{Samples: 200, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d of %d searches with repeated predicates skipped; held-out CLL with them bounded: %v", ch.Skipped, ch.Folds, ch.Bounded)
			var b strings.Builder
			fmt.Fprintf(&b, "repeated predicates %v\n", ch.RepeatedPredicates)
			if ch.Joins != nil {
				fmt.Fprintf(&b, "join cap %g\n", ch.Joins.Cap)
			}
			if ch.Constants != nil {
				fmt.Fprintf(&b, "per-constant refinements kept: %q\n", ch.Constants.Kept)
			}
			for i, c := range r.Clauses {
				w := r.Weights[i]
				if math.Abs(w) < 5e-5 {
					w = 0 // no "-0.0000"
				}
				fmt.Fprintf(&b, "%.4f %s\n", w, m.ClauseString(c))
			}
			path := filepath.Join("testdata", "validated", name+".txt")
			if os.Getenv("MARPLE_UPDATE_GOLDEN") == "1" {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("learned\n%s\nwant (%s)\n%s", got, path, want)
			}
		})
	}
}
