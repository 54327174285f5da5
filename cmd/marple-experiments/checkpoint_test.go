package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/marple-mln/marple/internal/testenv"
)

// buildBinary builds marple-experiments into a temporary folder, or skips
// the test when there is no go tool.
func buildBinary(t *testing.T) string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go tool to build marple-experiments")
		}
	}
	bin := filepath.Join(t.TempDir(), "marple-experiments")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// maskTimes blanks the columns of Markdown tables that hold measured
// times or rates, the only numbers of a results file that differ between
// two uninterrupted runs.
func maskTimes(s string) string {
	var out []string
	var timed []bool
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, "|") {
			timed = nil
			out = append(out, line)
			continue
		}
		cells := strings.Split(line, "|")
		if timed == nil {
			timed = make([]bool, len(cells))
			for i, c := range cells {
				timed[i] = strings.Contains(c, " s/") || strings.Contains(c, "/s") || strings.HasSuffix(strings.TrimSpace(c), " s")
			}
		}
		for i := range cells {
			if i < len(timed) && timed[i] && !strings.HasPrefix(strings.TrimSpace(cells[i]), "---") {
				cells[i] = " t "
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return strings.Join(out, "\n")
}

// TestExperimentCheckpointKill kills the msl experiment on the tiny IMDB
// data with SIGKILL at seeded random points, resumes it with -resume until
// it finishes, and checks that msl.md equals the uninterrupted run's but
// for the measured times.
func TestExperimentCheckpointKill(t *testing.T) {
	if testenv.Short() {
		t.Skip("builds marple-experiments and runs an experiment many times")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	args := func(out string, extra ...string) []string {
		return append([]string{"msl", "-data", tinyMSL, "-out", out, "-datasets", "imdb", "-rows", "weights-unit,beam-unit",
			"-samples", "50", "-maxNumPredicates", "2", "-maxVars", "2"}, extra...)
	}
	run := func(args []string) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(bin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &stderr
	}
	whole := filepath.Join(dir, "whole")
	t0 := time.Now()
	cmd, stderr := run(args(whole))
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	took := time.Since(t0)
	want, err := os.ReadFile(filepath.Join(whole, "msl.md"))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 8))
	reused := 0
	for point := 0; point < 2; point++ {
		out := filepath.Join(dir, "killed")
		os.RemoveAll(out)
		ckpt := filepath.Join(out, "msl.checkpoint")
		for try := 0; ; try++ {
			extra := []string{"-checkpoint"}
			if _, err := os.Stat(ckpt); err == nil {
				extra = append(extra, "-resume")
			}
			cmd, stderr := run(args(out, extra...))
			if try < 3 {
				timer := time.AfterFunc(time.Duration(r.Float64()*float64(took)), func() { cmd.Process.Kill() })
				err := cmd.Wait()
				timer.Stop()
				if err == nil {
					if strings.Contains(stderr.String(), "taken from the checkpoint") {
						reused++
					}
					break
				}
				continue
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("%v: %s", err, stderr)
			}
			if strings.Contains(stderr.String(), "taken from the checkpoint") {
				reused++
			}
			break
		}
		got, err := os.ReadFile(filepath.Join(out, "msl.md"))
		if err != nil {
			t.Fatal(err)
		}
		// The command line shown names the folder: compare with the
		// uninterrupted run's.
		g := strings.ReplaceAll(string(got), out, whole)
		if maskTimes(g) != maskTimes(string(want)) {
			t.Errorf("killed and resumed run differs from the uninterrupted one:\n%s\n---\n%s", got, want)
		}
		if _, err := os.Stat(ckpt); err == nil {
			t.Error("the checkpoint is left after the run finished")
		}
	}
	t.Logf("%d finished runs took units from the checkpoint", reused)

	// -resume without a checkpoint; a checkpoint of other flags.
	out := filepath.Join(dir, "errors")
	if code, _, stderr := harness(t, args(out, "-resume")...); code != 1 || !strings.Contains(stderr, "no checkpoint") {
		t.Errorf("-resume without a checkpoint: exit %d, %s", code, stderr)
	}
	cmd, _ = run(args(out, "-checkpoint"))
	ckpt := filepath.Join(out, "msl.checkpoint")
	for {
		if _, err := os.Stat(ckpt); err == nil {
			cmd.Process.Kill()
			break
		}
		time.Sleep(time.Millisecond)
		if _, err := os.Stat(filepath.Join(out, "msl.md")); err == nil {
			break
		}
	}
	cmd.Wait()
	if _, err := os.Stat(ckpt); err != nil {
		t.Skip("the run finished before its checkpoint could be used")
	}
	if code, _, stderr := harness(t, args(out, "-resume", "-samples", "60")...); code != 1 || !strings.Contains(stderr, "-samples") {
		t.Errorf("other flags: exit %d, %s", code, stderr)
	}
	os.WriteFile(ckpt, []byte("garbage"), 0o644)
	if code, _, stderr := harness(t, args(out, "-resume")...); code != 1 || !strings.Contains(stderr, "checkpoint") {
		t.Errorf("garbage checkpoint: exit %d, %s", code, stderr)
	}
}
