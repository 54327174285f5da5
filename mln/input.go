package mln

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

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

// readInput is ReadInput with the size bound max.
func readInput(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
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
