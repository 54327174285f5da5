package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// -dialect pracmln fits the probability constraints P(F) = p before
// inference (without evidence the fitted marginal is p itself), and learn
// refuses them.
func TestInferPracmlnProbConstraints(t *testing.T) {
	model := "../../infer/probfit/testdata/coupled.mln"
	out := filepath.Join(t.TempDir(), "out.result")
	code, _, stderr := marple(t, "infer", "-dialect", "pracmln", "-wmc", "-i", model, "-q", "Veg,Fem", "-r", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "2 probability constraint(s) and soft evidence met") {
		t.Errorf("stderr does not report the fit: %s", stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"Veg(Ann)": 0.2, "Fem(Ann)": 0.6}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		atom, p, _ := strings.Cut(line, " ")
		if x, ok := want[atom]; ok {
			got, _ := strconv.ParseFloat(p, 64)
			if math.Abs(got-x) > 1e-3 {
				t.Errorf("P(%s) = %v, want %v", atom, got, x)
			}
			delete(want, atom)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing from the output: %v\n%s", want, b)
	}
	db := filepath.Join(t.TempDir(), "t.db")
	if err := os.WriteFile(db, []byte("Veg(Ann)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = marple(t, "learn", "-dialect", "pracmln", "-g", "-i", model, "-t", db, "-ne", "Veg", "-o", filepath.Join(t.TempDir(), "o.mln"))
	if code == 0 || !strings.Contains(stderr, "coupled.mln:14:1") || !strings.Contains(stderr, "probability constraints") {
		t.Errorf("learn: exit %d, stderr %s", code, stderr)
	}
}
