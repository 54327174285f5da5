package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
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

// TestLearnPerExampleGrounding checks that learn grounds one example per
// bib when asked, and that a model whose clauses link two bibs falls back
// to the whole grounding.
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
	// (That the examples ground one at a time equal the components of the
	// whole grounding is learn's TestPartitionSourceSynthetic.)
	if stderr := learn("testdata/seg.mln", filepath.Join(dir, "apart.mln"), "-exampleType", "bib", "-v"); strings.Contains(stderr, "whole") || !strings.Contains(stderr, "one per constant of type bib") {
		t.Errorf("per-example grounding refused: %s", stderr)
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

// TestLearnLikelihood runs the likelihood learners (pll / -g, dcll / -d) on
// the smokers example: exit codes, the output model written (and nothing
// else left in its directory), finite weights, the same weights for the
// same seed, and usage errors.
func TestLearnLikelihood(t *testing.T) {
	dir := t.TempDir()
	model, train := smokers+"smoking.mln", smokers+"smoking-train.db"
	runs := []struct {
		name string
		args []string
	}{
		{"g", []string{"-g"}},
		{"pll-ne", []string{"-method", "pll", "-ne", "Cancer", "-priorStdDev", "1", "-gNoEqualPredWt"}},
		{"g-noprior", []string{"-g", "-noPrior", "-maxIter", "50"}},
		{"d", []string{"-d", "-ne", "Smokes,Cancer", "-numSamples", "200", "-maxIter", "15", "-seed", "3"}},
		{"dcll-dn", []string{"-method", "dcll", "-dNewton", "-ne", "Cancer", "-numSamples", "200", "-maxIter", "15", "-noPrior"}},
		{"vp", []string{"-method", "vp", "-ne", "Smokes,Cancer", "-maxIter", "20", "-dLearningRate", "0.1", "-dMomentum", "0.5"}},
		{"d-vp", []string{"-d", "-method", "vp", "-ne", "Cancer", "-maxIter", "10", "-dNoPW", "-noPrior", "-dMAPCounts", "-solver", "exact"}},
		{"vp-zero", []string{"-method", "vp", "-ne", "Smokes,Cancer", "-maxIter", "10", "-numSamples", "50", "-dZeroStart", "-seed", "2"}},
	}
	for _, r := range runs {
		out := filepath.Join(dir, r.name+".mln")
		args := append([]string{"learn", "-i", model, "-o", out, "-t", train}, r.args...)
		code, _, stderr := marple(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", r.name, code, stderr)
		}
		m, err := mln.LoadModel(out)
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if len(m.Formulas) != 2 {
			t.Fatalf("%s: %d formulas", r.name, len(m.Formulas))
		}
		for _, f := range m.Formulas {
			if !f.HasWeight || math.IsNaN(f.Weight) || math.IsInf(f.Weight, 0) {
				t.Errorf("%s: weight %v", r.name, f.Weight)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(runs) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files left: %v", names)
	}
	// Same seed, same weights.
	again := filepath.Join(t.TempDir(), "d.mln")
	if code, _, stderr := marple(t, append([]string{"learn", "-i", model, "-o", again, "-t", train}, runs[3].args...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "d.mln"))
	b, _ := os.ReadFile(again)
	if string(a) != string(b) {
		t.Errorf("dcll is not deterministic:\n%s\n---\n%s", a, b)
	}

	for _, bad := range [][]string{
		{"-g", "-d", "-ne", "Cancer"},
		{"-d"},
		{"-g", "-method", "cda-ml"},
		{"-g", "-priorStdDev", "-1"},
		{"-d", "-ne", "Cancer", "-numSamples", "-5"},
		{"-d", "-ne", "Cancer", "-dMAPCounts"},
		{"-method", "vp", "-ne", "Cancer", "-solver", "exact"},
		{"-method", "vp", "-ne", "Cancer", "-dMAPCounts", "-numSamples", "10"},
	} {
		out := filepath.Join(t.TempDir(), "bad.mln")
		code, _, _ := marple(t, append([]string{"learn", "-i", model, "-o", out, "-t", train}, bad...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", bad, out)
		}
	}
}

// TestLearnAutoRegularisation checks that -sigma and -C default to auto,
// which says what it chose, and that a bad value is a usage error.
func TestLearnAutoRegularisation(t *testing.T) {
	dir := t.TempDir()
	for _, method := range []string{"cda-ml", "mm"} {
		out := filepath.Join(dir, method+".mln")
		code, _, stderr := marple(t, "learn", "-i", "testdata/seg.mln", "-o", out, "-t", "testdata/seg-train.db",
			"-ne", "InField", "-method", method)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", method, code, stderr)
		}
		name := map[string]string{"cda-ml": "σ", "mm": "C"}[method]
		if !strings.Contains(stderr, name+" auto: chose "+name+" = ") {
			t.Errorf("%s: stderr does not say what was chosen: %q", method, stderr)
		}
		if _, err := os.Stat(out); err != nil {
			t.Error(err)
		}
	}
	code, _, stderr := marple(t, "learn", "-i", "testdata/seg.mln", "-o", filepath.Join(dir, "x.mln"), "-t", "testdata/seg-train.db",
		"-ne", "InField", "-sigma", "big")
	if code != 2 || !strings.Contains(stderr, "-sigma") {
		t.Errorf("-sigma big: exit %d, %q", code, stderr)
	}
}

// TestLearnDiscriminativeOwnDomains checks that learn -d
// -multipleDatabases grounds each database over its own constants, and
// that -queryEvidence keeps the unlisted query atoms out: two databases of
// four people each, one smoker and one listed non-smoker in each. Over its
// own constants each database has four Smokes atoms, one true (the unit
// weight near log(1/3)); over every database's constants eight, one true
// (near log(1/7)); with -queryEvidence two, one true (near 0).
func TestLearnDiscriminativeOwnDomains(t *testing.T) {
	dir := t.TempDir()
	learned := func(extra ...string) (float64, string) {
		t.Helper()
		out := filepath.Join(dir, "out.mln")
		args := append([]string{"learn", "-d", "-i", "testdata/owndom.mln", "-o", out, "-t", "testdata/owndom-a.db,testdata/owndom-b.db",
			"-ne", "Smokes", "-multipleDatabases", "-noPrior", "-numSamples", "400", "-seed", "2", "-v"}, extra...)
		code, _, stderr := marple(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		m, err := mln.LoadModel(out)
		if err != nil {
			t.Fatal(err)
		}
		return m.Formulas[0].Weight, stderr
	}
	if w, stderr := learned(); math.Abs(w-math.Log(1.0/3)) > 0.3 {
		t.Errorf("own constants: weight %.3f, want about %.3f", w, math.Log(1.0/3))
	} else if !strings.Contains(stderr, "converged true") {
		t.Errorf("own constants: not converged: %s", stderr)
	}
	if w, _ := learned("-queryEvidence"); math.Abs(w) > 0.3 {
		t.Errorf("-queryEvidence: weight %.3f, want about 0", w)
	}
	if code, _, _ := marple(t, "learn", "-method", "cda-ml", "-i", "testdata/owndom.mln", "-o", filepath.Join(dir, "bad.mln"),
		"-t", "testdata/owndom-a.db", "-ne", "Smokes", "-queryEvidence"); code != 2 {
		t.Errorf("-method cda-ml -queryEvidence: exit %d, want 2", code)
	}
}
