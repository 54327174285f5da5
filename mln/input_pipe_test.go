//go:build unix

package mln

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mkfifo makes a named pipe in a temporary directory, or skips.
func mkfifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pipe.db")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// readCancelled reads path with read after cancelling its context once the
// read waits, and returns the error (failing if the read does not stop).
func readCancelled(t *testing.T, read func(ctx context.Context) error) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- read(ctx) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("the read of the pipe did not stop when its context was cancelled")
	}
	return nil
}

// TestReadPipeCancelled: a wait for a pipe's writer, or for its writer's
// data, stops when the context is cancelled.
func TestReadPipeCancelled(t *testing.T) {
	p := mkfifo(t)
	err := readCancelled(t, func(ctx context.Context) error {
		_, err := ReadInputContext(ctx, p)
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("no writer: %v, want an error wrapping context.Canceled", err)
	}

	// A writer that connects and sends nothing.
	p = mkfifo(t)
	opened := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err == nil {
			opened <- w
		}
	}()
	err = readCancelled(t, func(ctx context.Context) error {
		_, err := ReadInputContext(ctx, p)
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("silent writer: %v, want an error wrapping context.Canceled", err)
	}
	select {
	case w := <-opened:
		w.Close()
	case <-time.After(20 * time.Second):
		t.Error("the writer never connected")
	}

	// The loaders follow SetInputContext.
	p = mkfifo(t)
	m, err := ParseModel("m.mln", "P(t)\n")
	if err != nil {
		t.Fatal(err)
	}
	defer SetInputContext(context.Background())
	err = readCancelled(t, func(ctx context.Context) error {
		SetInputContext(ctx)
		_, err := LoadDatabase(m, p)
		return err
	})
	if err == nil || !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "interrupted while waiting for input") {
		t.Errorf("LoadDatabase: %v", err)
	}
}

// TestReadPipe: a pipe's data is read whole under a context.
func TestReadPipe(t *testing.T) {
	p := mkfifo(t)
	go func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write([]byte("P(A)\n"))
		w.Close()
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, err := ReadInputContext(ctx, p)
	if err != nil || string(b) != "P(A)\n" {
		t.Errorf("got %q, %v", b, err)
	}
}
