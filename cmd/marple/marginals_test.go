package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/marple-mln/marple/infer/mcsat"
)

// tiedModel writes a model whose atoms P(A) and Q(A) a hard equivalence
// ties: Gibbs sampling cannot change them one at a time, so without block
// moves each chain keeps the values it started with.
func tiedModel(t *testing.T) (dir, model string) {
	dir = t.TempDir()
	model = filepath.Join(dir, "tied.mln")
	src := "thing = {A, B}\nP(thing)\nQ(thing)\nR(thing)\nP(x) <=> Q(x).\n0.5 R(x)\n"
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, model
}

var marginalSummary = regexp.MustCompile(`^marple infer: \d+ atoms, \d+ clauses, \d+ samples x \d+ chains, max R-hat ([0-9.]+|inf), (\d+) query atoms above [0-9.]+, min ESS (\d+|n/a \(every query atom's marginal computed exactly\)), [0-9.]+s\n$`)

func TestInferMarginalsWarnNotConverged(t *testing.T) {
	dir, model := tiedModel(t)
	diag := filepath.Join(dir, "diag.txt")
	code, stdout, stderr := marple(t, "infer", "-p", "-i", model, "-r", filepath.Join(dir, "out"), "-q", "P,Q,R",
		"-numSamples", "200", "-numChains", "8", "-blockWeight", "-1", "-exactAtoms", "-1", "-diagnostics", diag)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := marginalSummary.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("stdout %q is not the one summary line", stdout)
	}
	if m[1] != "inf" || m[2] != "4" {
		t.Errorf("summary: max R-hat %s, %s atoms above, want inf and 4: %s", m[1], m[2], stdout)
	}
	if !strings.Contains(stderr, "warning: not converged: 4 query atoms") || !strings.Contains(stderr, "P(A) (R-hat inf)") {
		t.Errorf("no warning naming the unconverged atoms:\n%s", stderr)
	}
	b, err := os.ReadFile(diag)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "# atom probability R-hat ESS") {
		t.Fatalf("diagnostics file:\n%s", b)
	}
	if !regexp.MustCompile(`^R\(A\) [0-9.e-]+ [01]\.\d{3} \d+$`).MatchString(lines[5]) {
		t.Errorf("diagnostics line %q", lines[5])
	}

	// Block moves (the default) resample the tied atoms together.
	code, stdout, stderr = marple(t, "infer", "-p", "-i", model, "-r", filepath.Join(dir, "out"), "-q", "P,Q,R",
		"-numSamples", "500", "-numChains", "8", "-converge", "1.05")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if m := marginalSummary.FindStringSubmatch(stdout); m == nil || m[2] != "0" {
		t.Errorf("with block moves: %s", stdout)
	}
	if !strings.Contains(stderr, "converged: every query atom's R-hat is at most 1.05") || strings.Contains(stderr, "not converged") {
		t.Errorf("with block moves and -converge: %s", stderr)
	}

	// -converge gives up when -maxSeconds runs out.
	code, _, stderr = marple(t, "infer", "-p", "-i", model, "-r", filepath.Join(dir, "out"), "-q", "P,Q",
		"-numSamples", "100", "-numChains", "8", "-blockWeight", "-1", "-exactAtoms", "-1", "-converge", "1.05", "-maxSeconds", "0.2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "not converged within -maxSeconds 0.2: 4 query atoms") {
		t.Errorf("-converge on chains that cannot mix: %s", stderr)
	}
}

func TestInferMarginalsMCSATSummary(t *testing.T) {
	res := filepath.Join(t.TempDir(), "out.result")
	code, stdout, stderr := marple(t, "infer", "-ms", "-i", smokers+"smoking-weighted.mln", "-e", smokers+"smoking-test.db",
		"-r", res, "-q", "Smokes,Cancer", "-numSamples", "2000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := marginalSummary.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("stdout %q is not the one summary line", stdout)
	}
	if m[2] != "0" || strings.Contains(stderr, "not converged") {
		t.Errorf("smokers not converged: %s%s", stdout, stderr)
	}
	// Every component of smokers is small enough to enumerate: the summary
	// says so rather than "min ESS inf".
	if !strings.Contains(m[3], "computed exactly") {
		t.Errorf("summary does not say the marginals are exact: %s", stdout)
	}
}

func TestInferMarginalsBadFlags(t *testing.T) {
	for _, c := range []struct {
		flag, value, want string
	}{
		{"-numChains", "-1", "numChains"},
		{"-converge", "0.9", "-converge"},
		{"-minBeta", "1.5", "-minBeta"},
		{"-maxBlock", "30", "-maxBlock"},
		{"-maxSeconds", "-1", "-maxSeconds"},
	} {
		code, _, stderr := marple(t, "infer", "-ms", "-i", smokers+"smoking-weighted.mln", "-r", filepath.Join(t.TempDir(), "out"), "-q", "Smokes", c.flag, c.value)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s %s: exit %d: %s", c.flag, c.value, code, stderr)
		}
	}
}

// TestInferDefaultChains: without -numChains the sampler runs one chain per
// core (at least 2) and the summary says how many.
func TestInferDefaultChains(t *testing.T) {
	code, stdout, stderr := marple(t, "infer", "-ms", "-i", smokers+"smoking-weighted.mln", "-e", smokers+"smoking-test.db", "-r", filepath.Join(t.TempDir(), "out"), "-q", "Smokes", "-numSamples", "50")
	if want := fmt.Sprintf("50 samples x %d chains", mcsat.DefaultChains()); code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("exit %d, want %q in %s%s", code, want, stdout, stderr)
	}
	if mcsat.DefaultChains() < 2 {
		t.Errorf("DefaultChains %d", mcsat.DefaultChains())
	}
}
