package cmdflags

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	var out bytes.Buffer
	fs := NewFlagSet("x", "x [flags]", &out)
	fs.Float64("sigma", 1, "a float")
	if err := Parse(fs, []string{"-h"}); !errors.Is(err, flag.ErrHelp) || strings.Count(out.String(), "usage: x [flags]") != 1 {
		t.Fatalf("-h: %v, printed %q", err, out.String())
	}
	out.Reset()
	for _, args := range [][]string{{"-bogus"}, {"-sigma", "NaN"}, {"extra"}} {
		if err := Parse(fs, args); err == nil || errors.Is(err, flag.ErrHelp) || out.Len() != 0 {
			t.Errorf("%v: %v, printed %q", args, err, out.String())
		}
	}
	if err := Parse(fs, []string{"-sigma", "2"}); err != nil {
		t.Fatal(err)
	}
}
