package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// flagTable renders the flags that "marple <cmd> -h" lists as the
// Markdown table of docs/commands.md.
func flagTable(t *testing.T, args ...string) string {
	t.Helper()
	cmd := args[0]
	code, out, stderr := marple(t, append(args, "-h")...)
	if code != 0 {
		t.Fatalf("%s -h: exit %d: %s", cmd, code, stderr)
	}
	type row struct{ name, typ, desc string }
	var rows []row
	inFlags := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case line == "flags:":
			inFlags = true
		case !inFlags:
		case strings.HasPrefix(line, "  -"):
			head, desc, _ := strings.Cut(line[2:], "\t")
			name, typ, _ := strings.Cut(head, " ")
			if typ == "" {
				typ = "bool"
			}
			rows = append(rows, row{name, typ, strings.TrimSpace(desc)})
		case strings.HasPrefix(line, "    \t") && len(rows) > 0:
			r := &rows[len(rows)-1]
			r.desc = strings.TrimSpace(r.desc + " " + strings.TrimSpace(line))
		}
	}
	var b strings.Builder
	b.WriteString("| flag | value | meaning |\n|---|---|---|\n")
	for _, r := range rows {
		b.WriteString("| `" + r.name + "` | " + r.typ + " | " + strings.ReplaceAll(r.desc, "|", `\|`) + " |\n")
	}
	return b.String()
}

// TestCommandsDoc checks that every flag table of docs/commands.md is the
// one the command's -h lists; with MARPLE_UPDATE_DOCS=1 it rewrites them.
func TestCommandsDoc(t *testing.T) {
	const path = "../../docs/commands.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	section := regexp.MustCompile("(?m)^## `marple ([a-z-]+)`")
	table := regexp.MustCompile(`(?m)^\| flag \| value \| meaning \|\n(\|.*\n)*`)
	var out strings.Builder
	rest := doc
	for {
		loc := section.FindStringSubmatchIndex(rest)
		if loc == nil {
			out.WriteString(rest)
			break
		}
		next := section.FindStringIndex(rest[loc[1]:])
		end := len(rest)
		if next != nil {
			end = loc[1] + next[0]
		}
		cmd := rest[loc[2]:loc[3]]
		body := rest[loc[0]:end]
		// learnstruct has two tables: OSL's flags, then the batch
		// searches' (its -h without -method).
		tables := [][]string{{cmd}, {cmd}}
		if cmd == "learnstruct" {
			tables[0] = []string{cmd, "-method", "osl"}
		}
		i := 0
		body = table.ReplaceAllStringFunc(body, func(string) string {
			args := tables[min(i, 1)]
			i++
			return flagTable(t, args...)
		})
		out.WriteString(rest[:loc[0]])
		out.WriteString(body)
		rest = rest[end:]
	}
	if out.String() == doc {
		return
	}
	if os.Getenv("MARPLE_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: a flag table differs from the command's -h: run MARPLE_UPDATE_DOCS=1 go test ./cmd/marple -run CommandsDoc", path)
}
