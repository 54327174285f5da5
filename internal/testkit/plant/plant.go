// Package plant samples training data from a known Markov logic network,
// for tests of structure and weight learning: the "planted" clauses of the
// network should be found again in data drawn from it.
//
// Sample grounds a model over its domains (every atom unknown) and runs
// Gibbs sampling from a seeded random start; the last state is the world,
// returned as a closed-world database (its true atoms). Planted builds a
// small model with two planted clauses and samples it.
package plant

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// Options configure Sample.
type Options struct {
	// Seed draws the start and every step.
	Seed uint64
	// Sweeps is the number of Gibbs sweeps over all atoms (0: 200).
	Sweeps int
	// HardWeight is the weight hard clauses get while sampling (0: 20).
	HardWeight float64
}

// Sample draws one world from the compiled model m (with its weights) by
// Gibbs sampling over every ground atom of its predicates, and returns
// its true atoms.
func Sample(ctx context.Context, m *mln.Model, opt Options) (*mln.Database, error) {
	if m == nil {
		return nil, errors.New("plant: Sample needs a model")
	}
	sweeps, hw := opt.Sweeps, opt.HardWeight
	if sweeps <= 0 {
		sweeps = 200
	}
	if hw <= 0 {
		hw = 20
	}
	var all []mln.PredID
	for p := range m.Preds {
		all = append(all, mln.PredID(p))
	}
	net, err := ground.Ground(ctx, m, mln.NewDatabase(m), ground.Options{Query: all, Workers: 1})
	if err != nil {
		return nil, fmt.Errorf("plant: %w", err)
	}
	n := net.NumAtoms()
	r := rand.New(rand.NewPCG(opt.Seed, 0x5eed))
	y := make([]bool, n)
	for a := range y {
		y[a] = r.IntN(2) == 0
	}
	weight := func(c int) float64 {
		w := net.Weight(c)
		switch {
		case math.IsInf(w, 1):
			return hw
		case math.IsInf(w, -1):
			return -hw
		case math.IsNaN(w):
			return 0
		}
		return w
	}
	if n > 0 {
		net.Occurrences(0)
	}
	for s := 0; s < sweeps; s++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for a := 0; a < n; a++ {
			// Score of a true minus a false, from the clauses of a.
			d := 0.0
			prev := int32(-1)
			for _, c := range net.Occurrences(int32(a)) {
				if c == prev {
					continue
				}
				prev = c
				other, pos, neg := false, false, false
				for _, l := range net.Clause(int(c)) {
					if l.Atom() == int32(a) {
						if l.Neg() {
							neg = true
						} else {
							pos = true
						}
					} else if l.True(y) {
						other = true
					}
				}
				if other || pos == neg {
					continue
				}
				if pos {
					d += weight(int(c))
				} else {
					d -= weight(int(c))
				}
			}
			y[a] = r.Float64() < 1/(1+math.Exp(-d))
		}
	}
	db := mln.NewDatabase(m)
	for a, v := range y {
		if v {
			db.Set(net.AtomPred[a], net.AtomArgs[a], mln.True)
		}
	}
	return db, nil
}

// PlantedSource is the model Planted samples from: smokers and their
// friends, with weighted unit clauses and two planted clauses.
const PlantedSource = `
Smokes(person)
Cancer(person)
Friends(person, person)

1 Smokes(x)
-1.5 Cancer(x)
-3 Friends(x, y)
2.5 !Smokes(x) v Cancer(x)
1.5 !Friends(x, y) v !Smokes(x) v Smokes(y)
`

// Planted returns PlantedSource over people persons (P1, P2, ...),
// worlds independent worlds sampled from it (seeds seed, seed+1, ...), and
// its two planted clauses (the model's non-unit clauses).
func Planted(ctx context.Context, seed uint64, people, worlds int) (*mln.Model, []*mln.Database, []*mln.Clause, error) {
	if people <= 0 || worlds <= 0 {
		return nil, nil, nil, errors.New("plant: Planted needs people and worlds")
	}
	src := "person = {"
	for i := 1; i <= people; i++ {
		if i > 1 {
			src += ", "
		}
		src += fmt.Sprintf("P%d", i)
	}
	src += "}\n" + PlantedSource
	m, err := mln.ParseModel("planted.mln", src)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := m.Compile(); err != nil {
		return nil, nil, nil, err
	}
	var dbs []*mln.Database
	for k := 0; k < worlds; k++ {
		db, err := Sample(ctx, m, Options{Seed: seed + uint64(k)})
		if err != nil {
			return nil, nil, nil, err
		}
		dbs = append(dbs, db)
	}
	var planted []*mln.Clause
	for _, c := range m.Clauses {
		if len(c.Lits) > 1 {
			planted = append(planted, c)
		}
	}
	return m, dbs, planted, nil
}
