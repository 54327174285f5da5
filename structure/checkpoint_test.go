package structure

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/marple-mln/marple/internal/testenv"
	"github.com/marple-mln/marple/internal/testkit/plant"
)

// TestSearchResume resumes beam and shortest-first search from each state
// they saved (through WriteState and ReadState) and checks that each gives
// the uninterrupted search's model, weights included.
func TestSearchResume(t *testing.T) {
	if testenv.Short() {
		t.Skip("a few seconds")
	}
	m, dbs, _, err := plant.Planted(context.Background(), 7, 20, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []Method{MethodBeam, MethodSFS} {
		s := DefaultSettings()
		s.Model = m
		s.MaxVars, s.MaxNumPredicates = 2, 3
		var saved [][]byte
		s.Checkpoint = func(ss *SearchState) error {
			var b bytes.Buffer
			if err := WriteState(&b, ss); err != nil {
				return err
			}
			saved = append(saved, b.Bytes())
			return nil
		}
		want, err := LearnBatch(context.Background(), method, dbs, s, DefaultScoring())
		if err != nil {
			t.Fatal(err)
		}
		if len(saved) < 2 {
			t.Fatalf("%s: %d states saved", method, len(saved))
		}
		s.Checkpoint = nil
		for i, b := range saved {
			ss := &SearchState{}
			if err := ReadState(bytes.NewReader(b), ss); err != nil {
				t.Fatal(err)
			}
			s.Resume = ss
			got, err := LearnBatch(context.Background(), method, dbs, s, DefaultScoring())
			if err != nil {
				t.Fatal(err)
			}
			if describe(m, got) != describe(m, want) || !slices.Equal(got.Weights, want.Weights) || got.Steps != want.Steps {
				t.Errorf("%s: resumed from state %d:\n%s\nwant\n%s", method, i, describe(m, got), describe(m, want))
			}
		}
		other := MethodSFS
		if method == MethodSFS {
			other = MethodBeam
		}
		if _, err := LearnBatch(context.Background(), other, dbs, s, DefaultScoring()); err == nil {
			t.Errorf("%s state resumed by %s", method, other)
		}
	}
}
