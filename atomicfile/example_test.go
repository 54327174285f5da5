package atomicfile_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/marple-mln/marple/atomicfile"
)

// Write replaces a file only when its whole content was produced: here the
// second write fails half way, and the file keeps the first content.
func ExampleWrite() {
	dir, err := os.MkdirTemp("", "atomicfile-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "weights.mln")

	err = atomicfile.Write(path, func(w io.Writer) error {
		_, err := fmt.Fprintln(w, "1.5 Smokes(x) => Cancer(x)")
		return err
	})
	fmt.Println("first write:", err)

	err = atomicfile.Write(path, func(w io.Writer) error {
		fmt.Fprintln(w, "partial")
		return fmt.Errorf("learning stopped")
	})
	fmt.Println("second write:", err)

	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	// Output:
	// first write: <nil>
	// second write: learning stopped
	// 1.5 Smokes(x) => Cancer(x)
}
