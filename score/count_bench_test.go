package score

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/datadir"
	"github.com/marple-mln/marple/mln"
)

// loadUWCSE loads the hand-built UW-CSE model and the AI area (skipping
// without the shared data).
func loadUWCSE(b *testing.B) (*mln.Model, *mln.Database) {
	dir := datadir.Require(b, "uw-cse")
	m, err := mln.LoadModel(dir + "/uw.mln")
	if err != nil {
		b.Fatal(err)
	}
	db, err := mln.LoadDatabase(m, dir+"/ai.db")
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		b.Fatal(err)
	}
	return m, db
}

// BenchmarkCountClause counts UW-CSE clauses on the AI area from scratch
// (no cache): a 2-literal, a 3-literal and the 5-literal clause with the
// most groundings of the hand-built model, and a 3-literal clause of
// positive literals over three variables (persons³ groundings).
func BenchmarkCountClause(b *testing.B) {
	m, db := loadUWCSE(b)
	d, err := NewPLLData(m, []*mln.Database{db}, nil, CountOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, src := range []string{
		"!advisedBy(s, p) v professor(p)",
		"!advisedBy(s, p) v !publication(t, s) v publication(t, p)",
		"!taughtBy(c, p, q) v !courseLevel(c, Level_500) v !ta(c, s, q) v advisedBy(s, p) v tempAdvisedBy(s, p)",
		"advisedBy(s, p) v tempAdvisedBy(p, q) v student(q)",
	} {
		f, err := m.ParseFormula(src)
		if err != nil {
			b.Fatal(err)
		}
		cls, err := m.AddFormula(f)
		if err != nil {
			b.Fatal(err)
		}
		c := m.Clauses[cls[0]]
		name := fmt.Sprintf("%dlits", len(c.Lits))
		if !c.Lits[0].Neg {
			name += "-positive"
		}
		b.Run(name, func(b *testing.B) {
			var cc *ClauseCounts
			for b.Loop() {
				if cc, err = d.count(c); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cc.Nonzeros()), "nonzeros")
			b.ReportMetric(float64(cc.Examined()), "examined")
		})
	}
}

// BenchmarkModelFit fits the weights of the 94 hand-built UW-CSE clauses
// on the AI area as `marple learn -g` does: count the clauses, build the
// rows, L-BFGS.
func BenchmarkModelFit(b *testing.B) {
	m, db := loadUWCSE(b)
	ctx := context.Background()
	for b.Loop() {
		d, err := NewPLLData(m, []*mln.Database{db}, nil, CountOptions{})
		if err != nil {
			b.Fatal(err)
		}
		ps, err := d.ModelRows(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Maximize(ctx, ps, len(m.Weights), FitOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScoreCandidates scores 2- and 3-literal candidate clauses
// against the UW-CSE unit clauses on the AI area (loose fits, counts not
// cached), two candidates at a time in parallel, and reports candidates
// per second.
func BenchmarkScoreCandidates(b *testing.B) {
	m, db := loadUWCSE(b)
	d, err := NewPLLData(m, []*mln.Database{db}, nil, CountOptions{PLLOptions: PLLOptions{Workers: 1}})
	if err != nil {
		b.Fatal(err)
	}
	var units []*mln.Clause
	for _, c := range m.Clauses {
		if len(c.Lits) == 1 && len(c.Exist) == 0 {
			units = append(units, c)
		}
	}
	base, err := d.NewScorer(units)
	if err != nil {
		b.Fatal(err)
	}
	fit0, err := base.Fit(context.Background(), TightFit(nil))
	if err != nil {
		b.Fatal(err)
	}
	var cands []*mln.Clause
	for _, c := range m.Clauses {
		if (len(c.Lits) == 2 || len(c.Lits) == 3) && len(c.Exist) == 0 && !c.Hard {
			cands = append(cands, c)
		}
	}
	b.ResetTimer()
	n := twoAtATime(b, cands, func() {
		d.mu.Lock()
		clear(d.cache) // count every time
		d.mu.Unlock()
	}, func(c *mln.Clause) error {
		opt := LooseFit(fit0.Weights)
		opt.Workers = 1
		_, err := base.Score(context.Background(), []*mln.Clause{c}, opt)
		return err
	})
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "candidates/s")
	b.ReportMetric(float64(len(cands)), "candidates")
}

// BenchmarkScreenVsRefit ranks the 2- and 3-literal clauses of the
// UW-CSE KB against the rest of the KB on the AI area, counts cached (as
// in every beam step after a clause's first), by the screen (its own
// weight optimised, the others fixed) and by a loose refit of every
// weight, two candidates at a time, and reports candidates per second.
func BenchmarkScreenVsRefit(b *testing.B) {
	m, db := loadUWCSE(b)
	d, err := NewPLLData(m, []*mln.Database{db}, nil, CountOptions{PLLOptions: PLLOptions{Workers: 1}})
	if err != nil {
		b.Fatal(err)
	}
	var base, cands []*mln.Clause
	for _, c := range m.Clauses {
		switch {
		case len(c.Plus) > 0:
		case (len(c.Lits) == 2 || len(c.Lits) == 3) && len(c.Exist) == 0 && !c.Hard:
			cands = append(cands, c)
		default:
			base = append(base, c)
		}
	}
	s, err := d.NewScorer(base)
	if err != nil {
		b.Fatal(err)
	}
	fit0, err := s.Fit(context.Background(), TightFit(nil))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range cands {
		if _, err := d.Counts(c); err != nil {
			b.Fatal(err)
		}
	}
	run := func(b *testing.B, one func(c *mln.Clause) error) {
		n := twoAtATime(b, cands, func() {}, one)
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "candidates/s")
	}
	b.Run("screen", func(b *testing.B) {
		sc, err := s.Screen(fit0.Weights, FitOptions{})
		if err != nil {
			b.Fatal(err)
		}
		run(b, func(c *mln.Clause) error { _, _, err := sc.Gain(context.Background(), nil, c); return err })
	})
	b.Run("refit", func(b *testing.B) {
		run(b, func(c *mln.Clause) error {
			opt := LooseFit(fit0.Weights)
			opt.Workers = 1
			_, err := s.Score(context.Background(), []*mln.Clause{c}, opt)
			return err
		})
	})
}

// twoAtATime runs one on every candidate, two goroutines at a time, in
// each iteration of b's loop (after before), and returns the number of
// calls.
func twoAtATime(b *testing.B, cands []*mln.Clause, before func(), one func(c *mln.Clause) error) int64 {
	var n atomic.Int64
	for b.Loop() {
		before()
		var wg sync.WaitGroup
		next := make(chan *mln.Clause)
		for k := 0; k < 2; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for c := range next {
					if err := one(c); err != nil {
						b.Error(err)
					}
					n.Add(1)
				}
			}()
		}
		for _, c := range cands {
			next <- c
		}
		close(next)
		wg.Wait()
	}
	return n.Load()
}
