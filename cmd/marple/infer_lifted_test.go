package main

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// readMarginals reads an "atom probability" results file.
func readMarginals(t *testing.T, path string) map[string]float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		atom, p, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			t.Fatalf("%s: line %q", path, sc.Text())
		}
		v, err := strconv.ParseFloat(p, 64)
		if err != nil {
			t.Fatalf("%s: line %q", path, sc.Text())
		}
		out[atom] = v
	}
	return out
}

// TestLiftedinferLinked runs Alchemy's liftedinfer command line unchanged
// through a link named liftedinfer: with every predicate open world, as
// Alchemy's liftedinfer has it, the exact marginals Alchemy's -ptpe
// writes (those of -wmc with -ow Friends) in the results file, and Z
// printed as Alchemy prints it.
func TestLiftedinferLinked(t *testing.T) {
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(dir, "liftedinfer")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	sm, err := filepath.Abs(smokers)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(dir, "liftedinfer"), "-ptpe", "-i", filepath.Join(sm, "smoking-weighted.mln"), "-e", filepath.Join(sm, "smoking-test.db"), "-r", "out", "-q", "Smokes,Cancer")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MARPLE_TEST_MAIN=1")
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s%s", err, so.String(), se.String())
	}
	if !strings.Contains(so.String(), "Exact Z = Starting Exact Lifted Model Counting\n (Actual) 1.71588e+30\n") || !strings.Contains(so.String(), "log Z = 69.617476147") {
		t.Errorf("stdout:\n%s", so.String())
	}
	got := readMarginals(t, filepath.Join(dir, "out"))
	if len(got) != 10 || got["Smokes(Katherine)"] != 0.834862 || got["Cancer(John)"] != 0.776821 {
		t.Errorf("marginals %v", got)
	}
}

// TestInferLBG: marple infer -lbg agrees with the exact marginals (-wmc)
// within its reported error, writes its clustering, samples again from
// the file, and -clusterOnly writes the clustering alone.
func TestInferLBG(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "fs.mln")
	src := "person = {A, B, C, D}\nFriends(person, person)\nSmokes(person)\nCancer(person)\n1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))\n0.5 Smokes(x)\n"
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"infer", "-i", model, "-q", "Smokes,Cancer,Friends"}
	exact := filepath.Join(dir, "exact")
	if code, _, stderr := marple(t, append(base, "-r", exact, "-wmc")...); code != 0 {
		t.Fatalf("-wmc: exit %d: %s", code, stderr)
	}
	want := readMarginals(t, exact)
	out, cls := filepath.Join(dir, "lbg"), filepath.Join(dir, "c.cls")
	code, stdout, stderr := marple(t, append(base, "-r", out, "-lbg", "-numSamples", "3000", "-numChains", "4", "-writeClusters", cls)...)
	if code != 0 {
		t.Fatalf("-lbg: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "lifted blocked Gibbs: clusters {Smokes, Cancer} {Friends}") || !strings.Contains(stdout, "max R-hat") {
		t.Errorf("summary %q", stdout)
	}
	_, se, _ := strings.Cut(stdout, "largest standard error ")
	se, _, _ = strings.Cut(se, ",")
	maxErr, err := strconv.ParseFloat(se, 64)
	if err != nil {
		t.Fatalf("no standard error in %q", stdout)
	}
	got := readMarginals(t, out)
	for atom, p := range want {
		if math.Abs(got[atom]-p) > 4*maxErr+0.005 {
			t.Errorf("%s: lbg %.4f, exact %.4f (largest standard error %.4f)", atom, got[atom], p, maxErr)
		}
	}
	if b, err := os.ReadFile(cls); err != nil || string(b) != "1 0 1\n" {
		t.Errorf("cluster file %q (%v), want \"1 0 1\\n\"", b, err)
	}
	if code, stdout, stderr := marple(t, append(base, "-r", out, "-lbg", "-clusters", cls)...); code != 0 || !strings.Contains(stdout, "{Smokes, Cancer} {Friends}") {
		t.Errorf("-clusters: exit %d: %s%s", code, stdout, stderr)
	}
	cls2 := filepath.Join(dir, "c2.cls")
	if code, stdout, stderr := marple(t, "infer", "-i", model, "-lbg", "-clusterOnly", "-writeClusters", cls2); code != 0 || !strings.Contains(stdout, "1 merges") {
		t.Errorf("-clusterOnly: exit %d: %s%s", code, stdout, stderr)
	}
	for _, bad := range [][]string{{"-lbg", "-ms"}, {"-lbg", "-bmf", "0.5"}, {"-clusters", cls}, {"-lbg", "-clusterMode", "odd"}, {"-lbg", "-exactAtoms", "3"}, {"-lbg", "-hybrid"}} {
		if code, _, stderr := marple(t, append(append(base, "-r", out), bad...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", bad, code, stderr)
		}
	}
}

// TestInferFOMC: -fomc gives -wmc's marginals and log Z; -lis agrees with
// them within its standard errors; -z alone (no -q) prints log Z.
func TestInferFOMC(t *testing.T) {
	dir := t.TempDir()
	base := []string{"infer", "-i", smokers + "smoking-weighted.mln", "-e", smokers + "smoking-test.db", "-q", "Smokes,Cancer"}
	logZ := func(stdout string) float64 {
		_, z, ok := strings.Cut(stdout, "log Z = ")
		if !ok {
			t.Fatalf("no log Z in %q", stdout)
		}
		z, _, _ = strings.Cut(z, " ")
		v, err := strconv.ParseFloat(z, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	exact := filepath.Join(dir, "wmc")
	code, stdout, stderr := marple(t, append(base, "-r", exact, "-wmc", "-z")...)
	if code != 0 {
		t.Fatalf("-wmc: exit %d: %s", code, stderr)
	}
	wantZ, want := logZ(stdout), readMarginals(t, exact)
	out := filepath.Join(dir, "fomc")
	code, stdout, stderr = marple(t, append(base, "-r", out, "-fomc", "-z")...)
	if code != 0 {
		t.Fatalf("-fomc: exit %d: %s", code, stderr)
	}
	if z := logZ(stdout); math.Abs(z-wantZ) > 1e-9*math.Abs(wantZ) || !strings.Contains(stdout, "lifted first-order model counting") {
		t.Errorf("-fomc: log Z %v, -wmc %v; %s", z, wantZ, stdout)
	}
	for atom, p := range readMarginals(t, out) {
		if math.Abs(p-want[atom]) > 1e-6 {
			t.Errorf("-fomc %s: %v, -wmc %v", atom, p, want[atom])
		}
	}
	code, stdout, stderr = marple(t, append(base, "-r", out, "-lis", "-z", "-numSamples", "2000")...)
	if code != 0 {
		t.Fatalf("-lis: exit %d: %s", code, stderr)
	}
	_, se, _ := strings.Cut(stdout, "sampling; standard error ")
	se, _, _ = strings.Cut(se, ")")
	zErr, err := strconv.ParseFloat(se, 64)
	if err != nil {
		t.Fatalf("no standard error in %q", stdout)
	}
	if z := logZ(stdout); math.Abs(z-wantZ) > 4*zErr+1e-3 {
		t.Errorf("-lis: log Z %v ± %v, exact %v", z, zErr, wantZ)
	}
	code, stdout, stderr = marple(t, "infer", "-i", smokers+"smoking-weighted.mln", "-e", smokers+"smoking-test.db", "-fomc", "-z", "-alchemyZ")
	if code != 0 || !strings.Contains(stdout, "\n (Actual) ") {
		t.Errorf("-fomc -z without -q: exit %d: %s%s", code, stdout, stderr)
	}
	for _, bad := range [][]string{{"-fomc", "-lis"}, {"-fomc", "-ms"}, {"-lis", "-lisProposal", "odd"}, {"-fomc", "-lisRate", "0.1"}, {"-ms", "-z"}} {
		if code, _, stderr := marple(t, append(append(base, "-r", out), bad...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", bad, code, stderr)
		}
	}
}
