package wmc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/marple-mln/marple/internal/testenv"
	"github.com/marple-mln/marple/internal/testkit/uwcse"
)

// TestUWCSE: on UW-CSE's advisedBy network (one dense component of
// hundreds of atoms and tens of thousands of clauses) exact counting is
// out of reach; it says so within its work bound instead of running on
// (a small bound; the default with MARPLE_LONG_TESTS=1). Skips without
// the shared data.
func TestUWCSE(t *testing.T) {
	net := uwcse.Network(t, "language")
	start := time.Now()
	opt := Options{MaxWork: 20_000_000}
	if testenv.Long() {
		opt.MaxWork = 0
	}
	res, err := Solve(context.Background(), net, opt)
	var le *LimitError
	switch {
	case errors.As(err, &le):
		t.Logf("%d atoms, %d clauses: %v (%v)", net.NumAtoms(), net.NumClauses(), err, time.Since(start))
	case err != nil:
		t.Fatal(err)
	default:
		t.Logf("%d atoms, %d clauses: log Z %v, %+v (%v)", net.NumAtoms(), net.NumClauses(), res.LogZ, res.Stats, time.Since(start))
	}
}
