package structure

import (
	"context"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/plantdb"
	"github.com/marple-mln/marple/mln"
)

// TestLearnTransferModes: on data with a planted symmetric relation, the
// transferred symmetry clauses are what greedy adds (nothing else), and
// seed and refine keep a model at least as good as greedy's.
func TestLearnTransferModes(t *testing.T) {
	decl, atoms := plantdb.Generate(plantdb.Config{N: 10, Density: 0.2, Noise2: 1, Seed: 5})
	m, err := mln.ParseModel("t.mln", decl)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "t.db", atoms)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	sym, _ := m.Pred("Sym")
	x := []mln.Term{mln.VarTerm(0), mln.VarTerm(1)}
	y := []mln.Term{mln.VarTerm(1), mln.VarTerm(0)}
	vars := []mln.Var{{Name: "x", Type: sym.Args[0]}, {Name: "y", Type: sym.Args[0]}}
	var cl []*mln.Clause
	for signs := 0; signs < 4; signs++ {
		cl = append(cl, &mln.Clause{Coef: 1, Formula: -1, Vars: vars, Lits: []mln.Literal{
			{Pred: sym.ID, Neg: signs&1 != 0, Args: x}, {Pred: sym.ID, Neg: signs&2 != 0, Args: y}}})
	}
	s := DefaultSettings()
	s.Model = m
	s.MaxNumPredicates, s.MaxVars, s.MaxSteps = 2, 2, 2
	sc := DefaultScoring()
	scores := map[TransferMode]float64{}
	for _, mode := range []TransferMode{TransferGreedy, TransferSeed, TransferRefine} {
		r, err := LearnTransfer(context.Background(), mode, []*mln.Database{db}, s, sc, cl)
		if err != nil {
			t.Fatal(mode, err)
		}
		scores[mode] = r.Score
		if mode != TransferGreedy {
			continue
		}
		added := 0
		for _, c := range r.Clauses {
			if len(c.Lits) < 2 {
				continue
			}
			added++
			if c.Lits[0].Pred != sym.ID || c.Lits[1].Pred != sym.ID {
				t.Errorf("greedy added %s, not a transferred clause", m.ClauseString(c))
			}
		}
		if added == 0 {
			t.Errorf("greedy added no symmetry clause")
		}
	}
	if scores[TransferRefine] < scores[TransferGreedy]-1e-9 {
		t.Errorf("refine %v below greedy %v", scores[TransferRefine], scores[TransferGreedy])
	}
	if _, err := LearnTransfer(context.Background(), TransferMode(7), []*mln.Database{db}, s, sc, cl); err == nil {
		t.Error("unknown mode: no error")
	}
}
