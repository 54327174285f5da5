package structure

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/marple-mln/marple/internal/testkit/datadir"
	"github.com/marple-mln/marple/mln"
)

// uwcseFold loads the UW-CSE model and the four training areas of the
// fold that tests on the AI area, and the search settings the msl
// experiment uses (skipping without the shared data).
func uwcseFold(b *testing.B, fromKB bool) ([]*mln.Database, Settings) {
	dir := datadir.Require(b, "uw-cse")
	m, err := mln.LoadModel(dir + "/uw.mln")
	if err != nil {
		b.Fatal(err)
	}
	var dbs []*mln.Database
	for _, f := range []string{"graphics.db", "language.db", "systems.db", "theory.db"} {
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
	if fromKB {
		s.Start = m.Clauses
	}
	skip := []string{"samePerson", "sameTitle", "sameCourse", "sameProject", "sameQuarter", "sameLevel", "samePosition", "samePhase", "sameInteger"}
	for _, p := range m.Preds {
		if !slices.Contains(skip, p.Name) {
			s.Preds = append(s.Preds, p.ID)
		}
	}
	return dbs, s
}

// BenchmarkBeamUWCSE runs the beam search of the msl experiment's AI fold
// (train on the four other areas) from unit clauses (unit/...) and from
// the hand-built KB (kb/...), screening candidates and refitting the best
// (.../screen, the default) or refitting every candidate (.../refit-all,
// Settings.Refits < 0), for at most $MARPLE_BENCH_SECONDS seconds
// (default 30) each, and reports candidates scored per second of wall
// time.
func BenchmarkBeamUWCSE(b *testing.B) {
	limit := 30 * time.Second
	if v, err := strconv.Atoi(os.Getenv("MARPLE_BENCH_SECONDS")); err == nil && v > 0 {
		limit = time.Duration(v) * time.Second
	}
	for _, run := range []struct {
		name   string
		kb     bool
		refits int
	}{{"unit/screen", false, 0}, {"unit/refit-all", false, -1}, {"kb/screen", true, 0}, {"kb/refit-all", true, -1}} {
		name := run.name
		b.Run(name, func(b *testing.B) {
			dbs, s := uwcseFold(b, run.kb)
			s.TimeLimit, s.Refits = limit, run.refits
			if testing.Verbose() {
				s.Progress = func(p Progress) {
					b.Logf("%6.1fs step %d len %d scored %d rate %.1f round %d/%d best %.4g clauses %d score %.6g",
						p.Elapsed.Seconds(), p.Step, p.Length, p.Scored, p.Rate, p.Round, p.RoundTotal, p.BestGain, p.Clauses, p.Score)
				}
			}
			var r *Result
			var err error
			for b.Loop() {
				if r, err = LearnBatch(context.Background(), MethodBeam, dbs, s, DefaultScoring()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(r.Scored)/r.Elapsed.Seconds(), "candidates/s")
			b.ReportMetric(float64(r.Scored), "candidates")
			b.ReportMetric(float64(len(r.Clauses)), "clauses")
			b.Logf("%s: %d candidates in %s, %d clauses, stopped %q", name, r.Scored, r.Elapsed.Round(time.Millisecond), len(r.Clauses), r.Stopped)
		})
	}
}
