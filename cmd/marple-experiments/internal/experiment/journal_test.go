package experiment

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/marple-mln/marple/internal/testenv"
)

// TestJournal: a unit recorded by one run is given back to a resumed run
// without running it again; a run with other flags is refused, naming the
// flag; a failed unit is not recorded.
func TestJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.checkpoint")
	meta := map[string]string{"experiment": "x", "-seed": "1"}
	if _, err := OpenJournal(path, meta, true); err == nil || !strings.Contains(err.Error(), "no checkpoint") {
		t.Fatalf("resume without a file: %v", err)
	}
	j, err := OpenJournal(path, meta, false)
	if err != nil {
		t.Fatal(err)
	}
	type cell struct {
		F1   float64
		Rows map[string][]float64
	}
	runs := 0
	mk := func() (*cell, error) { runs++; return &cell{F1: 0.5, Rows: map[string][]float64{"a": {1, 2}}}, nil }
	if _, err := unit(j, "a", mk); err != nil {
		t.Fatal(err)
	}
	if _, err := unit(j, "b", func() (*cell, error) { return nil, errors.New("boom") }); err == nil {
		t.Fatal("no error from a failed unit")
	}
	j2, err := OpenJournal(path, meta, true)
	if err != nil {
		t.Fatal(err)
	}
	if j2.Len() != 1 {
		t.Fatalf("%d units recorded, want 1", j2.Len())
	}
	c, err := unit(j2, "a", mk)
	if err != nil || runs != 1 || c.F1 != 0.5 || len(c.Rows["a"]) != 2 || j2.Reused() != 1 {
		t.Fatalf("resumed unit %+v, %v, %d runs", c, err, runs)
	}
	other := map[string]string{"experiment": "x", "-seed": "2"}
	if _, err := OpenJournal(path, other, true); err == nil || !strings.Contains(err.Error(), "-seed") {
		t.Fatalf("other flags: %v", err)
	}
	if err := j2.Remove(); err != nil {
		t.Fatal(err)
	}
	var nilJ *Journal
	if _, err := unit(nilJ, "a", mk); err != nil || runs != 2 {
		t.Fatalf("nil journal: %v, %d runs", err, runs)
	}
}

// citeseerData writes a CiteSeer-shaped data folder: n citations per
// topic, each an author, a title and a venue of one to two tokens.
func citeseerData(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(9, 9))
	words := [][]string{{"Tsmith", "Tjones", "Tlee"}, {"Tlogic", "Tlearning", "Tmarkov"}, {"Tproc", "Tin", "Tconf"}}
	fields := []string{"Fauthor", "Ftitle", "Fvenue"}
	for k, topic := range Topics {
		var ev, in strings.Builder
		for p := 1; p < 6; p++ {
			fmt.Fprintf(&ev, "Next(P%02d,P%02d)\n", p, p-1)
			for q := 0; q < p; q++ {
				fmt.Fprintf(&ev, "LessThan(P%02d,P%02d)\n", q, p)
			}
		}
		for i := 0; i < n; i++ {
			b := fmt.Sprintf("B%d%03d", k, i)
			pos := 0
			for f, ws := range words {
				for j := 0; j < 1+r.IntN(2); j++ {
					fmt.Fprintf(&ev, "Token(%s,P%02d,%s)\n", ws[r.IntN(len(ws))], pos, b)
					fmt.Fprintf(&in, "InField(%s,%s,P%02d)\n", b, fields[f], pos)
					pos++
				}
				fmt.Fprintf(&ev, "HasPunc(%s,P%02d)\n", b, pos-1)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, topic+".evidence.db"), []byte(ev.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, topic+".infield.db"), []byte(in.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestOSLCellResumes: an OSL cell interrupted once its learner's state is
// saved continues from it with -resume's journal and gives the
// uninterrupted cell (but for the time).
func TestOSLCellResumes(t *testing.T) {
	if testenv.Short() {
		t.Skip("runs OSL three times")
	}
	data := citeseerData(t, 12)
	cfg := OSLConfig{Dir: data, Methods: []string{"OSL-M2-ISM"}, Topics: []string{"face"}, Seed: 1}
	want, err := RunOSL(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "osl.checkpoint")
	j, err := OpenJournal(path, map[string]string{"experiment": "osl"}, false)
	if err != nil {
		t.Fatal(err)
	}
	within := j.Within("osl/face/OSL-M2-ISM")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(within); err == nil {
				cancel()
			}
			time.Sleep(time.Millisecond)
		}
	}()
	cfg.Journal = j
	_, err = RunOSL(ctx, cfg)
	cancel()
	if _, serr := os.Stat(within); err == nil || serr != nil {
		t.Skipf("the cell finished before it could be interrupted (%v, %v)", err, serr)
	}
	if cfg.Journal, err = OpenJournal(path, map[string]string{"experiment": "osl"}, true); err != nil {
		t.Fatal(err)
	}
	got, err := RunOSL(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, w := *got.Rows[0].Cells["face"], *want.Rows[0].Cells["face"]
	g.LearnSeconds, w.LearnSeconds = 0, 0
	if g != w || w.Added == 0 {
		t.Errorf("resumed cell %+v, uninterrupted %+v", g, w)
	}
	if err := cfg.Journal.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(within); err == nil {
		t.Error("the cell's state file is left after Remove")
	}
}
