package main

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestReadmeCommandsParse checks every marple-experiments command line of
// README.md's sh blocks without running it: with -h appended, the
// experiment must exist and every flag before -h must parse (the flag
// package stops at -h), so the README names no experiment or flag that
// is not there.
func TestReadmeCommandsParse(t *testing.T) {
	f, err := os.Open("../../README.md")
	if err != nil {
		t.Skipf("no README.md: %v", err)
	}
	defer f.Close()
	var cmds [][]string
	inSh, cur := false, ""
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
		line, cur = strings.TrimSpace(cur+line), ""
		for _, prefix := range []string{"marple-experiments ", "go run ./cmd/marple-experiments "} {
			if strings.HasPrefix(line, prefix) {
				cmds = append(cmds, strings.Fields(strings.TrimPrefix(line, prefix)))
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, args := range cmds {
		if code, _, stderr := harness(t, append(args, "-h")...); code != 0 {
			t.Errorf("marple-experiments %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	t.Logf("%d README commands parsed", len(cmds))
}
