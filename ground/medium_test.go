package ground_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/mln"
)

// mediumCase returns a smokers-like model over n people with random
// evidence: generators with many rows, three-variable clauses, "+"
// parameters, existentials and "?" atoms of a closed-world predicate.
func mediumCase(n int, seed uint64) (string, string) {
	r := rand.New(rand.NewPCG(seed, 5))
	var names []string
	for i := 0; i < n; i++ {
		names = append(names, fmt.Sprintf("P%d", i))
	}
	model := "person = {" + strings.Join(names, ", ") + "}\n" + `
Friends(person, person)
Smokes(person)
Cancer(person)
1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))
0.8 Friends(x, y) ^ Friends(y, z) => Friends(x, z)
-0.5 Friends(+x, y) ^ Smokes(y) => Cancer(x)
0.3 Cancer(x) => EXIST y (Friends(x, y) v Smokes(y))
x != y ^ Friends(x, y) => Friends(y, x).
`
	var db strings.Builder
	for _, a := range names {
		for _, b := range names {
			switch v := r.Float64(); {
			case v < 0.12:
				fmt.Fprintf(&db, "Friends(%s, %s)\n", a, b)
			case v < 0.13:
				fmt.Fprintf(&db, "?Friends(%s, %s)\n", a, b)
			}
		}
		switch v := r.Float64(); {
		case v < 0.3:
			fmt.Fprintf(&db, "Smokes(%s)\n", a)
		case v < 0.6:
			fmt.Fprintf(&db, "!Smokes(%s)\n", a)
		}
		if r.Float64() < 0.2 {
			fmt.Fprintf(&db, "Cancer(%s)\n", a)
		}
	}
	return model, db.String()
}

// TestMediumAgainstBrute grounds a model of a few dozen people with many
// work units and compares score, hard violations and counts with the
// brute-force evaluation of every grounding in a few random worlds.
func TestMediumAgainstBrute(t *testing.T) {
	old := ground.SetChunkSize(100)
	defer ground.SetChunkSize(old)
	ctx := context.Background()
	for seed := uint64(0); seed < 3; seed++ {
		model, evidence := mediumCase(24, seed)
		load := func() (*mln.Model, *mln.Database, []mln.PredID) {
			m, err := mln.ParseModel("medium.mln", model)
			if err != nil {
				t.Fatal(err)
			}
			db, err := mln.ParseDatabase(m, "medium.db", evidence)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Compile(); err != nil {
				t.Fatal(err)
			}
			return m, db, []mln.PredID{mustPred(t, m, "Smokes"), mustPred(t, m, "Cancer")}
		}
		m, db, q := load()
		var ow []mln.PredID
		if seed == 1 {
			ow = []mln.PredID{mustPred(t, m, "Friends")} // every Friends atom not listed is unknown
		}
		net, err := ground.Ground(ctx, m, db, ground.Options{Query: q, OpenWorld: ow, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		m2, db2, _ := load()
		net2, err := ground.Ground(ctx, m2, db2, ground.Options{Query: q, OpenWorld: ow, Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		if d := diffNetworks(net, net2); d != "" {
			t.Fatalf("seed %d: 1 and 3 workers differ: %s", seed, d)
		}
		r := rand.New(rand.NewPCG(seed, 11))
		for p := range m.Weights {
			m.Weights[p] = r.Float64()*2 - 1
		}
		net.SetWeights()
		prob := brute.NewProblem(m, db, append(append([]mln.PredID(nil), q...), ow...))
		for w := 0; w < 3; w++ {
			world := make([]bool, len(prob.Atoms))
			y := make([]bool, net.NumAtoms())
			for i := range world {
				world[i] = r.IntN(2) == 0
			}
			for a := range y {
				i, ok := prob.Index(net.AtomPred[a], net.AtomArgs[a])
				if !ok {
					t.Fatalf("atom %d is not unknown", a)
				}
				y[a] = world[i]
			}
			res := prob.Eval(world)
			score, hard := net.Score(y)
			if !close(score, res.Score) || hard != res.HardViolated {
				t.Fatalf("seed %d world %d: score %v (hard %d), brute %v (hard %d)", seed, w, score, hard, res.Score, res.HardViolated)
			}
			counts := net.Counts(y)
			for p := range m.Weights {
				key := brute.ParamKey{Formula: m.ParamFormula[p], Binding: mln.BindingKey(m.ParamBinding[p])}
				if !close(counts[p], res.Counts[key]) {
					t.Fatalf("seed %d world %d: parameter %d count %v, brute %v", seed, w, p, counts[p], res.Counts[key])
				}
			}
		}
		t.Logf("seed %d: %d atoms, %d clauses, %d unknown atoms, %d parameters", seed, net.NumAtoms(), net.NumClauses(), len(prob.Atoms), len(m.Weights))
	}
}
