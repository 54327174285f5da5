package structure

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSettled checks the rule that ends the searches with repeated
// predicates early against brute force: whenever it says the choice is
// decided, no held-out CLLs (at most 0) of the searches left admit
// repeated predicates by the choice's rule (mean gain beyond its standard
// error), the best case, every CLL left at 0, included; and whenever the
// best case would admit them, it does not say so.
func TestSettled(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	decided := 0
	for trial := 0; trial < 20000; trial++ {
		n := 2 + r.IntN(4)
		vr := &validationRun{n: n, cll: make([]float64, 2*n)}
		for i := range vr.cll {
			vr.cll[i] = -r.ExpFloat64() * 0.5
		}
		k := r.IntN(n + 1)
		choice := func(rest func() float64) bool {
			gains := make([]float64, n)
			for f := 0; f < n; f++ {
				with := vr.cll[n+f]
				if f >= k {
					with = rest()
				}
				gains[f] = with - vr.cll[f]
			}
			gain, se := meanSE(gains)
			return gain > se
		}
		best := choice(func() float64 { return 0 })
		got := vr.settled(k)
		if got {
			decided++
			for range 20 {
				if choice(func() float64 { return -r.ExpFloat64() * r.Float64() }) {
					t.Fatalf("settled after %d of %d, but CLLs left admit repeated predicates: %v", k, n, vr.cll)
				}
			}
			if best {
				t.Fatalf("settled after %d of %d, but the best case admits repeated predicates: %v", k, n, vr.cll)
			}
		}
		// The best case's mean gain is the bound: at or below 0, settled.
		sum := 0.0
		for f := 0; f < n; f++ {
			if f < k {
				sum += vr.cll[n+f] - vr.cll[f]
			} else {
				sum -= vr.cll[f]
			}
		}
		if sum <= 0 != got {
			t.Fatalf("settled %v with the best case's summed gain %v", got, sum)
		}
	}
	if decided < 1000 {
		t.Fatalf("only %d of the trials decided", decided)
	}
	// A CLL of -Inf without repeated predicates leaves any gain possible.
	vr := &validationRun{n: 2, cll: []float64{math.Inf(-1), -0.2, -3, -3}}
	if vr.settled(1) {
		t.Fatal("settled with a held-out CLL of -Inf left")
	}
}
