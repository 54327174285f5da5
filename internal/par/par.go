// Package par runs loops on several goroutines.
package par

import (
	"sync"
	"sync/atomic"
)

// For calls fn(i) for i in [0, n) on up to workers goroutines, handing out
// the indices in increasing order, and returns when every call has; with
// one worker (or one index) it runs on the calling goroutine.
func For(workers, n int, fn func(i int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
			fn(i)
		}
	}
	var wg sync.WaitGroup
	wg.Add(workers - 1)
	for w := 1; w < workers; w++ {
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work() // the calling goroutine is one of the workers
	wg.Wait()
}
