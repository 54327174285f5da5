package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/marple-mln/marple/internal/testenv"
)

// TestMain runs marple itself when the test binary is started as a child
// by TestLearnCheckpointKill, and removes the binary marpleBinary built.
func TestMain(m *testing.M) {
	if os.Getenv("MARPLE_TEST_MAIN") == "1" {
		main()
	}
	code := m.Run()
	removeBinary()
	os.Exit(code)
}

// TestLearnCheckpointKill kills learn -checkpoint with SIGKILL in the middle
// of training, resumes it with -resume, and checks that the model equals
// the one of an uninterrupted run.
func TestLearnCheckpointKill(t *testing.T) {
	if testenv.Short() {
		t.Skip("runs learning three times")
	}
	dir := t.TempDir()
	// 80 citations in the shape of testdata/seg-train.db.
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	words := []string{"Tsmith", "Tj", "Tlearning", "Tmarkov", "Tjones", "Tlogic"}
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&b, "Next(P%d,P%d)\n", i+1, i)
	}
	for c := 0; c < 80; c++ {
		n := 3 + r.IntN(4)
		split := 1 + r.IntN(n-1)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "Token(%s,P%d,B%d)\n", words[r.IntN(len(words))], i, c)
			if r.IntN(3) == 0 {
				fmt.Fprintf(&b, "HasPunc(B%d,P%d)\n", c, i)
			}
			fmt.Fprintf(&b, "InField(B%d,%s,P%d)\n", c, map[bool]string{true: "Fauthor", false: "Ftitle"}[i < split], i)
		}
	}
	train := filepath.Join(dir, "train.db")
	if err := os.WriteFile(train, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(out string, extra ...string) []string {
		return append([]string{"learn", "-i", "testdata/seg.mln", "-o", out, "-t", train, "-ne", "InField",
			"-method", "adagrad", "-passes", "12", "-shuffle", "-seed", "5", "-exampleType", "bib"}, extra...)
	}
	whole := filepath.Join(dir, "whole.mln")
	if code, _, stderr := marple(t, args(whole)...); code != 0 {
		t.Fatalf("learn: exit %d: %s", code, stderr)
	}

	out := filepath.Join(dir, "killed.mln")
	ckpt := out + ".checkpoint"
	cmd := exec.Command(os.Args[0], args(out, "-checkpoint", "-checkpointEvery", "50")...)
	cmd.Env = append(os.Environ(), "MARPLE_TEST_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(ckpt); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no checkpoint after a minute")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	cmd.Process.Kill() // SIGKILL
	cmd.Wait()
	if _, err := os.Stat(out); err == nil {
		t.Skip("the run finished before it was killed")
	}
	code, _, stderr := marple(t, args(out, "-checkpoint", "-checkpointEvery", "50", "-resume")...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "resuming after") {
		t.Errorf("stderr %q", stderr)
	}
	w, _ := os.ReadFile(whole)
	k, _ := os.ReadFile(out)
	if string(w) != string(k) {
		t.Errorf("killed and resumed run differs from the uninterrupted one:\n%s\n---\n%s", k, w)
	}
	if _, err := os.Stat(ckpt); err == nil {
		t.Error("the checkpoint is left after the run finished")
	}
	// Resuming another run's checkpoint is refused.
	os.WriteFile(ckpt, []byte("garbage"), 0o644)
	if code, _, stderr := marple(t, args(out, "-resume")...); code != 1 || !strings.Contains(stderr, "checkpoint") {
		t.Errorf("garbage checkpoint: exit %d, %s", code, stderr)
	}
}
