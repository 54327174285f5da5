package infer_test

import (
	"context"
	"errors"
	"math"
	"math/rand"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
)

// randomHard returns a network over n atoms with m random hard clauses of
// 1 to 3 literals and a few soft ones.
func randomHard(r *rand.Rand, n, m int) *ground.Network {
	net := ground.NewNetwork(n)
	for range m {
		k := 1 + r.Intn(3)
		if r.Intn(4) > 0 {
			k = 2 + r.Intn(2)
		}
		lits := make([]ground.Lit, k)
		for i := range lits {
			lits[i] = ground.MakeLit(int32(r.Intn(n)), r.Intn(2) == 0)
		}
		net.AddClause(lits, math.Inf(1), -1, -1, 1)
	}
	for range 3 {
		net.AddClause([]ground.Lit{ground.MakeLit(int32(r.Intn(n)), false)}, 1, -1, -1, 1)
	}
	return net
}

// satisfiableByEnumeration reports whether some world satisfies every hard
// clause of net.
func satisfiableByEnumeration(net *ground.Network) bool {
	n := net.NumAtoms()
	y := make([]bool, n)
	for w := 0; w < 1<<n; w++ {
		for a := range y {
			y[a] = w>>a&1 == 1
		}
		if _, hard := net.Cost(y); hard == 0 {
			return true
		}
	}
	return false
}

// TestCheckHardAgainstBruteForce decides 400 random sets of hard clauses
// (satisfiable and not) and checks the answer against enumeration, and the
// world returned against the clauses.
func TestCheckHardAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	ctx := context.Background()
	sat, unsat := 0, 0
	for i := range 400 {
		n := 3 + r.Intn(8)
		net := randomHard(r, n, 1+r.Intn(4*n))
		want := satisfiableByEnumeration(net)
		hc, err := infer.CheckHard(ctx, net)
		if want {
			sat++
			if err != nil {
				t.Fatalf("case %d: satisfiable, CheckHard says %v", i, err)
			}
			if _, hard := net.Cost(hc.World); hard != 0 {
				t.Fatalf("case %d: the world returned violates %d hard clauses", i, hard)
			}
			continue
		}
		unsat++
		if !errors.Is(err, infer.ErrInfeasible) {
			t.Fatalf("case %d: unsatisfiable, CheckHard says %v", i, err)
		}
	}
	if sat < 50 || unsat < 50 {
		t.Fatalf("%d satisfiable and %d unsatisfiable cases: the generator should give both", sat, unsat)
	}
}

// TestSATPhase checks that the solver extends the given phase: with no
// clause forcing anything, every atom of the clauses keeps its phase
// value; a random phase gives a satisfying world too.
func TestSATPhase(t *testing.T) {
	// x0 v x1, x1 v x2, ... : every phase with no two false neighbours holds.
	var cls [][]ground.Lit
	for a := range int32(9) {
		cls = append(cls, []ground.Lit{ground.MakeLit(a, false), ground.MakeLit(a+1, false)})
	}
	phase := []bool{true, false, true, true, false, true, false, true, true, false}
	s := infer.NewSAT(cls)
	s.Phase = phase
	ok, err := s.Solve()
	if !ok || err != nil {
		t.Fatalf("Solve: %v, %v", ok, err)
	}
	y := append([]bool(nil), phase...)
	s.Fill(y)
	for a, want := range phase {
		if v := y[a]; v != want {
			t.Errorf("atom %d is %v, its phase %v", a, v, want)
		}
	}
	r := rand.New(rand.NewSource(2))
	for range 20 {
		for a := range phase {
			phase[a] = r.Intn(2) == 0
		}
		s := infer.NewSAT(cls)
		s.Phase = phase
		if ok, err := s.Solve(); !ok || err != nil {
			t.Fatalf("Solve: %v, %v", ok, err)
		}
		y := append([]bool(nil), phase...)
		s.Fill(y)
		for _, c := range cls {
			if !c[0].True(y) && !c[1].True(y) {
				t.Fatalf("clause %v violated", c)
			}
		}
	}
}
