package experiment

import (
	"context"
	"path/filepath"
	"testing"
)

// TestCiteSeerFold checks the examples the experiment learns from: one per
// citation, each over its own positions (3 query atoms per token, as in
// the papers' ground networks), and the test network ground whole, where
// positions are shared (3 per citation and position) and only the atoms
// at token positions are scored.
func TestCiteSeerFold(t *testing.T) {
	files := []string{filepath.Join("testdata", "tiny.evidence.db"), filepath.Join("testdata", "tiny.infield.db")}
	ctx := context.Background()
	_, net, truth, mask, err := groundCiteSeer(ctx, "", files)
	if err != nil {
		t.Fatal(err)
	}
	if net.NumAtoms() != 3*2*4 {
		t.Errorf("whole grounding: %d atoms, want 24", net.NumAtoms())
	}
	nTrue, nMask := 0, 0
	for a := range truth {
		if truth[a] {
			nTrue++
		}
		if mask[a] {
			nMask++
		}
	}
	if nTrue != 7 || nMask != 3*7 {
		t.Errorf("%d true atoms, %d masked, want 7 and 21", nTrue, nMask)
	}

	// As training examples.
	_, exs, masks, err := trainExamples(ctx, "", files)
	if err != nil {
		t.Fatal(err)
	}
	if len(exs) != 2 {
		t.Fatalf("%d examples, want 2", len(exs))
	}
	for i, ex := range exs {
		n := 0
		for a, q := range ex.Query {
			if q != masks[i][a] {
				t.Errorf("example %s: atom %d query %v, at a token %v", ex.Name, a, q, masks[i][a])
			}
			if q {
				n++
			}
		}
		if want := []int{9, 12}[i]; n != want {
			t.Errorf("example %s: %d query atoms, want %d (3 per token)", ex.Name, n, want)
		}
	}
}
