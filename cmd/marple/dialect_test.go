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
	// Without -dialect, the soft evidence alone does not choose: it means
	// a prior in Tuffy's dialect and a fitted probability in pracmln's.
	code, _, stderr = marple(t, args...)
	if code == 0 || !strings.Contains(stderr, dir+"tuffy_soft.db:2:1") || !strings.Contains(stderr, "-dialect tuffy or -dialect pracmln") {
		t.Errorf("no -dialect: exit %d, stderr %s", code, stderr)
	}
	// -dialect alchemy refuses soft evidence at its position; an unknown
	// dialect is a usage error.
	if code, _, stderr := marple(t, append(args[:1:1], append([]string{"-dialect", "alchemy"}, args[1:]...)...)...); code == 0 || !strings.Contains(stderr, "tuffy_soft.db:2:1") {
		t.Errorf("alchemy dialect: exit %d, stderr %s", code, stderr)
	}
	if code, _, stderr := marple(t, append(args[:1:1], append([]string{"-dialect", "nope"}, args[1:]...)...)...); code != 2 || !strings.Contains(stderr, "unknown dialect") {
		t.Errorf("-dialect nope: exit %d, stderr %s", code, stderr)
	}
}

// Without -dialect, markers that two dialects share are refused with the
// candidates, and a file without markers is read in Alchemy's dialect
// with nothing said.
func TestDetectDialectCommand(t *testing.T) {
	dir := "../../mln/testdata/dialects/"
	code, _, stderr := marple(t, "check", "-i", dir+"lomrf_general.mln", "-e", dir+"lomrf_general.db")
	if code == 0 || !strings.Contains(stderr, dir+"lomrf_general.mln:10:14") || !strings.Contains(stderr, "-dialect tuffy or -dialect lomrf") {
		t.Errorf("ambiguous markers: exit %d, stderr %s", code, stderr)
	}
	code, _, stderr = marple(t, "check", "-i", dir+"lomrf_ec.mln", "-e", dir+"lomrf_ec.db", "-q", "HoldsAt")
	if code != 0 || !strings.Contains(stderr, "-dialect lomrf: "+dir+"lomrf_ec.mln:17:33: has the successor") {
		t.Errorf("t++: exit %d, stderr %s", code, stderr)
	}
	code, _, stderr = marple(t, "check", "-i", dir+"tuffy_scope_alchemy.mln", "-e", dir+"tuffy_scope.db", "-q", "Smokes")
	if code != 0 || strings.Contains(stderr, "dialect") {
		t.Errorf("Alchemy's dialect: exit %d, stderr %s", code, stderr)
	}
}

// marple score -dialect tuffy reads a world written by Tuffy, whose string
// constants are quoted, as the same atoms as the unquoted names.
func TestScoreTuffyQuotedWorld(t *testing.T) {
	dir := "../../mln/testdata/dialects/"
	var costs []string
	for _, world := range []string{"Cancer(\"Anna\")\n", "Cancer(Anna)\n"} {
		w := filepath.Join(t.TempDir(), "world.db")
		if err := os.WriteFile(w, []byte(world), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := marple(t, "score", "-dialect", "tuffy", "-i", dir+"tuffy_quoted.mln", "-e", dir+"tuffy_quoted.db", "-q", "Cancer", "-w", w)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", world, code, stderr)
		}
		first, _, _ := strings.Cut(stdout, "\n")
		costs = append(costs, first)
	}
	if costs[0] != costs[1] || costs[0] != "cost\t2" {
		t.Errorf("costs %q, want both \"cost\\t2\"", costs)
	}
}
