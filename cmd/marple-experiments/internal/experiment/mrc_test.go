package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/marple-mln/marple/internal/testkit/mrcgen"
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

// TestRunMRCReadOrders runs the MRC protocol, λ and β tuned, with the fold
// files of a small planted data set (friends and co-workers with noise,
// dealt to eight folds) read in three orders: every fold gets the same λ,
// β, CLL and AUC-PR.
func TestRunMRCReadOrders(t *testing.T) {
	g := mrcgen.Generate(mrcgen.Config{Friends: 3, Teams: 2, PerCell: 3, Hobbies: 2, Skills: 2, Noise: 0.1, Seed: 5})
	dir := filepath.Join(t.TempDir(), "nations")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "nations.mln"), []byte(g.MLN), 0o644); err != nil {
		t.Fatal(err)
	}
	truth := map[string]bool{}
	for _, l := range strings.Split(g.DB, "\n") {
		truth[strings.TrimSpace(l)] = true
	}
	folds := make([]strings.Builder, 8)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, l := range strings.Split(g.MLN, "\n") {
		p, _, ok := strings.Cut(l, "(")
		if !ok || strings.HasPrefix(l, "//") {
			continue
		}
		for _, x := range g.People {
			a := p + "(" + x + ")"
			if !truth[a] {
				a = "!" + a
			}
			fmt.Fprintln(&folds[rng.IntN(8)], a)
		}
	}
	for k := range folds {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("fold%d.db", k)), []byte(folds[k].String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	grid := invent.DefaultTuneGrid
	table, err := RunMRC(context.Background(), MRCConfig{
		Dir: filepath.Dir(dir), Sets: []string{"nations"}, Folds: []int{0, 3, 6},
		Opt: invent.Options{Restarts: 2, Seed: 1}, Tune: &grid, Orders: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(table.Rows) != 3 {
		t.Fatalf("%d rows", len(table.Rows))
	}
	for _, r := range table.Rows[1:] {
		if slices.Equal(r.Order, table.Rows[0].Order) {
			t.Fatalf("order %v run twice", r.Order)
		}
		for i, f := range r.Folds {
			g := table.Rows[0].Folds[i]
			if f.Lambda != g.Lambda || f.Beta != g.Beta || f.CLL != g.CLL || f.AUCPR != g.AUCPR {
				t.Errorf("fold %d read in the order %v: λ %g β %g CLL %v AUC-PR %v; in number order λ %g β %g CLL %v AUC-PR %v",
					f.Fold, r.Order, f.Lambda, f.Beta, f.CLL, f.AUCPR, g.Lambda, g.Beta, g.CLL, g.AUCPR)
			}
		}
	}
	var b strings.Builder
	if err := table.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| nations | 01234567, 76543210, ") || !strings.Contains(b.String(), "| 0 of 3 | yes") {
		t.Fatalf("table:\n%s", b.String())
	}
}

func TestFoldReadOrder(t *testing.T) {
	for i := 0; i < 5; i++ {
		o := FoldReadOrder(i, 8)
		s := slices.Clone(o)
		slices.Sort(s)
		if !slices.Equal(s, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
			t.Fatalf("order %d: %v", i, o)
		}
		if i > 0 && slices.Equal(o, FoldReadOrder(0, 8)) {
			t.Fatalf("order %d is number order", i)
		}
	}
}
