package structure

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

func TestPickCap(t *testing.T) {
	for _, c := range []struct {
		name         string
		cll, auc     [][]float64
		chosen, best int
	}{
		{"best CLL, no other within its error", [][]float64{{-1, -1, -1}, {-2, -2.1, -1.9}}, [][]float64{{0.5, 0.5, 0.5}, {0.9, 0.9, 0.9}}, 0, 0},
		{"better AUC-PR within the CLL's error", [][]float64{{-1, -1.2, -0.9}, {-1.05, -1.1, -1}}, [][]float64{{0.5, 0.5, 0.5}, {0.9, 0.8, 0.9}}, 1, 0},
		{"tie on AUC-PR: the first", [][]float64{{-1, -1}, {-1, -1}, {-1, -1}}, [][]float64{{0.5, 0.5}, {0.7, 0.7}, {0.7, 0.7}}, 1, 0},
		{"best CLL last", [][]float64{{-2, -2}, {-1, -1.1}}, [][]float64{{0.9, 0.9}, {0.5, 0.5}}, 1, 1},
		{"a model too large to ground loses", [][]float64{{-1, -1}, {-1, math.Inf(-1)}}, [][]float64{{0.5, 0.5}, {0.9, math.NaN()}}, 0, 0},
	} {
		chosen, best, _ := pickCap(c.cll, c.auc)
		if chosen != c.chosen || best != c.best {
			t.Errorf("%s: chose %d (best CLL %d), want %d (%d)", c.name, chosen, best, c.chosen, c.best)
		}
	}
}

// plantedFilms returns a small IMDB database: films each with a director
// and two to four actors, Under(a,d) exactly when actor a and director d
// share a film.
func plantedFilms(t *testing.T, m *mln.Model, rng *rand.Rand, tag string, films int) *mln.Database {
	t.Helper()
	var b strings.Builder
	for f := 0; f < films; f++ {
		d := fmt.Sprintf("D%s%d", tag, f)
		fmt.Fprintf(&b, "Movie(F%s%d, %s)\nDir(%s)\n", tag, f, d, d)
		for a := 0; a < 2+rng.IntN(3); a++ {
			p := fmt.Sprintf("A%s%d_%d", tag, f, a)
			fmt.Fprintf(&b, "Movie(F%s%d, %s)\nUnder(%s, %s)\n", tag, f, p, p, d)
		}
	}
	db, err := mln.ParseDatabase(m, tag+".db", b.String())
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestChooseJoinCap checks the held-out choice of a learned join's weight
// on planted databases where the join holds everywhere: any positive cap
// ranks Under's atoms perfectly, so a cap is kept, the join's weight
// becomes it, and the choice does not depend on the order of the
// databases.
func TestChooseJoinCap(t *testing.T) {
	m, err := mln.ParseModel("imdb.mln", joinWorld)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var dbs []*mln.Database
	for i := 0; i < 4; i++ {
		dbs = append(dbs, plantedFilms(t, m, rng, string(rune('a'+i)), 3))
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	join := parseClause(t, m, "!Movie(f,a) v !Movie(f,d) v !Dir(d) v Under(a,d)")
	s := DefaultSettings()
	s.Model = m
	ctx := context.Background()
	run := func(dbs []*mln.Database) (*Result, *JoinChoice) {
		t.Helper()
		fs := s
		fs.Start = []*mln.Clause{join}
		r, err := LearnBatch(ctx, MethodWeights, dbs, fs, DefaultScoring())
		if err != nil {
			t.Fatal(err)
		}
		r.Weights[len(r.Weights)-1] = 11 // as a search fits a join that always holds
		jc, err := chooseJoinCap(ctx, r, dbs, s, DefaultScoring(), Validation{Seed: 1}, []mln.PredID{0, 1, 2}, true)
		if err != nil {
			t.Fatal(err)
		}
		return r, jc
	}
	r, jc := run(dbs)
	if jc == nil || jc.Joins != 1 || len(jc.CLL) != len(JoinCaps) || len(jc.AUCPR) != len(JoinCaps) {
		t.Fatalf("join choice %+v", jc)
	}
	t.Logf("cap %g (best CLL at %g, SE %.4f); CLL %.4f, AUC-PR %.4f", jc.Cap, jc.Best, jc.SE, jc.CLL, jc.AUCPR)
	if !(jc.Cap > 0) {
		t.Fatalf("cap %g: the join was dropped", jc.Cap)
	}
	if got := r.Weights[len(r.Weights)-1]; got != math.Min(11, jc.Cap) {
		t.Errorf("join weight %g after a cap of %g", got, jc.Cap)
	}
	if jc.AUCPR[0] >= jc.AUCPR[1] {
		t.Errorf("held-out AUC-PR %.4f without the join, %.4f at cap %g: the join should rank Under", jc.AUCPR[0], jc.AUCPR[1], JoinCaps[1])
	}
	_, jc2 := run([]*mln.Database{dbs[2], dbs[0], dbs[3], dbs[1]})
	if jc2.Cap != jc.Cap {
		t.Errorf("cap %g with the databases in another order, %g before", jc2.Cap, jc.Cap)
	}
	for k := range JoinCaps {
		if math.Abs(jc2.CLL[k]-jc.CLL[k]) > 1e-9 || math.Abs(jc2.AUCPR[k]-jc.AUCPR[k]) > 1e-9 {
			t.Errorf("cap %g: held-out CLL / AUC-PR %.6f / %.6f in another order, %.6f / %.6f before", JoinCaps[k], jc2.CLL[k], jc2.AUCPR[k], jc.CLL[k], jc.AUCPR[k])
		}
	}
}

// TestAddJoinConcludesOnPreds checks that AddJoin makes no join whose
// conclusion is a predicate outside Operators.Preds.
func TestAddJoinConcludesOnPreds(t *testing.T) {
	m, err := mln.ParseModel("imdb.mln", joinWorld+"Same(person, person)\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	movie, _ := m.Pred("Movie")
	dir, _ := m.Pred("Dir")
	under, _ := m.Pred("Under")
	same, _ := m.Pred("Same")
	o := &Operators{Model: m, Preds: []mln.PredID{movie.ID, dir.ID, under.ID}, MaxVars: 4, MaxNumPredicates: 4}
	if got := o.AddJoin(UnitClause(m, same.ID)); len(got) != 0 {
		t.Errorf("%d joins concluding on Same, outside Preds: %s", len(got), m.ClauseString(got[0]))
	}
	if got := o.AddJoin(UnitClause(m, under.ID)); len(got) == 0 {
		t.Error("no join concluding on Under")
	}
}
