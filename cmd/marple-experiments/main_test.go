package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func harness(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), &env{stdout: &out, stderr: &errb}, args)
	return code, out.String(), errb.String()
}

// tinyMSL is a tiny IMDB-shaped data folder (five synthetic folds).
const tinyMSL = "internal/experiment/testdata/msl"

// TestMSLSmall runs msl end to end on the tiny data: the table goes to
// stdout and to msl.md, headed by the command that made it.
func TestMSLSmall(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := harness(t, "msl", "-data", tinyMSL, "-out", out, "-datasets", "imdb", "-folds", "imdb.1",
		"-rows", "weights-unit", "-samples", "50")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "msl.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Command: `marple-experiments msl -data ", "Unit clauses (weights learned)", "| workedUnder |"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("msl.md lacks %q:\n%s", want, b)
		}
	}
	if stdout != string(b) {
		t.Errorf("stdout is not msl.md:\n%s", stdout)
	}
}

// TestUnknownSelectionRefused: a fold, data set, row or source that does
// not exist is a usage error naming its flag, before any work (the data
// folder here is empty) and with no output.
func TestUnknownSelectionRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"msl", "-datasets", "imdb", "-folds", "imdb.99"}, "-folds"},
		{[]string{"msl", "-folds", "imdb.1,nope"}, "-folds"},
		{[]string{"msl", "-datasets", "uw-cse", "-folds", "imdb.1"}, "-folds"},
		{[]string{"msl", "-datasets", "cora"}, "-datasets"},
		{[]string{"msl", "-rows", "beam"}, "-rows"},
		{[]string{"transfer", "-targets", "imdb", "-folds", "ai"}, "-folds"},
		{[]string{"transfer", "-targets", "cora"}, "-targets"},
		{[]string{"transfer", "-sources", "cora"}, "-sources"},
	} {
		out := filepath.Join(t.TempDir(), "results")
		args := append(c.args, "-data", t.TempDir(), "-out", out)
		code, stdout, stderr := harness(t, args...)
		if code != 2 || !strings.HasPrefix(stderr, "marple-experiments "+args[0]+": "+c.flag+": ") {
			t.Errorf("%s: exit %d, stderr %q", strings.Join(c.args, " "), code, stderr)
		}
		if stdout != "" {
			t.Errorf("%s: stdout %q", strings.Join(c.args, " "), stdout)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: -out folder made", strings.Join(c.args, " "))
		}
	}
}

// TestOutNotWritableRefused: an -out that cannot hold the results (an
// existing file, a device) is refused before any work: the data folder
// here is empty, so the error would otherwise be about the data.
func TestOutNotWritableRefused(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "results")
	if err := os.WriteFile(file, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder")
	if err := os.MkdirAll(filepath.Join(folder, "mrc.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	outs := []string{file, folder}
	if fi, err := os.Stat("/dev/full"); err == nil && fi.Mode()&os.ModeDevice != 0 {
		outs = append(outs, "/dev/full")
	}
	for _, name := range []string{"mrc", "msl", "citeseer", "osl", "curves", "maxmargin", "transfer"} {
		for _, out := range outs {
			if name != "mrc" && out == folder {
				continue
			}
			code, stdout, stderr := harness(t, name, "-data", t.TempDir(), "-out", out)
			if code != 1 || !strings.HasPrefix(stderr, "marple-experiments "+name+": -out "+out+": ") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("%s -out %s: exit %d, stderr %q", name, out, code, stderr)
			}
			if stdout != "" {
				t.Errorf("%s -out %s: stdout %q", name, out, stdout)
			}
		}
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "keep\n" {
		t.Errorf("the file given as -out changed: %q, %v", b, err)
	}
}

// TestUsage: no experiment or an unknown one is a usage error; help lists
// every experiment and describes each one's flags.
func TestUsage(t *testing.T) {
	if code, _, _ := harness(t); code != 2 {
		t.Errorf("no arguments: exit %d, want 2", code)
	}
	if code, _, stderr := harness(t, "nope"); code != 2 || !strings.Contains(stderr, `unknown experiment "nope"`) {
		t.Errorf("unknown experiment: exit %d, stderr %q", code, stderr)
	}
	code, stdout, _ := harness(t, "help")
	if code != 0 {
		t.Errorf("help: exit %d", code)
	}
	for _, x := range experiments {
		if !strings.Contains(stdout, "  "+x.name+" ") {
			t.Errorf("help does not list %s:\n%s", x.name, stdout)
		}
		code, stdout, _ := harness(t, "help", x.name)
		if code != 0 || !strings.HasPrefix(stdout, "usage: marple-experiments "+x.name+" ") || !strings.Contains(stdout, "-out") {
			t.Errorf("help %s: exit %d:\n%s", x.name, code, stdout)
		}
	}
}
