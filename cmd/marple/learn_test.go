package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sortedLines returns the lines of a file, sorted.
func sortedLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	slices.Sort(lines)
	return lines
}

// TestLearnPerExampleGrounding checks that learning from examples ground
// one at a time (one per bib) gives the weights of grounding the whole
// training set and cutting it into components grouped by bib (the
// parameters may come in another order), and that a model whose clauses
// link two bibs falls back to the whole grounding.
func TestLearnPerExampleGrounding(t *testing.T) {
	dir := t.TempDir()
	learn := func(model, out string, extra ...string) string {
		t.Helper()
		args := append([]string{"learn", "-i", model, "-o", out, "-t", "testdata/seg-train.db",
			"-ne", "InField", "-method", "cda-ml", "-sigma", "0.1", "-passes", "3", "-shuffle", "-seed", "4"}, extra...)
		code, _, stderr := marple(t, args...)
		if code != 0 {
			t.Fatalf("learn exit %d: %s", code, stderr)
		}
		return stderr
	}
	apart, whole := filepath.Join(dir, "apart.mln"), filepath.Join(dir, "whole.mln")
	if stderr := learn("testdata/seg.mln", apart, "-exampleType", "bib"); strings.Contains(stderr, "whole") {
		t.Errorf("per-example grounding refused: %s", stderr)
	}
	groundWhole = true
	learn("testdata/seg.mln", whole, "-exampleType", "bib")
	groundWhole = false
	if a, w := sortedLines(t, apart), sortedLines(t, whole); !slices.Equal(a, w) {
		t.Errorf("per-example and whole grounding learn different weights:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(w, "\n"))
	}
	// The default example type here is position (4 constants, 2 bibs),
	// which Next links: the whole grounding.
	if stderr := learn("testdata/seg.mln", filepath.Join(dir, "auto.mln"), "-v"); !strings.Contains(stderr, "grounding the whole training set") {
		t.Errorf("-exampleType auto (position): stderr %q", stderr)
	}

	// A clause with two bib variables: the examples are not independent.
	src, err := os.ReadFile("testdata/seg.mln")
	if err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(dir, "linked.mln")
	os.WriteFile(linked, append(src, "Token(w,i,c) ^ Token(w,i,d) ^ InField(c,+f,i) => InField(d,+f,i)\n"...), 0o644)
	if stderr := learn(linked, filepath.Join(dir, "out.mln"), "-exampleType", "bib"); !strings.Contains(stderr, "grounding the whole training set") || !strings.Contains(stderr, "2 variables") {
		t.Errorf("linked model: stderr %q", stderr)
	}
}
