//go:build unix

package ground_test

import "syscall"

// cpuTime returns the process's user+system CPU time in nanoseconds (the
// machine may be shared, so wall time alone can mislead).
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
