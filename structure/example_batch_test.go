package structure_test

import (
	"context"
	"fmt"

	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/structure"
)

// Beam search on three worlds of 30 people (testdata/planted) sampled
// from a small MLN with planted clauses 2.5 !Smokes(x) v Cancer(x) and
// 1.5 !Friends(x,y) v !Smokes(x) v Smokes(y).
func ExampleLearnBatch() {
	m, dbs, err := mln.LoadMultiple(context.Background(), []string{"testdata/planted/smokers.mln"},
		[]string{"testdata/planted/world1.db", "testdata/planted/world2.db", "testdata/planted/world3.db"})
	if err != nil {
		panic(err)
	}
	s := structure.DefaultSettings()
	s.Model = m
	s.MaxVars, s.MaxNumPredicates = 2, 3
	s.RepeatedPredicates = true // the second planted clause repeats Smokes
	r, err := structure.LearnBatch(context.Background(), structure.MethodBeam, dbs, s, structure.DefaultScoring())
	if err != nil {
		panic(err)
	}
	for _, c := range r.Clauses {
		if len(c.Lits) > 1 {
			fmt.Println(m.ClauseString(c))
		}
	}
	// The second clause is planted; the first links Smokes(x) and Cancer(x)
	// as the planted !Smokes(x) v Cancer(x) does (with the unit clauses,
	// any sign pattern of one pairwise clause is the same model). Clauses
	// with a free variable (one in a single literal, such as
	// Smokes(a1) v Cancer(a1) v !Friends(a2,a1)) would enter with
	// domain-size-aware weights (Settings.DomainScaled), and those whose
	// free variable is only in a positive literal only extend the beam.

	// Output:
	// Smokes(a1) v Cancer(a1)
	// !Smokes(a1) v !Friends(a1,a2) v Smokes(a2)
}

// LearnValidated chooses Settings.RepeatedPredicates with each database
// held out in turn: here four worlds of the same planted MLN
// (testdata/planted), whose !Friends(x,y) v !Smokes(x) v Smokes(y)
// repeats Smokes. Allowing repeated predicates gains on average, but less
// than the gain's standard error over the four held-out worlds, so the
// simpler setting is kept.
func ExampleLearnValidated() {
	m, dbs, err := mln.LoadMultiple(context.Background(), []string{"testdata/planted/smokers.mln"},
		[]string{"testdata/planted/world1.db", "testdata/planted/world2.db", "testdata/planted/world3.db", "testdata/planted/world4.db"})
	if err != nil {
		panic(err)
	}
	s := structure.DefaultSettings()
	s.Model = m
	s.MaxVars, s.MaxNumPredicates = 2, 3
	r, ch, err := structure.LearnValidated(context.Background(), structure.MethodBeam, dbs, s, structure.DefaultScoring(),
		structure.Validation{Samples: 500, Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("repeated predicates: %v (held-out CLL %.3f against %.3f over %d worlds, gain's standard error %.3f)\n",
		ch.RepeatedPredicates, ch.CLL[1], ch.CLL[0], ch.Folds, ch.SE)
	for _, c := range r.Clauses {
		if structure.RepeatsPredicate(c) {
			fmt.Println(m.ClauseString(c))
		}
	}
	// Output:
	// repeated predicates: false (held-out CLL -0.422 against -0.433 over 4 worlds, gain's standard error 0.014)
}
