// Package datadir locates the real data sets (the shared/data folder that
// sits beside a development checkout) for benchmarks and data tests, which
// skip cleanly when it is absent: a user's checkout has no such folder.
// The marple-experiments command takes Root as its default -data; the
// marple command does not use this package.
package datadir

import (
	"os"
	"path/filepath"
	"testing"
)

// Root returns the data folder: $MARPLE_DATA when set, otherwise
// ../shared/data beside the repository root (the first folder holding a
// go.mod, walking up from the working directory). It does not check that
// the folder exists.
func Root() string {
	if d := os.Getenv("MARPLE_DATA"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return filepath.Join("..", "shared", "data")
	}
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(d), "shared", "data")
		}
		parent := filepath.Dir(d)
		if parent == d {
			return filepath.Join("..", "shared", "data")
		}
		d = parent
	}
}

// Require returns the path of elem under Root, skipping tb when it does
// not exist.
func Require(tb testing.TB, elem ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{Root()}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("data not available: %s (set MARPLE_DATA to the shared data folder)", p)
	}
	return p
}
