//go:build !unix

package ground_test

// cpuTime is not measured on this system.
func cpuTime() int64 { return 0 }
