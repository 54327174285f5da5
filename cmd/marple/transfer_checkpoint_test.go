package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/marple-mln/marple/internal/testenv"
	"github.com/marple-mln/marple/internal/testkit/plantdb"
)

// TestTransferTemplatesKillResume builds marple, runs transfer-templates
// uninterrupted, then kills runs with -checkpoint by SIGKILL at seeded
// random points within the uninterrupted run's duration, resumes them
// with -resume (killing the resumed runs too, at first) and requires the
// output byte-identical to the uninterrupted run's.
func TestTransferTemplatesKillResume(t *testing.T) {
	if testenv.Short() {
		t.Skip("builds marple and runs transfer-templates many times")
	}
	dir := t.TempDir()
	bin := marpleBinary(t)
	decl, atoms := plantdb.Generate(plantdb.Config{N: 16, Density: 0.15, Noise2: 10, Seed: 3})
	mlnFile, dbFile := filepath.Join(dir, "src.mln"), filepath.Join(dir, "src.db")
	if err := os.WriteFile(mlnFile, []byte(decl), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dbFile, []byte(atoms), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(out string, extra ...string) []string {
		return append([]string{"transfer-templates", "-i", mlnFile, "-t", dbFile, "-o", out, "-maxOuter", "6", "-seed", "4"}, extra...)
	}
	run := func(args []string) (string, error) {
		var stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stderr = &stderr
		err := cmd.Run()
		return stderr.String(), err
	}

	whole := filepath.Join(dir, "whole.txt")
	t0 := time.Now()
	if stderr, err := run(args(whole, "-workers", "2")); err != nil {
		t.Fatalf("uninterrupted run: %v: %s", err, stderr)
	}
	dur := time.Since(t0)
	want, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}

	rng := rand.New(rand.NewPCG(7, 11))
	// start runs args until it exits or is killed after a random delay
	// within the uninterrupted run's duration; it reports whether the
	// run was killed.
	start := func(args []string) bool {
		cmd := exec.Command(bin, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			return false
		case <-time.After(time.Duration(rng.Float64() * float64(dur))):
			cmd.Process.Kill()
			<-exited
			return true
		}
	}
	for trial := 0; trial < 4; trial++ {
		out := filepath.Join(dir, "killed.txt")
		ckpt := out + ".checkpoint"
		os.Remove(out)
		os.Remove(ckpt)
		workers := []string{"-workers", []string{"1", "2", "3"}[trial%3]}
		killed := start(args(out, append(workers, "-checkpoint", "-checkpointEvery", "0")...))
		kills := 0
		for killed {
			kills++
			extra := append(workers, "-checkpoint", "-checkpointEvery", "0")
			if _, err := os.Stat(ckpt); err == nil {
				extra = append(extra, "-resume")
			}
			if kills < 3 {
				killed = start(args(out, extra...))
			} else {
				if stderr, err := run(args(out, extra...)); err != nil {
					t.Fatalf("%v: %v: %s", extra, err, stderr)
				}
				killed = false
			}
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("trial %d: after %d kills, the output differs from the uninterrupted run's:\n%s\n----\n%s", trial, kills, got, want)
		}
		if _, err := os.Stat(ckpt); err == nil {
			t.Errorf("trial %d: %s left after a successful run", trial, ckpt)
		}
		t.Logf("trial %d: killed %d times, output identical", trial, kills)
	}

	// -resume without a state file, or with other flags, is refused.
	out := filepath.Join(dir, "other.txt")
	if stderr, err := run(args(out, "-resume")); err == nil || !strings.Contains(stderr, "other.txt.checkpoint") {
		t.Errorf("-resume without a checkpoint: %v, %q", err, stderr)
	}
	for !start(args(out, "-checkpoint", "-checkpointEvery", "0", "-workers", "1")) {
		os.Remove(out)
		dur /= 2
	}
	if _, err := os.Stat(out + ".checkpoint"); err == nil {
		stderr, err := run(args(out, "-resume", "-seed", "5"))
		if err == nil || !strings.Contains(stderr, "-seed") {
			t.Errorf("-resume with another seed: %v, %q; want an error naming -seed", err, stderr)
		}
	}
}
