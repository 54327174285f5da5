package mln

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseModels: texts given in order build the model LoadModel builds
// from the same files, and errors carry the given names.
func TestParseModels(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.mln"), filepath.Join(dir, "b.mln")
	srcA, srcB := "Smokes(person)\nCancer(person)\n", "1.5 Smokes(x) => Cancer(x)\n"
	for p, s := range map[string]string{a: srcA, b: srcB} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := LoadModel(a, b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseModels([]string{"remote://x/a.mln", "remote://x/b.mln"}, [][]byte{[]byte(srcA), []byte(srcB)})
	if err != nil {
		t.Fatal(err)
	}
	var ws, gs strings.Builder
	if err := WriteModel(&ws, want); err != nil {
		t.Fatal(err)
	}
	if err := WriteModel(&gs, got); err != nil {
		t.Fatal(err)
	}
	if ws.String() != gs.String() {
		t.Errorf("ParseModels wrote\n%s\nLoadModel\n%s", gs.String(), ws.String())
	}
	_, err = ParseModels([]string{"remote://x/c.mln"}, [][]byte{[]byte("Smokes(person)\n1 Smokes(x) ^\n")})
	if err == nil || !strings.HasPrefix(err.Error(), "remote://x/c.mln:3:1: ") {
		t.Errorf("error %v, want one at remote://x/c.mln:3:1", err)
	}
}
