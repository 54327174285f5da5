package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTransferTemplates(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "templates.txt")
	code, _, stderr := marple(t, "transfer-templates", "-i", "testdata/transfer-src.mln", "-t", "testdata/transfer-src.db", "-o", out, "-k", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "template 1 ") || !strings.Contains(string(b), "r(x,y), r(y,x)") || !strings.Contains(string(b), "Sym(x,y), Sym(y,x)") {
		t.Errorf("output lacks the symmetric template:\n%s", b)
	}
	// Compressed data and declarations inferred from the data give the
	// same templates.
	out2 := filepath.Join(dir, "t2.txt")
	code, _, stderr = marple(t, "transfer-templates", "-t", "testdata/transfer-src.db.gz", "-o", out2, "-k", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b2, _ := os.ReadFile(out2)
	body := func(s []byte) string { return string(s[strings.Index(string(s), "\ntemplate 1 "):]) }
	if body(b) != body(b2) {
		t.Errorf("gzip / inferred declarations differ:\n%s\n----\n%s", body(b), body(b2))
	}
}

func TestTransferTemplatesErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.txt")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-t", "testdata/transfer-src.db"}, 2, "-o"},
		{[]string{"-o", out}, 2, "-t"},
		{[]string{"-t", "testdata/transfer-src.db", "-o", out, "-maxLiterals", "4"}, 2, "-maxLiterals"},
		{[]string{"-t", "testdata/transfer-bad.db", "-o", out}, 1, "transfer-bad.db:2:"},
		{[]string{"-i", "testdata/transfer-src.mln", "-t", "testdata/missing.db", "-o", out}, 1, "missing.db"},
	} {
		code, _, stderr := marple(t, append([]string{"transfer-templates"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: output written", tc.args)
		}
	}
}

func TestLearnstructTransfer(t *testing.T) {
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "templates.txt")
	if code, _, stderr := marple(t, "transfer-templates", "-t", "testdata/transfer-src.db", "-i", "testdata/transfer-src.mln", "-o", tmpl, "-k", "1", "-maxLiterals", "2"); code != 0 {
		t.Fatalf("transfer-templates: exit %d: %s", code, stderr)
	}
	base := []string{"learnstruct", "-method", "beam", "-i", "testdata/transfer-src.mln", "-t", "testdata/transfer-src.db", "-transfer", tmpl, "-transferTop", "1", "-maxSteps", "1", "-maxNumPredicates", "2", "-maxVars", "2"}
	for _, mode := range []string{"seed", "greedy", "refine"} {
		out := filepath.Join(dir, mode+".mln")
		code, _, stderr := marple(t, append(base, "-o", out, "-transferMode", mode)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", mode, code, stderr)
		}
		if !strings.Contains(stderr, "transfer ("+mode+"): 20 clauses from the 1 best templates: r(x,y), r(y,x)") {
			t.Errorf("%s: stderr %q", mode, stderr)
		}
		b, _ := os.ReadFile(out)
		if !strings.Contains(string(b), "Sym(y,x)") && !strings.Contains(string(b), "Sym(a2,a1)") {
			t.Errorf("%s: no transferred symmetry clause learned:\n%s", mode, b)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-transferMode", "copy"}, "-transferMode"},
		{[]string{"-method", "sfs"}, "-transfer works with -method beam"},
		{[]string{"-transferTop", "0"}, "-transferTop"},
	} {
		code, _, stderr := marple(t, append(append(base, "-o", filepath.Join(dir, "x.mln")), tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, stderr)
		}
	}
}
