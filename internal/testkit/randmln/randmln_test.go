package randmln

import (
	"testing"
)

// TestLoad checks that generated cases parse and compile, and respect the
// unknown-atom bound.
func TestLoad(t *testing.T) {
	for seed := int64(0); seed < 300; seed++ {
		c := Generate(seed)
		if c.Unknown > 12 {
			t.Fatalf("seed %d: %d unknown atoms", seed, c.Unknown)
		}
		if _, _, _, _, err := c.Load(); err != nil {
			t.Errorf("%v\n%v", err, c)
		}
	}
}

// TestDeterministic checks that a seed always gives the same case.
func TestDeterministic(t *testing.T) {
	a, b := Generate(42), Generate(42)
	if a.MLN != b.MLN || a.DB != b.DB {
		t.Fatal("same seed, different cases")
	}
}
