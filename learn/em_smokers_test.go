package learn

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/mln"
)

// TestEMSmokers samples three worlds of 30 people from the smokers model
// (examples/smokers/smoking.mln) with known weights and random
// friendships, hides 20% of the Smokes and Cancer atoms, and checks that
// the weights EM learns (MC-SAT E-step, MC-SAT dcll M-step) are closer to
// the weights learned from the full data than those learned with the
// hidden atoms false.
func TestEMSmokers(t *testing.T) {
	const path = "../examples/smokers/smoking.mln"
	if _, err := os.Stat(path); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	m, err := mln.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	var db strings.Builder
	for i := 0; i < 30; i++ {
		for j := 0; j < i; j++ {
			if r.Float64() < 0.1 {
				fmt.Fprintf(&db, "Friends(P%d, P%d)\nFriends(P%d, P%d)\n", i, j, j, i)
			}
		}
		fmt.Fprintf(&db, "Friends(P%d, P%d)\n", i, i)
	}
	d, err := mln.ParseDatabase(m, "people.db", db.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.CompileContext(ctx); err != nil {
		t.Fatal(err)
	}
	query, err := m.PredIDs("Smokes", "Cancer")
	if err != nil {
		t.Fatal(err)
	}
	net, err := ground.Ground(ctx, m, d, ground.Options{Query: query, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d atoms, %d clauses, %d weights", net.NumAtoms(), net.NumClauses(), len(m.Weights))
	planted := []float64{1.5, 1}
	if len(m.Weights) != len(planted) {
		t.Fatalf("%d weights", len(m.Weights))
	}
	net.SetParamWeights(planted)
	var o mcsat.Options
	o.Seed = 5
	ch, err := mcsat.NewChain(net, o)
	if err != nil {
		t.Fatal(err)
	}
	var full, asFalse Examples
	var hidden [][]bool
	for e := 0; e < 3; e++ {
		var y []bool
		if err := ch.Sample(ctx, 300, func(s []bool) { y = slices.Clone(s) }); err != nil {
			t.Fatal(err)
		}
		full = append(full, &Example{Net: net, Truth: y})
		h, f := make([]bool, len(y)), slices.Clone(y)
		for a := range h {
			if r.Float64() < 0.2 {
				h[a], f[a] = true, false
			}
		}
		hidden = append(hidden, h)
		asFalse = append(asFalse, &Example{Net: net, Truth: f})
	}
	set := DiscriminativeSettings{Workers: 1, MaxIter: 30, Samples: 100, Seed: 6}
	learn := func(exs Examples) []float64 {
		clear(m.Weights)
		if _, err := Discriminative(ctx, m, exs, set); err != nil {
			t.Fatal(err)
		}
		return slices.Clone(m.Weights)
	}
	wFull, wFalse := learn(full), learn(asFalse)
	es := engines.DefaultSettings()
	es.Workers, es.Samples, es.BurnIn = 1, 500, 50
	marg, err := engines.NewMarginal("mcsat", es)
	if err != nil {
		t.Fatal(err)
	}
	clear(m.Weights)
	if _, err := EM(ctx, m, asFalse, hidden, EMSettings{Marginal: marg, Learn: set, Iterations: 3, Completions: 4, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	wEM := slices.Clone(m.Weights)
	dEM, dFalse := dist(wEM, wFull), dist(wFalse, wFull)
	t.Logf("full %.3f, hidden false %.3f, EM %.3f: |EM − full| %.3f, |false − full| %.3f", wFull, wFalse, wEM, dEM, dFalse)
	if dEM >= dFalse {
		t.Errorf("EM is not closer to the full-data weights: %.3f >= %.3f", dEM, dFalse)
	}
}
