package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLearnstructOSL(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "osl.mln")
	code, _, stderr := marple(t, "learnstruct", "-i", "testdata/seg.mln", "-o", out, "-t", "testdata/seg-train.db",
		"-ne", "InField", "-exampleType", "bib", "-modes", "testdata/seg.modes", "-minCountDiff", "1", "-passes", "2", "-seed", "2")
	if code != 0 {
		t.Fatalf("learnstruct exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "clauses added") {
		t.Errorf("stderr %q", stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := os.ReadFile("testdata/seg.mln")
	if len(b) <= len(in) || !strings.Contains(string(b), "Next(") {
		t.Fatalf("no clause learned:\n%s", b)
	}
	// The learned model is a model marple reads and infers with.
	code, _, stderr = marple(t, "infer", "-i", out, "-e", "testdata/seg-test.db", "-r", filepath.Join(dir, "out.result"), "-q", "InField")
	if code != 0 {
		t.Fatalf("infer with the learned model: exit %d: %s", code, stderr)
	}
	// Same seed, same model.
	out2 := filepath.Join(dir, "osl2.mln")
	marple(t, "learnstruct", "-i", "testdata/seg.mln", "-o", out2, "-t", "testdata/seg-train.db",
		"-ne", "InField", "-exampleType", "bib", "-modes", "testdata/seg.modes", "-minCountDiff", "1", "-passes", "2", "-seed", "2")
	if b2, _ := os.ReadFile(out2); string(b2) != string(b) {
		t.Error("two runs with the same seed differ")
	}
}

func TestLearnstructErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.mln")
	base := []string{"learnstruct", "-i", "testdata/seg.mln", "-o", out, "-t", "testdata/seg-train.db", "-ne", "InField"}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{append(base, "-method", "osl"), 2, "-modes"},
		{append(base, "-modes", "testdata/bad.modes"), 1, "bad.modes:2:10: unknown predicate Tokn"},
		{append(base, "-modes", "testdata/missing.modes"), 1, "missing.modes"},
		{append(base, "-modes", "testdata/seg.modes", "-method", "tabu"), 2, "-method"},
		{append(base, "-modes", "testdata/seg.modes", "-minCountDiff", "0"), 2, "-minCountDiff"},
	} {
		code, _, stderr := marple(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args[len(base)-1:], code, stderr, tc.code, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: output written", tc.args)
		}
	}
}
