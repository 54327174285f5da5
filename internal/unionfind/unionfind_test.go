package unionfind

import (
	"math/rand/v2"
	"testing"
)

// TestFind checks the forest against a direct labelling of the sets on
// random unions.
func TestFind(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(40)
		f := New[int32](n)
		label := make([]int, n)
		for i := range label {
			label[i] = i
		}
		for k := r.IntN(2 * n); k > 0; k-- {
			a, b := int32(r.IntN(n)), int32(r.IntN(n))
			if ra, rb := f.Find(a), f.Find(b); ra != rb {
				f[ra] = rb
			}
			la, lb := label[a], label[b]
			for i := range label {
				if label[i] == la {
					label[i] = lb
				}
			}
		}
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				same := f.Find(int32(a)) == f.Find(int32(b))
				if same != (label[a] == label[b]) {
					t.Fatalf("trial %d: atoms %d and %d: forest says %v", trial, a, b, same)
				}
			}
		}
	}
}
