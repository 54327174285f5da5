package mln

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsInReadingOrder: errors come file by file in the order the files
// were opened, so that many errors in an included file (whose name sorts
// first) do not hide the including file's first error.
func TestErrorsInReadingOrder(t *testing.T) {
	dir := t.TempDir()
	var inc strings.Builder
	inc.WriteString("P(t)\n")
	for i := 0; i < 12; i++ {
		inc.WriteString("1 Undeclared(x)\n")
	}
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("a.mln", inc.String())
	main := write("z.mln", "#include \"a.mln\"\nQ(t)\n1 AlsoUndeclared(y)\n")
	_, err := LoadModel(main)
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if !strings.Contains(lines[0], "z.mln:3:") {
		t.Errorf("first error %q is not the including file's (z.mln:3)\n%v", lines[0], err)
	}
}
