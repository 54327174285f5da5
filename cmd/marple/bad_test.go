package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testenv"
)

// generated writes the large inputs of the bad-input corpus ($GEN/name in
// testdata/bad/cases.txt) into dir.
func generated(t *testing.T, dir string) {
	t.Helper()
	repeat := func(name, head, unit, tail string, size int) {
		var b strings.Builder
		b.WriteString(head)
		for b.Len() < size {
			b.WriteString(unit)
		}
		b.WriteString(tail)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	chain := func(name, op string, n int) {
		var b strings.Builder
		b.WriteString("P(t)\n1 ")
		for i := range n {
			if i > 0 {
				b.WriteString(op)
			}
			b.WriteString("P(A" + strconv.Itoa(i) + ")")
		}
		b.WriteString("\n")
		os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644)
	}
	repeat("and-10MB.mln", "P(t)\n1 P(x)", " ^ P(x)", "\n", 10<<20)
	repeat("implies-10MB.mln", "P(t)\n1 P(x)", " => P(x)", "\n", 10<<20)
	repeat("not-10MB.mln", "P(t)\n1 ", "!", "P(x)\n", 1<<20)
	repeat("paren-10MB.mln", "P(t)\n1 ", "(", "P(x)\n", 1<<20)
	repeat("iff-1000.mln", "P(t)\n1 P(x)", " <=> P(x)", "\n", 1000*len(" <=> P(x)"))
	chain("implies-100k.mln", " => ", 100_000)
	chain("or-300k.mln", " v ", 300_000)
	os.WriteFile(filepath.Join(dir, "exist.mln"), []byte("t = {1,...,40}\nP(t,t)\n1 EXIST y (P(x,y) ^ P(y,x))\n"), 0o644)
}

// TestBadInput runs every case of the bad-input corpus and checks its exit
// status, its message and that a failed run wrote no output.
func TestBadInput(t *testing.T) {
	f, err := os.Open("testdata/bad/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gen := t.TempDir()
	if !testenv.Short() {
		generated(t, gen)
	}
	wd, _ := os.Getwd()
	if err := os.Chdir("testdata/bad"); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		parts := strings.Split(line, "|")
		if len(parts) != 4 {
			t.Fatalf("bad case line %q", line)
		}
		name, want := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[3])
		code, err := strconv.Atoi(strings.TrimSpace(parts[2]))
		if err != nil {
			t.Fatalf("%s: exit status %q", name, parts[2])
		}
		args := strings.Fields(parts[1])
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			for i, a := range args {
				if a == "OUT" {
					args[i] = out
				}
				if strings.HasPrefix(a, "$GEN/") {
					if testenv.Short() {
						t.Skip("generated input: not with -short")
					}
					args[i] = filepath.Join(gen, strings.TrimPrefix(a, "$GEN/"))
				}
			}
			got, _, stderr := marple(t, args...)
			if got != code {
				t.Fatalf("marple %s: exit %d, want %d; stderr:\n%s", strings.Join(args, " "), got, code, stderr)
			}
			if want != "" && !strings.Contains(strings.ReplaceAll(stderr, gen+"/", ""), want) {
				t.Errorf("marple %s: stderr lacks %q:\n%s", strings.Join(args, " "), want, stderr)
			}
			if _, err := os.Stat(out); code != 0 && err == nil {
				t.Errorf("a failed run wrote %s", out)
			}
		})
	}
}
