package exact

import (
	"sync"
	"sync/atomic"

	"github.com/marple-mln/marple/internal/par"
)

// The preparation of a large network runs on several goroutines with
// results that do not depend on their number: the clauses are cut into
// chunks of a fixed size, each chunk's outputs are kept apart and merged in
// chunk order, and the union-find forests keep the smallest atom of a set
// as its root, which makes the roots independent of the order of the
// unions.

// chunkSize is the number of clauses (or atoms) of a chunk.
var chunkSize = 1 << 15 // a variable for the tests

// numChunks returns the number of chunks of n items.
func numChunks(n int) int { return (n + chunkSize - 1) / chunkSize }

// chunkRange returns the items of chunk k of n items.
func chunkRange(k, n int) (lo, hi int) { return k * chunkSize, min((k+1)*chunkSize, n) }

// forChunks calls fn(k) for k in [0, n) on up to workers goroutines, and
// returns when every call has.
func forChunks(workers, n int, fn func(k int)) { par.For(workers, n, fn) }

// forChunksInOrder is forChunks that also calls merge(k) for k in [0, n)
// in order, one call at a time, each after fn(k) returned: as the chunks
// come in, so that the outputs of a few chunks at most wait for their
// merge.
func forChunksInOrder(workers, n int, fn, merge func(k int)) {
	var mu sync.Mutex
	done := make([]bool, n)
	next := 0
	forChunks(workers, n, func(k int) {
		fn(k)
		mu.Lock()
		defer mu.Unlock()
		done[k] = true
		for next < n && done[next] {
			merge(next)
			next++
		}
	})
}

// newForest returns a union-find forest of n singletons.
func newForest(workers, n int) []int32 {
	p := make([]int32, n)
	forChunks(workers, numChunks(n), func(k int) {
		lo, hi := chunkRange(k, n)
		for a := lo; a < hi; a++ {
			p[a] = int32(a)
		}
	})
	return p
}

// cfind returns the root of a in the forest p while other goroutines may
// be linking and halving paths in it (a parent is always smaller than its
// child, so every pointer read is to an ancestor).
func cfind(p []int32, a int32) int32 {
	for {
		q := atomic.LoadInt32(&p[a])
		if q == a {
			return a
		}
		g := atomic.LoadInt32(&p[q])
		if g != q {
			atomic.CompareAndSwapInt32(&p[a], q, g) // halve the path
		}
		a = g
	}
}

// cunion joins the sets of a and b in the forest p, the larger root under
// the smaller, safely against concurrent cunion and cfind calls. Whatever
// the order of the unions, the root of a set is its smallest element.
func cunion(p []int32, a, b int32) { clink(p, a, b) }

// clink is cunion that returns the root of the joint set: with a the
// root of a set (as found lately), it costs one find.
func clink(p []int32, a, b int32) int32 {
	for {
		a, b = cfind(p, a), cfind(p, b)
		if a == b {
			return a
		}
		if a > b {
			a, b = b, a
		}
		if atomic.CompareAndSwapInt32(&p[b], b, a) {
			return a
		}
	}
}

// flatten points every element of the forest p at its root.
func flatten(workers int, p []int32) {
	forChunks(workers, numChunks(len(p)), func(k int) {
		lo, hi := chunkRange(k, len(p))
		for a := lo; a < hi; a++ {
			if r := cfind(p, int32(a)); r != int32(a) {
				atomic.StoreInt32(&p[a], r)
			}
		}
	})
}

// bitset is a set of atoms that goroutines may add to concurrently; it is
// read only once they are done.
type bitset []uint32

func newBitset(n int) bitset { return make(bitset, (n+31)/32) }

// add puts a in the set.
func (b bitset) add(a int32) {
	w, m := &b[a>>5], uint32(1)<<(a&31)
	if atomic.LoadUint32(w)&m == 0 {
		atomic.OrUint32(w, m)
	}
}

// has reports whether a is in the set.
func (b bitset) has(a int32) bool { return b[a>>5]&(uint32(1)<<(a&31)) != 0 }
