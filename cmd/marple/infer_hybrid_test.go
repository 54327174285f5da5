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
