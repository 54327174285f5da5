package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const viral = "../../examples/viral/"

// TestInferDecision runs decision inference on the viral-marketing example,
// as marple infer -decision and as Alchemy's infer -decision, and checks
// the results file (Alchemy's format) and the usage errors.
func TestInferDecision(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "viral.result")
	for _, args := range [][]string{
		{"infer", "-decision"},
		{"alchemy", "infer", "-decision"},
		{"infer", "-decision", "-decisionExact", "0", "-decisionRestarts", "2"},
	} {
		args = append(args, "-i", viral+"viral.mln", "-e", viral+"viral.db", "-q", "MarketTo", "-r", res)
		code, stdout, stderr := marple(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if !strings.Contains(stdout, "10 action atoms, expected utility 13.7") {
			t.Errorf("%v: stdout %q", args, stdout)
		}
		b, err := os.ReadFile(res)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 11 || !strings.HasPrefix(lines[0], "Max. Utility: 13.7") {
			t.Fatalf("%v: results:\n%s", args, b)
		}
		for _, want := range []string{"MarketTo(Ann) 1", "MarketTo(Eve) 1", "MarketTo(Jay) 0"} {
			if !strings.Contains(string(b), want+"\n") {
				t.Errorf("%v: results lack %q:\n%s", args, want, b)
			}
		}
	}
	bad := filepath.Join(dir, "bad.mln")
	if err := os.WriteFile(bad, []byte("P(t)\nQ(t)\n1 P(x) => Q(x)\n:2 Q(x) v P(x).\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-i", viral + "viral.mln", "-e", viral + "viral.db", "-q", "MarketTo", "-m"}, 2, "-decision excludes -m and -a"},
		{[]string{"-i", viral + "viral.mln", "-e", viral + "viral.db", "-q", "MarketTo(Ann)"}, 2, "name whole action predicates"},
		{[]string{"-i", viral + "viral.mln", "-e", viral + "viral.db"}, 2, "no query predicates: give -q"},
		{[]string{"-i", smokers + "smoking-weighted.mln", "-q", "Smokes"}, 1, "no formula of the model has a utility"},
		{[]string{"-i", bad, "-q", "P"}, 1, "bad.mln:4:1: utility on a hard formula"},
	} {
		args := append([]string{"infer", "-decision", "-r", res}, c.args...)
		code, _, stderr := marple(t, args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}
