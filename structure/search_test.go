package structure

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testenv"
	"github.com/marple-mln/marple/internal/testkit/plant"
	"github.com/marple-mln/marple/mln"
)

// plantedWorld is a small world where Cancer(x) follows Smokes(x) but for
// a little noise, and Friends is random (irreflexive): the clause Smokes(x) => Cancer(x)
// (and its converse) is what a search should find.
func plantedWorld(t *testing.T, seed int64, n int) (*mln.Model, *World) {
	t.Helper()
	var b strings.Builder
	b.WriteString("person = {")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "P%d", i)
	}
	b.WriteString("}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n")
	m, err := mln.ParseModel("planted.mln", b.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(seed))
	w := NewWorld(m)
	people := m.Types[0].Consts
	sm, _ := m.Pred("Smokes")
	ca, _ := m.Pred("Cancer")
	fr, _ := m.Pred("Friends")
	for _, x := range people {
		s := r.Float64() < 0.5
		if s {
			w.Add(sm.ID, []mln.ConstID{x})
		}
		if s != (r.Float64() < 0.05) {
			w.Add(ca.ID, []mln.ConstID{x})
		}
		for _, y := range people {
			if x != y && r.Float64() < 0.3 {
				w.Add(fr.ID, []mln.ConstID{x, y})
			}
		}
	}
	return m, w
}

func plantedSettings(m *mln.Model, w *World) Settings {
	s := DefaultSettings()
	s.Model = m
	s.Scorer = bruteScorer(m, []mln.PredID{0, 1, 2}, w)
	s.MaxVars = 3
	s.MaxNumPredicates = 3
	return s
}

// hasSmokesCancer reports whether one of cs links Smokes(x) and Cancer(x)
// (the same variable). With the unit clauses in the model, any of the four
// sign patterns expresses the planted dependence (the log-linear family of
// two binary variables with one pairwise feature is the same for each); a
// search may also add literals that hold in the data, such as
// Friends(x,x), always false.
func hasSmokesCancer(m *mln.Model, cs []*mln.Clause) bool {
	for _, c := range cs {
		vs := map[string]mln.Term{}
		for _, l := range c.Lits {
			vs[m.Preds[l.Pred].Name] = l.Args[0]
		}
		s, ok1 := vs["Smokes"]
		k, ok2 := vs["Cancer"]
		if ok1 && ok2 && s == k {
			return true
		}
	}
	return false
}

func describe(m *mln.Model, r *Result) string {
	var b strings.Builder
	for i, c := range r.Clauses {
		fmt.Fprintf(&b, "%8.3f %s\n", r.Weights[i], m.ClauseString(c))
	}
	return b.String()
}

func TestSearchRecoversPlanted(t *testing.T) {
	m, w := plantedWorld(t, 1, 16)
	for _, method := range []struct {
		name string
		run  func(context.Context, Settings) (*Result, error)
	}{{"beam", BeamSearch}, {"sfs", ShortestFirst}} {
		t.Run(method.name, func(t *testing.T) {
			s := plantedSettings(m, w)
			r, err := method.run(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if !hasSmokesCancer(m, r.Clauses) {
				t.Errorf("%s did not find Smokes(x) => Cancer(x):\n%s", method.name, describe(m, r))
			}
			if r.Scored == 0 || r.Steps == 0 {
				t.Errorf("%d scored, %d steps", r.Scored, r.Steps)
			}
			// Serial and parallel scoring give the same model.
			s.Workers = 1
			r1, err := method.run(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if describe(m, r1) != describe(m, r) || r1.Score != r.Score {
				t.Errorf("serial and parallel differ:\n%s\n%s", describe(m, r1), describe(m, r))
			}
		})
	}
}

func TestSearchCancelKeepsModel(t *testing.T) {
	m, w := plantedWorld(t, 2, 6)
	s := plantedSettings(m, w)
	ctx, cancel := context.WithCancel(context.Background())
	s.Progress = func(Progress) { cancel() }
	r, err := BeamSearch(ctx, s)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want cancellation", err)
	}
	if r == nil || len(r.Clauses) < 3 || len(r.Weights) != len(r.Clauses) {
		t.Fatalf("no model kept: %+v", r)
	}
}

func TestSearchStartAndInitialClauses(t *testing.T) {
	m, w := plantedWorld(t, 1, 10)
	start := parseClause(t, m, "!Smokes(x) v Friends(x,y)")
	planted := parseClause(t, m, "!Smokes(x) v Cancer(x)")
	// From a given MLN, its clauses are kept or refined.
	s := plantedSettings(m, w)
	s.Start = []*mln.Clause{start}
	s.MaxSteps = 1
	r, err := BeamSearch(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Clauses) < 4 {
		t.Errorf("start clause lost:\n%s", describe(m, r))
	}
	// StartFromEmpty with the planted clause given: it is a candidate of
	// the first step and wins.
	s = plantedSettings(m, w)
	s.Start = []*mln.Clause{planted}
	s.StartFromEmpty = true
	r, err = ShortestFirst(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if !hasSmokesCancer(m, r.Clauses) {
		t.Errorf("planted start clause not kept:\n%s", describe(m, r))
	}
}

// TestLearnBatchPlanted: on worlds sampled from a known MLN (internal/testkit/plant:
// 2.5 !Smokes(x) v Cancer(x), 1.5 !Friends(x,y) v !Smokes(x) v Smokes(y)),
// beam and shortest-first search with the counting scorer find both
// planted clauses, up to the sign patterns the unit clauses make
// equivalent (TestSearchRecoversPlanted's criterion for the first; the
// same predicates and variable sharing for the second).
func TestLearnBatchPlanted(t *testing.T) {
	if testenv.Short() {
		t.Skip("a few seconds")
	}
	m, dbs, planted, err := plant.Planted(context.Background(), 7, 30, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []Method{MethodBeam, MethodSFS} {
		s := DefaultSettings()
		s.Model = m
		s.MaxVars, s.MaxNumPredicates = 2, 3
		s.RepeatedPredicates = true // the second planted clause repeats Smokes
		r, err := LearnBatch(context.Background(), method, dbs, s, DefaultScoring())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range planted {
			if !hasShape(r.Clauses, p) {
				t.Errorf("%s: planted %s not found:\n%s", method, m.ClauseString(p), describe(m, r))
			}
		}
		// One worker gives the same model (atoms sampled with the same seed).
		s.Workers = 1
		r1, err := LearnBatch(context.Background(), method, dbs, s, DefaultScoring())
		if err != nil {
			t.Fatal(err)
		}
		if describe(m, r1) != describe(m, r) {
			t.Errorf("%s: serial and parallel differ:\n%s\n%s", method, describe(m, r1), describe(m, r))
		}
	}
}

// hasShape reports whether cs holds a clause with p's literals up to their
// signs (and variable renaming, literal order).
func hasShape(cs []*mln.Clause, p *mln.Clause) bool {
	unsigned := func(c *mln.Clause) string {
		d := &mln.Clause{Vars: c.Vars, Lits: cloneLits(c.Lits)}
		for i := range d.Lits {
			d.Lits[i].Neg = false
		}
		return CanonicalKey(d)
	}
	want := unsigned(p)
	for _, c := range cs {
		if unsigned(c) == want {
			return true
		}
	}
	return false
}

// TestLearnValidatedPlanted: on the planted worlds, whose second clause
// repeats Smokes, the search without repeated predicates admits no new
// clause that repeats one (and misses that clause), and LearnValidated
// chooses to allow them by the held-out CLL (each of four worlds held out
// in turn, the gain beyond its standard error), then finds both planted
// clauses on all four; the worlds given in another order give the same
// choice. (On other seeds the gain is within its noise, one world of the
// four losing by it, and the simpler setting is kept: a small sample lets
// pseudo-likelihood overrate Smokes atoms predicting each other.)
func TestLearnValidatedPlanted(t *testing.T) {
	if testenv.Short() {
		t.Skip("a few seconds")
	}
	m, dbs, planted, err := plant.Planted(context.Background(), 11, 30, 4)
	if err != nil {
		t.Fatal(err)
	}
	s := DefaultSettings()
	s.Model = m
	s.MaxVars, s.MaxNumPredicates = 2, 3
	r, err := LearnBatch(context.Background(), MethodBeam, dbs, s, DefaultScoring())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Clauses {
		if RepeatsPredicate(c) {
			t.Errorf("without repeated predicates, learned %s", m.ClauseString(c))
		}
	}
	var log strings.Builder
	r, ch, err := LearnValidated(context.Background(), MethodBeam, dbs, s, DefaultScoring(), Validation{Samples: 500, Seed: 1, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Folds != 4 || len(ch.FoldCLL) != 4 || !ch.RepeatedPredicates || !(ch.CLL[1]-ch.CLL[0] > ch.SE) {
		t.Errorf("choice %+v, want repeated predicates by a higher held-out CLL\n%s", ch, log.String())
	}
	for _, p := range planted {
		if !hasShape(r.Clauses, p) {
			t.Errorf("planted %s not found:\n%s", m.ClauseString(p), describe(m, r))
		}
	}
	// The same seed gives the same choice and model.
	r1, ch1, err := LearnValidated(context.Background(), MethodBeam, dbs, s, DefaultScoring(), Validation{Samples: 500, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ch1.Seconds = ch.Seconds
	if ch1.Constants != nil && ch.Constants != nil {
		ch1.Constants.Seconds = ch.Constants.Seconds
	}
	if !reflect.DeepEqual(ch1, ch) || describe(m, r1) != describe(m, r) {
		t.Errorf("not deterministic: %+v %+v\n%s\n%s", ch, ch1, describe(m, r), describe(m, r1))
	}
	// The worlds in reverse order: the same choice.
	rev := slices.Clone(dbs)
	slices.Reverse(rev)
	_, ch2, err := LearnValidated(context.Background(), MethodBeam, rev, s, DefaultScoring(), Validation{Samples: 500, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ch2.RepeatedPredicates != ch.RepeatedPredicates {
		t.Errorf("worlds reversed: chose %v, in order %v\n%+v\n%+v", ch2.RepeatedPredicates, ch.RepeatedPredicates, ch2, ch)
	}
	// One database: nothing held out, the setting kept.
	_, ch, err = LearnValidated(context.Background(), MethodBeam, dbs[:1], s, DefaultScoring(), Validation{})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Folds != 0 || ch.RepeatedPredicates {
		t.Errorf("one database: %+v", ch)
	}
}

// flatScorer scores every set of clauses alike: no clause changes the
// pseudo-likelihood. Every weight is w.
type flatScorer struct{ w float64 }

func (f flatScorer) Score(_ context.Context, clauses []*mln.Clause, init []float64, _ bool) (float64, []float64, error) {
	w := make([]float64, len(clauses))
	for i := range w {
		w[i] = f.w
	}
	return -1, w, nil
}

// TestPruneKeepsStartClauses: a starting clause that adds nothing to the
// score is kept, since removing it costs the structure prior (Penalty per
// literal), even with a weight under MinWt (it is not a learned clause);
// with no penalty it is pruned, as Alchemy's pruneMLN does.
func TestPruneKeepsStartClauses(t *testing.T) {
	m, _ := plantedWorld(t, 1, 4)
	start := parseClause(t, m, "!Smokes(x) v Cancer(x)")
	for _, pen := range []float64{DefaultPenalty, 0} {
		s := DefaultSettings()
		s.Model, s.Scorer, s.Start, s.Penalty = m, flatScorer{DefaultMinWt / 10}, []*mln.Clause{start}, pen
		s.MaxVars, s.MaxNumPredicates = 2, 2
		r, err := BeamSearch(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		kept := false
		for _, c := range r.Clauses {
			kept = kept || CanonicalKey(c) == CanonicalKey(start)
		}
		if kept != (pen > 0) {
			t.Errorf("penalty %g: start clause kept %v:\n%s", pen, kept, describe(m, r))
		}
	}
}

// TestSearchMaxCandidates: a candidate budget ends beam and shortest-first
// search at a round boundary, says so, and gives the same model on every
// run (it counts candidates, not time).
func TestSearchMaxCandidates(t *testing.T) {
	m, w := plantedWorld(t, 1, 10)
	for _, method := range []struct {
		name string
		run  func(context.Context, Settings) (*Result, error)
	}{{"beam", BeamSearch}, {"sfs", ShortestFirst}} {
		t.Run(method.name, func(t *testing.T) {
			full, err := method.run(context.Background(), plantedSettings(m, w))
			if err != nil {
				t.Fatal(err)
			}
			s := plantedSettings(m, w)
			s.MaxCandidates = 1
			r, err := method.run(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Stopped, "candidates scored") || r.Scored == 0 || r.Scored >= full.Scored {
				t.Errorf("stopped %q after %d candidates (%d without a budget)", r.Stopped, r.Scored, full.Scored)
			}
			s.Workers = 1
			r1, err := method.run(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if describe(m, r1) != describe(m, r) || r1.Scored != r.Scored {
				t.Errorf("two runs differ:\n%s\n%s", describe(m, r1), describe(m, r))
			}
			s.MaxCandidates = full.Scored + 1
			r2, err := method.run(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if r2.Stopped != "" || describe(m, r2) != describe(m, full) {
				t.Errorf("a budget above the search's own end changed it: %q\n%s", r2.Stopped, describe(m, r2))
			}
		})
	}
}

// TestSearchJoins: in a world where Cancer(x) holds exactly when x has a
// mutual friend, the clause that says so repeats Friends in negative
// literals only (a Join). With Joins the search adds a join concluding
// Cancer; with neither Joins nor RepeatedPredicates (the default) it adds
// no clause that repeats a predicate.
func TestSearchJoins(t *testing.T) {
	m, w := plantedWorld(t, 3, 8)
	sm, _ := m.Pred("Smokes")
	ca, _ := m.Pred("Cancer")
	fr, _ := m.Pred("Friends")
	j := NewWorld(m)
	people := m.Types[0].Consts
	for _, x := range people {
		mutual := false
		for _, y := range people {
			if w.True(fr.ID, []mln.ConstID{x, y}) {
				j.Add(fr.ID, []mln.ConstID{x, y})
				mutual = mutual || w.True(fr.ID, []mln.ConstID{y, x})
			}
		}
		if w.True(sm.ID, []mln.ConstID{x}) {
			j.Add(sm.ID, []mln.ConstID{x})
		}
		if mutual {
			j.Add(ca.ID, []mln.ConstID{x})
		}
	}
	s := plantedSettings(m, j)
	s.MaxVars, s.MaxNumPredicates = 2, 3
	s.Joins = true
	r, err := BeamSearch(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range r.Clauses {
		found = found || Join(c) && slices.ContainsFunc(c.Lits, func(l mln.Literal) bool { return l.Pred == ca.ID && !l.Neg })
	}
	if !found {
		t.Errorf("no join concluding Cancer:\n%s", describe(m, r))
	}
	s.Joins = false
	r, err = BeamSearch(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Clauses {
		if RepeatsPredicate(c) {
			t.Errorf("without Joins, learned %s", m.ClauseString(c))
		}
	}
}
