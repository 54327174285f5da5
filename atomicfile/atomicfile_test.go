package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := Write(p, func(w io.Writer) error { _, err := io.WriteString(w, "hello\n"); return err }); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "hello\n" {
		t.Fatalf("got %q, %v", b, err)
	}
}

func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	boom := errors.New("boom")
	err := Write(p, func(w io.Writer) error { io.WriteString(w, "partial"); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("left files behind: %v", entries)
	}
}

func TestWriteFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	os.WriteFile(p, []byte("old"), 0o644)
	Write(p, func(w io.Writer) error { return errors.New("x") })
	b, _ := os.ReadFile(p)
	if string(b) != "old" {
		t.Fatalf("old content replaced: %q", b)
	}
}

func writeString(s string) func(w io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.txt")
	os.WriteFile(target, []byte("old"), 0o600)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("target.txt", link); err != nil {
		t.Skip(err)
	}
	if err := Write(link, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	b, _ := os.ReadFile(target)
	if string(b) != "new" {
		t.Fatalf("target holds %q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("target's mode changed to %v", fi.Mode())
	}
	// A dangling link: its target is created.
	dangling := filepath.Join(dir, "dangling.txt")
	os.Symlink("sub/../absent.txt", dangling)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if err := Write(dangling, writeString("x")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "absent.txt")); err != nil || string(b) != "x" {
		t.Fatalf("dangling link's target: %q, %v", b, err)
	}
}

func TestWriteFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := Write(fifo, writeString("through the pipe\n")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe\n" {
		t.Fatalf("read %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v", fi.Mode())
	}
}

func TestWriteDevice(t *testing.T) {
	if _, err := os.Stat(os.DevNull); err != nil {
		t.Skip(err)
	}
	if err := Write(os.DevNull, writeString("discarded")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(os.DevNull)
	if err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Fatalf("%s is no longer a device: %v", os.DevNull, fi.Mode())
	}
	// A device that fails every write (/dev/full): an error, the device stays.
	if _, err := os.Stat("/dev/full"); err == nil {
		if err := Write("/dev/full", writeString("x")); err == nil {
			t.Error("writing /dev/full succeeded")
		}
		if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&os.ModeDevice == 0 {
			t.Fatalf("/dev/full is no longer a device")
		}
	}
}

func TestWritePanicLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	func() {
		defer func() { recover() }()
		Write(p, func(w io.Writer) error { io.WriteString(w, "partial"); panic("boom") })
	}()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left files behind: %v", entries)
	}
}

func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	writing, release := make(chan bool), make(chan bool)
	errc := make(chan error)
	go func() {
		errc <- Write(p, func(w io.Writer) error {
			io.WriteString(w, "partial")
			writing <- true
			<-release
			return errors.New("interrupted")
		})
	}()
	<-writing
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("expected one temporary file, found %v", entries)
	}
	RemoveTemps() // what a program exiting at once does
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("RemoveTemps left %v", entries)
	}
	close(release)
	<-errc
}

func TestWriteDirectory(t *testing.T) {
	if err := Write(t.TempDir(), writeString("x")); err == nil {
		t.Fatal("writing over a directory succeeded")
	}
}

// TestWritePipeLink writes to /proc/self/fd/N of a pipe, which is what
// /dev/stdout is when standard output is a pipe: the link's target reads
// "pipe:[N]", not a path, and the file is written directly.
func TestWritePipeLink(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := fmt.Sprintf("/proc/self/fd/%d", w.Fd())
	if _, err := os.Stat(p); err != nil {
		w.Close()
		t.Skip("no /proc/self/fd:", err)
	}
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	err = Write(p, writeString("through the pipe\n"))
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got := string(<-done); got != "through the pipe\n" {
		t.Fatalf("read %q", got)
	}
	entries, _ := os.ReadDir("/proc/self/fd")
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Fatalf("temporary file left: %s", e.Name())
		}
	}
}

// TestWriteDash writes "-" to standard output.
func TestWriteDash(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	old := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	err = Write("-", writeString("to stdout\n"))
	os.Stdout = old
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got := string(<-done); got != "to stdout\n" {
		t.Fatalf("read %q", got)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Fatal(`a file named "-" was created`)
	}
}
