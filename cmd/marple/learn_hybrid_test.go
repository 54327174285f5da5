package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// marple learn -hybrid -method mm learns max-margin weights of a hybrid
// model: on labels C(o) iff R(o) > 0.5, the weight of C(o) * R(o) is
// positive and that of C(o) negative; the flags of the other learner are
// refused.
func TestLearnHybridMaxMargin(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.mln")
	os.WriteFile(model, []byte("C(o)\nR(o)\n0 C(o)\n0 C(o) * R(o)\n"), 0o644)
	var db strings.Builder
	for i, r := range []float64{-1, 0.1, 0.3, 0.8, 1.2, 2, -0.5, 1.5} {
		fmt.Fprintf(&db, "R(O%d) %g\n", i, r)
		if r > 0.5 {
			fmt.Fprintf(&db, "C(O%d)\n", i)
		}
	}
	train := filepath.Join(dir, "t.db")
	os.WriteFile(train, []byte(db.String()), 0o644)
	out := filepath.Join(dir, "out.mln")
	for _, c := range []string{"100", "auto"} {
		code, stdout, stderr := marple(t, "learn", "-hybrid", "-method", "mm", "-C", c, "-i", model, "-t", train, "-ne", "C", "-o", out)
		if code != 0 || !strings.Contains(stdout, "converged true") {
			t.Fatalf("-C %s: exit %d: %s%s", c, code, stdout, stderr)
		}
		if c == "auto" && !strings.Contains(stderr, "C auto: chose C = ") {
			t.Fatalf("-C auto: %s", stderr)
		}
		b, _ := os.ReadFile(out)
		w := map[string]float64{}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.SplitN(line, " ", 2); len(f) == 2 {
				if v, err := strconv.ParseFloat(f[0], 64); err == nil {
					w[f[1]] = v
				}
			}
		}
		if !(w["C(o)"] < 0 && w["C(o) * R(o)"] > 0) {
			t.Fatalf("-C %s: learned model:\n%s", c, b)
		}
	}
	for _, bad := range []struct {
		args []string
		flag string
	}{
		{[]string{"-method", "cda-ml"}, "-method"},
		{[]string{"-method", "mm", "-numSamples", "5"}, "-numSamples"},
		{[]string{"-C", "10"}, "-C"},
		{[]string{"-method", "mm", "-C", "10", "-tuneHoldout", "0.5"}, "-tuneHoldout"},
		{[]string{"-g"}, "-g"},
		{[]string{"-method", "mm", "-loss", "f1"}, "-loss"},
		{[]string{"-sigma", "0.1"}, "-sigma"},
	} {
		args := append([]string{"learn", "-hybrid", "-i", model, "-t", train, "-ne", "C", "-o", out}, bad.args...)
		code, _, stderr := marple(t, args...)
		if code != 2 || !strings.Contains(stderr, bad.flag+" ") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Fatalf("%v: exit %d: %s", bad.args, code, stderr)
		}
	}
}

// Readings near 1e154 (squares summing past float64's maximum): both
// hybrid learners write finite weights and exit 0 (the feature is learned
// rescaled by a power of two), where they wrote NaN, +Inf and slack NaN.
func TestLearnHybridLargeValues(t *testing.T) {
	const td = "../../infer/hybrid/testdata/"
	out := filepath.Join(t.TempDir(), "out.mln")
	for _, method := range []string{"dcll", "mm"} {
		args := []string{"learn", "-hybrid", "-method", method, "-i", td + "large-values.mln", "-t", td + "large-values.db", "-ne", "C", "-o", out, "-maxIter", "20"}
		if method == "mm" {
			args = append(args, "-C", "100")
		}
		code, stdout, stderr := marple(t, args...)
		if code != 0 || strings.Contains(stdout, "NaN") || strings.Contains(stdout, "Inf") {
			t.Fatalf("%s: exit %d: %s%s", method, code, stdout, stderr)
		}
		b, _ := os.ReadFile(out)
		n := 0
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.SplitN(line, " ", 2); len(f) == 2 {
				if v, err := strconv.ParseFloat(f[0], 64); err == nil {
					if !(v == v) || v > 1e308 || v < -1e308 || v == 0 {
						t.Fatalf("%s: weight %v in\n%s", method, v, b)
					}
					n++
				}
			}
		}
		if n != 2 {
			t.Fatalf("%s: learned model:\n%s", method, b)
		}
	}
}
