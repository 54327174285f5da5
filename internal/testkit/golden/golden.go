// Package golden compares test output with golden files.
package golden

import (
	"os"
	"testing"
)

// Check compares got with the content of the golden file at path; with
// update set it rewrites the file instead.
func Check(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s: mismatch\n--- got\n%s--- want\n%s", path, got, want)
	}
}
