package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/datadir"
)

// readmeCommands returns the marple command lines of README.md's sh
// blocks, continuation lines joined and comments dropped, as argument
// lists without the leading "marple" (or "go run ./cmd/marple").
func readmeCommands(t *testing.T, readme string) [][]string {
	t.Helper()
	f, err := os.Open(readme)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds [][]string
	inSh := false
	cur := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```sh"):
			inSh = true
			continue
		case strings.HasPrefix(line, "```"):
			inSh = false
			continue
		case !inSh:
			continue
		}
		if i := strings.Index(line, "  #"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if strings.HasSuffix(line, "\\") {
			cur += strings.TrimSuffix(line, "\\") + " "
			continue
		}
		line = strings.TrimSpace(cur + line)
		cur = ""
		for _, prefix := range []string{"marple ", "go run ./cmd/marple "} {
			if strings.HasPrefix(line, prefix) {
				cmds = append(cmds, strings.Fields(strings.TrimPrefix(line, prefix)))
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

// inputFiles returns the files a command reads, by flag.
func inputFiles(args []string) []string {
	reads := map[string]bool{"-i": true, "-e": true, "-t": true, "-modes": true, "-lossAugment": true}
	if len(args) > 0 && args[0] == "eval" {
		reads["-r"] = true
	}
	var files []string
	for i := 1; i+1 < len(args); i++ {
		if reads[args[i]] {
			files = append(files, splitList(args[i+1])...)
		}
	}
	return files
}

// TestReadmeExamples runs every marple command of README.md, as written,
// from the layout of a fresh clone: a working directory holding the
// repository's examples/ folder, with the data folder beside it
// (../shared/data) when this machine has it. A command whose input files
// are not there is skipped with a message naming them; the commands on
// the data folder (up to minutes each) run only with MARPLE_README_ALL=1.
func TestReadmeExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README's commands")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmds := readmeCommands(t, filepath.Join(root, "README.md"))
	if len(cmds) == 0 {
		t.Fatal("no command found in README.md")
	}
	base := t.TempDir()
	clone := filepath.Join(base, "marple")
	if err := os.MkdirAll(clone, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(clone, "examples"), os.DirFS(filepath.Join(root, "examples"))); err != nil {
		t.Fatal(err)
	}
	data := datadir.Root()
	haveData := false
	if _, err := os.Stat(data); err == nil {
		abs, _ := filepath.Abs(data)
		if err := os.MkdirAll(filepath.Join(base, "shared"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(base, "shared", "data")); err != nil {
			t.Fatal(err)
		}
		haveData = true
	}
	t.Chdir(clone)
	t.Setenv("MARPLE_DATA", "")
	ran := 0
	for _, args := range cmds {
		line := "marple " + strings.Join(args, " ")
		if strings.Contains(line, "../shared/data") {
			if !haveData {
				t.Logf("skipped (needs the data folder ../shared/data, absent here): %s", line)
				continue
			}
			if os.Getenv("MARPLE_README_ALL") == "" {
				t.Logf("skipped (uses the data folder and takes up to minutes; MARPLE_README_ALL=1 runs it): %s", line)
				continue
			}
		}
		var missing []string
		for _, f := range inputFiles(args) {
			if _, err := os.Stat(f); err != nil {
				missing = append(missing, f)
			}
		}
		if len(missing) > 0 {
			t.Logf("skipped (%s not in a fresh clone; see the README for where they are): %s", strings.Join(missing, ", "), line)
			continue
		}
		var out, errb bytes.Buffer
		if code := run(context.Background(), &env{stdout: &out, stderr: &errb}, args); code != 0 {
			t.Errorf("%s: exit %d\n%s", line, code, errb.String())
			continue
		}
		ran++
	}
	t.Logf("%d of %d README commands ran", ran, len(cmds))
}
