package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestLearnstructBatch(t *testing.T) {
	dir := t.TempDir()
	for _, method := range []string{"beam", "sfs"} {
		out := filepath.Join(dir, method+".mln")
		args := []string{"learnstruct", "-method", method, "-i", "testdata/planted.mln", "-o", out,
			"-t", "testdata/planted-a.db,testdata/planted-b.db", "-multipleDatabases", "-maxVars", "2", "-maxNumPredicates", "2"}
		code, _, stderr := marple(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", method, code, stderr)
		}
		if !strings.Contains(stderr, "candidates scored") {
			t.Errorf("%s: stderr %q", method, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		// A weighted clause linking Smokes(x) and Cancer(x).
		re := regexp.MustCompile(`(?m)^-?[0-9.e+-]+ +(!?Smokes\((\w+)\) v !?Cancer\((\w+)\)|!?Cancer\((\w+)\) v !?Smokes\((\w+)\))$`)
		if !re.Match(b) {
			t.Errorf("%s: no Smokes-Cancer clause learned:\n%s", method, b)
		}
		// The output is a model marple reads; the same run gives the same model.
		out2 := filepath.Join(dir, method+"2.mln")
		args[6] = out2
		if code, _, stderr := marple(t, args...); code != 0 {
			t.Fatalf("%s again: exit %d: %s", method, code, stderr)
		}
		if b2, _ := os.ReadFile(out2); string(b2) != string(b) {
			t.Errorf("%s: two runs differ:\n%s\n%s", method, b, b2)
		}
		if code, _, stderr := marple(t, "check", "-i", out); code != 0 {
			t.Errorf("%s: learned model does not check: %s", method, stderr)
		}
	}
}

func TestLearnstructBatchBounds(t *testing.T) {
	out := filepath.Join(t.TempDir(), "one.mln")
	code, _, stderr := marple(t, "learnstruct", "-i", "testdata/planted.mln", "-o", out, "-t", "testdata/planted-a.db",
		"-maxVars", "2", "-maxNumPredicates", "2", "-maxSteps", "1")
	if code != 0 || !strings.Contains(stderr, "stopped: 1 steps taken") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
}

func TestLearnstructBatchErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.mln")
	base := []string{"learnstruct", "-method", "beam", "-i", "testdata/planted.mln", "-o", out}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{base, 2, "-t"},
		{append(base, "-t", "testdata/planted-a.db", "-ne", "Smoke"), 2, `unknown predicate "Smoke"`},
		{append(base, "-t", "testdata/planted-a.db", "-beamSize", "0"), 2, "-beamSize"},
		{append(base, "-t", "testdata/planted-a.db", "-penalty", "-1"), 2, "-penalty"},
		{append(base, "-t", "testdata/planted-a.db", "-fractAtoms", "2"), 2, "-fractAtoms"},
		{append(base, "-t", "testdata/missing.db"), 1, "missing.db"},
		{[]string{"learnstruct", "-method", "sfs", "-i", "testdata/bad-syntax.mln", "-o", out, "-t", "testdata/planted-a.db"}, 1, "bad-syntax.mln:"},
	} {
		code, _, stderr := marple(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args[len(base)-2:], code, stderr, tc.code, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: output written", tc.args)
		}
	}
}

// TestLearnstructInterruptHint: an interrupted search without -checkpoint
// writes no model and says how to get one.
func TestLearnstructInterruptHint(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.mln")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, &env{stdout: &stdout, stderr: &stderr}, []string{"learnstruct", "-method", "beam", "-i", "testdata/planted.mln", "-o", out, "-t", "testdata/planted-a.db"})
	if code != 1 || !strings.Contains(stderr.String(), "with -checkpoint an interrupted search writes the best model so far") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a model was written")
	}
}
