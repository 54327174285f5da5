package main

import (
	"fmt"
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
		{"-q", "Smokes,Cancer", "-ow", "Friends"},
		{"-q", "Smokes,Cancer", "-cw", "Friends"}, // lifted on the ground network
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

// TestInferLiftedHidden: with -nonEvidenceOpen (Alchemy's reading, under
// Alchemy's infer) a predicate without evidence is open world in lifted BP
// too: -bp -lifted gives ground BP's marginals on a model with a hidden
// cause.
func TestInferLiftedHidden(t *testing.T) {
	dir := t.TempDir()
	var files [2]string
	for i, extra := range [][]string{nil, {"-lifted"}} {
		files[i] = filepath.Join(dir, "out"+string(rune('0'+i)))
		args := append([]string{"infer", "-i", filepath.Join("testdata", "alchemy", "stress.mln"), "-e", smokers + "smoking-test.db", "-r", files[i], "-q", "Smokes,Cancer", "-bp", "-nonEvidenceOpen"}, extra...)
		if code, _, stderr := marple(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	a, _ := os.ReadFile(files[0])
	b, _ := os.ReadFile(files[1])
	if len(a) == 0 || !closeResults(string(a), string(b), 0.02) {
		t.Errorf("lifted result differs from ground BP's:\n%s\nwant\n%s", b, a)
	}
}

// TestInferLiftedFallback: on friends and smokers with a ring of
// friendships (evidence that tells the people apart: no compression),
// -bp -lifted runs ground BP and says so on stderr and in the summary,
// with ground BP's result file; -liftRounds lifts approximately and says
// so.
func TestInferLiftedFallback(t *testing.T) {
	dir := t.TempDir()
	var db strings.Builder
	for i := 0; i < 700; i++ {
		fmt.Fprintf(&db, "Friends(P%d, P%d)\nFriends(P%d, P%d)\n", i, (i+1)%700, (i+1)%700, i)
	}
	db.WriteString("Smokes(P0)\n")
	evidence := filepath.Join(dir, "ring.db")
	if err := os.WriteFile(evidence, []byte(db.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(out string, extra ...string) (string, string) {
		args := append([]string{"infer", "-i", smokers + "smoking-weighted.mln", "-e", evidence, "-r", filepath.Join(dir, out), "-q", "Smokes,Cancer", "-bp"}, extra...)
		code, stdout, stderr := marple(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return stdout, stderr
	}
	run("ground")
	stdout, stderr := run("lifted", "-lifted")
	for _, s := range []string{stdout, stderr} {
		if !strings.Contains(s, "ran ground BP") {
			t.Errorf("-bp -lifted on a ring: no word of ground BP in %q", s)
		}
	}
	a, _ := os.ReadFile(filepath.Join(dir, "ground"))
	b, _ := os.ReadFile(filepath.Join(dir, "lifted"))
	if len(a) == 0 || string(a) != string(b) {
		t.Error("-bp -lifted on a ring: the result differs from ground BP's")
	}
	stdout, stderr = run("approx", "-lifted", "-liftRounds", "8")
	for _, s := range []string{stdout, stderr} {
		if !strings.Contains(s, "approximate lifting") {
			t.Errorf("-liftRounds 8: no word of approximate lifting in %q", s)
		}
	}
	if code, _, _ := marple(t, "infer", "-i", smokers+"smoking-weighted.mln", "-e", evidence, "-r", filepath.Join(dir, "x"), "-q", "Smokes", "-bp", "-liftRounds", "2"); code == 0 {
		t.Error("-liftRounds without -lifted: exit 0")
	}
}
