package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/marple-mln/marple/mln"
)

// TestSecondInterruptExits: the first interrupt cancels the context, the
// second exits at once with status 130.
func TestSecondInterruptExits(t *testing.T) {
	sig := make(chan os.Signal, 2)
	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan int, 1)
	var stderr bytes.Buffer
	go watchSignals(sig, cancel, &stderr, func(code int) { exited <- code })
	sig <- syscall.SIGTERM
	select {
	case <-ctx.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("the first interrupt did not cancel the context within 2 s")
	}
	select {
	case code := <-exited:
		t.Fatalf("exited (%d) on the first interrupt", code)
	default:
	}
	sig <- os.Interrupt
	select {
	case code := <-exited:
		if code != 130 {
			t.Errorf("exit status %d, want 130", code)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the second interrupt did not exit within 2 s")
	}
}

// TestCheckpointBeforeAnyExample: an interruption before any example was
// learned leaves an existing -o untouched, and says so.
func TestCheckpointBeforeAnyExample(t *testing.T) {
	out := filepath.Join(t.TempDir(), "learned.mln")
	os.WriteFile(out, []byte("// earlier weights\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Ctrl-C at once
	var stdout, stderr bytes.Buffer
	for _, method := range []string{"cda-ml", "pll", "dcll"} {
		stderr.Reset()
		code := run(ctx, &env{stdout: &stdout, stderr: &stderr}, []string{"learn", "-i", "testdata/bad/smokers.mln",
			"-t", "testdata/bad/train.db", "-ne", "Cancer", "-o", out, "-checkpoint", "-method", method})
		if code != 1 {
			t.Fatalf("%s: exit %d: %s", method, code, stderr.String())
		}
		if b, _ := os.ReadFile(out); string(b) != "// earlier weights\n" {
			t.Fatalf("%s: -o was overwritten:\n%s", method, b)
		}
		if !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("%s: stderr: %s", method, stderr.String())
		}
	}
}

// TestWriteCheckpoint: the weights are written after an interruption only
// when at least one step was learned, saying how many.
func TestWriteCheckpoint(t *testing.T) {
	m, err := mln.LoadModel("testdata/bad/smokers.mln")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "learned.mln")
	os.WriteFile(out, []byte("old"), 0o644)
	var stderr bytes.Buffer
	if err := writeCheckpoint(&stderr, "learn", out, m, 0, "example"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "old" || !strings.Contains(stderr.String(), "interrupted before any example was learned; "+out+" left untouched") {
		t.Fatalf("zero steps: file %q, stderr %q", b, stderr.String())
	}
	stderr.Reset()
	if err := writeCheckpoint(&stderr, "learn", out, m, 3, "example"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) == "old" || !strings.Contains(stderr.String(), "interrupted after 3 examples") {
		t.Fatalf("three steps: file %q, stderr %q", b, stderr.String())
	}
}
