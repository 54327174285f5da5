package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// closeResults reports whether two result files list the same atoms in
// the same order with probabilities within tol.
func closeResults(a, b string, tol float64) bool {
	la, lb := strings.Split(strings.TrimSpace(a), "\n"), strings.Split(strings.TrimSpace(b), "\n")
	if len(la) != len(lb) {
		return false
	}
	for i := range la {
		fa, fb := strings.Fields(la[i]), strings.Fields(lb[i])
		if len(fa) != 2 || len(fb) != 2 || fa[0] != fb[0] {
			return false
		}
		pa, err1 := strconv.ParseFloat(fa[1], 64)
		pb, err2 := strconv.ParseFloat(fb[1], 64)
		if err1 != nil || err2 != nil || math.Abs(pa-pb) > tol {
			return false
		}
	}
	return true
}

// TestInferLifted: infer -bp -lifted (lifting the first-order model, or the
// ground network when the flags ask for what the model's lifting does not
// take) writes the same atoms as ground BP, with marginals within 0.02:
// ground BP merges the copies of a ground clause into one factor
// (bp.Options.Merge), while lifting the model counts each copy, a
// slightly different fixed point.
func TestInferLifted(t *testing.T) {
	dir := t.TempDir()
	for _, extra := range [][]string{
		{"-q", "Smokes,Cancer,Friends"},
		{"-q", "Smokes,Cancer", "-ow", "Friends"}, // lifted on the ground network
		{"-q", "Friends(Ivan,x),Cancer"},
	} {
		var files [2]string
		for i, lifted := range []bool{false, true} {
			files[i] = filepath.Join(dir, "out"+string(rune('0'+i)))
			args := append([]string{"infer", "-i", smokers + "smoking-weighted.mln", "-e", smokers + "smoking-test.db", "-r", files[i], "-bp"}, extra...)
			if lifted {
				args = append(args, "-lifted")
			}
			if code, _, stderr := marple(t, args...); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
		}
		a, _ := os.ReadFile(files[0])
		b, _ := os.ReadFile(files[1])
		if len(a) == 0 || !closeResults(string(a), string(b), 0.02) {
			t.Errorf("%v: lifted result differs from ground BP's:\n%s\nwant\n%s", extra, b, a)
		}
	}
}
