package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInferHybrid(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.mln")
	os.WriteFile(model, []byte("o = {A}\nC(o)\nR(o)\nY(o)\n0.5 C(x)\n2 C(x) * R(x) = 1.5\n1 !C(x) * R(x) = 0\n2 * -(Y(A) - R(A))^2\n"), 0o644)
	ev := filepath.Join(dir, "e.db")
	os.WriteFile(ev, []byte("Y(A) 1.5\n"), 0o644)
	out := filepath.Join(dir, "out")
	if code, _, stderr := marple(t, "infer", "-hybrid", "-i", model, "-e", ev, "-r", out, "-q", "C"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "C(A)\nR(A) 1.5\n" {
		t.Fatalf("MAP output %q", b)
	}
	samples := filepath.Join(dir, "samples")
	if code, _, stderr := marple(t, "infer", "-hybrid", "-ms", "-i", model, "-e", ev, "-r", out, "-q", "C", "-contSamples", samples); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "C(A) 0.") || !strings.HasPrefix(lines[1], "R(A) ") {
		t.Fatalf("marginals %q", b)
	}
	if s, _ := os.ReadFile(samples); strings.Count(string(s), "\n") != 1001 || !strings.HasPrefix(string(s), "# R(A)\n") {
		t.Fatalf("samples file: %d lines", strings.Count(string(s), "\n"))
	}
	// Without -hybrid, and with a real value for a Boolean predicate.
	if code, _, stderr := marple(t, "infer", "-i", model, "-e", ev, "-r", out, "-q", "C"); code != 2 || !strings.Contains(stderr, "give -hybrid") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	os.WriteFile(ev, []byte("C(A) 1.5\n"), 0o644)
	if code, _, stderr := marple(t, "infer", "-hybrid", "-i", model, "-e", ev, "-r", out, "-q", "C"); code != 1 || !strings.Contains(stderr, "e.db:1:6: real value for Boolean predicate C") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// Hard formulas no state satisfies: MAP writes its best state with a
// warning naming the violated count, marginals fail; the evidence
// falsifying a hard formula is a warning.
func TestInferHybridHard(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.mln")
	os.WriteFile(model, []byte("o = {A}\nP(o)\nQ(o)\nX(o)\nP(x).\n!P(x) v Q(x).\n!Q(x).\n1 P(x) * X(x) = 2\n"), 0o644)
	ev := filepath.Join(dir, "e.db")
	os.WriteFile(ev, nil, 0o644)
	out := filepath.Join(dir, "out")
	code, _, stderr := marple(t, "infer", "-hybrid", "-i", model, "-e", ev, "-r", out, "-q", "P,Q")
	if code != 0 || !strings.Contains(stderr, "warning: the MAP state violates 1 of 3 ground hard formulas") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, _, stderr = marple(t, "infer", "-hybrid", "-ms", "-i", model, "-e", ev, "-r", out, "-q", "P,Q")
	if code != 1 || !strings.Contains(stderr, "no state satisfying the hard formulas") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	os.WriteFile(ev, []byte("P(A)\n!Q(A)\n"), 0o644)
	code, _, stderr = marple(t, "infer", "-hybrid", "-i", model, "-e", ev, "-r", out, "-q", "X")
	if code != 0 || !strings.Contains(stderr, "warning: the evidence alone falsifies 1 ground hard formulas") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// Weights that overflow float64 give the right MAP state and a finite
// log-weight; an improper density (a real-valued atom that no formula with
// a non-zero weight constrains) and a ground term overflowing with the
// evidence are errors naming the atom and the formula, with no output.
func TestInferHybridFinite(t *testing.T) {
	const td = "../../infer/hybrid/testdata/"
	dir := t.TempDir()
	ev := filepath.Join(dir, "e.db")
	os.WriteFile(ev, nil, 0o644)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := marple(t, "infer", "-hybrid", "-i", td+"huge-weights.mln", "-e", ev, "-r", out, "-q", "R")
	if b, _ := os.ReadFile(out); code != 0 || string(b) != "R(O) 2.5\n" || !strings.Contains(stdout, "log-weight -5e+307") {
		t.Fatalf("exit %d: %s%s; output %q", code, stdout, stderr, b)
	}
	code, stdout, _ = marple(t, "infer", "-hybrid", "-i", td+"huge-logweight.mln", "-e", ev, "-r", out, "-q", "R")
	if code != 0 || !strings.Contains(stdout, "log-weight -5e+309") {
		t.Fatalf("exit %d: %s", code, stdout)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-i", td + "improper-zero.mln", "-e", ev}, "the density of R(A) is improper"},
		{[]string{"-ms", "-i", td + "improper-zero.mln", "-e", ev}, "the density of R(A) is improper"},
		{[]string{"-i", td + "overflow-evidence.mln", "-e", td + "overflow-evidence.db"}, "overflow-evidence.mln:5:1: the numeric term overflows float64"},
	} {
		os.Remove(out)
		code, _, stderr := marple(t, append(append([]string{"infer", "-hybrid"}, tc.args...), "-r", out, "-q", "R")...)
		if _, err := os.Stat(out); code != 1 || !strings.Contains(stderr, tc.want) || err == nil {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
	}
}
