package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInferBPWarnings: infer -bp says on stderr and in the summary when
// BP did not converge and when the MC-SAT check does not confirm its
// marginals, naming the atoms; -bpCheck 0 skips the check and the summary
// says so.
func TestInferBPWarnings(t *testing.T) {
	dir := t.TempDir()
	ev := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(ev, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"infer", "-bp", "-i", filepath.Join("testdata", "bp-loop.mln"), "-e", ev, "-q", "P", "-r", filepath.Join(dir, "out")}
	for _, c := range []struct {
		extra              []string
		stdout, stderr     []string
		notStdout, notErrs []string
	}{
		{nil,
			[]string{"converged", "UNRELIABLE: 4 atoms not confirmed by MC-SAT"},
			[]string{"warning: belief propagation unreliable: 4 atoms", "P(A), P(B), P(C), P(D)"},
			[]string{"NOT CONVERGED"}, []string{"did not converge"}},
		{[]string{"-maxSteps", "2"},
			[]string{"2 iterations, NOT CONVERGED"},
			[]string{"warning: belief propagation did not converge in 2 iterations", "still changing: ", "P(A)"},
			nil, nil},
		{[]string{"-bpCheck", "0"},
			[]string{"converged, not checked against MC-SAT"},
			nil,
			[]string{"UNRELIABLE"}, []string{"warning"}},
	} {
		args := append(append([]string{}, base...), c.extra...)
		code, stdout, stderr := marple(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.extra, code, stderr)
		}
		for _, w := range c.stdout {
			if !strings.Contains(stdout, w) {
				t.Errorf("%v: stdout %q lacks %q", c.extra, stdout, w)
			}
		}
		for _, w := range c.stderr {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", c.extra, stderr, w)
			}
		}
		for _, w := range c.notStdout {
			if strings.Contains(stdout, w) {
				t.Errorf("%v: stdout %q has %q", c.extra, stdout, w)
			}
		}
		for _, w := range c.notErrs {
			if strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q has %q", c.extra, stderr, w)
			}
		}
	}
}
