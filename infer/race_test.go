//go:build race

package infer_test

// raceEnabled reports a build with the race detector, which slows the code
// 2-20x: bounds on how soon work stops after a cancellation widen
// (raceSlowdown) and bounds on wall time after a time limit are not
// checked.
const raceEnabled = true
