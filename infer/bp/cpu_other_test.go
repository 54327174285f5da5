//go:build !unix

package bp

import "time"

// cpuNow is not measured here.
func cpuNow() time.Duration { return 0 }
