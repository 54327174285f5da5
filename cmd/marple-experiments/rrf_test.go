package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRRFSkipsWithoutData: without UW-CSE under -data the experiment says
// so and exits 0, writing nothing.
func TestRRFSkipsWithoutData(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results")
	code, stdout, stderr := harness(t, "rrf", "-data", t.TempDir(), "-out", out)
	if code != 0 || !strings.Contains(stderr, "marple-experiments rrf: skipped: no UW-CSE data at ") || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "rrf-experiment.md")); err == nil {
		t.Fatal("a table was written")
	}
	if code, _, stderr := harness(t, "rrf", "-data", t.TempDir(), "-out", out, "-samples", "0"); code != 2 || !strings.Contains(stderr, "-samples") {
		t.Fatalf("-samples 0: exit %d, stderr %q", code, stderr)
	}
}
