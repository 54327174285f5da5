// Package atomicfile writes output files atomically: the content goes to a
// temporary file in the destination's directory, which is synced to disk
// and renamed over the destination only when everything was written. A
// failed or interrupted run leaves no partial output and no temporary file.
//
// A destination that is a symbolic link is resolved: its target is
// replaced, the link stays. A destination that exists and is not a
// regular file (a FIFO, a device such as /dev/null or /dev/stdout) cannot
// be replaced: it is written directly. The path "-" names standard
// output, written directly too.
//
// The marple command writes its results, models and checkpoints with
// Write; a program using Marple as a library can do the same. A program
// that exits at once on a signal calls RemoveTemps first.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// temps holds the temporary files of the writes in progress.
var temps = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

// RemoveTemps removes the temporary files of the writes in progress. A
// program that exits at once (os.Exit on a second Ctrl-C, say) calls it
// first, so that no temporary file is left behind.
func RemoveTemps() {
	temps.Lock()
	defer temps.Unlock()
	for p := range temps.m {
		os.Remove(p)
		delete(temps.m, p)
	}
}

func track(p string, on bool) {
	temps.Lock()
	defer temps.Unlock()
	if on {
		temps.m[p] = true
	} else {
		delete(temps.m, p)
	}
}

// maxLinks bounds the symbolic links followed to the destination.
const maxLinks = 40

// resolve follows symbolic links from path to the file they name (which
// need not exist yet).
func resolve(path string) (string, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return p, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		p = link
	}
	return "", fmt.Errorf("too many levels of symbolic links")
}

// Write creates path with the content produced by fn. If fn returns an
// error or panics, or writing fails, the destination is left untouched
// and the temporary file is removed. The temporary file and its directory
// are synced before the rename, so that a crash leaves the old or the new
// content, never an empty file.
func Write(path string, fn func(w io.Writer) error) (err error) {
	if path == "-" {
		return writeTo(path, os.Stdout, fn)
	}
	// A path that names a FIFO or a device through a link that resolve
	// cannot follow as a path (/dev/stdout on a pipe is /proc/self/fd/1,
	// whose target reads "pipe:[N]") is written directly: os.Stat follows
	// such links as the kernel does.
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
		return writeDirect(path, path, fn)
	}
	target, err := resolve(path)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		switch {
		case fi.IsDir():
			return fmt.Errorf("cannot write %s: is a directory", path)
		case !fi.Mode().IsRegular():
			return writeDirect(path, target, fn)
		}
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(target)
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	tmp := f.Name()
	track(tmp, true)
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(tmp)
		}
		track(tmp, false)
	}()
	fail := func(err error) error { return fmt.Errorf("cannot write %s: %w", path, err) }
	bw := bufio.NewWriterSize(f, 1<<16)
	if err = fn(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return fail(err)
	}
	if err = f.Chmod(mode); err != nil {
		return fail(err)
	}
	if err = f.Sync(); err != nil {
		return fail(err)
	}
	if err = f.Close(); err != nil {
		return fail(err)
	}
	if err = os.Rename(tmp, target); err != nil {
		return fail(err)
	}
	done = true
	if err = syncDir(dir); err != nil {
		return fail(err)
	}
	return nil
}

// syncDir syncs a directory, so that a rename in it survives a crash
// (file systems that cannot sync directories are not an error).
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}

// writeDirect writes fn's content to target, an existing file that is not
// regular (a FIFO or a device), as it is written.
func writeDirect(path, target string, fn func(w io.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	err = writeTo(path, f, fn)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("cannot write %s: %w", path, cerr)
	}
	return err
}

// writeTo writes fn's content to f, buffered.
func writeTo(path string, f *os.File, fn func(w io.Writer) error) error {
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := fn(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}
