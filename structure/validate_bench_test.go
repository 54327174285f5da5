package structure

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/datadir"
	"github.com/marple-mln/marple/mln"
)

// imdbTraining loads IMDB's empty model and its first four folds, the
// training databases of the documented learnstruct command (skipping
// without the shared data).
func imdbTraining(b testing.TB) ([]*mln.Database, Settings) {
	dir := datadir.Require(b, "imdb")
	m, err := mln.LoadModel(dir + "/empty.mln")
	if err != nil {
		b.Fatal(err)
	}
	var dbs []*mln.Database
	for _, f := range []string{"imdb.1.db", "imdb.2.db", "imdb.3.db", "imdb.4.db"} {
		db, err := mln.LoadDatabase(m, dir+"/"+f)
		if err != nil {
			b.Fatal(err)
		}
		dbs = append(dbs, db)
	}
	if err := m.Compile(); err != nil {
		b.Fatal(err)
	}
	s := DefaultSettings()
	s.Model = m
	s.Start = m.Clauses
	return dbs, s
}

// BenchmarkLearnValidatedIMDB runs the documented IMDB command's learning:
// beam search from unit clauses on the first four folds, repeated
// predicates, joins and per-constant refinements chosen on held-out data
// (the command's defaults).
func BenchmarkLearnValidatedIMDB(b *testing.B) {
	dbs, s := imdbTraining(b)
	v := DefaultValidation()
	v.Seed = 1 // the command's default
	if testing.Verbose() {
		v.Log = os.Stderr
	}
	var r *Result
	for b.Loop() {
		var err error
		if r, _, err = LearnValidated(context.Background(), MethodBeam, dbs, s, DefaultScoring(), v); err != nil {
			b.Fatal(err)
		}
	}
	m, err := r.Model(s.Model)
	if err != nil {
		b.Fatal(err)
	}
	var buf strings.Builder
	if err := mln.WriteModel(&buf, m); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d clauses:\n%s", len(r.Clauses), buf.String())
}

// BenchmarkValidationSearchIMDB runs one validation search of the
// documented IMDB command: repeated predicates and joins on, the second
// fold held out.
func BenchmarkValidationSearchIMDB(b *testing.B) {
	dbs, s := imdbTraining(b)
	s.RepeatedPredicates, s.Joins = os.Getenv("MARPLE_REP") != "0", true
	train := without(dbs, 1)
	sc := DefaultScoring()
	var r *Result
	for b.Loop() {
		var err error
		if r, err = LearnBatch(context.Background(), MethodBeam, train, s, sc); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%d clauses, %d candidates (%d pruned), %s", len(r.Clauses), r.Scored, r.Pruned, r.Elapsed)
}
