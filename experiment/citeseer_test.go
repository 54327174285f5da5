package experiment

import (
	"context"
	"path/filepath"
	"testing"
)

// TestGroundCiteSeerPadding checks that the InField atoms past a
// citation's last token are evidence by default (3 query atoms per token)
// and query atoms with keepPadding (3 per citation and position).
func TestGroundCiteSeerPadding(t *testing.T) {
	files := []string{filepath.Join("testdata", "tiny.evidence.db"), filepath.Join("testdata", "tiny.infield.db")}
	for _, tc := range []struct {
		keep  bool
		atoms int
	}{{false, 3 * 7}, {true, 3 * 2 * 4}} {
		_, net, truth, mask, err := groundCiteSeer(context.Background(), "", files, tc.keep)
		if err != nil {
			t.Fatal(err)
		}
		if net.NumAtoms() != tc.atoms {
			t.Errorf("keepPadding=%v: %d atoms, want %d", tc.keep, net.NumAtoms(), tc.atoms)
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
			t.Errorf("keepPadding=%v: %d true atoms, %d masked, want 7 and 21", tc.keep, nTrue, nMask)
		}
	}
}
