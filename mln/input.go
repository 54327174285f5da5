package mln

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/marple-mln/marple/syntax"
)

// MaxInputBytes bounds the size of one input file (.mln or .db, after
// decompression): a larger or endless input (/dev/zero, a pipe that never
// ends) is refused instead of exhausting memory.
var MaxInputBytes int64 = 1 << 30

// MaxModelBytes bounds the size of one .mln file: the parser holds its
// tokens in memory, about ten times the text.
var MaxModelBytes int64 = 100 << 20

// binaryPeek is how much of a file is looked at to refuse binary data
// before reading the rest.
const binaryPeek = 8 << 10

// ReadInput reads a text input file (a model, evidence, truth, result,
// mode declarations or templates file) for the loaders: a file whose
// name ends in ".gz", or that starts with gzip's magic bytes, is
// decompressed; a file that is not text (a NUL or other control byte in
// its first 8 KiB) is refused at once with the position of that byte;
// a file larger than MaxInputBytes is refused.
func ReadInput(path string) ([]byte, error) {
	return readInput(path, MaxInputBytes)
}

// ReadInputContext is ReadInput reading a named pipe (a FIFO) until ctx
// is done: the wait for the pipe's writer, or for its data, stops at
// once with an error wrapping ctx's.
func ReadInputContext(ctx context.Context, path string) ([]byte, error) {
	return readInputContext(ctx, path, MaxInputBytes)
}

// inputCtx is the context SetInputContext gives.
var inputCtx atomic.Pointer[context.Context]

// SetInputContext makes ReadInput, LoadModel, LoadDatabase and the other
// readers of input files read named pipes (FIFOs) as ReadInputContext
// does with ctx: a program sets the context its interrupt cancels, so
// that the interrupt also stops a wait for a pipe that nothing writes.
func SetInputContext(ctx context.Context) { inputCtx.Store(&ctx) }

// readInput is ReadInput with the size bound max.
func readInput(path string, max int64) ([]byte, error) {
	ctx := context.Background()
	if c := inputCtx.Load(); c != nil {
		ctx = *c
	}
	return readInputContext(ctx, path, max)
}

func readInputContext(ctx context.Context, path string, max int64) ([]byte, error) {
	if ctx.Done() != nil {
		if fi, err := os.Stat(path); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			return readPipe(ctx, path, max)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readFile(f, path, max)
}

// readPipe reads the named pipe path until ctx is done. Opening a pipe
// waits for its writer, and reading it for the writer's data, which
// nothing else interrupts: both run in a goroutine, released when ctx is
// done by a deadline on the read or by opening (and closing at once) the
// pipe's write end, which ends the wait of the open.
func readPipe(ctx context.Context, path string, max int64) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	var (
		mu      sync.Mutex
		file    *os.File
		stopped bool
	)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			done <- result{nil, err}
			return
		}
		defer f.Close()
		mu.Lock()
		file = f
		if stopped {
			f.SetReadDeadline(time.Now())
		}
		mu.Unlock()
		b, err := readFile(f, path, max)
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-ctx.Done():
	}
	mu.Lock()
	stopped = true
	opened := file != nil
	if opened {
		file.SetReadDeadline(time.Now())
	}
	mu.Unlock()
	if !opened {
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	}
	return nil, &pipeInterrupted{path, ctx.Err()}
}

// pipeInterrupted is the error of a read of a pipe stopped by its
// context: it wraps the context's error.
type pipeInterrupted struct {
	path string
	err  error
}

func (e *pipeInterrupted) Error() string {
	return e.path + ": interrupted while waiting for input from the pipe"
}

func (e *pipeInterrupted) Unwrap() error { return e.err }

// readFile reads the open file f, called path, with the size bound max.
func readFile(f *os.File, path string, max int64) ([]byte, error) {
	br := bufio.NewReaderSize(f, binaryPeek)
	var r io.Reader = br
	size := int64(0) // the expected size, to read without growing the buffer
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = min(fi.Size(), max)
	}
	if magic, _ := br.Peek(2); strings.HasSuffix(path, ".gz") || bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		size = 0
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: not a gzip file: %v", path, err)
		}
		defer zr.Close()
		r = zr
	}
	head := make([]byte, binaryPeek)
	n, err := io.ReadFull(r, head)
	head = head[:n]
	if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if e := binaryError(path, head); e != nil {
		return nil, e
	}
	if err != nil { // the whole file is in head
		return head, nil
	}
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead)
	buf.Write(head)
	m, err := buf.ReadFrom(io.LimitReader(r, max-int64(n)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if int64(n)+m > max {
		return nil, fmt.Errorf("%s: larger than %d MiB: too large for a model or evidence file", path, max>>20)
	}
	return buf.Bytes(), nil
}

// binaryError returns an error at the first byte of head that no text
// file holds (a NUL, or a control character other than tab, line ends and
// form feeds), or nil.
func binaryError(path string, head []byte) error {
	line, lineStart := 1, 0
	for i, c := range head {
		switch {
		case c == '\n':
			line++
			lineStart = i + 1
		case c < 0x20 && c != '\t' && c != '\r' && c != '\f' && c != '\v', c == 0x7f:
			return syntax.Errorf(syntax.Pos{File: path, Line: line, Col: i - lineStart + 1},
				"binary data (byte %#02x at offset %d): not a text file", c, i)
		}
	}
	return nil
}
