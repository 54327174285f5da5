package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRRF runs marple learn -rrf and marple infer -rrf (ICM and Gibbs) on
// the example, and checks that an MLN read with -rrf gives the marginals
// the MLN has.
func TestRRF(t *testing.T) {
	dir := t.TempDir()
	learned := filepath.Join(dir, "learned.mln")
	code, stdout, stderr := marple(t, "learn", "-rrf", "-i", "../../examples/rrf/advising.mln", "-t", "../../examples/rrf/train.db", "-ne", "advisedBy", "-o", learned, "-maxIter", "20")
	if code != 0 || !strings.Contains(stdout, "marple learn: recursive random field, 22 weights") {
		t.Fatalf("learn: exit %d: %s%s", code, stdout, stderr)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr = marple(t, "infer", "-rrf", "-i", learned, "-e", "../../examples/rrf/test.db", "-q", "advisedBy", "-r", out)
	if code != 0 || !strings.Contains(stdout, "recursive random field (nested weights)") || !strings.Contains(stdout, "ICM") {
		t.Fatalf("infer: exit %d: %s%s", code, stdout, stderr)
	}
	code, stdout, stderr = marple(t, "infer", "-rrf", "-p", "-numSamples", "200", "-numChains", "2", "-i", learned, "-e", "../../examples/rrf/test.db", "-q", "advisedBy", "-r", out)
	if code != 0 || !strings.Contains(stdout, "Gibbs sampling, 2 chains of 200 samples, max R-hat") {
		t.Fatalf("infer -p: exit %d: %s%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(out); strings.Count(string(b), "\n") != 81 || !strings.HasPrefix(string(b), "advisedBy(") {
		t.Fatalf("marginals:\n%s", b)
	}

	// Nested weights without -rrf, a bad nested formula, a flag -rrf does
	// not take: errors, no output.
	bad := filepath.Join(dir, "bad.mln")
	os.WriteFile(bad, []byte("P(t)\nQ(t)\n1 (2 P(x) ^ 1 Q(x)) => Q(x)\n"), 0o644)
	os.Remove(out)
	if code, _, stderr := marple(t, "infer", "-i", "../../examples/rrf/advising.mln", "-e", "../../examples/rrf/test.db", "-q", "advisedBy", "-r", out); code != 1 || !strings.Contains(stderr, "advising.mln:21:4: nested weight") {
		t.Errorf("without -rrf: exit %d: %s", code, stderr)
	}
	if code, _, stderr := marple(t, "infer", "-rrf", "-i", bad, "-q", "P", "-r", out); code != 1 || !strings.Contains(stderr, "bad.mln:3:21: => joins a sub-formula with nested weights") {
		t.Errorf("bad model: exit %d: %s", code, stderr)
	}
	if code, _, stderr := marple(t, "infer", "-rrf", "-ms", "-i", bad, "-q", "P", "-r", out); code != 2 || !strings.Contains(stderr, "-ms does not apply to -rrf") {
		t.Errorf("-ms: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an output file was written")
	}

	// An MLN read as a recursive random field: the marginals MC-SAT gives.
	mlnFile := filepath.Join(dir, "m.mln")
	os.WriteFile(mlnFile, []byte("person = {A, B}\nSmokes(person)\nCancer(person)\n1.5 !Smokes(x) v Cancer(x)\n-0.5 Smokes(x)\n"), 0o644)
	code, stdout, stderr = marple(t, "infer", "-rrf", "-p", "-numSamples", "4000", "-i", mlnFile, "-q", "Smokes,Cancer", "-r", out)
	if code != 0 || !strings.Contains(stdout, "no nested weights: the Markov logic network") {
		t.Fatalf("MLN as RRF: exit %d: %s%s", code, stdout, stderr)
	}
	b, _ := os.ReadFile(out)
	// Per person, the worlds (Smokes, Cancer) weigh e^1.5, e^1.5, e^-0.5 and
	// e^1: P(Smokes) = 0.2706, P(Cancer) = 0.5859.
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		want := map[string]float64{"Smokes": 0.2706, "Cancer": 0.5859}[strings.SplitN(f[0], "(", 2)[0]]
		got, err := strconv.ParseFloat(f[1], 64)
		if err != nil || math.Abs(got-want) > 0.03 {
			t.Errorf("%s: %s, want %.4f", f[0], f[1], want)
		}
	}
}
