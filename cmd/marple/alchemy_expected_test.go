package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testenv"
)

// TestAlchemyExpected runs the Alchemy command lines of
// testdata/alchemy/expected/cases.txt through Marple and compares each
// output with the file Alchemy 2.0 wrote for the same line.
func TestAlchemyExpected(t *testing.T) {
	dir := filepath.Join("testdata", "alchemy", "expected")
	f, err := os.Open(filepath.Join(dir, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := t.TempDir()
	vars := map[string]string{
		"EX":  filepath.Join("..", "..", "examples", "smokers"),
		"TD":  filepath.Join("testdata", "alchemy"),
		"OUT": out,
	}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		head, cmd, ok := strings.Cut(line, "|")
		fields := strings.Fields(head)
		if !ok || len(fields) != 3 {
			t.Fatalf("cases.txt: bad line %q", line)
		}
		name, kind := fields[0], fields[1]
		tol, err := strconv.ParseFloat(fields[2], 64)
		if err != nil {
			t.Fatalf("cases.txt: %s: bad tolerance %q", name, fields[2])
		}
		n++
		t.Run(name, func(t *testing.T) {
			if strings.HasSuffix(name, "-long") && testenv.Short() {
				t.Skip("a long case: MARPLE_LONG_TESTS=1 runs it")
			}
			args := splitArgs(os.Expand(strings.TrimSpace(cmd), func(k string) string { return vars[k] }))
			prog := args[0]
			args[0] = filepath.Join("/usr/local/bin", prog)
			var so, se bytes.Buffer
			code := run(context.Background(), &env{stdout: &so, stderr: &se}, alchemyArgs(args))
			if kind == "refused" {
				if code != 2 || strings.Count(se.String(), "\n") != 1 {
					t.Errorf("exit %d, stderr %q; want exit 2 and one line", code, se.String())
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, se.String())
			}
			ext := ".result"
			if prog != "infer" {
				ext = ".mln"
			}
			want, err := readExpected(filepath.Join(dir, name+ext))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(out, name+ext))
			if err != nil {
				t.Fatal(err)
			}
			compareAlchemyOutput(t, kind, tol, string(got), string(want))
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("cases.txt: no case")
	}
}

// readExpected reads Alchemy's output file path, or path.gz compressed.
func readExpected(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if !errors.Is(err, os.ErrNotExist) {
		return b, err
	}
	f, err := os.Open(path + ".gz")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
}

// compareAlchemyOutput compares Marple's output got with Alchemy's want as
// kind says (cases.txt lists the kinds).
func compareAlchemyOutput(t *testing.T, kind string, tol float64, got, want string) {
	t.Helper()
	switch kind {
	case "exact":
		if got != want {
			t.Errorf("Marple wrote\n%s\nAlchemy\n%s", got, want)
		}
	case "marginals", "atoms":
		g, w := resultRows(t, got), resultRows(t, want)
		if len(g) != len(w) {
			t.Fatalf("Marple lists %d atoms, Alchemy %d:\n%s\nAlchemy:\n%s", len(g), len(w), got, want)
		}
		for i := range g {
			if g[i].atom != w[i].atom {
				t.Fatalf("atom %d: Marple %s, Alchemy %s:\n%s\nAlchemy:\n%s", i+1, g[i].atom, w[i].atom, got, want)
			}
			if kind != "atoms" && math.Abs(g[i].value-w[i].value) > tol {
				t.Errorf("%s: Marple %g, Alchemy %g (tolerance %g)", g[i].atom, g[i].value, w[i].value, tol)
			}
		}
	case "unordered":
		g, w := resultRows(t, got), resultRows(t, want)
		if len(g) != len(w) {
			t.Fatalf("Marple lists %d atoms, Alchemy %d:\n%s\nAlchemy:\n%s", len(g), len(w), got, want)
		}
		wv := map[string]float64{}
		for _, r := range w {
			wv[r.atom] = r.value
		}
		for _, r := range g {
			v, ok := wv[r.atom]
			switch {
			case !ok:
				t.Errorf("%s: Alchemy does not list it:\n%s", r.atom, want)
			case math.Abs(r.value-v) > tol:
				t.Errorf("%s: Marple %g, Alchemy %g (tolerance %g)", r.atom, r.value, v, tol)
			}
			delete(wv, r.atom)
		}
	case "decision", "actions":
		gu, ga := decisionRows(t, got)
		wu, wa := decisionRows(t, want)
		if !slices.Equal(ga, wa) {
			t.Errorf("Marple decides\n%s\nAlchemy\n%s", got, want)
		}
		if kind == "decision" && math.Abs(gu-wu) > tol {
			t.Errorf("Max. Utility: Marple %g, Alchemy %g (tolerance %g)", gu, wu, tol)
		}
	case "network":
		// -outputNetwork: the same lines up to each factor's values, the
		// same number of values, 0 (or -inf) in the same places.
		g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
		if len(g) != len(w) {
			t.Fatalf("Marple writes %d lines, Alchemy %d", len(g), len(w))
		}
		for i := range g {
			gh, gv, _ := strings.Cut(g[i], "// ")
			wh, wv, _ := strings.Cut(w[i], "// ")
			zeros := func(v string) string {
				var b strings.Builder
				for _, x := range strings.Fields(v) {
					b.WriteString(map[bool]string{true: "0", false: "w"}[x == "0" || x == "-inf"])
				}
				return b.String()
			}
			if gh != wh || zeros(gv) != zeros(wv) {
				t.Fatalf("line %d: Marple %q, Alchemy %q", i+1, g[i], w[i])
			}
		}
	case "layout":
		re := regexp.MustCompile(`^(variables:|factors:|(\d+ )+|(\d+ )+(/ (\d+ )+)*// ((-?[0-9.e+-]+|-inf) )+)$`)
		vars := func(s string) []string {
			_, rest, _ := strings.Cut(s, "variables:\n")
			v, _, _ := strings.Cut(rest, "factors:\n")
			out := strings.Split(strings.TrimSuffix(v, "\n"), "\n")
			slices.Sort(out)
			return out
		}
		for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if !re.MatchString(l) {
				t.Errorf("line %q is not in Alchemy's layout", l)
			}
		}
		if g, w := vars(got), vars(want); !slices.Equal(g, w) {
			t.Errorf("variables: Marple %q, Alchemy %q", g, w)
		}
	case "clauses":
		g, w := clauseWeights(t, got), clauseWeights(t, want)
		if len(w) == 0 {
			t.Fatalf("Alchemy's output has no formula of two or more clauses:\n%s", want)
		}
		for c, wv := range w {
			gv, ok := g[c]
			if !ok {
				t.Errorf("Alchemy's clause %s has no weight of its own in Marple's output:\n%s", c, got)
				continue
			}
			if math.Abs(gv-wv) > tol {
				t.Errorf("%s: Marple %.4g, Alchemy %.4g (tolerance %g)", c, gv, wv, tol)
			}
		}
		fallthrough // and the formulas' weights
	case "weights":
		g, w := formulaWeights(t, got, false), formulaWeights(t, want, true)
		if len(g) != len(w) {
			t.Fatalf("Marple writes %d formulas, Alchemy %d:\n%s\nAlchemy:\n%s", len(g), len(w), got, want)
		}
		for f, wv := range w {
			gv, ok := g[f]
			if !ok {
				t.Errorf("Alchemy's formula %s is not in Marple's output", f)
				continue
			}
			if math.Abs(gv-wv) > tol {
				t.Errorf("%s: Marple %.4g, Alchemy %.4g (tolerance %g)", f, gv, wv, tol)
			}
		}
	default:
		t.Fatalf("unknown kind %q", kind)
	}
}

// decisionRows parses a results file of -decision: the "Max. Utility: u"
// line and the action lines "atom 0|1".
func decisionRows(t *testing.T, s string) (float64, []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	v, ok := strings.CutPrefix(lines[0], "Max. Utility: ")
	u, err := strconv.ParseFloat(v, 64)
	if !ok || err != nil {
		t.Fatalf("bad first line %q", lines[0])
	}
	for _, l := range lines[1:] {
		if f := strings.Fields(l); len(f) != 2 || f[1] != "0" && f[1] != "1" {
			t.Fatalf("bad action line %q", l)
		}
	}
	return u, lines[1:]
}

// clauseWeights returns the weight of each clause of the formulas of two
// or more clauses of a learned .mln file (the lines after a "// w formula"
// comment, up to a blank line, that are not the comment's formula
// itself), by canonicalClause.
func clauseWeights(t *testing.T, s string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	var group []string
	flush := func() {
		if len(group) > 1 {
			for _, l := range group {
				f := strings.Fields(l)
				w, err := strconv.ParseFloat(f[0], 64)
				if err != nil {
					t.Fatalf("bad clause line %q", l)
				}
				out[canonicalClause(strings.Join(f[1:], " "))] = w
			}
		}
		group = nil
	}
	in := false
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "":
			flush()
			in = false
		case strings.HasPrefix(l, "//"):
			flush()
			f := strings.Fields(strings.TrimPrefix(l, "//"))
			in = len(f) > 1
			if in {
				_, err := strconv.ParseFloat(f[0], 64)
				in = err == nil
			}
		case in:
			group = append(group, l)
		}
	}
	flush()
	return out
}

// canonicalClause writes a clause "L1 v L2 v ..." so that clauses equal up
// to the order of their literals and the names of their variables (lower
// case) are written alike: the smallest, over the renamings of the
// variables to v0, v1, ..., of the sorted literals.
func canonicalClause(c string) string {
	lits := strings.Split(c, " v ")
	var vars []string
	seen := map[string]bool{}
	argRE := regexp.MustCompile(`[(,]([a-z][A-Za-z0-9_]*)`)
	for _, l := range lits {
		for _, m := range argRE.FindAllStringSubmatch(l, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				vars = append(vars, m[1])
			}
		}
	}
	best := ""
	perm := make([]int, len(vars))
	for i := range perm {
		perm[i] = i
	}
	var try func(k int)
	try = func(k int) {
		if k == len(perm) {
			names := map[string]string{}
			for i, v := range vars {
				names[v] = "v" + strconv.Itoa(perm[i])
			}
			out := make([]string, len(lits))
			for i, l := range lits {
				out[i] = argRE.ReplaceAllStringFunc(strings.TrimSpace(l), func(m string) string { return m[:1] + names[m[1:]] })
			}
			slices.Sort(out)
			if x := strings.Join(out, " v "); best == "" || x < best {
				best = x
			}
			return
		}
		for i := k; i < len(perm); i++ {
			perm[k], perm[i] = perm[i], perm[k]
			try(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	try(0)
	return best
}

type resultRow struct {
	atom  string
	value float64
}

// resultRows parses the lines "atom [value]" of a results file.
func resultRows(t *testing.T, s string) []resultRow {
	t.Helper()
	var rows []resultRow
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		r := resultRow{atom: f[0], value: 1}
		if len(f) > 1 {
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				t.Fatalf("bad result line %q", l)
			}
			r.value = v
		}
		rows = append(rows, r)
	}
	return rows
}

// formulaWeights returns the weight of each formula of a learned .mln file
// by its text without blanks: Alchemy's from its "// w formula" comments,
// Marple's from its "w formula" lines, or, for a formula whose clauses
// carry their own weights, from its "// w formula" comment (its clauses'
// lines, up to the next blank line, are skipped).
func formulaWeights(t *testing.T, s string, alchemy bool) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	inGroup := false
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if !alchemy {
			if l == "" {
				inGroup = false
				continue
			}
			if inGroup {
				continue
			}
			if c, ok := strings.CutPrefix(l, "// "); ok {
				if f := strings.Fields(c); len(f) > 1 {
					if w, err := strconv.ParseFloat(f[0], 64); err == nil {
						out[strings.Join(f[1:], "")] = w
						inGroup = true
					}
				}
				continue
			}
		}
		if alchemy {
			if !strings.HasPrefix(l, "// ") {
				continue
			}
			l = strings.TrimPrefix(l, "// ")
		} else if strings.HasPrefix(l, "//") {
			continue
		}
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		w, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		out[strings.Join(f[1:], "")] = w
	}
	if len(out) == 0 {
		t.Fatalf("no weighted formula in\n%s", s)
	}
	return out
}
