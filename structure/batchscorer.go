package structure

import (
	"context"
	"slices"

	"github.com/marple-mln/marple/mln"
)

// newBatchScorer builds the scorer of LearnBatch for the search settings s
// (with s.Joins, a join the search makes is scored at its conclusion's
// atoms only: JoinConclusion).
func newBatchScorer(_ context.Context, s Settings, dbs []*mln.Database, sc Scoring) (Scorer, error) {
	var at func(*mln.Clause) []mln.PredID
	if s.Joins {
		given := map[string]bool{}
		for _, cs := range [][]*mln.Clause{s.Start, s.InitialBeam, s.InitialClauses} {
			for _, c := range cs {
				given[CanonicalKey(c)] = true
			}
		}
		at = func(c *mln.Clause) []mln.PredID {
			if !Join(c) || given[CanonicalKey(c)] {
				return nil
			}
			return JoinConclusion(c)
		}
	}
	return newCountScorer(s.Model, dbs, s.NonEvidence, sc, sc.MaxGroundings, at)
}

// JoinConclusion returns the predicates of a join's positive literals
// (nil for a clause that is not a Join), the only atoms at which the
// search scores it with Settings.Joins: the pseudo-likelihood of the
// repeated predicate's atoms, each given all the others, scores the join
// by how atoms of that predicate predict each other, which is never
// evidence when that predicate is queried, and fits a join that holds on
// every training grounding as a near-hard rule (on IMDB,
// !movie(f,a) v !movie(f,d) v !director(d) v workedUnder(a,d) at 36, and
// every weight refit around it: movie, queried, collapsed). Its weight
// is fit to the conditional likelihood of its conclusion's atoms given
// the rest, and every other atom's conditional is scored without it.
func JoinConclusion(c *mln.Clause) []mln.PredID {
	if !Join(c) {
		return nil
	}
	var ps []mln.PredID
	for _, l := range c.Lits {
		if l.Pred >= 0 && !l.Neg && !slices.Contains(ps, l.Pred) {
			ps = append(ps, l.Pred)
		}
	}
	slices.Sort(ps)
	return ps
}
