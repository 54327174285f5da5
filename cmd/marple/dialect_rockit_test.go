package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -dialect rockit: MAP inference with weights from the evidence and
// cardinality constraints gives the best matching (the enumeration is in
// mln's TestRockItCardinality), marple score prices it, and a construct
// RockIt's dialect refuses is an error at its position.
func TestInferDialectRockIt(t *testing.T) {
	dir := "../../mln/testdata/dialects/"
	out := filepath.Join(t.TempDir(), "out.result")
	model, ev := dir+"rockit_card.mln", dir+"rockit_card.db"
	code, _, stderr := marple(t, "infer", "-dialect", "rockit", "-m", "-i", model, "-e", ev, "-q", "match", "-r", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Fields(string(b)), []string{"match(L1,R1)", "match(L2,R1)", "match(L3,R2)"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("MAP state %v, want %v", got, want)
	}
	// The world's cost: the positive values of the pairs it leaves out,
	// L1,R2 and L3,R1: 1.0 + 0.8 (L2,R2's value is negative).
	code, stdout, stderr := marple(t, "score", "-dialect", "rockit", "-i", model, "-e", ev, "-q", "match", "-w", out)
	if code != 0 || !strings.Contains(stdout, "cost\t1.8\n") || !strings.Contains(stdout, "hard clauses violated\t0 ") {
		t.Errorf("score: exit %d, stdout %s, stderr %s", code, stdout, stderr)
	}
	bad := filepath.Join(t.TempDir(), "bad.mln")
	if err := os.WriteFile(bad, []byte("*o(t)\nh(t, t)\n|y| !o(x) v h(x, y) >= 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = marple(t, "infer", "-dialect", "rockit", "-m", "-i", bad, "-e", ev, "-q", "h", "-r", out)
	if code == 0 || !strings.Contains(stderr, "bad.mln:3:21: RockIt's cardinality constraints with '>='") {
		t.Errorf("refused construct: exit %d, stderr %s", code, stderr)
	}
}
