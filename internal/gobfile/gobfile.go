// Package gobfile reads and writes the state files of resumable runs: a
// gob stream that starts with a version tag, so that a file of another
// kind or version is recognised before anything is decoded.
package gobfile

import (
	"encoding/gob"
	"errors"
	"io"
)

// ErrVersion is returned by Read when the stream does not start with the
// expected version tag.
var ErrVersion = errors.New("gobfile: not a stream of this kind and version")

// Write writes the version tag and then each value to w.
func Write(w io.Writer, version string, values ...any) error {
	enc := gob.NewEncoder(w)
	if err := enc.Encode(version); err != nil {
		return err
	}
	for _, v := range values {
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	return nil
}

// Read reads a stream Write wrote with version into values (pointers, in
// the order written). It returns ErrVersion when the tag differs, else
// the first decoding error.
func Read(r io.Reader, version string, values ...any) error {
	dec := gob.NewDecoder(r)
	var tag string
	if err := dec.Decode(&tag); err != nil || tag != version {
		return ErrVersion
	}
	for _, v := range values {
		if err := dec.Decode(v); err != nil {
			return err
		}
	}
	return nil
}
