package structure

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/marple-mln/marple/mln"
)

func TestJoinConclusion(t *testing.T) {
	m, err := mln.ParseModel("j.mln", `P(t)
Q(t,t)
R(t,t)
1 !Q(x,y) v !Q(y,z) v R(x,z)
1 !Q(x,y) v !Q(x,z) v !P(z) v R(y,z)
1 !Q(x,y) v !Q(y,z) v Q(x,z)
1 !Q(x,y) v R(x,y)
`)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	r, _ := m.Pred("R")
	want := [][]mln.PredID{{r.ID}, {r.ID}, nil, nil}
	for i, c := range m.Clauses {
		if got := JoinConclusion(c); !slices.Equal(got, want[i]) {
			t.Errorf("%s: JoinConclusion %v, want %v", m.ClauseString(c), got, want[i])
		}
	}
}

// joinWorld is a small IMDB: Under(a,d) holds exactly when actor a and
// director d share a film, so the join below holds on every grounding.
const joinWorld = `Movie(film, person)
Dir(person)
Under(person, person)
`

const joinDB = `Movie(F1, A)
Movie(F1, B)
Movie(F1, D)
Movie(F2, C)
Movie(F2, E)
Movie(F2, G)
Movie(F2, H)
Dir(D)
Dir(E)
Under(A, D)
Under(B, D)
Under(C, E)
Under(G, E)
Under(H, E)
`

// TestJoinScoredAtConclusion checks the scorer LearnBatch builds with
// Settings.Joins: a join the search makes is scored at its conclusion's
// atoms only, and a join given in Start is scored as without Joins.
func TestJoinScoredAtConclusion(t *testing.T) {
	m, err := mln.ParseModel("imdb.mln", joinWorld)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "imdb.db", joinDB)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	var clauses []*mln.Clause
	for p := range m.Preds {
		clauses = append(clauses, UnitClause(m, mln.PredID(p)))
	}
	join := parseClause(t, m, "!Movie(f,a) v !Movie(f,d) v !Dir(d) v Under(a,d)")
	clauses = append(clauses, join)
	fit := func(joins, given bool) (float64, []float64) {
		t.Helper()
		s := DefaultSettings()
		s.Model, s.Joins = m, joins
		if given {
			s.Start = []*mln.Clause{join}
		}
		s, err := withScorer(context.Background(), s, []*mln.Database{db}, DefaultScoring())
		if err != nil {
			t.Fatal(err)
		}
		score, w, err := s.Scorer.Score(context.Background(), clauses, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		return score, w
	}
	sAll, wAll := fit(false, false)
	sJoin, wJoin := fit(true, false)
	sGiven, wGiven := fit(true, true)
	if sGiven != sAll || !slices.Equal(wGiven, wAll) {
		t.Errorf("given join: score %v weights %v, want those without Joins: %v %v", sGiven, wGiven, sAll, wAll)
	}
	if sJoin == sAll {
		t.Errorf("learned join scored as without Joins (%v)", sJoin)
	}
	// Movie's and Dir's conditionals do not see the learned join: their
	// unit weights are their atoms' log-odds (7 of 14 Movie atoms true,
	// 2 of 7 Dir atoms; the prior σ = 100 moves them by less than 1e-3),
	// as with no join at all; scored at every atom, Movie's is not.
	for p, lo := range []float64{0, math.Log(2.0 / 5)} {
		if math.Abs(wJoin[p]-lo) > 5e-3 {
			t.Errorf("%s: unit weight %.4f with the join scored at Under, want the log-odds %.4f", m.ClauseString(clauses[p]), wJoin[p], lo)
		}
	}
	if math.Abs(wAll[0]) < 0.1 {
		t.Errorf("Movie's unit weight %.4f with the join scored at every atom: the join should move it", wAll[0])
	}
	t.Logf("join weight %.3f scored at its conclusion, %.3f at every atom", wJoin[3], wAll[3])
}
