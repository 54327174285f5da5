package pipeline

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local paths and globs
	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/mln"
)

// ReadPath reads a data file through Beam's filesystems (a local path, or
// gs://, s3://, ... when the program registers that scheme), as
// mln.ReadInput reads a local one: a gzip file is decompressed, a file
// that is not text (a NUL or other control byte in its first 8 KiB) is
// refused with the position of that byte, and a file larger than
// mln.MaxInputBytes is refused.
func ReadPath(ctx context.Context, path string) ([]byte, error) {
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
