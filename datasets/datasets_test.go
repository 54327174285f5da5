package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/marple-mln/marple/internal/testkit/datadir"
)

func TestManifest(t *testing.T) {
	files := Files()
	if len(files) < 100 {
		t.Fatalf("%d files in the manifest", len(files))
	}
	sets := Sets(files)
	for _, want := range []string{"citeseer", "imdb", "smokers", "uw-cse", "cora-alchemy"} {
		found := false
		for _, s := range sets {
			found = found || s == want
		}
		if !found {
			t.Errorf("no data set %s in %v", want, sets)
		}
	}
	for _, f := range files {
		if f.URL == "" && f.Note == "" {
			t.Errorf("%s: neither a URL nor a note", f.Path)
		}
	}
	// The descriptions shipped with the package are the listed ones.
	dir := t.TempDir()
	var own []File
	for _, f := range files {
		if strings.HasSuffix(f.Path, "SOURCE.txt") || f.Path == "README.md" {
			own = append(own, f)
		}
	}
	st, err := Fetch(context.Background(), dir, own, FetchOptions{})
	if err != nil || st.Fetched != len(own) || len(own) < 11 {
		t.Errorf("the shipped descriptions: %+v, %v (%d files)", st, err, len(own))
	}
	if _, err := Select(files, []string{"nope"}); err == nil || !strings.Contains(err.Error(), "imdb") {
		t.Errorf("unknown set: %v", err)
	}
	sel, err := Select(files, []string{"imdb"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sel {
		if s := f.Set(); s != "imdb" && s != "" {
			t.Errorf("selected %s", f.Path)
		}
	}
}

// TestSharedData checks the data folder against the manifest when it is
// there.
func TestSharedData(t *testing.T) {
	dir := datadir.Root()
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no data folder:", err)
	}
	probs, err := Check(context.Background(), dir, Files())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Errorf("%s", p)
	}
}

func TestParseManifestErrors(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	for _, c := range []struct{ text, want string }{
		{"h\na\tb\n", "2 columns"},
		{"h\na\t" + sum + "\t-1\t\t\n", "bad size"},
		{"h\na\tzz\t1\t\t\n", "bad SHA-256"},
		{"h\n../a\t" + sum + "\t1\t\t\n", "bad path"},
		{"h\n/a\t" + sum + "\t1\t\t\n", "bad path"},
		{"h\na\t" + sum + "\t1\t\t\na\t" + sum + "\t1\t\t\n", "twice"},
	} {
		if _, err := ParseManifest(strings.NewReader(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}

func file(p, content, url string) File {
	h := sha256.Sum256([]byte(content))
	return File{Path: p, SHA256: hex.EncodeToString(h[:]), Size: int64(len(content)), URL: url, Note: "test"}
}

// TestFetchLoopback fetches from a server on the loopback address: files
// from their own URLs and from a mirror, a corrupt file refused and left
// unwritten, a present file kept.
func TestFetchLoopback(t *testing.T) {
	content := map[string]string{
		"/mirror/a/one.db":   "P(A)\n",
		"/mirror/a/two.mln":  "P(t)\n1 P(x)\n",
		"/mirror/b/bad.db":   "Q(B)\n",
		"/upstream/three.db": "R(C)\n",
	}
	var hits int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		c, ok := content[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(c))
	}))
	defer srv.Close()
	if host, _, _ := net.SplitHostPort(srv.Listener.Addr().String()); !net.ParseIP(host).IsLoopback() {
		t.Fatalf("server on %s, not loopback", host)
	}
	files := []File{
		file("a/one.db", "P(A)\n", ""),
		file("a/two.mln", "P(t)\n1 P(x)\n", ""),
		file("b/bad.db", "Q(X)\n", ""), // the mirror's copy differs
		file("c/three.db", "R(C)\n", srv.URL+"/upstream/three.db"),
	}
	dir := t.TempDir()
	ctx := context.Background()

	// Without a mirror only the file with a URL can be fetched.
	st, err := Fetch(ctx, dir, files, FetchOptions{})
	if err == nil || !strings.Contains(err.Error(), "3 of 4 files not fetched") || !strings.Contains(err.Error(), "-from") || st.Fetched != 1 {
		t.Fatalf("no mirror: %+v, %v", st, err)
	}
	// With the mirror: two more; the corrupt one is refused.
	var progress int
	st, err = Fetch(ctx, dir, files[:3], FetchOptions{From: srv.URL + "/mirror", Progress: func(done, total int, f File) { progress++ }})
	if err == nil || !strings.Contains(err.Error(), "b/bad.db") || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("mirror: %v", err)
	}
	if st.Fetched != 2 || st.Present != 0 || progress != 3 {
		t.Errorf("mirror: %+v, %d progress calls", st, progress)
	}
	if _, err := os.Stat(filepath.Join(dir, "b", "bad.db")); err == nil {
		t.Error("the corrupt file was written")
	}
	probs, err := Check(ctx, dir, files)
	if err != nil || len(probs) != 1 || probs[0].File.Path != "b/bad.db" || probs[0].What != "missing" {
		t.Errorf("check: %v, %v", probs, err)
	}
	// Present files are not fetched again.
	hits = 0
	st, err = Fetch(ctx, dir, []File{files[0], files[3]}, FetchOptions{From: srv.URL + "/mirror"})
	if err != nil || st.Present != 2 || st.Fetched != 0 || hits != 0 {
		t.Errorf("again: %+v, %v, %d requests", st, err, hits)
	}
	// A changed file is found by Check and fetched again.
	os.WriteFile(filepath.Join(dir, "a", "one.db"), []byte("P(Z)\n"), 0o644)
	if probs, _ := Check(ctx, dir, files[:1]); len(probs) != 1 || !strings.Contains(probs[0].What, "SHA-256") {
		t.Errorf("changed: %v", probs)
	}
	if st, err := Fetch(ctx, dir, files[:1], FetchOptions{From: srv.URL + "/mirror"}); err != nil || st.Fetched != 1 {
		t.Errorf("refetch: %+v, %v", st, err)
	}
	// A local mirror (a directory) works too.
	dir2 := t.TempDir()
	if st, err := Fetch(ctx, dir2, files[:2], FetchOptions{From: dir}); err != nil || st.Fetched != 2 {
		t.Errorf("local mirror: %+v, %v", st, err)
	}
}

// TestFetchTimeout: a server that accepts and never answers ends in an
// error after the timeout, not a hang.
func TestFetchTimeout(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	_, err := Fetch(context.Background(), t.TempDir(), []File{file("a/x.db", "x", "")}, FetchOptions{From: srv.URL, Timeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "a/x.db") {
		t.Errorf("err = %v", err)
	}
}
