//go:build !race

package infer_test

const raceEnabled = false
