package gobfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadKind checks the round trip and the two errors a user reads.
func TestReadKind(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, "v1", 42); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "state")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var got int
	if err := ReadKindFile(path, "v1", "test state", &got); err != nil || got != 42 {
		t.Fatalf("round trip: %d, %v", got, err)
	}
	err := ReadKind(bytes.NewReader(buf.Bytes()), "v2", "test state", &got)
	if err == nil || err.Error() != "not a marple test state" {
		t.Errorf("other version: %v", err)
	}
	err = ReadKindFile(path, "v1", "test state", &got, &got)
	if err == nil || !strings.HasPrefix(err.Error(), path+": damaged test state: ") {
		t.Errorf("short stream: %v", err)
	}
}
