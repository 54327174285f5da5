package structure

import (
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// bruteFalse counts the substitutions of c's variables (over the whole
// domain of each type) under which every literal of c is false in w.
func bruteFalse(m *mln.Model, c *mln.Clause, w *World) int64 {
	bind := make([]mln.ConstID, len(c.Vars))
	occurs := make([]bool, len(c.Vars))
	for _, l := range c.Lits {
		for _, t := range l.Args {
			if t.IsVar() {
				occurs[t.Var()] = true
			}
		}
	}
	var n int64
	var rec func(v int)
	rec = func(v int) {
		if v == len(c.Vars) {
			for _, l := range c.Lits {
				args := make([]mln.ConstID, len(l.Args))
				for j, t := range l.Args {
					if t.IsVar() {
						args[j] = bind[t.Var()]
					} else {
						args[j] = t.Const()
					}
				}
				if w.True(l.Pred, args) != l.Neg {
					return // literal true
				}
			}
			n++
			return
		}
		if !occurs[v] {
			rec(v + 1)
			return
		}
		for _, x := range m.Types[c.Vars[v].Type].Consts {
			bind[v] = x
			rec(v + 1)
		}
	}
	rec(0)
	return n
}

// TestCounterBrute checks CountFalse against enumeration of all
// substitutions on random MLNs and random worlds.
func TestCounterBrute(t *testing.T) {
	checked := 0
	for seed := int64(1); seed <= 200; seed++ {
		cs := randmln.Generate(seed)
		m, db, _, _, err := cs.Load()
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := m.Compile(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		w := NewWorld(m)
		if err := w.AddTrue(db); err != nil {
			t.Fatal(err)
		}
		// Random extra true atoms of every predicate.
		for p, pr := range m.Preds {
			args := make([]mln.ConstID, len(pr.Args))
			for k := 0; k < 4; k++ {
				for j, ty := range pr.Args {
					cs := m.Types[ty].Consts
					args[j] = cs[rng.IntN(len(cs))]
				}
				if _, err := w.Add(mln.PredID(p), args); err != nil {
					t.Fatal(err)
				}
			}
		}
		cn := &Counter{Domain: func(ty mln.TypeID) []mln.ConstID { return m.Types[ty].Consts }}
		for ci, c := range m.Clauses {
			got, err := cn.CountFalse(c, w)
			if err != nil {
				continue // comparisons or existentials: not counted
			}
			if want := bruteFalse(m, c, w); got != want {
				t.Fatalf("seed %d clause %d (%s): CountFalse %d, brute force %d\n%s", seed, ci, m.ClauseString(c), got, want, cs)
			}
			checked++
		}
	}
	if checked < 300 {
		t.Fatalf("only %d clauses checked", checked)
	}
}
