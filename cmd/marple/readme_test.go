package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/marple-mln/marple/internal/testenv"
	"github.com/marple-mln/marple/internal/testkit/datadir"
)

// A docCommand is one command line of a documentation file's sh block.
type docCommand struct {
	doc  string   // file name relative to the repository root
	line int      // line of the command's first line
	text string   // the line as written (continuations joined)
	args []string // words after variable expansion; nil when not a marple command
	tool string   // "marple", or the other program the line runs
	skip string   // reason from a readme-test skip marker of its block
}

// skipMarker is the comment that, on the last non-blank line before an sh
// block, tells TestReadmeExamples not to run the block's commands.
var skipMarker = regexp.MustCompile(`^<!--\s*readme-test:\s*skip:\s*(.*?)\s*-->$`)

var varAssign = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(\S*)$`)

// docCommands returns the command lines of the file's sh blocks, in order:
// continuation lines joined, comments dropped, shell variables assigned
// in the file (D=../shared/data/imdb) expanded in the lines that follow.
func docCommands(t *testing.T, root, doc string) []docCommand {
	t.Helper()
	f, err := os.Open(filepath.Join(root, doc))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		cmds        []docCommand
		inSh        bool
		inOther     bool
		skip        string
		pendingSkip string
		cur         string
		curLine     int
		vars        = map[string]string{}
	)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		raw := sc.Text()
		trimmed := strings.TrimSpace(raw)
		switch {
		case inSh && strings.HasPrefix(trimmed, "```"):
			inSh = false
			continue
		case inOther && strings.HasPrefix(trimmed, "```"):
			inOther = false
			continue
		case inOther:
			continue
		case !inSh && (trimmed == "```sh" || trimmed == "```shell"):
			inSh, skip, pendingSkip = true, pendingSkip, ""
			continue
		case !inSh && strings.HasPrefix(trimmed, "```"):
			inOther, pendingSkip = true, ""
			continue
		case !inSh:
			if m := skipMarker.FindStringSubmatch(trimmed); m != nil {
				if m[1] == "" {
					t.Errorf("%s:%d: a readme-test skip marker needs a reason", doc, n)
				}
				pendingSkip = m[1]
			} else if trimmed != "" {
				pendingSkip = ""
			}
			continue
		}
		line := raw
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			line = ""
		} else if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if cur == "" {
			curLine = n
		}
		if strings.HasSuffix(line, "\\") {
			cur += strings.TrimSuffix(line, "\\") + " "
			continue
		}
		line = strings.TrimSpace(cur + line)
		cur = ""
		if line == "" {
			continue
		}
		if m := varAssign.FindStringSubmatch(line); m != nil {
			vars[m[1]] = m[2]
			continue
		}
		c := docCommand{doc: doc, line: curLine, text: line, skip: skip}
		words, err := shellWords(line, vars)
		if err != nil {
			if skip == "" {
				t.Errorf("%s:%d: %v: %s", doc, curLine, err, line)
			}
			c.tool = "shell"
			cmds = append(cmds, c)
			continue
		}
		switch {
		case len(words) >= 1 && words[0] == "marple":
			c.tool, c.args = "marple", words[1:]
		case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/marple":
			c.tool, c.args = "marple", words[3:]
		case len(words) >= 3 && words[0] == "go" && words[1] == "run":
			c.tool = strings.TrimPrefix(words[2], "./cmd/")
		default:
			c.tool = filepath.Base(words[0])
		}
		if c.tool == "marple" && len(c.args) == 0 {
			t.Errorf("%s:%d: marple without a command: %s", doc, curLine, line)
			continue
		}
		cmds = append(cmds, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if inSh || inOther {
		t.Errorf("%s: a code block is not closed", doc)
	}
	return cmds
}

// shellWords splits a simple command line into words as sh would: single
// and double quotes, $NAME and ${NAME} from vars. Pipes, redirections,
// command substitution and lists are refused.
func shellWords(line string, vars map[string]string) ([]string, error) {
	var (
		words []string
		w     strings.Builder
		inW   bool
		quote byte
	)
	// expand writes the value of the variable at line[i] ('$') and
	// returns the index of its last byte.
	expand := func(i int) (int, error) {
		var name string
		if i+1 < len(line) && line[i+1] == '{' {
			end := strings.IndexByte(line[i:], '}')
			if end < 0 {
				return 0, fmt.Errorf("unclosed ${")
			}
			name, i = line[i+2:i+end], i+end
		} else {
			j := i + 1
			for j < len(line) && (line[j] == '_' || line[j] >= 'A' && line[j] <= 'Z' || line[j] >= 'a' && line[j] <= 'z' || j > i+1 && line[j] >= '0' && line[j] <= '9') {
				j++
			}
			name, i = line[i+1:j], j-1
		}
		v, ok := vars[name]
		if !ok || name == "" {
			return 0, fmt.Errorf("shell variable %q not set in the document before this line", name)
		}
		w.WriteString(v)
		return i, nil
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			} else {
				w.WriteByte(ch)
			}
		case quote == '"':
			switch ch {
			case '"':
				quote = 0
			case '$':
				j, err := expand(i)
				if err != nil {
					return nil, err
				}
				i = j
			case '`':
				return nil, fmt.Errorf("command substitution")
			default:
				w.WriteByte(ch)
			}
		case ch == '\'' || ch == '"':
			quote, inW = ch, true
		case ch == '$':
			j, err := expand(i)
			if err != nil {
				return nil, err
			}
			i, inW = j, true
		case ch == ' ' || ch == '\t':
			if inW {
				words = append(words, w.String())
				w.Reset()
				inW = false
			}
		case strings.IndexByte("|&;<>()`", ch) >= 0:
			return nil, fmt.Errorf("not a simple command (%q)", ch)
		default:
			w.WriteByte(ch)
			inW = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed quote")
	}
	if inW {
		words = append(words, w.String())
	}
	return words, nil
}

// flagValues returns the comma-separated values of the given flags.
func flagValues(args []string, flags map[string]bool) []string {
	var out []string
	for i := 1; i+1 < len(args); i++ {
		if flags[args[i]] {
			out = append(out, splitList(args[i+1])...)
		}
	}
	return out
}

// inputFiles returns the files a command reads, by flag.
func inputFiles(args []string) []string {
	reads := map[string]bool{"-i": true, "-e": true, "-t": true, "-modes": true, "-lossAugment": true, "-transfer": true}
	if len(args) > 0 && args[0] == "eval" {
		reads["-r"] = true
	}
	return flagValues(args, reads)
}

// outputFiles returns the files a command writes, by flag.
func outputFiles(args []string) []string {
	writes := map[string]bool{"-o": true}
	if len(args) > 0 && args[0] != "eval" {
		writes["-r"] = true
	}
	out := flagValues(args, writes)
	if len(args) > 0 && args[0] == "invent" {
		for _, o := range out {
			stem := strings.TrimSuffix(o, filepath.Ext(o))
			out = append(out, stem+".db", stem+".report.txt")
		}
	}
	return out
}

// docFiles returns README.md and docs/*.md, in that order.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(docs)
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, filepath.Join("docs", filepath.Base(d)))
	}
	return files
}

// TestReadmeExamples runs the marple commands of the sh blocks of README.md
// and of every docs/*.md file, with the marple that README.md's own
// instructions install (go install ./cmd/marple, its folder first on
// PATH), in order, each file in a directory of its own
// laid out as a fresh clone: its working directory holds a copy of the
// repository's examples/ folder (and any other repository file a command
// reads, such as infer/testdata/dense-w1.mln), with the data folder beside it
// (../shared/data, linked to datadir.Root(), i.e. $MARPLE_DATA or the
// shared/data folder beside the repository) when this machine has it.
//
// A command fails the test when it exits non-zero, reads a file that is
// neither in the clone nor written by an earlier command of its file, or
// writes a file an earlier command of its file wrote (each command's
// outputs are its own, so that every example can be run in order). A block
// whose last non-blank line before it is
//
//	<!-- readme-test: skip: reason -->
//
// is not run (commands that need a cluster, take hours, or belong to
// another program such as marple-experiments or marple-beam); any other
// program's line in an unmarked block is an error, except the go toolchain's.
//
// The commands on the data folder run only with MARPLE_README_ALL=1 (up to
// a few minutes each; give the run a generous timeout:
// MARPLE_README_ALL=1 go test ./cmd/marple -run ReadmeExamples -v -timeout 60m;
// each command gets at most 20 minutes and stops, failing, at the test's
// deadline). Without it, or without the data folder, they are skipped with a
// message, and the run takes a few seconds.
func TestReadmeExamples(t *testing.T) {
	if testenv.Short() && (testing.Short() || os.Getenv("MARPLE_README_ALL") == "") {
		t.Skip("runs the documentation's commands")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
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
	all := os.Getenv("MARPLE_README_ALL") != ""
	t.Setenv("MARPLE_DATA", "")
	// marple installed as README.md says, from the clone: go install
	// ./cmd/marple (into a folder of the test's, put first on PATH).
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	bin := filepath.Join(base, "bin")
	install := exec.Command(goBin, "install", "./cmd/marple")
	install.Dir = root
	install.Env = append(os.Environ(), "GOBIN="+bin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/marple, as README.md says: %v\n%s", err, out)
	}
	marpleBin, err := exec.LookPath(filepath.Join(bin, "marple"))
	if err != nil {
		t.Fatalf("go install ./cmd/marple installed no marple: %v", err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	total, ran := 0, 0
	for _, doc := range docFiles(t, root) {
		cmds := docCommands(t, root, doc)
		if doc == "README.md" && len(cmds) == 0 {
			t.Fatal("no command found in README.md")
		}
		clone := filepath.Join(base, strings.TrimSuffix(strings.ReplaceAll(doc, string(filepath.Separator), "-"), ".md"))
		if err := os.MkdirAll(clone, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(filepath.Join(clone, "examples"), os.DirFS(filepath.Join(root, "examples"))); err != nil {
			t.Fatal(err)
		}
		t.Chdir(clone)
		written := map[string]string{}
		for _, c := range cmds {
			where := fmt.Sprintf("%s:%d", c.doc, c.line)
			if c.tool != "marple" {
				switch {
				case c.skip != "":
				case c.tool == "go" || c.tool == "shell":
				default:
					t.Errorf("%s: %s commands cannot run here; mark the block <!-- readme-test: skip: reason -->: %s", where, c.tool, c.text)
				}
				continue
			}
			total++
			if c.skip != "" {
				t.Logf("%s: skipped (%s): %s", where, c.skip, c.text)
				continue
			}
			line := "marple " + strings.Join(c.args, " ")
			if strings.Contains(line, "../shared/data") {
				if !haveData {
					t.Logf("%s: skipped (needs the data folder ../shared/data, absent here): %s", where, line)
					continue
				}
				if !all {
					t.Logf("%s: skipped (uses the data folder and takes up to minutes; MARPLE_README_ALL=1 runs it): %s", where, line)
					continue
				}
			}
			missing := false
			for _, f := range inputFiles(c.args) {
				if _, err := os.Stat(f); err == nil {
					continue
				}
				if src := filepath.Join(root, f); !filepath.IsAbs(f) && !strings.HasPrefix(filepath.Clean(f), "..") {
					if b, err := os.ReadFile(src); err == nil {
						if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(f, b, 0o644); err != nil {
							t.Fatal(err)
						}
						continue
					}
				}
				t.Errorf("%s: reads %s, which is neither in a clone nor written by an earlier command of %s: %s", where, f, c.doc, line)
				missing = true
			}
			if missing {
				continue
			}
			clash := false
			for _, f := range outputFiles(c.args) {
				if prev, ok := written[filepath.Clean(f)]; ok {
					t.Errorf("%s: writes %s, which the command at %s wrote: give each example's outputs their own names", where, f, prev)
					clash = true
				}
				written[filepath.Clean(f)] = where
			}
			if clash {
				continue
			}
			timeout := 20 * time.Minute
			if d, ok := t.Deadline(); ok {
				if left := time.Until(d) - 10*time.Second; left < timeout {
					timeout = left
				}
			}
			if timeout <= 0 {
				t.Errorf("%s: not run: the test's deadline is too close: %s", where, line)
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			var out, errb bytes.Buffer
			start := time.Now()
			cmd := exec.CommandContext(ctx, marpleBin, c.args...)
			cmd.Stdout, cmd.Stderr = &out, &errb
			code := 0
			if err := cmd.Run(); err != nil {
				code = -1
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					code = ee.ExitCode()
				}
				errb.WriteString(err.Error())
			}
			cancel()
			if code != 0 {
				t.Errorf("%s: %s: exit %d after %v\n%s", where, line, code, time.Since(start).Round(time.Millisecond), errb.String())
				continue
			}
			t.Logf("%s: ran in %v: %s", where, time.Since(start).Round(time.Millisecond), line)
			ran++
		}
		checkIgnored(t, root, clone, doc)
	}
	t.Logf("%d of %d documented marple commands ran", ran, total)
}

// checkIgnored fails the test for every file that the commands of doc
// left in clone and that .gitignore does not ignore (a user following the
// docs in a clone would see it as untracked).
func checkIgnored(t *testing.T, root, clone, doc string) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Logf("no git: the outputs of %s are not checked against .gitignore", doc)
		return
	}
	ls := exec.Command(git, "ls-files")
	ls.Dir = root
	listed, err := ls.Output()
	if err != nil {
		t.Logf("not a git checkout (%v): the outputs of %s are not checked against .gitignore", err, doc)
		return
	}
	tracked := map[string]bool{}
	for _, f := range strings.Split(string(listed), "\n") {
		tracked[f] = true
	}
	var left []string
	filepath.WalkDir(clone, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(clone, p)
		rel = filepath.ToSlash(rel)
		if !tracked[rel] && !strings.HasPrefix(rel, "shared/") {
			left = append(left, rel)
		}
		return nil
	})
	if len(left) == 0 {
		return
	}
	ci := exec.Command(git, "check-ignore", "--no-index", "--stdin")
	ci.Dir = root
	ci.Stdin = strings.NewReader(strings.Join(left, "\n") + "\n")
	out, _ := ci.Output() // exit 1 when no path is ignored
	ignored := map[string]bool{}
	for _, f := range strings.Split(string(out), "\n") {
		ignored[f] = true
	}
	for _, f := range left {
		if !ignored[f] {
			t.Errorf("%s: its commands leave %s, which .gitignore does not ignore", doc, f)
		}
	}
}

// TestReadmeProgram builds the library program of README.md (its one go
// block) as a module of its own that requires this repository, runs it
// from the repository root and checks that it prints the true query atoms
// that "marple infer" writes for the same model, evidence and queries.
//
// It is a long case, but it runs whenever -run names it, as README.md
// says: go test ./cmd/marple -run ReadmeProgram.
func TestReadmeProgram(t *testing.T) {
	if testenv.Short() && !strings.Contains(flag.Lookup("test.run").Value.String(), "ReadmeProgram") {
		t.Skip("builds the README's program (a long case; -run ReadmeProgram runs it)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	in, cur := false, ""
	for _, line := range strings.SplitAfter(string(readme), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !in && trimmed == "```go":
			in, cur = true, ""
		case in && trimmed == "```":
			in = false
			blocks = append(blocks, cur)
		case in:
			cur += line
		}
	}
	if len(blocks) != 1 {
		t.Fatalf("README.md has %d go blocks; want one, the library program", len(blocks))
	}
	dir := t.TempDir()
	goMod := "module readmeprogram\n\ngo 1.26\n\nrequire github.com/marple-mln/marple v0.0.0\n\nreplace github.com/marple-mln/marple => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"go.mod": goMod, "go.sum": string(sum), "main.go": blocks[0]} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog := filepath.Join(dir, "readme-program")
	build := exec.Command(goBin, "build", "-o", prog, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the README's program does not build: %v\n%s", err, out)
	}
	cmd := exec.Command(prog)
	cmd.Dir = root
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("the README's program: %v", err)
	}

	// What marple infer writes for the same question.
	resDir := t.TempDir()
	t.Chdir(root)
	result := filepath.Join(resDir, "smokers.result")
	var errb bytes.Buffer
	args := []string{"infer", "-i", "examples/smokers/smoking-weighted.mln", "-e", "examples/smokers/smoking-test.db", "-r", result, "-q", "Smokes,Cancer"}
	if code := run(context.Background(), &env{stdout: &bytes.Buffer{}, stderr: &errb}, args); code != 0 {
		t.Fatalf("marple %s: exit %d\n%s", strings.Join(args, " "), code, errb.String())
	}
	want, err := os.ReadFile(result)
	if err != nil {
		t.Fatal(err)
	}
	printed := map[string]bool{}
	for _, l := range strings.Split(string(got), "\n") {
		printed[strings.TrimSpace(l)] = true
	}
	atoms := 0
	for _, l := range strings.Split(strings.TrimSpace(string(want)), "\n") {
		atoms++
		if !printed[strings.TrimSpace(l)] {
			t.Errorf("the README's program does not print %s, a true query atom marple infer finds; it printed:\n%s", l, got)
		}
	}
	if atoms == 0 {
		t.Fatal("marple infer found no true query atom")
	}
}

// TestDocCommands checks how docCommands reads a document: skip markers,
// shell variables, continuation lines, comments and quotes.
func TestDocCommands(t *testing.T) {
	dir := t.TempDir()
	doc := "<!-- readme-test: skip: needs a cluster -->\n" +
		"```sh\nmarple-beam learn -i x.mln\n```\n\n" +
		"Text between blocks.\n\n```sh\n" +
		"D=../shared/data/imdb\n" +
		"marple learnstruct -i $D/empty.mln -o a.mln \\\n" +
		"  -t ${D}/imdb.1.db,$D/imdb.2.db  # two folds\n" +
		"go run ./cmd/marple infer -i \"a b.mln\" -r 'x.result' -q P\n" +
		"# a comment line\n" +
		"go test ./...\n" +
		"```\n\n```\nmarple not run: not an sh block\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "doc.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds := docCommands(t, dir, "doc.md")
	want := []struct {
		tool, skip string
		args       []string
		line       int
	}{
		{"marple-beam", "needs a cluster", nil, 3},
		{"marple", "", []string{"learnstruct", "-i", "../shared/data/imdb/empty.mln", "-o", "a.mln", "-t", "../shared/data/imdb/imdb.1.db,../shared/data/imdb/imdb.2.db"}, 10},
		{"marple", "", []string{"infer", "-i", "a b.mln", "-r", "x.result", "-q", "P"}, 12},
		{"go", "", nil, 14},
	}
	if len(cmds) != len(want) {
		t.Fatalf("got %d commands, want %d: %+v", len(cmds), len(want), cmds)
	}
	for i, w := range want {
		c := cmds[i]
		if c.tool != w.tool || c.skip != w.skip || c.line != w.line || strings.Join(c.args, "|") != strings.Join(w.args, "|") {
			t.Errorf("command %d: got %+v, want %+v", i, c, w)
		}
	}
	for _, bad := range []string{"marple infer -i $UNSET/a.mln", "marple infer -i a.mln | head", "marple infer -i \"a.mln"} {
		if _, err := shellWords(bad, map[string]string{}); err == nil {
			t.Errorf("shellWords(%q): no error", bad)
		}
	}
	if got := outputFiles([]string{"invent", "-i", "d.mln", "-o", "c.mln"}); strings.Join(got, ",") != "c.mln,c.db,c.report.txt" {
		t.Errorf("invent's outputs: %v", got)
	}
	if got := outputFiles([]string{"eval", "-r", "x.result", "-t", "t.db"}); len(got) != 0 {
		t.Errorf("eval's outputs: %v", got)
	}
}
