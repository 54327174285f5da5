package main

import (
	"fmt"
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
	for _, c := range []struct {
		args            []string
		utility, label  string
		policy, warning string
	}{
		// By default the three independent parts are small enough for
		// exact expected utilities; -bp asks for belief propagation
		// (Alchemy's engine), a little above the exact values here.
		{[]string{"infer", "-decision"}, "13.6732", "exact search (every assignment of 3 independent parts); marginals: variable elimination; 134 evaluations", "MarketTo(Bob) 0", ""},
		{[]string{"alchemy", "infer", "-decision", "-marpleDecision"}, "13.6732", "exact search", "MarketTo(Bob) 0", ""},
		{[]string{"infer", "-decision", "-bp"}, "13.7772", "exact search (every assignment of 3 independent parts); marginals: belief propagation; 134 evaluations", "MarketTo(Bob) 0", ""},
		{[]string{"infer", "-decision", "-decisionExact", "0", "-decisionRestarts", "2"}, "13.6732", "approximate search (greedy flips, 2 restarts, over 10 action atoms in 3 independent parts)", "MarketTo(Bob) 0",
			"warning: the decision comes from an approximate search (greedy flips"},
	} {
		args := append(c.args, "-i", viral+"viral.mln", "-e", viral+"viral.db", "-q", "MarketTo", "-r", res)
		code, stdout, stderr := marple(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if !strings.Contains(stdout, "10 action atoms, expected utility "+c.utility) || !strings.Contains(stdout, c.label) {
			t.Errorf("%v: stdout %q, want utility %s and %q", args, stdout, c.utility, c.label)
		}
		if c.warning == "" && strings.Contains(stderr, "warning") || !strings.Contains(stderr, c.warning) {
			t.Errorf("%v: stderr %q, want %q", args, stderr, c.warning)
		}
		b, err := os.ReadFile(res)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 11 || !strings.HasPrefix(lines[0], "Max. Utility: "+c.utility[:4]) {
			t.Fatalf("%v: results:\n%s", args, b)
		}
		for _, want := range []string{"MarketTo(Ann) 1", "MarketTo(Eve) 1", "MarketTo(Jay) 0", c.policy} {
			if !strings.Contains(string(b), want+"\n") {
				t.Errorf("%v: results lack %q:\n%s", args, want, b)
			}
		}
	}
	// Alchemy's meaning: the atoms of the single-literal utility formulas
	// (:4 Buys(x), :-1 MarketTo(x)) are the actions, searched by Alchemy's
	// flips, written in Alchemy's order with Alchemy's 6 digits.
	want := "Max. Utility: 40\n"
	for _, v := range []string{"1", "0"} {
		p := map[string]string{"1": "Buys", "0": "MarketTo"}[v]
		for _, x := range []string{"Ann", "Eve", "Hal", "Bob", "Cat", "Dan", "Fay", "Gus", "Ivy", "Jay"} {
			want += p + "(" + x + ") " + v + "\n"
		}
	}
	for _, args := range [][]string{{"infer", "-decision", "-decisionMeaning", "alchemy"}, {"alchemy", "infer", "-decision"}, {"alchemy", "infer", "-decision", "-bp"}} {
		args = append(args, "-i", viral+"viral.mln", "-e", viral+"viral.db", "-q", "MarketTo", "-r", res)
		code, stdout, stderr := marple(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		label := "20 action atoms, expected utility 40 (Alchemy's search (single flips of the 20 action atoms in turn from no action, each kept unless the expected utility falls; 32 flips)"
		if !strings.Contains(stdout, label) || !strings.Contains(stderr, "warning: the decision comes from Alchemy's search") {
			t.Errorf("%v: stdout %q, stderr %q", args, stdout, stderr)
		}
		if b, err := os.ReadFile(res); err != nil || string(b) != want {
			t.Errorf("%v: results (%v):\n%s\nwant\n%s", args, err, b, want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"infer", "-decision", "-decisionMeaning", "both"}, "-decisionMeaning must be marple or alchemy"},
		{[]string{"alchemy", "infer", "-decision", "-ms"}, "-decision goes with -bp or -efbp (the default) only"},
		{[]string{"infer", "-decision", "-decisionMeaning", "alchemy", "-decisionExact", "3"}, "-decisionExact sets Marple's search: -decisionMeaning alchemy runs Alchemy's"},
	} {
		args := append(c.args, "-i", viral+"viral.mln", "-e", viral+"viral.db", "-q", "MarketTo", "-r", res)
		if code, _, stderr := marple(t, args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", args, code, stderr, c.want)
		}
	}
	mixed := filepath.Join(dir, "mixed.mln")
	if err := os.WriteFile(mixed, []byte("P(t)\nQ(t)\nR(t)\n1 P(x) => Q(x)\n:2 P(x) ^ (Q(x) v R(x))\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := marple(t, "alchemy", "infer", "-decision", "-i", mixed, "-q", "P", "-r", res); code != 1 ||
		!strings.Contains(stderr, "mixed.mln:5:1: decision: under Alchemy's meaning the one clause of this utility formula that is a single literal would be an action") ||
		!strings.Contains(stderr, "-marpleDecision under Alchemy's name)") {
		t.Errorf("a utility formula with one single-literal clause among others: exit %d, stderr %q", code, stderr)
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

// TestInferDecisionLimits: utilities beyond the float64 range give their
// exact sum, not +Inf; an exhaustive search beyond
// -decisionMaxEvaluations is refused with its size and the flags, and
// runs when the limit allows it; a utility on a conjunction is searched
// exactly.
func TestInferDecisionLimits(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	res := filepath.Join(dir, "out.result")
	big := write("big.mln", "P(t)\nQ(t)\nA(t)\nA(x) => P(x).\n:1e308 P(x)\n:1e308 Q(x)\n")
	bigDB := write("big.db", "Q(K1)\nQ(K2)\n")
	code, stdout, stderr := marple(t, "infer", "-decision", "-i", big, "-e", bigDB, "-q", "A", "-r", res)
	b, _ := os.ReadFile(res)
	if code != 0 || strings.Contains(stdout+string(b), "Inf") || !strings.HasPrefix(string(b), "Max. Utility: 4e+308\n") {
		t.Errorf("overflow: exit %d, stdout %q, stderr %q, results %q", code, stdout, stderr, b)
	}

	var model, db strings.Builder
	model.WriteString("Next(node, node)\nA(node)\nGood(node)\n-1 Good(x)\n2 A(x) => Good(x)\n1 Next(x, y) ^ Good(x) => Good(y)\n:-1 A(x)\n:3 Good(x) ^ !A(x)\n")
	for i := range 9 {
		fmt.Fprintf(&db, "Next(N%d, N%d)\n", i, i+1)
	}
	chain, chainDB := write("chain.mln", model.String()), write("chain.db", db.String())
	os.Remove(res)
	code, stdout, stderr = marple(t, "infer", "-decision", "-i", chain, "-e", chainDB, "-q", "A", "-r", res, "-decisionExact", "10", "-decisionMaxEvaluations", "1000")
	if _, err := os.Stat(res); code != 1 || err == nil || !strings.Contains(stderr, "an exhaustive search over 10 action atoms means 2^10 = 1024 evaluations of the expected utility, each by variable elimination") ||
		!strings.Contains(stderr, "more than the limit of 1000 evaluations: -decisionExact 9 searches it greedily (approximate), -decisionMaxEvaluations 1024 allows it") {
		t.Errorf("too large: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = marple(t, "infer", "-decision", "-i", chain, "-e", chainDB, "-q", "A", "-r", res, "-decisionExact", "10", "-decisionMaxEvaluations", "1024")
	if code != 0 || !strings.Contains(stdout, "10 action atoms, expected utility ") || !strings.Contains(stdout, "exact search (every assignment of 1 part); marginals: variable elimination; 1024 evaluations") {
		t.Errorf("non-literal utility: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = marple(t, "infer", "-decision", "-i", chain, "-e", chainDB, "-q", "A", "-r", res, "-decisionMaxEvaluations", "0")
	if code != 2 || !strings.Contains(stderr, "-decisionMaxEvaluations must be at least 1") {
		t.Errorf("-decisionMaxEvaluations 0: exit %d, stderr %q", code, stderr)
	}
}
