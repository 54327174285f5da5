package probfit

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// Fitted weights give each constrained grounding its target probability,
// checked by enumerating every world (no evidence, every atom unknown).
func TestFitBrute(t *testing.T) {
	m, err := mln.LoadModelConfig(&mln.LoadConfig{Dialect: syntax.Pracmln}, "testdata/coupled.mln")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	res, err := Fit(context.Background(), m, nil, Options{Threshold: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	db := mln.NewDatabase(m)
	var open []mln.PredID
	for i := range m.Preds {
		open = append(open, mln.PredID(i))
	}
	p := brute.NewProblem(m, db, open)
	ann, _ := m.Const("Ann")
	atom := func(pred string, args ...mln.ConstID) int {
		pr, _ := m.Pred(pred)
		k, ok := p.Index(pr.ID, args)
		if !ok {
			t.Fatalf("no atom %s", pred)
		}
		return k
	}
	veg, fem := atom("Veg", ann), atom("Fem", ann)
	var z, pv, pf float64
	eachWorld(p, func(world []bool, e float64) {
		z += e
		if world[veg] {
			pv += e
		}
		if world[fem] {
			pf += e
		}
	})
	for i, c := range []struct{ got, want float64 }{{pv / z, 0.2}, {pf / z, 0.6}} {
		if math.Abs(c.got-c.want) > 1e-5 {
			t.Errorf("constraint %d: probability %v by enumeration, want %v (fit says %v)", i, c.got, c.want, res.Probs[i])
		}
	}
}

func TestFitRefusals(t *testing.T) {
	for _, c := range []struct{ src, msg string }{
		{"P(t)\n1 P(x)\nP(P(y)) = 0.5\n", "not a formula of the model"},
		{"t = {A}\nP(t)\nP(x).\nP(P(x)) = 0.5\n", "hard formula"},
		// The grounding Likes(A,A) => (P(A) <=> P(A)) holds in every world.
		{"t = {A, B}\nP(t)\nL(t, t)\n1 L(x, y) => (P(x) <=> P(y))\nP(L(x, y) => (P(x) <=> P(y))) = 0.9\n", "no weight gives"},
		// A probability no weight reaches: P(x) ^ Q(x) given P(x) => !Q(x) hard.
		{"t = {A}\nP(t)\nQ(t)\n1 P(x) ^ Q(x)\nP(x) => !Q(x).\nP(P(x) ^ Q(x)) = 0.5\n", "no weight gives"},
	} {
		path := t.TempDir() + "/m.mln"
		if err := writeFile(path, c.src); err != nil {
			t.Fatal(err)
		}
		m, err := mln.LoadModelConfig(&mln.LoadConfig{Dialect: syntax.Pracmln}, path)
		if err == nil {
			err = m.Compile()
		}
		if err == nil {
			_, err = Fit(context.Background(), m, nil, Options{})
		}
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.msg)
		}
	}
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

// Soft evidence (a .db file's "0.8 Smokes(Ann)", a model's
// "R(F) = p"): the probabilities given the evidence are the targets,
// checked by enumerating the worlds consistent with the evidence.
func TestFitSoftEvidenceBrute(t *testing.T) {
	m, err := mln.LoadModelConfig(&mln.LoadConfig{Dialect: syntax.Pracmln}, "testdata/soft.mln")
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.LoadDatabase(m, "testdata/soft.db")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	if _, err := Fit(context.Background(), m, db, Options{Threshold: 1e-7}); err != nil {
		t.Fatal(err)
	}
	var open []mln.PredID
	for i := range m.Preds {
		open = append(open, mln.PredID(i))
	}
	p := brute.NewProblem(m, db, open)
	idx := func(pred, a string) int {
		pr, _ := m.Pred(pred)
		c, _ := m.Const(a)
		k, ok := p.Index(pr.ID, []mln.ConstID{c})
		if !ok {
			t.Fatalf("%s(%s) is not unknown", pred, a)
		}
		return k
	}
	sa, cb := idx("Smokes", "Ann"), idx("Cancer", "Bob")
	var z, ps, pf float64
	eachWorld(p, func(world []bool, e float64) {
		z += e
		if world[sa] {
			ps += e
		}
		if world[cb] || world[sa] {
			pf += e
		}
	})
	if math.Abs(ps/z-0.8) > 1e-6 || math.Abs(pf/z-0.9) > 1e-6 {
		t.Errorf("P(Smokes(Ann) | e) = %v, want 0.8; P(Cancer(Bob) v Smokes(Ann) | e) = %v, want 0.9", ps/z, pf/z)
	}
}

// eachWorld calls f on every world of p's unknown atoms that satisfies the
// hard clauses, with its unnormalised probability.
func eachWorld(p *brute.Problem, f func(world []bool, e float64)) {
	n := len(p.Atoms)
	world := make([]bool, n)
	for wi := 0; wi < 1<<n; wi++ {
		for i := range world {
			world[i] = wi>>i&1 == 1
		}
		r := p.Eval(world)
		if r.HardViolated > 0 {
			continue
		}
		f(world, math.Exp(r.Score))
	}
}
