// Package flagcheck holds the checks of flag values and output paths that
// Marple's commands (marple, marple-beam) make before any work. Each check
// returns an error naming the flag ("-sigma must be positive, not -1"), or
// nil; the commands report it as a usage error (exit status 2).
package flagcheck

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
)

// Floats returns an error for the first floating-point flag given on set
// (in name order) whose value is not a finite number (NaN, ±Inf).
func Floats(set *flag.FlagSet) error {
	var err error
	set.Visit(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok || err != nil {
			return
		}
		if v, ok := g.Get().(float64); ok {
			err = Finite(f.Name, v)
		}
	})
	return err
}

// Finite returns an error unless v, the value of flag name, is a finite
// number.
func Finite(name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("-%s must be a finite number, not %v", name, v)
	}
	return nil
}

// NonNegative returns an error unless v, the value of flag name, is a
// finite number at least 0.
func NonNegative(name string, v float64) error {
	if err := Finite(name, v); err != nil {
		return err
	}
	if v < 0 {
		return fmt.Errorf("-%s must not be negative, not %v", name, v)
	}
	return nil
}

// Positive returns an error unless v, the value of flag name, is a finite
// number above 0.
func Positive(name string, v float64) error {
	if err := Finite(name, v); err != nil {
		return err
	}
	if v <= 0 {
		return fmt.Errorf("-%s must be positive, not %v", name, v)
	}
	return nil
}

// AtLeast returns an error unless v, the value of integer flag name, is at
// least min.
func AtLeast(name string, v, min int) error {
	if v < min {
		return fmt.Errorf("-%s must be at least %d, not %d", name, min, v)
	}
	return nil
}

// Output returns an error naming flag name unless path can be written:
// its directory exists and takes new files (outputs are written to a
// temporary file there, then renamed), and path is not a directory. A
// device or FIFO (/dev/null) is written directly and passes, and so do "-"
// (standard output) and an empty path.
func Output(name, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
		return nil // /dev/stdout on a pipe: a link EvalSymlinks cannot follow
	}
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("-%s: %s is a directory", name, path)
	case err == nil && !fi.Mode().IsRegular():
		return nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("-%s: cannot write %s: %v", name, path, pathErr(err))
	}
	dir := filepath.Dir(path)
	di, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("-%s: cannot write %s: the directory %s does not exist", name, path, dir)
	case err != nil:
		return fmt.Errorf("-%s: %v", name, err)
	case !di.IsDir():
		return fmt.Errorf("-%s: cannot write %s: %s is not a directory", name, path, dir)
	}
	f, err := os.CreateTemp(dir, ".marple-check-*")
	if err != nil {
		return fmt.Errorf("-%s: cannot write %s: %v", name, path, pathErr(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// pathErr returns the cause of a *fs.PathError ("permission denied"),
// without the operation and path.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
