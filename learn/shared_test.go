package learn

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/marple-mln/marple/mln"
)

const sharedModel = `
thing = {T1, T2, T3}
val = {V1, V2}
A(thing)
B(thing)
P(thing)
Q(thing, val)
R(thing, thing)

1 A(x) v B(x)
2 B(y) v A(y)
EXIST v !P(x) v Q(x, v)
!P(t) v Q(t, V2) v Q(t, V1)
!R(x, y) v !R(y, x)
0.5 !R(a, b) v !R(b, a)
!R(x, y) v R(y, x)
A(x) v B(x).
A(x) ^ B(x)
-1 !A(x) v !B(x)
`

// TestSharedClauseGroups checks which formulas are found to be the same
// clause, and that learning ties them.
func TestSharedClauseGroups(t *testing.T) {
	m, err := mln.ParseModel("shared.mln", sharedModel)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	got := SharedClauseGroups(m, false)
	want := [][]int{{0, 1}, {2, 3}, {4, 5}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("groups %v, want %v", got, want)
	}
	// Each database its own constants: the existential clause is left out.
	if got := SharedClauseGroups(m, true); !slices.EqualFunc(got, [][]int{{0, 1}, {4, 5}}, slices.Equal) {
		t.Fatalf("own domains: groups %v", got)
	}
	r := rand.New(rand.NewPCG(3, 9))
	db := randomDatabase(m, r, 0.4)
	st, err := GenerativeCounts(context.Background(), m, []*mln.Database{db}, nil,
		GenerativeSettings{TieShared: true, AlchemySchedule: true, PriorMeans: []float64{1, 2}, ConvThresh: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(st.Shared, want, slices.Equal) {
		t.Fatalf("stats' groups %v", st.Shared)
	}
	for _, g := range want {
		if m.Weights[g[0]] != m.Weights[g[1]] {
			t.Fatalf("group %v: weights %v", g, m.Weights)
		}
	}
}
