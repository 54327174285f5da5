package infer_test

import "time"

// raceSlowdown is the factor by which a bound on how soon work stops
// after a cancellation widens: 10 under the race detector, else 1.
func raceSlowdown() time.Duration {
	if raceEnabled {
		return 10
	}
	return 1
}
