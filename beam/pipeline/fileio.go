package pipeline

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local paths and globs
	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/mln"
)

// ExpandGlobs expands the glob patterns among paths through Beam's
// filesystems (local patterns as filepath.Glob reads them, gs:// ones as
// the GCS filesystem lists objects, with ** across directories): each
// pattern's matches are sorted, so that the files, and the keys that order
// the examples (file index, position), do not depend on the order in which
// a filesystem lists them; a pattern that matches no file is an error
// naming it. A path without a glob character ('*', '?', '[') is kept as it
// is, and the files keep the order of their patterns; a file named twice
// is kept once, at its first place.
//
// The patterns are expanded by the launcher while it builds the pipeline,
// not by fileio.MatchFiles inside it: the launcher reads and checks every
// data file before a pipeline starts anyway (Data.CheckFiles), so it must
// see the filesystem the workers read; the expanded list is part of the
// pipeline, so every worker and each of the σ tuning's pipelines read the
// same files in the same order (a match at run time could see other
// files); and the examples' keys stay the file's index in the list, as
// for an explicit list, so that a glob and the sorted list of its files
// learn the same model. (A resumed job expands its patterns again: it
// needs the same files.)
func ExpandGlobs(ctx context.Context, paths []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	for _, p := range paths {
		if !strings.ContainsAny(p, "*?[") {
			add(p)
			continue
		}
		fs, err := filesystem.New(ctx, p)
		if err != nil {
			return nil, err
		}
		matches, err := fs.List(ctx, p)
		fs.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("%s: no file matches the pattern", p)
		}
		slices.Sort(matches)
		for _, f := range matches {
			add(f)
		}
	}
	return out, nil
}

// ReadPath reads a data file through Beam's filesystems (a local path, or
// gs://, s3://, ... when the program registers that scheme), as
// mln.ReadInput reads a local one: a gzip file is decompressed, a file
// that is not text (a NUL or other control byte in its first 8 KiB) is
// refused with the position of that byte, and a file larger than
// mln.MaxInputBytes is refused.
func ReadPath(ctx context.Context, path string) ([]byte, error) {
	if !strings.Contains(path, "://") {
		// A named pipe (FIFO): a wait for its writer or its data stops
		// when ctx is done (an interrupt).
		if fi, err := os.Stat(path); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			return mln.ReadInputContext(ctx, path)
		}
	}
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	f, err := fs.OpenRead(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, mln.MaxInputBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if strings.HasSuffix(path, ".gz") || bytes.HasPrefix(src, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, fmt.Errorf("%s: not a gzip file: %v", path, err)
		}
		if src, err = io.ReadAll(io.LimitReader(zr, mln.MaxInputBytes+1)); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
	}
	if int64(len(src)) > mln.MaxInputBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB: too large for a model or evidence file", path, mln.MaxInputBytes>>20)
	}
	line, lineStart := 1, 0
	for i, c := range src[:min(len(src), 8<<10)] {
		switch {
		case c == '\n':
			line++
			lineStart = i + 1
		case c < 0x20 && c != '\t' && c != '\r' && c != '\f' && c != '\v', c == 0x7f:
			return nil, fmt.Errorf("%s:%d:%d: binary data (byte %#02x at offset %d): not a text file", path, line, i-lineStart+1, c, i)
		}
	}
	return src, nil
}

// WritePath writes a file through Beam's filesystems: a local path
// atomically (atomicfile), a path with a scheme (gs://, ...) through the
// filesystem registered for it.
func WritePath(ctx context.Context, path string, write func(io.Writer) error) error {
	if !strings.Contains(path, "://") {
		return atomicfile.Write(path, write)
	}
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	f, err := fs.OpenWrite(ctx, path)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}
