package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataFetchCheck: marple data fetch gets the smokers data set from a
// mirror served on the loopback address and checks every file; check then
// passes, and finds a changed file.
func TestDataFetchCheck(t *testing.T) {
	// The mirror: the data folder's descriptions and the smokers files,
	// which are the ones under examples/smokers.
	mirror := map[string]string{}
	for _, f := range []string{"smoking.mln", "smoking-train.db", "smoking-test.db"} {
		b, err := os.ReadFile(smokers + f)
		if err != nil {
			t.Fatal(err)
		}
		mirror["/smokers/"+f] = string(b)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, ok := mirror[r.URL.Path]; ok {
			w.Write([]byte(c))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	code, out, stderr := marple(t, "data", "fetch", "smokers", "-dir", dir, "-from", srv.URL)
	// The descriptions are not on this mirror: the ones shipped with
	// marple are written only without -from.
	if code != 1 || !strings.Contains(stderr, "smokers/SOURCE.txt") || !strings.Contains(out, "3 fetched") {
		t.Fatalf("fetch from the mirror: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = marple(t, "data", "fetch", "smokers", "-dir", dir)
	if code != 0 || !strings.Contains(out, "3 files already in") || !strings.Contains(out, "2 fetched") {
		t.Fatalf("fetch the descriptions: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = marple(t, "data", "check", "-dir", dir, "smokers")
	if code != 0 || !strings.Contains(out, "5 files checked") {
		t.Fatalf("check: exit %d\n%s%s", code, out, stderr)
	}
	os.WriteFile(filepath.Join(dir, "smokers", "smoking.mln"), []byte("changed"), 0o644)
	code, _, stderr = marple(t, "data", "check", "-dir", dir, "smokers")
	if code != 1 || !strings.Contains(stderr, "smokers/smoking.mln: 7 bytes") {
		t.Fatalf("check a changed file: exit %d\n%s", code, stderr)
	}
	if code, _, stderr = marple(t, "data", "check", "nope"); code != 2 || !strings.Contains(stderr, "unknown data set") {
		t.Errorf("unknown set: exit %d: %s", code, stderr)
	}
}
