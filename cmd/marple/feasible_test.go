package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMarginalInfeasible checks every marginal inference of marple infer
// (-ms, -p, -bp, -bp -lifted, Alchemy's -efbp, -ms -counts, and -ms -lazy
// as far as it can tell) on hard clauses that cannot all hold (a non-zero
// exit, the reason, no result file) and on hard clauses the evidence
// falsifies (the warning, on stderr and in the summary line).
func TestMarginalInfeasible(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unsat := write("unsat.mln", "P0(u)\nQ0(u)\nP0(U0).\n!P0(U0).\n1 P0(x) => Q0(x)\n")
	unsatDB := write("unsat.db", "Q0(U1)\n")
	falsified := write("falsified.mln", "P0(u)\nQ0(u)\nR0(u)\nR0(x) => Q0(x).\n1 P0(x) => Q0(x)\n")
	falsifiedDB := write("falsified.db", "R0(U0)\n!Q0(U0)\nP0(U1)\n")
	modes := [][]string{{"infer", "-ms"}, {"infer", "-p"}, {"infer", "-bp"}, {"infer", "-bp", "-lifted"}, {"alchemy", "infer", "-efbp"}, {"infer", "-ms", "-counts"}}
	for i, mode := range modes {
		res := filepath.Join(dir, "unsat.result")
		args := append(append([]string{}, mode...), "-i", unsat, "-e", unsatDB, "-r", res, "-q", "P0,Q0")
		code, _, stderr := marple(t, args...)
		if code == 0 || !strings.Contains(stderr, "the hard clauses cannot all hold") {
			t.Errorf("%v on unsatisfiable hard clauses: exit %d, stderr %q", mode, code, stderr)
		}
		if _, err := os.Stat(res); err == nil {
			t.Errorf("%v on unsatisfiable hard clauses wrote a result", mode)
		}
		res = filepath.Join(dir, "falsified.result"+string(rune('a'+i)))
		args = append(append([]string{}, mode...), "-i", falsified, "-e", falsifiedDB, "-r", res, "-q", "P0,Q0")
		code, stdout, stderr := marple(t, args...)
		if code != 0 {
			t.Fatalf("%v with a hard clause the evidence falsifies: exit %d: %s", mode, code, stderr)
		}
		if !strings.Contains(stderr, "warning: every world violates 1 hard clauses (1 falsified by the evidence alone)") {
			t.Errorf("%v with a hard clause the evidence falsifies: no warning: %q", mode, stderr)
		}
		if !strings.Contains(stdout, "1 hard clauses falsified by the evidence") {
			t.Errorf("%v: the summary line does not say it: %q", mode, stdout)
		}
	}
	// Lazy MC-SAT grounds no whole network to check, but warns all the same.
	code, stdout, stderr := marple(t, "infer", "-ms", "-lazy", "-i", falsified, "-e", falsifiedDB, "-r", filepath.Join(dir, "lazy.result"), "-q", "P0,Q0")
	if code != 0 || !strings.Contains(stderr, "warning: every world violates 1 hard clauses (1 falsified by the evidence alone)") ||
		!strings.Contains(stdout, "1 hard clauses falsified by the evidence") {
		t.Errorf("-ms -lazy with a hard clause the evidence falsifies: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = marple(t, "infer", "-ms", "-lazy", "-i", unsat, "-e", unsatDB, "-r", filepath.Join(dir, "lazy-unsat.result"), "-q", "P0,Q0")
	if code == 0 || !strings.Contains(stderr, "could not satisfy the hard clauses") {
		t.Errorf("-ms -lazy on unsatisfiable hard clauses: exit %d, stderr %q", code, stderr)
	}
}
