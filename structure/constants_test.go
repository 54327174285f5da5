package structure

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

const phaseWorld = `
InPhase(person, phase)
Years(person, year)
Prof(person)
`

// plantedPhases returns a small database of people, each with a year in
// the programme and the phase it fixes: Year1 Pre, Year2 Mid, Year3 and
// Year4 Post; as many professors have neither. Every database mentions the
// three phases and four years; the people are its own.
func plantedPhases(t *testing.T, m *mln.Model, rng *rand.Rand, tag string, people int) *mln.Database {
	t.Helper()
	phase := []string{"Pre", "Mid", "Post", "Post"}
	var b strings.Builder
	for i := 0; i < people; i++ {
		y := i % 4
		if i >= 4 {
			y = rng.IntN(4)
		}
		fmt.Fprintf(&b, "Years(P%s%d, Year%d)\nInPhase(P%s%d, %s)\nProf(Q%s%d)\n", tag, i, y+1, tag, i, phase[y], tag, i)
	}
	db, err := mln.ParseDatabase(m, tag+".db", b.String())
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// fourPhaseDBs returns the phase model, compiled, and four planted
// databases of ten people each (plantedPhases) drawn with seed (s1, s2).
func fourPhaseDBs(t *testing.T, s1, s2 uint64) (*mln.Model, []*mln.Database) {
	t.Helper()
	m, err := mln.ParseModel("phase.mln", phaseWorld)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(s1, s2))
	var dbs []*mln.Database
	for i := 0; i < 4; i++ {
		dbs = append(dbs, plantedPhases(t, m, rng, string(rune('a'+i)), 10))
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	return m, dbs
}

func TestCategoryConsts(t *testing.T) {
	m, err := mln.ParseModel("phase.mln", phaseWorld)
	if err != nil {
		t.Fatal(err)
	}
	a, err := mln.ParseDatabase(m, "a.db", "Years(Ann, Year2)\nInPhase(Ann, Pre)\nYears(Bo, Year1)\n")
	if err != nil {
		t.Fatal(err)
	}
	b, err := mln.ParseDatabase(m, "b.db", "Years(Cy, Year1)\nInPhase(Cy, Post)\nYears(Di, Year2)\nInPhase(Di, Pre)\n")
	if err != nil {
		t.Fatal(err)
	}
	names := func(dbs ...*mln.Database) string {
		consts := categoryConsts(m, dbs)
		var out []string
		for ty, cs := range consts {
			for _, c := range cs {
				out = append(out, m.Types[ty].Name+":"+m.ConstName(c))
			}
		}
		return strings.Join(out, " ")
	}
	want := "phase:Pre year:Year1 year:Year2"
	if got := names(a, b); got != want {
		t.Errorf("constants of both databases %q, want %q", got, want)
	}
	if got := names(b, a); got != want {
		t.Errorf("in the other order %q, want %q", got, want)
	}
}

func TestRefinements(t *testing.T) {
	m, err := mln.ParseModel("phase.mln", phaseWorld)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	dbs := []*mln.Database{plantedPhases(t, m, rng, "a", 8), plantedPhases(t, m, rng, "b", 8)}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	consts := categoryConsts(m, dbs) // no person: each database has its own
	c := parseClause(t, m, "!InPhase(a1,a2) v !Years(a1,a3)")
	c.DomainScaled = true
	var got []string
	for _, r := range refinements(m, c, consts, 12) {
		var cs []string
		for _, d := range r.clauses {
			if d.DomainScaled != (len(mln.FreeVars(d)) > 0) {
				t.Errorf("%s: domain-scaled %v", m.ClauseString(d), d.DomainScaled)
			}
			cs = append(cs, m.ClauseString(d))
		}
		got = append(got, fmt.Sprintf("%s: %d", r.name, len(cs)))
		if len(cs) > 0 && strings.Contains(cs[0], "+") {
			t.Errorf("%s: a refined clause keeps a + variable: %s", r.name, cs[0])
		}
	}
	// Three phases and four years: the pair gives 12 clauses, within the
	// bound; a bound of 11 leaves the single variables only.
	want := []string{"!InPhase(a1,+a2) v !Years(a1,a3): 3", "!InPhase(a1,a2) v !Years(a1,+a3): 4", "!InPhase(a1,+a2) v !Years(a1,+a3): 12"}
	if !slices.Equal(got, want) {
		t.Errorf("refinements %q, want %q", got, want)
	}
	if n := len(refinements(m, c, consts, 11)); n != 2 {
		t.Errorf("%d refinements within 11 clauses, want 2", n)
	}
	if n := len(refinements(m, parseClause(t, m, "InPhase(a1,a2)"), consts, 12)); n != 1 {
		t.Errorf("%d refinements of the unit clause, want 1", n)
	}
}

// TestChooseConstants checks the held-out choice of per-constant
// refinements on planted databases where a person's year fixes the phase:
// the clause linking phase and year, with both free, cannot tell a
// person's phases apart; its refinement over phases and years can, so the
// choice keeps it, the held-out CLL and AUC-PR rise, and the choice and
// the model do not depend on the order of the databases.
func TestChooseConstants(t *testing.T) {
	m, dbs := fourPhaseDBs(t, 5, 6)
	link := parseClause(t, m, "!InPhase(a1,a2) v !Years(a1,a3)")
	s := DefaultSettings()
	s.Model = m
	ctx := context.Background()
	run := func(dbs []*mln.Database) (*Result, *ConstantChoice) {
		t.Helper()
		fs := s
		fs.Start = []*mln.Clause{link}
		r, err := LearnBatch(ctx, MethodWeights, dbs, fs, DefaultScoring())
		if err != nil {
			t.Fatal(err)
		}
		cc, err := chooseConstants(ctx, r, dbs, s, DefaultScoring(), Validation{Seed: 1}, []mln.PredID{0, 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r, cc
	}
	r, cc := run(dbs)
	if cc == nil {
		t.Fatal("no refinement tried")
	}
	t.Logf("tried %q, kept %q; held-out CLL %.4f -> %.4f, AUC-PR %.4f -> %.4f", cc.Tried, cc.Kept, cc.CLL[0], cc.CLL[1], cc.AUCPR[0], cc.AUCPR[1])
	if !slices.ContainsFunc(cc.Kept, func(k string) bool { return strings.Contains(k, "+a2") && strings.Contains(k, "+a3") }) {
		t.Errorf("kept %q: no refinement over both phase and year", cc.Kept)
	}
	if !(cc.CLL[1] > cc.CLL[0]) || !(cc.AUCPR[1] > cc.AUCPR[0]) {
		t.Errorf("held-out CLL %.4f -> %.4f, AUC-PR %.4f -> %.4f: the refinement should raise both", cc.CLL[0], cc.CLL[1], cc.AUCPR[0], cc.AUCPR[1])
	}
	n := 0
	for _, c := range r.Clauses {
		for _, l := range c.Lits {
			if slices.ContainsFunc(l.Args, func(x mln.Term) bool { return !x.IsVar() }) {
				n++
				break
			}
		}
	}
	if n == 0 {
		t.Errorf("the model has no clause with a constant: %d clauses", len(r.Clauses))
	}
	r2, cc2 := run([]*mln.Database{dbs[2], dbs[0], dbs[3], dbs[1]})
	if !slices.Equal(cc2.Kept, cc.Kept) || math.Abs(cc2.CLL[1]-cc.CLL[1]) > 1e-9 {
		t.Errorf("another order kept %q (CLL %.6f), before %q (%.6f)", cc2.Kept, cc2.CLL[1], cc.Kept, cc.CLL[1])
	}
	if len(r2.Clauses) != len(r.Clauses) {
		t.Errorf("another order gave %d clauses, before %d", len(r2.Clauses), len(r.Clauses))
	}
}

// TestLearnValidatedConstants checks that LearnValidated refines the
// searched model by default and reports the choice, and that
// Validation.NoConstants turns the refinements off.
func TestLearnValidatedConstants(t *testing.T) {
	m, dbs := fourPhaseDBs(t, 7, 8)
	s := DefaultSettings()
	s.Model = m
	s.MaxVars, s.MaxNumPredicates, s.DomainScaled = 3, 2, true // learnstruct's default
	ctx := context.Background()
	r, ch, err := LearnValidated(ctx, MethodBeam, dbs, s, DefaultScoring(), Validation{Samples: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Constants == nil || len(ch.Constants.Kept) == 0 || !(ch.Constants.CLL[1] > ch.Constants.CLL[0]) {
		t.Fatalf("constant choice %+v, want a refinement kept\n%s", ch.Constants, describe(m, r))
	}
	t.Logf("kept %q; held-out CLL %.4f -> %.4f\n%s", ch.Constants.Kept, ch.Constants.CLL[0], ch.Constants.CLL[1], describe(m, r))
	r2, ch2, err := LearnValidated(ctx, MethodBeam, dbs, s, DefaultScoring(), Validation{Samples: 200, Seed: 1, NoConstants: true})
	if err != nil {
		t.Fatal(err)
	}
	if ch2.Constants != nil || len(r2.Clauses) >= len(r.Clauses) {
		t.Errorf("NoConstants: choice %+v, %d clauses against %d refined", ch2.Constants, len(r2.Clauses), len(r.Clauses))
	}
}
