// Package gobfile reads and writes the state files of resumable runs: a
// gob stream that starts with a version tag, so that a file of another
// kind or version is recognised before anything is decoded.
package gobfile

import (
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
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

// ReadKind is Read for a state file of the named kind (e.g. "learning
// checkpoint"), with the errors a user reads: "not a marple <kind>" when
// the tag differs, "damaged <kind>: ..." when decoding fails.
func ReadKind(r io.Reader, version, kind string, values ...any) error {
	switch err := Read(r, version, values...); {
	case errors.Is(err, ErrVersion):
		return fmt.Errorf("not a marple %s", kind)
	case err != nil:
		return fmt.Errorf("damaged %s: %w", kind, err)
	}
	return nil
}

// ReadKindFile is ReadKind on the file path, its errors prefixed by path.
func ReadKindFile(path, version, kind string, values ...any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := ReadKind(f, version, kind, values...); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// SameFlags checks that the run that saved the state file path, with the
// settings saved, is the one with the settings want: it names the first
// setting (by name, in order; prefix, e.g. "-", before it) whose values
// differ.
func SameFlags(path, prefix string, want, saved map[string]string) error {
	names := make([]string, 0, len(want)+len(saved))
	for k := range want {
		names = append(names, k)
	}
	for k := range saved {
		if _, ok := want[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		if want[k] != saved[k] {
			return fmt.Errorf("%s: saved by a run with %s%s %q, not %q: give the same flags to resume", path, prefix, k, saved[k], want[k])
		}
	}
	return nil
}
