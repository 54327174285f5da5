package experiment

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/marple-mln/marple/invent"
)

// TestRunMRCWithMSL runs the MRC protocol with the MSL baseline on one fold
// of a tiny nations-shaped data set (testdata/mrc/nations: six countries,
// two cross-cutting groups).
func TestRunMRCWithMSL(t *testing.T) {
	table, err := RunMRC(context.Background(), MRCConfig{
		Dir: "testdata/mrc", Sets: []string{"nations"}, Folds: []int{0},
		Opt: invent.Options{Restarts: 2, Seed: 1}, MSLTime: 3 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	f := table.Rows[0].Folds[0]
	if f.MSL == nil || math.IsNaN(f.MSL.CLL) || f.MSL.CLL >= 0 || f.MSL.AUCPR <= 0 || f.MSL.Clauses < 3 {
		t.Fatalf("MSL result %+v", f.MSL)
	}
	var b strings.Builder
	if err := table.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "MSL baseline") || !strings.Contains(b.String(), "| nations | 1 |") {
		t.Fatalf("table:\n%s", b.String())
	}
}
