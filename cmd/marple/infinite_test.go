package main

import (
	"strings"
	"testing"
)

const infiniteExamples = "../../examples/infinite/"

// check -infinite gives its verdicts with exit 0, whatever they are, and
// names the formulas by position.
func TestCheckInfinite(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-i", infiniteExamples + "smokers-bounded.mln", "-e", infiniteExamples + "smokers-bounded.db"},
			[]string{"smokers-bounded.mln:18:1: ", "locally finite: every atom", "uniqueness: holds: sum 1.3", "on the evidence's ground network (20 atoms): 1.3"}},
		{[]string{"-i", infiniteExamples + "smokers-unbounded.mln", "-q", "Smokes,Cancer,Friends"},
			[]string{"not locally finite: 4 of 9 sites", "smokers-unbounded.mln:13:1: ", "y UNBOUNDED (growing person)", "uniqueness: not applicable"}},
		{[]string{"-i", infiniteExamples + "ising-strong.mln", "-noGround"},
			[]string{"uniqueness: not shown: sum 12 (at Spin) >= 2"}},
	} {
		code, out, stderr := marple(t, append([]string{"check", "-infinite"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
	if code, _, stderr := marple(t, "check", "-infinite", "-fixed", "nosuch", "-i", infiniteExamples+"ising-weak.mln"); code != 2 || !strings.Contains(stderr, `unknown type "nosuch"`) {
		t.Errorf("-fixed nosuch: exit %d: %s", code, stderr)
	}
}

// grow prints a limit for friends and smokers with bounded degree and
// refuses, with its reason, the model with random friendship.
func TestGrow(t *testing.T) {
	code, out, stderr := marple(t, "grow", "-i", infiniteExamples+"smokers-bounded.mln", "-graph", "Friends=ring:1", "-sizes", "5,10,20", "-samples", "500")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "limit: P(Smokes) = 0.29") {
		t.Errorf("no limit:\n%s", out)
	}
	code, out, stderr = marple(t, "grow", "-i", infiniteExamples+"smokers-unbounded.mln")
	if code != 1 || !strings.Contains(stderr, "no limit to compute: the model is not locally finite") ||
		!strings.Contains(stderr, "smokers-unbounded.mln:13:1: atom Smokes(x)") || !strings.Contains(out, "not locally finite") {
		t.Errorf("unbounded: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	if code, _, stderr := marple(t, "grow", "-i", infiniteExamples+"smokers-bounded.mln", "-graph", "Friends=grid"); code != 2 || !strings.Contains(stderr, "-graph") {
		t.Errorf("bad -graph: exit %d: %s", code, stderr)
	}
}
