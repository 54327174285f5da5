package experiment

import (
	"runtime"
	"sync"
)

// eachFold calls run(i) for i in [0, n), workers at a time (0: GOMAXPROCS),
// and returns the errors by index. The folds of an experiment are
// independent; each run writes only its own results, which the caller
// merges in fold order, so the outcome does not depend on workers.
func eachFold(n, workers int, run func(i int) error) []error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, n)
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = run(i)
		}()
	}
	wg.Wait()
	return errs
}
