package experiment

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/internal/gobfile"
)

// Journal records the completed units of an experiment (a fold's or a
// method's cell) in a state file, so that a run killed at any point and
// started again with the journal skips the units it completed and prints
// the same tables: every unit is a function of the experiment's settings
// and its key alone, and a unit's result (measured times included) is
// taken from the journal when it is there. It is safe for concurrent use
// by the units of one experiment; a nil *Journal records nothing.
type Journal struct {
	path string
	meta map[string]string

	mu    sync.Mutex
	cells map[string][]byte
	done  int // units taken from the journal
}

// journalVersion tags the state file's gob stream.
const journalVersion = "marple-experiment-journal-1"

// OpenJournal returns the journal of the experiment described by meta
// (its name and the flags that shape its results) in the state file path.
// With resume it reads the file, which must exist and have been written
// by a run with the same meta (the error names what differs); otherwise
// it writes an empty journal at path, replacing any file there and the
// state files of Within of an earlier run.
func OpenJournal(path string, meta map[string]string, resume bool) (*Journal, error) {
	j := &Journal{path: path, meta: meta, cells: map[string][]byte{}}
	if !resume {
		j.removeWithin() // of an earlier run
		if err := j.save(); err != nil {
			return nil, err
		}
		return j, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("-resume: no checkpoint %s to resume from", path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var saved map[string]string
	var cells map[string][]byte
	switch err := gobfile.Read(f, journalVersion, &saved, &cells); {
	case errors.Is(err, gobfile.ErrVersion):
		return nil, fmt.Errorf("%s: not a marple-experiments checkpoint", path)
	case err != nil:
		return nil, fmt.Errorf("%s: damaged checkpoint: %v", path, err)
	}
	if err := gobfile.SameFlags(path, "", meta, saved); err != nil {
		return nil, err
	}
	if cells != nil {
		j.cells = cells
	}
	return j, nil
}

// Len returns the number of units recorded.
func (j *Journal) Len() int {
	if j == nil {
		return 0
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.cells)
}

// Reused returns the number of units taken from the journal so far.
func (j *Journal) Reused() int {
	if j == nil {
		return 0
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.done
}

// Within returns the path of the state file of the work inside unit key
// (e.g. a learner's checkpoint), beside the journal's: a unit that was
// under way when the run was killed continues from it rather than from
// its beginning. Remove removes it with the journal.
func (j *Journal) Within(key string) string {
	sum := sha256.Sum256([]byte(key))
	return fmt.Sprintf("%s.%x", j.path, sum[:6])
}

// Remove removes the state file and those of Within (the experiment is
// done).
func (j *Journal) Remove() error {
	if j == nil {
		return nil
	}
	j.removeWithin()
	err := os.Remove(j.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// unit returns the result of the unit key: the recorded one, or run's,
// which it records (the state file is rewritten atomically) before
// returning it. With a nil journal it returns run's.
func unit[T any](j *Journal, key string, run func() (T, error)) (T, error) {
	if j == nil {
		return run()
	}
	j.mu.Lock()
	b, ok := j.cells[key]
	j.mu.Unlock()
	if ok {
		var v T
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&v); err != nil {
			return v, fmt.Errorf("%s: damaged checkpoint entry %s: %v", j.path, key, err)
		}
		j.mu.Lock()
		j.done++
		j.mu.Unlock()
		return v, nil
	}
	v, err := run()
	if err != nil {
		return v, err
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return v, fmt.Errorf("checkpoint entry %s: %v", key, err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.cells[key] = buf.Bytes()
	if err := j.save(); err != nil {
		return v, err
	}
	return v, nil
}

// save writes the journal atomically (j.mu held, or before any unit).
func (j *Journal) save() error {
	err := atomicfile.Write(j.path, func(w io.Writer) error { return gobfile.Write(w, journalVersion, j.meta, j.cells) })
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// removeWithin removes the state files of Within.
func (j *Journal) removeWithin() {
	within, err := filepath.Glob(j.path + ".*")
	if err != nil {
		return
	}
	for _, p := range within {
		if strings.HasPrefix(filepath.Ext(p), ".") && len(filepath.Ext(p)) == 13 {
			os.Remove(p)
		}
	}
}
