package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"
)

// TestExpandGlobs: a pattern's matches are sorted and follow the paths
// before it, a file named twice is kept once, a path without a glob
// character is kept as it is, and a pattern that matches nothing is an
// error naming it.
func TestExpandGlobs(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"c.db", "a.db", "b.db", "x.txt"} {
		write(t, filepath.Join(dir, f), "P(A)\n")
	}
	in := func(fs ...string) []string {
		var out []string
		for _, f := range fs {
			out = append(out, filepath.Join(dir, f))
		}
		return out
	}
	ctx := context.Background()
	got, err := ExpandGlobs(ctx, in("b.db", "*.db", "missing.db", "[x].tx?"))
	if want := in("b.db", "a.db", "c.db", "missing.db", "x.txt"); err != nil || !slices.Equal(got, want) {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	pattern := filepath.Join(dir, "*.none")
	if _, err := ExpandGlobs(ctx, []string{filepath.Join(dir, "a.db"), pattern}); err == nil || err.Error() != pattern+": no file matches the pattern" {
		t.Errorf("a pattern that matches nothing: %v", err)
	}
}

// TestGlobThroughFilesystem: the evidence and truth files of CiteSeer-like
// examples, given as a glob over a filesystem other than the local one
// (Beam's memfs://), are expanded in sorted order, checked, read by the
// pipeline's workers and grouped into examples as the local files are:
// the pipeline learns the weights it learns from the local files listed
// one by one.
func TestGlobThroughFilesystem(t *testing.T) {
	local := citeData(t, 24, true)
	remote := local
	remote.Files = nil
	for _, f := range slices.Backward(local.Files) { // written out of order
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		memfs.Write("memfs://globtest/"+filepath.Base(f), b)
	}
	files, err := ExpandGlobs(context.Background(), []string{"memfs://globtest/cite.*.db"})
	if want := []string{"memfs://globtest/cite.evidence.db", "memfs://globtest/cite.infield.db"}; err != nil || !slices.Equal(files, want) {
		t.Fatalf("got %q, %v; want %q", files, err, want)
	}
	remote.Files = files
	// The model too: the launcher reads it through the filesystem and the
	// workers parse its text (mln.LoadModel cannot open a memfs:// path).
	mb, err := os.ReadFile(local.Model[0])
	if err != nil {
		t.Fatal(err)
	}
	memfs.Write("memfs://globtest/model/cite.mln", mb)
	remote.Model = []string{"memfs://globtest/model/cite.mln"}
	if err := remote.ReadModel(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, d := range []*Data{&local, &remote} {
		if err := d.CheckFiles(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	cfg := TrainConfig{Data: local, Learner: Learner{Sigma: 0.1}, Passes: 2, Shards: 2}
	want, wantOut := runTrain(t, cfg)
	cfg.Data = remote
	got, gotOut := runTrain(t, cfg)
	if want.Steps != 48 {
		t.Errorf("%d updates from the local files, want 48 (one per citation and epoch)", want.Steps)
	}
	sameStates(t, "memfs:// glob against local files", got, want)
	a, _ := os.ReadFile(wantOut.Model)
	b, _ := os.ReadFile(gotOut.Model)
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("the models differ:\n%s\nwant\n%s", b, a)
	}

	bad := "memfs://globtest/nothing-*.db"
	if _, err := ExpandGlobs(context.Background(), []string{bad}); err == nil || !strings.HasPrefix(err.Error(), bad+": ") {
		t.Errorf("a remote pattern that matches nothing: %v", err)
	}
}
