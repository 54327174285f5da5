// Package testenv says which of the test suite's cases run.
//
// `go test ./...` runs the quick cases: every package's correctness
// checks against brute force, the parsers, the commands' behaviour on
// good and bad input. The long cases (kill -9 and resume of the
// commands, the documentation's commands, generated inputs of tens of
// megabytes, larger brute-force and sampling runs) run as well when the
// environment variable MARPLE_LONG_TESTS is 1, as CI sets it, and never
// with -short.
package testenv

import (
	"os"
	"testing"
)

// Long reports whether the long cases run: MARPLE_LONG_TESTS=1 and no
// -short.
func Long() bool {
	return !testing.Short() && os.Getenv("MARPLE_LONG_TESTS") == "1"
}

// Short reports whether the long cases are left out (the opposite of
// Long); the tests use it where they would use testing.Short.
func Short() bool { return !Long() }
