package exact

import (
	"context"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/marple-mln/marple/ground"
)

// messyNetwork returns a random network with what the preparation must
// handle: repeated and complementary literals, empty, unit, long and hard
// clauses (hard units that propagate and conflict), zero and negative
// weights, and atoms in no clause. Without dups, no clause repeats an
// atom.
func messyNetwork(r *rand.Rand, n, m int, dups bool) *ground.Network {
	net := ground.NewNetwork(n)
	for c := 0; c < m; c++ {
		k := r.Intn(5)
		if r.Intn(50) == 0 {
			k = 33 + r.Intn(10)
		}
		// Clauses mostly within a neighbourhood, so that the network
		// has many components.
		base := r.Intn(n)
		lits := make([]ground.Lit, k)
		for i := range lits {
			a := base + r.Intn(4)
			if r.Intn(20) == 0 {
				a = r.Intn(n)
			}
			lits[i] = ground.MakeLit(int32(min(a, n-1)), r.Intn(2) == 0)
		}
		if !dups {
			slices.SortFunc(lits, func(x, y ground.Lit) int { return int(x.Atom() - y.Atom()) })
			lits = slices.CompactFunc(lits, func(x, y ground.Lit) bool { return x.Atom() == y.Atom() })
		}
		w := r.NormFloat64()
		switch r.Intn(8) {
		case 0, 1:
			w = math.Inf(1)
		case 2:
			w = 0
		}
		net.AddClause(lits, w, -1, -1, 1)
	}
	return net
}

// TestPrepareParallel checks that the parallel preparation and
// components equal the serial ones, bit for bit, for any number of
// workers and chunk sizes that cut the network in many chunks.
func TestPrepareParallel(t *testing.T) {
	defer func(s int) { chunkSize = s }(chunkSize)
	r := rand.New(rand.NewSource(5))
	for it := 0; it < 60; it++ {
		n, m := 1+r.Intn(300), r.Intn(600)
		net := messyNetwork(r, n, m, it%3 != 0)
		var bias []float64
		if r.Intn(2) == 0 {
			bias = make([]float64, n)
			for a := range bias {
				bias[a] = r.NormFloat64()
			}
		}
		want := prepareSerial(context.Background(), net, bias)
		wantProbs := want.componentsSerial()
		for _, cs := range []int{1, 7, 64, 1 << 15} {
			chunkSize = cs
			for _, workers := range []int{1, 2, 3, 8} {
				got := prepare(context.Background(), net, bias, workers)
				comparePrep(t, it, cs, workers, want, got)
				probs := got.components()
				if len(probs) != len(wantProbs) {
					t.Fatalf("case %d chunk %d workers %d: %d components, want %d", it, cs, workers, len(probs), len(wantProbs))
				}
				for i, p := range probs {
					q := wantProbs[i]
					if !slices.Equal(p.atoms, q.atoms) || !slices.Equal(p.lits, q.lits) || !slices.Equal(p.start, q.start) ||
						!bitsEqual(p.w, q.w) || !bitsEqual(p.unary, q.unary) || p.orig != q.orig {
						t.Fatalf("case %d chunk %d workers %d: component %d differs:\n%+v\nwant %+v", it, cs, workers, i, *p, *q)
					}
				}
			}
		}
	}
}

func comparePrep(t *testing.T, it, cs, workers int, want *serialPrep, got *prep) {
	t.Helper()
	fail := func(what string) {
		t.Helper()
		t.Fatalf("case %d chunk %d workers %d: %s differs", it, cs, workers, what)
	}
	for c := 0; c < got.net.NumClauses(); c++ {
		if !slices.Equal(got.clause(c), want.clause(c)) {
			fail("normalised clauses")
		}
	}
	if !slices.Equal(got.taut, want.taut) {
		fail("taut")
	}
	if !slices.Equal(got.root, want.root) {
		fail("original components")
	}
	if !slices.Equal(got.conflict, want.conflict) || !slices.Equal(got.val, want.val) {
		fail("propagation")
	}
	if !bitsEqual(got.u, want.u) {
		fail("linear terms")
	}
	if math.Float64bits(got.constant) != math.Float64bits(want.constant) {
		t.Fatalf("case %d chunk %d workers %d: constant %v, want %v", it, cs, workers, got.constant, want.constant)
	}
	if got.forced != want.forced || got.hardEmpty != want.hardEmpty || got.singletons != want.singletons {
		fail("counts")
	}
	if !slices.Equal(got.assign, want.assign) {
		fail("assignment")
	}
	for a := 0; a < got.n; a++ {
		if got.inRes.has(int32(a)) != want.inRes[a] {
			fail("residual atoms")
		}
		if want.inRes[a] && cfind(got.uf, int32(a)) != find(want.uf, int32(a)) {
			fail("residual components")
		}
	}
}

func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestConcurrentUnionFind checks that concurrent unions give every set its
// smallest element as root, as serial ones do.
func TestConcurrentUnionFind(t *testing.T) {
	defer func(s int) { chunkSize = s }(chunkSize)
	chunkSize = 16
	r := rand.New(rand.NewSource(9))
	for it := 0; it < 20; it++ {
		n := 1 + r.Intn(2000)
		pairs := make([][2]int32, r.Intn(3*n))
		for i := range pairs {
			pairs[i] = [2]int32{int32(r.Intn(n)), int32(r.Intn(n))}
		}
		want := make([]int32, n)
		for a := range want {
			want[a] = int32(a)
		}
		for _, p := range pairs {
			union(want, p[0], p[1])
		}
		for a := range want {
			want[a] = find(want, int32(a))
		}
		got := newForest(4, n)
		forChunks(4, numChunks(len(pairs)), func(k int) {
			lo, hi := chunkRange(k, len(pairs))
			for _, p := range pairs[lo:hi] {
				cunion(got, p[0], p[1])
			}
		})
		flatten(4, got)
		if !slices.Equal(got, want) {
			t.Fatalf("case %d: roots differ", it)
		}
	}
}
