package main

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/marple-mln/marple/internal/testenv"
	"github.com/marple-mln/marple/internal/testkit/mrcgen"
)

// TestInventCheckpointKill kills invent -checkpoint with SIGKILL at random
// points (tuning included), resumes it with -resume until it finishes, and
// checks that the three outputs equal an uninterrupted run's byte for byte.
func TestInventCheckpointKill(t *testing.T) {
	if testenv.Short() {
		t.Skip("runs invent several times")
	}
	dir := t.TempDir()
	bin := marpleBinary(t)
	g := mrcgen.Generate(mrcgen.Config{Friends: 4, Teams: 3, PerCell: 3, Hobbies: 3, Skills: 3, Noise: 0.05, Seed: 7})
	decls, train := filepath.Join(dir, "decls.mln"), filepath.Join(dir, "train.db")
	if err := os.WriteFile(decls, []byte(g.MLN), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(train, []byte(g.DB), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := func(out string, extra ...string) *exec.Cmd {
		args := append([]string{"invent", "-i", decls, "-t", train, "-o", out, "-restarts", "6", "-seed", "3"}, extra...)
		c := exec.Command(bin, args...)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		return c
	}
	outputs := func(base string) []string {
		var s []string
		for _, ext := range []string{".mln", ".db", ".report.txt"} {
			b, err := os.ReadFile(base + ext)
			if err != nil {
				t.Fatal(err)
			}
			s = append(s, string(b))
		}
		return s
	}
	start := time.Now()
	if c := cmd(filepath.Join(dir, "whole.mln")); c.Run() != nil {
		t.Fatalf("invent: %s", c.Stderr)
	}
	whole := outputs(filepath.Join(dir, "whole"))
	dur := time.Since(start)

	r := rand.New(rand.NewPCG(11, 12))
	kills := 0
	for run := 0; run < 2; run++ {
		base := filepath.Join(dir, "killed"+string(rune('a'+run)))
		ckpt := base + ".mln.checkpoint"
		for attempt := 0; ; attempt++ {
			extra := []string{"-checkpoint", "-checkpointEvery", "1ns"}
			if _, err := os.Stat(ckpt); err == nil {
				extra = append(extra, "-resume")
			}
			c := cmd(base+".mln", extra...)
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			if attempt >= 2 { // let it finish
				if err := c.Wait(); err != nil {
					t.Fatalf("run %d: %v\n%s", run, err, c.Stderr)
				}
				break
			}
			timer := time.AfterFunc(time.Duration(r.Float64()*float64(dur)), func() { c.Process.Kill() })
			err := c.Wait()
			timer.Stop()
			var ee *exec.ExitError
			if err == nil {
				break
			}
			if !errors.As(err, &ee) || ee.ExitCode() != -1 {
				t.Fatalf("run %d attempt %d: %v\n%s", run, attempt, err, c.Stderr)
			}
			kills++
		}
		got := outputs(base)
		for i, ext := range []string{".mln", ".db", ".report.txt"} {
			if got[i] != whole[i] {
				t.Errorf("run %d: killed and resumed %s differs from the uninterrupted run's", run, ext)
			}
		}
		if _, err := os.Stat(ckpt); err == nil {
			t.Errorf("run %d: the checkpoint is left after the run finished", run)
		}
	}
	t.Logf("uninterrupted run %v; %d kills", dur, kills)

	// A checkpoint of a run with other flags, or garbage, is refused.
	out := filepath.Join(dir, "other.mln")
	c := cmd(out, "-checkpoint", "-checkpointEvery", "1ns")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	os.WriteFile(out+".checkpoint", nil, 0o644)
	c = cmd(out, "-resume", "-seed", "4")
	if err := c.Run(); err == nil || !strings.Contains(c.Stderr.(*bytes.Buffer).String(), "checkpoint") {
		t.Errorf("garbage checkpoint: %v, %s", err, c.Stderr)
	}
	os.Remove(out + ".checkpoint")
	c = cmd(out, "-resume")
	if err := c.Run(); err == nil {
		t.Error("-resume without a checkpoint succeeded")
	}
}
