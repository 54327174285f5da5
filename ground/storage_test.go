package ground_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// TestClauseStorage checks clauses of every size (including 255 literals
// and more, and more than a page) built by hand, and their copy by Sub.
func TestClauseStorage(t *testing.T) {
	const atoms = 70000
	net := ground.NewNetwork(atoms)
	var want [][]ground.Lit
	lits := 0
	for i, k := range []int{1, 3, 254, 255, 256, 300, 2, 66000, 5, 69999, 1, 0} {
		c := make([]ground.Lit, k)
		for j := range c {
			c[j] = ground.MakeLit(int32((i*7919+j)%atoms), j%3 == 0)
		}
		w := float64(i) - 4.5
		if i == 3 {
			w = math.Inf(1)
		}
		if got := net.AddClause(c, w, int32(i%2), int32(i), 1+float64(i)); got != i {
			t.Fatalf("AddClause returned %d, want %d", got, i)
		}
		want = append(want, c)
		lits += k
	}
	if net.NumLits() != lits {
		t.Fatalf("NumLits %d, want %d", net.NumLits(), lits)
	}
	all := ground.Component{}
	for a := range atoms {
		all.Atoms = append(all.Atoms, int32(a))
	}
	for c := range want {
		all.Clauses = append(all.Clauses, int32(c))
	}
	sub := net.Sub(all)
	for _, n := range []*ground.Network{net, sub} {
		for c, w := range want {
			if !slices.Equal(n.Clause(c), w) {
				t.Fatalf("clause %d: %d literals, want %d", c, len(n.Clause(c)), len(w))
			}
			if n.Source(c) != int32(c%2) || n.Param(c) != int32(c) || n.Coef(c) != 1+float64(c) || n.IsHard(c) != (c == 3) {
				t.Fatalf("clause %d: source %d param %d coef %g hard %v", c, n.Source(c), n.Param(c), n.Coef(c), n.IsHard(c))
			}
			if c != 3 && n.Weight(c) != float64(c)-4.5 {
				t.Fatalf("clause %d: weight %g", c, n.Weight(c))
			}
		}
	}
	net.SetParamWeights([]float64{0, 2})
	if net.Weight(1) != 2*2 || net.Weight(2) != 0 || !net.IsHard(3) {
		t.Fatalf("SetParamWeights: weights %g %g %g", net.Weight(1), net.Weight(2), net.Weight(3))
	}
}

// TestOwnWeightsThenAddModelClause: a ground network given a weight per
// clause (SetWeight) still takes new model clauses with their weights.
func TestOwnWeightsThenAddModelClause(t *testing.T) {
	ctx := context.Background()
	var nets []*ground.Network
	for _, own := range []bool{true, false} {
		// Without the "+" variable: the runs hold the parameters.
		m, err := mln.ParseModel("smokers.mln", strings.Replace(smokersMLN, "+x", "x", 1))
		if err != nil {
			t.Fatal(err)
		}
		db, err := mln.ParseDatabase(m, "smokers.db", smokersDB)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(); err != nil {
			t.Fatal(err)
		}
		s, _ := m.Pred("Smokes")
		q := []mln.PredID{s.ID}
		net, err := ground.Ground(ctx, m, db, ground.Options{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if own {
			net.SetWeight(0, net.Weight(0))
		}
		f, err := m.ParseFormula("0.7 Friends(x, y) => Friends(y, x)")
		if err != nil {
			t.Fatal(err)
		}
		cls, err := m.AddFormula(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, ci := range cls {
			if err := net.AddModelClause(ctx, ci); err != nil {
				t.Fatal(err)
			}
		}
		nets = append(nets, net)
	}
	net, derived := nets[0], nets[1]
	if net.NumClauses() != derived.NumClauses() {
		t.Fatalf("%d clauses, want %d", net.NumClauses(), derived.NumClauses())
	}
	for c := 0; c < net.NumClauses(); c++ {
		if !slices.Equal(net.Clause(c), derived.Clause(c)) || net.Weight(c) != derived.Weight(c) || net.Param(c) != derived.Param(c) {
			t.Fatalf("clause %d: weight %g param %d, derived %g %d", c, net.Weight(c), net.Param(c), derived.Weight(c), derived.Param(c))
		}
	}
}
