package gobfile

import (
	"bytes"
	"errors"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	type state struct {
		N int
		W []float64
	}
	var b bytes.Buffer
	if err := Write(&b, "v1", "header", &state{3, []float64{1, 2}}); err != nil {
		t.Fatal(err)
	}
	raw := b.Bytes()
	var h string
	var s state
	if err := Read(bytes.NewReader(raw), "v1", &h, &s); err != nil || h != "header" || s.N != 3 || len(s.W) != 2 {
		t.Fatalf("read %q %+v, %v", h, s, err)
	}
	if err := Read(bytes.NewReader(raw), "v2", &h, &s); !errors.Is(err, ErrVersion) {
		t.Fatalf("another version: %v", err)
	}
	if err := Read(bytes.NewReader([]byte("junk")), "v1", &h); !errors.Is(err, ErrVersion) {
		t.Fatalf("junk: %v", err)
	}
	if err := Read(bytes.NewReader(raw[:len(raw)-3]), "v1", &h, &s); err == nil || errors.Is(err, ErrVersion) {
		t.Fatalf("truncated: %v", err)
	}
}

func TestSameFlags(t *testing.T) {
	saved := map[string]string{"a": "1", "b": "2"}
	if err := SameFlags("s", "-", map[string]string{"b": "2", "a": "1"}, saved); err != nil {
		t.Fatal(err)
	}
	err := SameFlags("s", "-", map[string]string{"a": "1", "c": "3"}, saved)
	if want := `s: saved by a run with -b "2", not "": give the same flags to resume`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
