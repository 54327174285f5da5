package structure

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/plant"
)

// TestScreenedSearch runs both searches with the count scorer on data
// sampled from the planted MLN, screening candidates (the default) and
// refitting every one (Refits < 0): both recover the planted clauses,
// and the screened search gives the same model on one worker and on two.
func TestScreenedSearch(t *testing.T) {
	ctx := context.Background()
	m, dbs, planted, err := plant.Planted(ctx, 7, 30, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []Method{MethodBeam, MethodSFS} {
		var got []string
		for _, run := range []struct {
			refits, workers int
		}{{0, 2}, {0, 1}, {-1, 2}} {
			s := DefaultSettings()
			s.Model = m
			s.MaxVars, s.MaxNumPredicates = 2, 3
			s.Refits, s.Workers = run.refits, run.workers
			s.RepeatedPredicates = true // the second planted clause repeats Smokes
			r, err := LearnBatch(ctx, method, dbs, s, DefaultScoring())
			if err != nil {
				t.Fatal(err)
			}
			friends, cancer := false, false
			var b strings.Builder
			for i, c := range r.Clauses {
				friends = friends || CanonicalKey(c) == CanonicalKey(planted[1])
				cs := m.ClauseString(c)
				cancer = cancer || len(c.Lits) == 2 && strings.Contains(cs, "Smokes(a1)") && strings.Contains(cs, "Cancer(a1)")
				b.WriteString(m.ClauseString(c))
				b.WriteString(" ")
				b.WriteString(strconv.FormatFloat(r.Weights[i], 'g', -1, 64))
				b.WriteString("\n")
			}
			model := b.String()
			if !friends || !cancer {
				t.Errorf("%s refits %d: planted clauses missing:\n%s", method, run.refits, model)
			}
			got = append(got, model)
		}
		if got[0] != got[1] {
			t.Errorf("%s: two workers and one differ:\n%s\n%s", method, got[0], got[1])
		}
	}
}
