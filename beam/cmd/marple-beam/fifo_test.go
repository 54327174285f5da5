//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptWhileWaitingForPipe: one interrupt or SIGTERM stops
// marple-beam waiting for a training pipe that nothing writes to, before
// a pipeline starts (exit 1, "interrupted").
func TestInterruptWhileWaitingForPipe(t *testing.T) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		dir := t.TempDir()
		fifo := filepath.Join(dir, "fifo.db")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		cmd, stderr := marpleBeam(t, "learn", "-i", "smokers.mln", "-t", fifo, "-ne", "Cancer", "-multipleDatabases", "-o", filepath.Join(dir, "out.mln"))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// A writer that sends nothing connects once marple-beam has the
		// pipe open (its signal handler is then installed).
		var w *os.File
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w = f
				break
			}
		}
		if w == nil {
			cmd.Process.Kill()
			t.Fatal("marple-beam never opened the pipe")
		}
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if code := exitCode(t, err); code != 1 || !strings.HasSuffix(strings.TrimSpace(stderr.String()), "marple-beam learn: interrupted") {
				t.Errorf("%v: exit %d, stderr:\n%s", sig, code, stderr)
			}
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Errorf("%v did not stop marple-beam waiting for the pipe", sig)
		}
		w.Close()
	}
}
