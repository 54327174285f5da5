package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/internal/testkit/mrcgen"
)

// marple runs the command in-process and returns its exit status, stdout
// and stderr.
func marple(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), &env{stdout: &out, stderr: &errb}, args)
	return code, out.String(), errb.String()
}

const smokers = "../../examples/smokers/"

func TestInferSmokersMAP(t *testing.T) {
	res := filepath.Join(t.TempDir(), "out.result")
	for _, solver := range []string{"exact", "lp", "mws"} {
		code, _, stderr := marple(t, "infer", "-i", smokers+"smoking-weighted.mln", "-e", smokers+"smoking-test.db",
			"-r", res, "-q", "Smokes,Cancer", "-m", "-solver", solver, "-seed", "3")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", solver, code, stderr)
		}
		b, err := os.ReadFile(res)
		if err != nil {
			t.Fatal(err)
		}
		got := string(b)
		// Evidence query atoms come first; John and Michael are friends of
		// smokers, Katherine and Lars of nobody who smokes.
		for _, want := range []string{"Smokes(Ivan)\n", "Smokes(John)\n", "Cancer(Ivan)\n", "Cancer(Nick)\n"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: result lacks %q:\n%s", solver, want, got)
			}
		}
		if strings.Contains(got, "Smokes(Katherine)") {
			t.Errorf("%s: Katherine should not smoke:\n%s", solver, got)
		}
	}
}

func TestInferMarginals(t *testing.T) {
	res := filepath.Join(t.TempDir(), "out.result")
	for _, mode := range []string{"-ms", "-p"} {
		code, _, stderr := marple(t, "infer", "-i", smokers+"smoking-weighted.mln", "-e", smokers+"smoking-test.db",
			"-r", res, "-q", "Cancer", mode, "-numSamples", "2000")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", mode, code, stderr)
		}
		b, _ := os.ReadFile(res)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 6 { // Cancer of the six test people
			t.Fatalf("%s: %d lines:\n%s", mode, len(lines), b)
		}
		for _, l := range lines {
			f := strings.Fields(l)
			if len(f) != 2 || !strings.HasPrefix(f[0], "Cancer(") {
				t.Errorf("%s: bad line %q", mode, l)
			}
		}
	}
}

func TestBadInputExitsOneWithoutOutput(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "out.result")
	cases := []struct {
		name, model, ev, query, want string
	}{
		{"syntax", "testdata/bad-syntax.mln", smokers + "smoking-test.db", "Cancer", "bad-syntax.mln:3:"},
		{"unknown predicate", "testdata/unknown-pred.mln", "", "Cancer", "unknown-pred.mln:2:"},
		{"missing model", "testdata/nope.mln", "", "Cancer", "nope.mln"},
		{"missing evidence", smokers + "smoking-weighted.mln", "testdata/nope.db", "Cancer", "nope.db"},
		{"unknown query", smokers + "smoking-weighted.mln", "", "Drinks", "Drinks"},
	}
	for _, c := range cases {
		args := []string{"infer", "-i", c.model, "-r", res, "-q", c.query}
		if c.ev != "" {
			args = append(args, "-e", c.ev)
		}
		code, _, stderr := marple(t, args...)
		if code == 0 {
			t.Errorf("%s: exit 0", c.name)
		}
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%s: stderr %q lacks %q", c.name, stderr, c.want)
		}
		if _, err := os.Stat(res); err == nil {
			t.Errorf("%s: output file written", c.name)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: left files: %v", c.name, entries)
		}
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"infer", "-i", "x.mln"}, // no -r
		{"infer", "-i", "x.mln", "-r", "o", "-q", "P", "-m", "-ms"},    // two modes
		{"infer", "-i", "x.mln", "-r", "o", "-q", "P", "-solver", "z"}, // bad solver
		{"infer", "-nosuchflag"},
		{"learn", "-i", "x.mln", "-o", "o.mln", "-t", "a.db", "-ne", "P", "-method", "cda-ml", "-loss", "f1"},
		{"eval", "-r", "a"},
	} {
		if code, _, _ := marple(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, out, _ := marple(t, "help", "infer"); code != 0 || !strings.Contains(out, "-mwsMaxSteps") {
		t.Errorf("help infer: exit %d, output %q", code, out)
	}
}

// TestHelpAndFlagErrors: "marple <cmd> -h" prints the usage once; a bad
// flag is one line on stderr pointing to -h, without the usage; "marple -h"
// lists every command with what it does.
func TestHelpAndFlagErrors(t *testing.T) {
	for _, c := range commands {
		if c.name == "experiment" {
			continue
		}
		code, out, stderr := marple(t, c.name, "-h")
		if n := strings.Count(out, "usage: marple "+c.name); code != 0 || n != 1 || stderr != "" {
			t.Errorf("%s -h: exit %d, usage printed %d times, stderr %q", c.name, code, n, stderr)
		}
		if c.name == "alchemy" {
			continue // its first argument names an Alchemy program: alchemy_test.go
		}
		code, out, stderr = marple(t, c.name, "-foo")
		want := "marple " + c.name + ": flag provided but not defined: -foo (see marple " + c.name + " -h)\n"
		if code != 2 || out != "" || stderr != want {
			t.Errorf("%s -foo: exit %d, stdout %q, stderr %q, want %q", c.name, code, out, stderr, want)
		}
	}
	code, out, _ := marple(t, "-h")
	if code != 0 || !strings.Contains(out, "learnstruct") || !strings.Contains(out, "beam") || !strings.Contains(out, "OSL") {
		t.Errorf("marple -h: exit %d, output %q", code, out)
	}
}

func TestCheck(t *testing.T) {
	code, out, stderr := marple(t, "check", "-i", smokers+"smoking-weighted.mln", "-e", smokers+"smoking-test.db", "-q", "Smokes,Cancer")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Friends(person,person)", "formulas: 2", "ground network: 10 atoms"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestLearnInferEval(t *testing.T) {
	dir := t.TempDir()
	learned := filepath.Join(dir, "learned.mln")
	res := filepath.Join(dir, "test.result")
	for _, method := range []string{"cda-ml", "cda-pl", "mira", "subgradient", "adagrad", "mm"} {
		code, _, stderr := marple(t, "learn", "-i", "testdata/seg.mln", "-o", learned, "-t", "testdata/seg-train.db",
			"-ne", "InField", "-exampleType", "bib", "-method", method, "-sigma", "0.1", "-passes", "3")
		if code != 0 {
			t.Fatalf("%s: learn exit %d: %s", method, code, stderr)
		}
		code, _, stderr = marple(t, "infer", "-i", learned, "-e", "testdata/seg-test.db", "-r", res, "-q", "InField")
		if code != 0 {
			b, _ := os.ReadFile(learned)
			t.Fatalf("%s: infer exit %d: %s\n%s", method, code, stderr, b)
		}
		code, out, stderr := marple(t, "eval", "-r", res, "-t", "testdata/seg-test-truth.db", "-q", "InField")
		if code != 0 {
			t.Fatalf("%s: eval exit %d: %s", method, code, stderr)
		}
		if !strings.Contains(out, "InField") {
			t.Errorf("%s: eval output %q", method, out)
		}
	}
	// The learned model is valid Alchemy: it parses and names the weights.
	b, err := os.ReadFile(learned)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "InField(c,Fauthor,i)") {
		t.Errorf("learned model lacks the + expansion:\n%s", b)
	}
}

func TestEvalJSON(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "r.result")
	os.WriteFile(res, []byte("InField(B3,Fauthor,P0)\nInField(B3,Fauthor,P1)\nInField(B3,Ftitle,P2)\n"), 0o644)
	code, out, stderr := marple(t, "eval", "-r", res, "-t", "testdata/seg-test-truth.db", "-q", "InField", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, `"F1"`) && !strings.Contains(out, `"f1"`) {
		t.Errorf("no F1 in JSON: %s", out)
	}
}

// TestEvalMarginalMissingPred: a marginal result without any atom of a
// scored predicate is refused (it would score the truth's true atoms alone,
// AUC-PR 1); a MAP result without one scores them as false negatives.
func TestEvalMarginalMissingPred(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "m.result")
	os.WriteFile(res, []byte("Smokes(Anna) 0.7\nSmokes(Bob) 0.2\n"), 0o644)
	code, _, stderr := marple(t, "eval", "-r", res, "-t", smokers+"smoking-train.db", "-q", "Cancer")
	if code != 1 || !strings.Contains(stderr, "has no atom of Cancer") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	os.WriteFile(res, []byte("Smokes(Anna)\n"), 0o644)
	code, out, stderr := marple(t, "eval", "-r", res, "-t", smokers+"smoking-train.db", "-q", "Cancer")
	if code != 0 || !strings.Contains(out, "Cancer      2   0   0   2") {
		t.Errorf("MAP result without Cancer: exit %d: %s%s", code, out, stderr)
	}
}

func TestGroundingTooLargeRefused(t *testing.T) {
	res := filepath.Join(t.TempDir(), "out.result")
	code, _, stderr := marple(t, "infer", "-i", "testdata/huge.mln", "-r", res, "-q", "P,Q,R", "-maxMem", "64")
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	if !strings.Contains(stderr, "above the limit") || !strings.Contains(stderr, "huge.mln:6:") {
		t.Errorf("stderr %q", stderr)
	}
	if _, err := os.Stat(res); err == nil {
		t.Error("output written")
	}
}

// TestInventThenInfer: the MLN marple invent writes runs in marple infer
// unchanged, with the membership evidence beside it, and MAP inference makes
// true exactly the atoms whose rule weight is positive (here the planted
// hobbies and skills).
func TestInventThenInfer(t *testing.T) {
	dir := t.TempDir()
	g := mrcgen.Generate(mrcgen.Default)
	decl, train := filepath.Join(dir, "ff.mln"), filepath.Join(dir, "ff.db")
	if err := os.WriteFile(decl, []byte(g.MLN), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(train, []byte(g.DB), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "clusters.mln")
	code, _, stderr := marple(t, "invent", "-i", decl, "-t", train, "-o", out, "-seed", "2")
	if code != 0 {
		t.Fatalf("invent: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "chose lambda") {
		t.Errorf("invent does not print the options it chose: %s", stderr)
	}
	for _, f := range []string{"clusters.db", "clusters.report.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	res := filepath.Join(dir, "out.result")
	code, _, stderr = marple(t, "infer", "-i", out, "-e", filepath.Join(dir, "clusters.db"), "-r", res, "-q", "Hobby0,Skill3")
	if code != 0 {
		t.Fatalf("infer: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(b))
	sort.Strings(got)
	var want []string
	for _, line := range strings.Fields(g.DB) {
		if strings.HasPrefix(line, "Hobby0(") || strings.HasPrefix(line, "Skill3(") {
			want = append(want, line)
		}
	}
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("infer on the invented MLN: got %v, want %v", got, want)
	}
	if code, _, _ := marple(t, "invent", "-i", decl, "-t", train); code != 2 {
		t.Errorf("missing -o: exit %d, want 2", code)
	}
}

// TestExperimentMoved: marple has no experiment command; it says in one
// line where the experiments are and exits 2.
func TestExperimentMoved(t *testing.T) {
	for _, args := range [][]string{{"experiment", "msl", "-datasets", "imdb"}, {"experiment"}, {"help", "experiment"}} {
		code, stdout, stderr := marple(t, args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "marple-experiments") {
			t.Errorf("marple %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	_, stdout, _ := marple(t, "help")
	if strings.Contains(stdout, "experiment") {
		t.Errorf("marple help lists experiment:\n%s", stdout)
	}
}

// TestLazyWhereEagerIsRefused: a grounding the estimate refuses under
// -maxMem runs with -lazy under the same limit, MAP and marginal.
func TestLazyWhereEagerIsRefused(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "out.result")
	args := []string{"infer", "-i", "testdata/lazy.mln", "-e", "testdata/lazy.db", "-r", res, "-q", "Smokes", "-ow", "Friends", "-maxMem", "4"}
	code, _, stderr := marple(t, args...)
	if code != 1 || !strings.Contains(stderr, "above the limit") || !strings.Contains(stderr, "-lazy") {
		t.Fatalf("eager: exit %d, stderr %q; want a refusal naming -lazy", code, stderr)
	}
	code, out, stderr := marple(t, append(args, "-lazy", "-mwsMaxSteps", "10000")...)
	if code != 0 {
		t.Fatalf("lazy: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(res)
	if string(b) != "Smokes(1)\nSmokes(2)\nSmokes(3)\n" || !strings.Contains(out, "lazy MaxWalkSAT") {
		t.Errorf("lazy MAP: %q, stdout %q", b, out)
	}
	code, _, stderr = marple(t, append(args, "-lazy", "-ms", "-numSamples", "20", "-burnIn", "0")...)
	if code != 0 {
		t.Fatalf("lazy MC-SAT: exit %d: %s", code, stderr)
	}
	b, _ = os.ReadFile(res)
	if n := strings.Count(string(b), "\n"); n != 299 {
		t.Errorf("lazy MC-SAT wrote %d lines, want the 299 unknown Smokes atoms", n)
	}
	code, _, stderr = marple(t, append(args, "-lazy", "-bp")...)
	if code != 2 || strings.Count(stderr, "\n") != 1 {
		t.Errorf("-lazy -bp: exit %d, stderr %q; want a one-line usage error", code, stderr)
	}
}

// TestResultsToStdout: -r - writes the results to standard output and the
// command's summary to stderr, so that a pipe receives the results alone.
func TestResultsToStdout(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() { var b bytes.Buffer; b.ReadFrom(r); done <- b.String() }()
	code, summary, stderr := marple(t, "infer", "-i", smokers+"smoking-weighted.mln", "-e", smokers+"smoking-test.db",
		"-r", "-", "-q", "Smokes")
	os.Stdout = old
	w.Close()
	got := <-done
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if summary != "" {
		t.Errorf("summary on stdout: %q", summary)
	}
	if !strings.Contains(stderr, "marple infer:") {
		t.Errorf("no summary on stderr: %q", stderr)
	}
	if !strings.Contains(got, "Smokes(Ivan)\n") || strings.Contains(got, "marple") {
		t.Errorf("standard output: %q", got)
	}
	if _, err := os.Stat("-"); err == nil {
		os.Remove("-")
		t.Error(`a file named "-" was written`)
	}
}

// TestSuggestions: a misspelt command, flag or predicate gets a "did you
// mean" hint, and an unknown predicate in -q exits 1 as docs/commands.md
// says.
func TestSuggestions(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"infr"}, 2, `marple: unknown command "infr" (did you mean infer?)`},
		{[]string{"infer", "-i", smokers + "smoking-weighted.mln", "-r", "out", "-q", "Smokes", "-numSample", "5"}, 2,
			"flag provided but not defined: -numSample (did you mean -numSamples?)"},
		{[]string{"infer", "-i", smokers + "smoking-weighted.mln", "-e", smokers + "smoking-test.db", "-r", filepath.Join(t.TempDir(), "out"), "-q", "Smoke"}, 1,
			`-q: unknown predicate "Smoke" (did you mean Smokes?)`},
	} {
		code, _, stderr := marple(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// TestNewcomerMistakes: swapped -i and -e get a hint; a query over a type
// with no constant (no -e) is refused rather than answered with 0 atoms.
func TestNewcomerMistakes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := marple(t, "infer", "-e", smokers+"smoking-weighted.mln", "-i", smokers+"smoking-test.db", "-r", out, "-q", "Smokes")
	if code != 1 || !strings.Contains(stderr, "swapped? models (.mln) go to -i, evidence (.db) to -e") {
		t.Errorf("swapped: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := marple(t, "infer", "-i", smokers+"smoking-weighted.mln", "-r", out, "-q", "Smokes")
	if code != 1 || !strings.Contains(stderr, "the type person has no constant") || !strings.Contains(stderr, "give the evidence with -e") {
		t.Errorf("no evidence: exit %d: %s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("output written")
	}
}

// TestInferIgnoredFlags: a flag the chosen inference does not use is
// named in a warning, with the inference it belongs to.
func TestInferIgnoredFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	base := []string{"infer", "-i", smokers + "smoking-weighted.mln", "-e", smokers + "smoking-test.db", "-r", out, "-q", "Smokes"}
	for _, c := range []struct {
		extra      []string
		warn, none string
	}{
		{[]string{"-numSamples", "5"}, "-numSamples applies to -ms and -p", ""},
		{[]string{"-burnIn", "3", "-tries", "3"}, "-tries applies to MAP inference with -solver mws", ""},
		{[]string{"-ms", "-tries", "3", "-solver", "lp"}, "-solver applies to MAP inference", ""},
		{[]string{"-solver", "mws", "-tries", "2"}, "", "warning"},
		{[]string{"-ms", "-numSamples", "50", "-maxSteps", "100"}, "", "warning"},
		{[]string{"-bp", "-maxSteps", "10", "-convThresh", "0.001"}, "", "warning"},
	} {
		code, _, stderr := marple(t, append(base, c.extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.extra, code, stderr)
		}
		if c.warn != "" && !strings.Contains(stderr, c.warn) {
			t.Errorf("%v: no warning %q: %s", c.extra, c.warn, stderr)
		}
		if c.none != "" && strings.Contains(stderr, c.none) {
			t.Errorf("%v: unexpected %q: %s", c.extra, c.none, stderr)
		}
	}
}

// TestHeartbeat: a stage without progress of its own is reported while it
// runs, and not after it ends.
func TestHeartbeat(t *testing.T) {
	defer func(d time.Duration) { heartbeatEvery = d }(heartbeatEvery)
	heartbeatEvery = 5 * time.Millisecond
	var mu sync.Mutex
	var buf bytes.Buffer
	p := newProgress(lockedWriter{&mu, &buf}, false)
	stop := p.heartbeat("MAP (exact)", time.Minute)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		mu.Lock()
		n := buf.Len()
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
	}
	stop()
	mu.Lock()
	got := buf.String()
	mu.Unlock()
	if !strings.Contains(got, "marple: MAP (exact): still running, ") || !strings.Contains(got, "-timeLimit 1m0s") {
		t.Fatalf("heartbeat: %q", got)
	}
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if buf.String() != got {
		t.Error("a report after stop")
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// slowMAP is a MAP engine that waits until released.
type slowMAP struct{ release chan struct{} }

func (slowMAP) Name() string { return "slow" }

func (s slowMAP) Solve(ctx context.Context, net *ground.Network, opt infer.Options) (*infer.Result, error) {
	<-s.release
	return &infer.Result{Assign: make([]bool, net.NumAtoms())}, nil
}

// TestWatchedMAP: a learner's MAP solve that runs long is reported while it
// runs, and not after it ends.
func TestWatchedMAP(t *testing.T) {
	defer func(d time.Duration) { heartbeatEvery = d }(heartbeatEvery)
	heartbeatEvery = 5 * time.Millisecond
	var mu sync.Mutex
	var buf bytes.Buffer
	m := watchedMAP{slowMAP{make(chan struct{})}, lockedWriter{&mu, &buf}, "learn"}
	done := make(chan error)
	go func() {
		_, err := m.Solve(context.Background(), &ground.Network{}, infer.Options{})
		done <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		mu.Lock()
		n := buf.Len()
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
	}
	close(m.MAP.(slowMAP).release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := buf.String()
	mu.Unlock()
	if !strings.Contains(got, "marple: learn: MAP (slow) of an example of 0 atoms and 0 clauses still running, ") {
		t.Fatalf("watched MAP: %q", got)
	}
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if buf.String() != got {
		t.Error("a report after the solve ended")
	}
}
