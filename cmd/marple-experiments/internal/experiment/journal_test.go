package experiment

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
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
