package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestInferPrintsOneLine(t *testing.T) {
	res := filepath.Join(t.TempDir(), "out.result")
	for _, solver := range []string{"exact", "lp", "mws"} {
		code, stdout, stderr := marple(t, "infer", "-i", smokers+"smoking-weighted.mln", "-e", smokers+"smoking-test.db",
			"-r", res, "-q", "Smokes,Cancer", "-solver", solver)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", solver, code, stderr)
		}
		re := regexp.MustCompile(`^marple infer: \d+ atoms, \d+ clauses, cost [-0-9.e+]+, (proved optimal|not proved optimal[^\n]*), [0-9.]+s\n$`)
		if !re.MatchString(stdout) {
			t.Errorf("%s: stdout %q is not the one summary line", solver, stdout)
		}
	}
}

func TestInferWarnsUnweighted(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model.mln")
	src := "person = {A, B}\nW(person)\nV(person)\n-1 W(y)\nW(x) => V(x)\nV(x) v W(x).\n"
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := marple(t, "infer", "-i", model, "-r", filepath.Join(dir, "out"), "-q", "W,V")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "1 formula has no weight") || !strings.Contains(stderr, "model.mln:5:1: ") {
		t.Errorf("no warning naming the unweighted formula:\n%s", stderr)
	}
	if strings.Contains(stderr, "model.mln:6:") || strings.Contains(stderr, "model.mln:4:") {
		t.Errorf("warning names a weighted or hard formula:\n%s", stderr)
	}
}

func TestFmtCostRoundsFloatNoise(t *testing.T) {
	for _, c := range []struct {
		x, ref float64
		want   string
	}{
		{-8.88178e-16, 0, "0"},
		{-8.88178e-16, 3, "0"},
		{1e-7, 2, "1e-07"},
		{17193.0000001, 17193, "17193"},
		{-2.5, 0, "-2.5"},
	} {
		if got := fmtCost(c.x, c.ref); got != c.want {
			t.Errorf("fmtCost(%g, %g) = %q, want %q", c.x, c.ref, got, c.want)
		}
	}
}

func TestInferLPBoundHasNoFloatNoise(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model.mln")
	if err := os.WriteFile(model, []byte("person = {1,...,58}\nW(person)\n-1 W(y)\n0.6 W(x) v !W(z)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := marple(t, "infer", "-i", model, "-r", filepath.Join(dir, "out"), "-q", "W", "-solver", "lp", "-v")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "bound on the cost 0 ") {
		t.Errorf("LP bound not rounded to 0:\n%s", stderr)
	}
}

// TestFmtCount: counts are written at full precision.
func TestFmtCount(t *testing.T) {
	for x, want := range map[float64]string{3: "3", 1234567: "1234567", 0.1234567891: "0.1234567891", 2.5e20: "2.5e+20", -4: "-4"} {
		if got := fmtCount(x); got != want {
			t.Errorf("fmtCount(%v) = %q, want %q", x, got, want)
		}
	}
}

// TestInferAutoStars checks infer's default star moves: on by themselves
// where one atom's flip would cost 10 nats or more against the atoms it
// is tied to (and said), off with -stars=false, and absent on the smokers
// model, whose marginals are then those of -stars=false byte for byte.
func TestInferAutoStars(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "hub.mln")
	src := "t = {T}\nx = {A, B, C, D, E, F, G, H, I, J}\nHub(t)\nLeaf(x)\n2 Hub(T) => Leaf(x)\n-0.5 Leaf(x)\n-0.3 Hub(T)\n"
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string) {
		t.Helper()
		code, stdout, stderr := marple(t, append([]string{"infer", "-ms", "-exactAtoms", "-1", "-numChains", "2", "-maxSteps", "200", "-seed", "1"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return stdout, stderr
	}
	out, errs := run("-i", model, "-r", filepath.Join(dir, "hub.res"), "-q", "Hub,Leaf")
	if !strings.Contains(out, "star moves on 1 atoms") || !strings.Contains(errs, "star moves on 1 atoms with 10 leaves (automatic") {
		t.Errorf("heavy hub: no automatic star moves said:\n%s%s", out, errs)
	}
	if out, _ := run("-i", model, "-r", filepath.Join(dir, "hub.res"), "-q", "Hub,Leaf", "-stars=false"); strings.Contains(out, "star moves") {
		t.Errorf("-stars=false: %s", out)
	}
	var res []string
	for _, flag := range []string{"-stars=false", "-numChains=2"} {
		r := filepath.Join(dir, "smokers"+flag+".res")
		out, errs := run("-i", smokers+"smoking-weighted.mln", "-e", smokers+"smoking-test.db", "-r", r, "-q", "Smokes,Cancer", flag)
		if strings.Contains(out+errs, "star moves") {
			t.Errorf("smokers %s: star moves:\n%s%s", flag, out, errs)
		}
		b, err := os.ReadFile(r)
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, string(b))
	}
	if res[0] != res[1] {
		t.Errorf("smokers: the default's marginals differ from -stars=false's")
	}
}
