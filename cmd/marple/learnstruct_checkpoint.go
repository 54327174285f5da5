package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/internal/gobfile"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/structure"
)

// structCheckpoint is the state file of learnstruct -checkpoint
// (OUT.checkpoint): the flags and input files of the run, and the state of
// its search (of its validation phases, when Validated).
type structCheckpoint struct {
	Flags     map[string]string
	Inputs    []structInput
	Validated bool
	State     structure.ValidatedState
}

// structInput is an input file of a run and the SHA-256 of its contents.
type structInput struct {
	Path, Sum string
}

// structFingerprint returns the flags that shape the result (all but
// -checkpoint, -resume, -v and -workers) and the input files' digests.
func structFingerprint(fset *flag.FlagSet, files []string) (map[string]string, []structInput, error) {
	flags := map[string]string{}
	fset.VisitAll(func(f *flag.Flag) {
		switch f.Name {
		case "checkpoint", "resume", "v", "workers":
			return
		}
		flags[f.Name] = f.Value.String()
	})
	var in []structInput
	for _, f := range files {
		text, err := mln.ReadInput(f)
		if err != nil {
			return nil, nil, err
		}
		sum := sha256.Sum256(text)
		in = append(in, structInput{Path: f, Sum: hex.EncodeToString(sum[:])})
	}
	return flags, in, nil
}

// writeStructCheckpoint writes c to path atomically.
func writeStructCheckpoint(path string, c *structCheckpoint) error {
	return atomicfile.Write(path, func(w io.Writer) error { return structure.WriteState(w, c) })
}

// readStructCheckpoint reads the state file at path and checks that it is
// one of a run with these flags and inputs.
func readStructCheckpoint(path string, flags map[string]string, in []structInput, validated bool) (*structCheckpoint, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("-resume: no checkpoint %s to resume from", path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c := &structCheckpoint{}
	if err := structure.ReadState(f, c); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if err := sameRun(path, flags, in, c.Flags, c.Inputs); err != nil {
		return nil, err
	}
	if c.Validated != validated {
		return nil, fmt.Errorf("%s: not a checkpoint of this kind of run", path)
	}
	return c, nil
}

// sameRun checks that the run that saved the state file path, with flags
// saved and inputs savedIn, is the one with these flags and inputs.
func sameRun(path string, flags map[string]string, in []structInput, saved map[string]string, savedIn []structInput) error {
	if err := gobfile.SameFlags(path, "-", flags, saved); err != nil {
		return err
	}
	if len(in) != len(savedIn) {
		return fmt.Errorf("%s: saved by a run with %d input files, not %d", path, len(savedIn), len(in))
	}
	for i := range in {
		if in[i] != savedIn[i] {
			return fmt.Errorf("%s: input file %s differs from the one of the saved run (%s)", path, in[i].Path, savedIn[i].Path)
		}
	}
	return nil
}

// runMeta encodes a run's flags and inputs as learn.Checkpoint.Meta.
func runMeta(flags map[string]string, in []structInput) map[string]string {
	meta := make(map[string]string, len(flags)+len(in))
	for k, v := range flags {
		meta["-"+k] = v
	}
	for i, f := range in {
		meta[fmt.Sprintf("input %d", i)] = f.Path + "\n" + f.Sum
	}
	return meta
}

// sameRunMeta checks, as sameRun, the run that saved learn.Checkpoint.Meta
// meta in the state file path.
func sameRunMeta(path string, flags map[string]string, in []structInput, meta map[string]string) error {
	saved := map[string]string{}
	var savedIn []structInput
	for k, v := range meta {
		if name, ok := strings.CutPrefix(k, "-"); ok {
			saved[name] = v
		}
	}
	for i := 0; ; i++ {
		v, ok := meta[fmt.Sprintf("input %d", i)]
		if !ok {
			break
		}
		p, sum, _ := strings.Cut(v, "\n")
		savedIn = append(savedIn, structInput{Path: p, Sum: sum})
	}
	return sameRun(path, flags, in, saved, savedIn)
}
