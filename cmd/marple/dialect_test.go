package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// -dialect tuffy reads Tuffy's soft evidence and open-world default: the
// marginals MC-SAT computes exactly match the enumeration of the worlds.
func TestInferDialect(t *testing.T) {
	dir := "../../mln/testdata/dialects/"
	out := filepath.Join(t.TempDir(), "out.result")
	args := []string{"infer", "-ms", "-i", dir + "tuffy_soft.mln", "-e", dir + "tuffy_soft.db", "-q", "Cancer", "-r", out}
	code, _, stderr := marple(t, append(args[:1:1], append([]string{"-dialect", "tuffy"}, args[1:]...)...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// Cancer(Anna): prior 0.8 on Smokes(Anna), 1.5 !Smokes v Cancer.
	wp, w := math.Log(4), 1.5
	want := map[string]float64{
		"Cancer(Anna)": (math.Exp(wp+w) + math.Exp(w)) / (math.Exp(wp+w) + math.Exp(wp) + 2*math.Exp(w)),
		"Cancer(Carl)": 1 / (1 + math.Exp(-w)),
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		atom, p, _ := strings.Cut(line, " ")
		if x, ok := want[atom]; ok {
			got, _ := strconv.ParseFloat(p, 64)
			if math.Abs(got-x) > 1e-6 {
				t.Errorf("P(%s) = %v, want %v", atom, got, x)
			}
			delete(want, atom)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing from the output: %v\n%s", want, b)
	}
	// Alchemy's dialect refuses soft evidence at its position; an unknown
	// dialect is a usage error.
	if code, _, stderr := marple(t, args...); code == 0 || !strings.Contains(stderr, "tuffy_soft.db:2:1") {
		t.Errorf("alchemy dialect: exit %d, stderr %s", code, stderr)
	}
	if code, _, stderr := marple(t, append(args[:1:1], append([]string{"-dialect", "nope"}, args[1:]...)...)...); code != 2 || !strings.Contains(stderr, "unknown dialect") {
		t.Errorf("-dialect nope: exit %d, stderr %s", code, stderr)
	}
}
