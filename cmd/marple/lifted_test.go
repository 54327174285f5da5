package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestInferLifted: infer -bp -lifted (lifting the first-order model, or the
// ground network when the flags ask for what the model's lifting does not
// take) writes the same result file as ground BP.
func TestInferLifted(t *testing.T) {
	dir := t.TempDir()
	for _, extra := range [][]string{
		{"-q", "Smokes,Cancer,Friends"},
		{"-q", "Smokes,Cancer", "-ow", "Friends"}, // lifted on the ground network
		{"-q", "Friends(Ivan,x),Cancer"},
	} {
		var files [2]string
		for i, lifted := range []bool{false, true} {
			files[i] = filepath.Join(dir, "out"+string(rune('0'+i)))
			args := append([]string{"infer", "-i", smokers + "smoking-weighted.mln", "-e", smokers + "smoking-test.db", "-r", files[i], "-bp"}, extra...)
			if lifted {
				args = append(args, "-lifted")
			}
			if code, _, stderr := marple(t, args...); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
		}
		a, _ := os.ReadFile(files[0])
		b, _ := os.ReadFile(files[1])
		if len(a) == 0 || string(a) != string(b) {
			t.Errorf("%v: lifted result differs from ground BP's:\n%s\nwant\n%s", extra, b, a)
		}
	}
}
