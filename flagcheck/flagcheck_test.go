package flagcheck

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFloats(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-a", "1.5", "-b", "-2"}, ""},
		{[]string{"-a", "NaN"}, "-a must be a finite number, not NaN"},
		{[]string{"-b", "-Inf"}, "-b must be a finite number, not -Inf"},
	} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Float64("a", 0, "")
		fs.Float64("b", 0, "")
		fs.String("s", "", "")
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		err := Floats(fs)
		if got := errText(err); got != c.want {
			t.Errorf("%v: error %q, want %q", c.args, got, c.want)
		}
	}
	if got := errText(Positive("eta", 0)); got != "-eta must be positive, not 0" {
		t.Errorf("Positive: %q", got)
	}
	if got := errText(NonNegative("C", -1)); got != "-C must not be negative, not -1" {
		t.Errorf("NonNegative: %q", got)
	}
}

func TestOutput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "new.mln"), ""},
		{"/dev/null", ""},
		{"", ""},
		{dir, "-o: " + dir + " is a directory"},
		{filepath.Join(dir, "no", "x.mln"), "-o: cannot write " + filepath.Join(dir, "no", "x.mln") + ": the directory " + filepath.Join(dir, "no") + " does not exist"},
	} {
		if got := errText(Output("o", c.path)); got != c.want {
			t.Errorf("%q: error %q, want %q", c.path, got, c.want)
		}
	}
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	if got := errText(Output("o", filepath.Join(file, "x"))); !strings.HasSuffix(got, "not a directory") {
		t.Errorf("under a file: %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the checks left files: %v", entries)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
