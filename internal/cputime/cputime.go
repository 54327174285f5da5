// Package cputime reads the process's CPU time, for benchmarks on a shared
// machine where wall time alone can mislead.
package cputime

// Now returns the process's user+system CPU time in nanoseconds (0 where
// it is not measured).
func Now() int64 { return now() }
