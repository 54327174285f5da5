package ground

import (
	"math/rand/v2"
	"testing"
)

// TestU64Map checks the hash table against a Go map.
func TestU64Map(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h u64map
	ref := map[uint64]int32{}
	for i := 0; i < 20000; i++ {
		k := r.Uint64N(5000)
		if i%3 == 0 {
			k = r.Uint64() >> 2
		}
		v := int32(r.IntN(1000))
		h.put(k, v)
		ref[k] = v
	}
	if h.n != len(ref) {
		t.Fatalf("%d entries, want %d", h.n, len(ref))
	}
	for k, v := range ref {
		if got, ok := h.get(k); !ok || got != v {
			t.Fatalf("get(%d) = %d, %v; want %d", k, got, ok, v)
		}
	}
	for i := 0; i < 1000; i++ {
		k := r.Uint64N(10000)
		_, in := ref[k]
		if _, ok := h.get(k); ok != in {
			t.Fatalf("get(%d) found %v, want %v", k, ok, in)
		}
	}
	var empty u64map
	if _, ok := empty.get(3); ok {
		t.Fatal("empty map has a key")
	}
}

// TestDedup checks both duplicate-merging paths of long and short clauses.
func TestDedup(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for it := 0; it < 2000; it++ {
		n := 1 + r.IntN(80)
		var buf []wlit
		for i := 0; i < n; i++ {
			buf = append(buf, wlit{pred: int32(r.IntN(2)), key: uint64(r.IntN(60)), neg: r.IntN(2) == 0})
		}
		// Reference: set semantics.
		type k struct {
			p   int32
			key uint64
		}
		signs := map[k]map[bool]bool{}
		for _, l := range buf {
			if signs[k{l.pred, l.key}] == nil {
				signs[k{l.pred, l.key}] = map[bool]bool{}
			}
			signs[k{l.pred, l.key}][l.neg] = true
		}
		wantTaut := false
		for _, s := range signs {
			if len(s) == 2 {
				wantTaut = true
			}
		}
		out, taut := dedupSorted(append([]wlit(nil), buf...))
		if taut != wantTaut {
			t.Fatalf("taut %v, want %v", taut, wantTaut)
		}
		if !taut && len(out) != len(signs) {
			t.Fatalf("%d literals, want %d", len(out), len(signs))
		}
	}
}
