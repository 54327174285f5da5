package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// TestLearnWithEM runs learn -d -withEM on the smokers training database
// with three query atoms listed as unknown, and checks the usage errors.
func TestLearnWithEM(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(smokers + "smoking-train.db")
	if err != nil {
		t.Fatal(err)
	}
	db := strings.Replace(string(b), "\nSmokes(Anna)", "\n?Smokes(Anna)", 1)
	db = strings.Replace(db, "\nCancer(Edward)", "\n?Cancer(Edward)", 1) + "\n?Cancer(Bob)\n"
	train := filepath.Join(dir, "em.db")
	if err := os.WriteFile(train, []byte(db), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "em.mln")
	code, _, stderr := marple(t, "learn", "-d", "-withEM", "-emIter", "2", "-i", smokers+"smoking.mln", "-t", train,
		"-ne", "Smokes,Cancer", "-o", out, "-numSamples", "100", "-maxIter", "10", "-seed", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, err := mln.LoadModel(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Formulas {
		if !f.HasWeight || math.IsNaN(f.Weight) || math.IsInf(f.Weight, 0) {
			t.Errorf("weight %v", f.Weight)
		}
	}
	for _, bad := range [][]string{
		{"-g", "-withEM"},
		{"-method", "vp", "-withEM", "-ne", "Cancer"},
		{"-d", "-withEM", "-emIter", "-1", "-ne", "Cancer"},
	} {
		args := append([]string{"learn", "-i", smokers + "smoking.mln", "-t", train, "-o", filepath.Join(dir, "bad.mln")}, bad...)
		if code, _, stderr := marple(t, args...); code != 2 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", bad, code, stderr)
		}
	}
}
