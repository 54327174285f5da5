//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptWhileWaitingForPipe: one interrupt stops marple waiting for
// data from an evidence pipe (exit 1, saying so). (mln's tests cover the
// wait for the pipe's writer.)
func TestInterruptWhileWaitingForPipe(t *testing.T) {
	bin := marpleBinary(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.db")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	cmd := exec.Command(bin, "infer", "-i", "testdata/bad/smokers.mln", "-e", fifo, "-q", "Cancer", "-r", filepath.Join(dir, "out.result"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Connect a writer that sends nothing once marple has the pipe open
	// (its signal handler is then installed).
	var w *os.File
	for deadline := time.Now().Add(30 * time.Second); w == nil && time.Now().Before(deadline); {
		f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			w = f
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if w == nil {
		cmd.Process.Kill()
		t.Fatal("marple never opened the pipe")
	}
	defer w.Close()
	cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("exit: %v, want status 1\n%s", err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "fifo.db: interrupted while waiting for input from the pipe") {
			t.Errorf("stderr:\n%s", stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("one interrupt did not stop marple waiting for the pipe\n%s", stderr.String())
	}
}
