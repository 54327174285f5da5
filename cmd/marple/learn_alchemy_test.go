package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// TestLearnClauseWeights learns with -dClauseWeights and checks the output:
// the two clauses of the Friends formula have their own weights, written
// after the comment "// w formula" with their sum and closed by a blank
// line; the one-clause and the existential formulas keep one weight; and
// the file reads back as a model of the same clauses.
func TestLearnClauseWeights(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.mln")
	src := "Friends(person, person)\nSmokes(person)\nCancer(person)\n" +
		"1 Smokes(x) => Cancer(x)\n" +
		"Friends(x, y) => (Smokes(x) <=> Smokes(y))\n" +
		"Cancer(x) => EXIST y (Friends(x, y) ^ Smokes(y))\n"
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.mln")
	for _, vp := range []bool{false, true} {
		args := []string{"learn", "-d", "-dClauseWeights", "-dZeroStart", "-numSamples", "50", "-maxIter", "4", "-i", model, "-o", out,
			"-t", smokers + "smoking-train.db", "-ne", "Smokes,Cancer"}
		if vp {
			args = append(args, "-method", "vp")
		} else {
			args = append(args, "-dFixedSamples", "-dDataHessian", "-dMinSamples", "100")
		}
		if code, _, stderr := marple(t, args...); code != 0 {
			t.Fatalf("vp %v: exit %d: %s", vp, code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		_, formulas, _ := strings.Cut(text, "// formulas\n")
		lines := strings.Split(formulas, "\n")
		i := 0
		for i < len(lines) && !strings.HasPrefix(lines[i], "// ") {
			i++
		}
		if i+3 >= len(lines) {
			t.Fatalf("vp %v: no clause group in\n%s", vp, text)
		}
		head := strings.Fields(strings.TrimPrefix(lines[i], "// "))
		if got := strings.Join(head[1:], " "); got != "Friends(x,y) => (Smokes(x) <=> Smokes(y))" {
			t.Fatalf("vp %v: group of %q in\n%s", vp, got, text)
		}
		sum, _ := strconv.ParseFloat(head[0], 64)
		w1, _ := strconv.ParseFloat(strings.Fields(lines[i+1])[0], 64)
		w2, _ := strconv.ParseFloat(strings.Fields(lines[i+2])[0], 64)
		if d := sum - w1 - w2; d > 1e-9 || d < -1e-9 || sum == 0 {
			t.Errorf("vp %v: comment weight %v, clause weights %v + %v", vp, sum, w1, w2)
		}
		if lines[i+3] != "" {
			t.Errorf("vp %v: group not closed by a blank line:\n%s", vp, text)
		}
		m, err := mln.LoadModel(out)
		if err == nil {
			err = m.Compile()
		}
		if err != nil {
			t.Fatalf("vp %v: %v\n%s", vp, err, text)
		}
		// Smokes => Cancer, the two Friends clauses, the existential
		// formula (tied), and none added.
		if len(m.Formulas) != 4 {
			t.Errorf("vp %v: %d formulas read back, want 4:\n%s", vp, len(m.Formulas), text)
		}
		if !strings.Contains(text, "EXIST") {
			t.Errorf("vp %v: the existential formula is not written as one:\n%s", vp, text)
		}
	}
}
