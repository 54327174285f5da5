package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestInferWMC: infer -wmc writes the exact marginals of the smokers
// example (MC-SAT's enumerated components give the same), says in its
// summary that they are exact, prints log Z with -z, and refuses clearly
// past -wmcMaxNodes, on hard clauses that cannot hold and -z without an
// exact engine.
func TestInferWMC(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	sm := filepath.Join("..", "..", "examples", "smokers")
	base := []string{"infer", "-i", filepath.Join(sm, "smoking-weighted.mln"), "-e", filepath.Join(sm, "smoking-test.db"), "-q", "Smokes,Cancer", "-r", out}
	code, stdout, stderr := marple(t, append(base, "-wmc", "-z")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "exact marginals") {
		t.Errorf("summary %q does not say the marginals are exact", stdout)
	}
	_, z, ok := strings.Cut(stdout, "log Z = ")
	if !ok {
		t.Fatalf("no log Z in %q", stdout)
	}
	z, _, _ = strings.Cut(z, " ")
	if v, err := strconv.ParseFloat(z, 64); err != nil || v < 51.97 || v > 51.971 {
		t.Errorf("log Z %q (%v)", z, err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Smokes(Katherine) 0.324275\n") {
		t.Errorf("marginals:\n%s", b)
	}
	if code, _, stderr := marple(t, append(base, "-ms", "-z")...); code != 2 || !strings.Contains(stderr, "-z") {
		t.Errorf("-z with -ms: exit %d, %s", code, stderr)
	}
	mlnFile := filepath.Join(dir, "bad.mln")
	if err := os.WriteFile(mlnFile, []byte("t = {A}\nP(t)\nQ(t)\nP(x) v Q(x).\n!P(x).\n!Q(x).\n1 P(x)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ev := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(ev, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = marple(t, "infer", "-i", mlnFile, "-e", ev, "-q", "P,Q", "-r", out+"2", "-wmc", "-z")
	if code == 0 || !strings.Contains(stderr, "cannot all hold") {
		t.Errorf("infeasible: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(out + "2"); err == nil {
		t.Errorf("infeasible: output written")
	}
	// Evidence that falsifies a hard grounding: the marginals are those of
	// the other clauses, and -z says Z = 0.
	hf := filepath.Join(dir, "hf.mln")
	if err := os.WriteFile(hf, []byte("t = {A}\nP(t)\nQ(t)\nR(t)\nP(x) v Q(x).\n1 R(x)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hfDB := filepath.Join(dir, "hf.db")
	if err := os.WriteFile(hfDB, []byte("!P(A)\n!Q(A)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = marple(t, "infer", "-i", hf, "-e", hfDB, "-q", "R", "-r", out+"4", "-wmc", "-z")
	if code != 0 || !strings.Contains(stdout, "log Z = -Inf (exact): the evidence alone falsifies 1 hard") || !strings.Contains(stderr, "warning") {
		t.Errorf("hard clause falsified by the evidence: exit %d, %s%s", code, stdout, stderr)
	}
	// A hard clause over 30 atoms, too wide for variable elimination: the
	// search counts it, within -wmcMaxNodes or not.
	var consts []string
	for i := range 30 {
		consts = append(consts, "C"+strconv.Itoa(i))
	}
	wideFile := filepath.Join(dir, "wide.mln")
	if err := os.WriteFile(wideFile, []byte("t = {"+strings.Join(consts, ", ")+"}\nP(t)\nEXIST x P(x).\n-0.5 P(x)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wide := []string{"infer", "-i", wideFile, "-e", ev, "-q", "P", "-r", out + "3", "-wmc"}
	if code, stdout, stderr := marple(t, wide...); code != 0 || !strings.Contains(stdout, "search") {
		t.Errorf("wide clause: exit %d, %s%s", code, stdout, stderr)
	}
	if code, _, stderr := marple(t, append(wide, "-wmcMaxNodes", "1")...); code == 0 || !strings.Contains(stderr, "out of reach") || !strings.Contains(stderr, "MC-SAT") {
		t.Errorf("past the node bound: exit %d, %s", code, stderr)
	}
}
