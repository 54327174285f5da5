package structure

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/marple-mln/marple/internal/testenv"
	"github.com/marple-mln/marple/internal/testkit/plant"
	"github.com/marple-mln/marple/mln"
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

// TestLearnValidatedInterruptedInValidation: interrupted during the
// validation searches (two at once on two processors), LearnValidated
// returns the model so far, a search's under way, with the error, and says
// which database it was learned without.
func TestLearnValidatedInterruptedInValidation(t *testing.T) {
	m, dbs, err := mln.LoadMultiple(context.Background(), []string{"testdata/planted/smokers.mln"},
		[]string{"testdata/planted/world1.db", "testdata/planted/world2.db", "testdata/planted/world3.db"})
	if err != nil {
		t.Fatal(err)
	}
	s := DefaultSettings()
	s.Model = m
	s.MaxVars, s.MaxNumPredicates = 2, 3
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v := Validation{Samples: 100, Seed: 1, Checkpoint: func(st *ValidatedState) error {
		if st.Phase < 2*len(dbs) && st.Search != nil && st.Search.Steps >= 1 {
			cancel() // Ctrl-C during the validation searches
		}
		return nil
	}}
	r, ch, err := LearnValidated(ctx, MethodBeam, dbs, s, DefaultScoring(), v)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if r == nil || ch == nil || ch.HeldOut < 1 || ch.HeldOut > len(dbs) {
		t.Fatalf("result %v, choice %+v: want the model so far and the held-out database", r, ch)
	}
	if _, err := r.Model(m); err != nil {
		t.Fatal(err)
	}
}
