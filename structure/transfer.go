package structure

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/marple-mln/marple/mln"
)

// TransferMode is a deep transfer mode (DTM, Davis & Domingos 2009): how
// clauses transferred from another domain (package transfer's
// instantiated clique templates) bias the batch search.
type TransferMode int

// The modes of LearnTransfer.
const (
	// TransferSeed: the transferred clauses form the first beam of the
	// beam search (and are candidates of its first step).
	TransferSeed TransferMode = iota
	// TransferGreedy: the transferred clauses are added to the model one
	// at a time, the one of best WPLL gain first, while one gains; no
	// search follows.
	TransferGreedy
	// TransferRefine: Greedy, then the beam search starting from the
	// model Greedy built, refining its clauses.
	TransferRefine
)

var transferNames = []string{TransferSeed: "seed", TransferGreedy: "greedy", TransferRefine: "refine"}

// String returns the mode's name: seed, greedy or refine.
func (m TransferMode) String() string {
	if m >= 0 && int(m) < len(transferNames) {
		return transferNames[m]
	}
	return fmt.Sprintf("TransferMode(%d)", int(m))
}

// ParseTransferMode returns the mode called name (one of
// TransferModeNames).
func ParseTransferMode(name string) (TransferMode, error) {
	for m, n := range transferNames {
		if n == name {
			return TransferMode(m), nil
		}
	}
	return 0, fmt.Errorf("unknown transfer mode %q: the modes are %s", name, strings.Join(transferNames, ", "))
}

// TransferModeNames returns the names of the modes, TransferSeed's first.
func TransferModeNames() []string { return append([]string(nil), transferNames...) }

// LearnTransfer learns the structure of s.Model from dbs with transferred
// clauses as declarative bias, in one of the modes TransferSeed,
// TransferGreedy or TransferRefine. The scorer and the settings are those
// of LearnBatch; transferred clauses that the search could not hold
// (more than MaxVars variables or MaxNumPredicates literals, or not
// Searchable) are left out.
func LearnTransfer(ctx context.Context, mode TransferMode, dbs []*mln.Database, s Settings, sc Scoring, transferred []*mln.Clause) (*Result, error) {
	if s.Model == nil || len(dbs) == 0 {
		return nil, errors.New("structure: LearnTransfer needs a model and training databases")
	}
	maxVars, maxLits := s.MaxVars, s.MaxNumPredicates
	if maxVars <= 0 {
		maxVars = DefaultMaxVars
	}
	if maxLits <= 0 {
		maxLits = DefaultMaxNumPredicates
	}
	var cands []*mln.Clause
	for _, c := range transferred {
		if Searchable(c) && len(c.Vars) <= maxVars && predLits(c) <= maxLits {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return nil, errors.New("structure: no transferred clause fits the target (predicates, -maxVars, -maxNumPredicates)")
	}
	switch mode {
	case TransferSeed:
		s.InitialBeam = cands
		return LearnBatch(ctx, MethodBeam, dbs, s, sc)
	case TransferGreedy, TransferRefine:
	default:
		return nil, fmt.Errorf("structure: unknown transfer mode %v", mode)
	}
	s, err := withScorer(ctx, s, dbs, sc)
	if err != nil {
		return nil, err
	}
	g, err := greedyAdd(ctx, s, cands)
	if err != nil || mode == TransferGreedy {
		return g, err
	}
	// Refine: the beam search starts from the greedy model; its
	// transferred clauses are the first beam.
	s.Start = append(append([]*mln.Clause(nil), s.Start...), g.Clauses...)
	s.StartFromEmpty = false
	r, err := BeamSearch(ctx, s)
	if r != nil {
		r.Scored += g.Scored
		r.Steps += g.Steps
		r.Elapsed += g.Elapsed
	}
	return r, err
}

// greedyAdd adds cands to the starting model one at a time: each round
// scores every candidate not yet in the model (loose tolerances), re-scores
// the NumClausesReEval best tightly and adds the best whose gain (minus
// Penalty per literal) is positive and whose weight reaches MinWt; it
// stops when none does. The Result's Clauses are the clauses added, in
// order (Model gives the whole model with the unit clauses).
func greedyAdd(ctx context.Context, s Settings, cands []*mln.Clause) (*Result, error) {
	sr, err := newSearcher(ctx, s)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(cands))
	for i, c := range cands {
		keys[i] = CanonicalKey(c)
	}
	for !sr.outOfTime() {
		var round []*candidate
		for i, c := range cands {
			if sr.inModel(keys[i]) < 0 {
				round = append(round, &candidate{clause: c, key: keys[i], op: opAdd, target: -1, penalty: s.Penalty * float64(predLits(c))})
			}
		}
		if err := sr.evaluate(ctx, round, false, 0, math.NaN()); err != nil {
			if errors.Is(err, errTimeUp) {
				break
			}
			return sr.result(), err
		}
		sortCands(round)
		n := min(sr.s.NumClausesReEval, len(round))
		if sr.s.NumClausesReEval <= 0 {
			n = min(DefaultNumClausesReEval, len(round))
		}
		top := round[:n]
		if err := sr.evaluate(ctx, top, true, 0, math.NaN()); err != nil {
			if errors.Is(err, errTimeUp) {
				break
			}
			return sr.result(), err
		}
		sortCands(top)
		var best *candidate
		for _, c := range top {
			if sr.keep(c) {
				best = c
				break
			}
		}
		if best == nil {
			break
		}
		if err := sr.apply(ctx, best); err != nil {
			return sr.result(), err
		}
		sr.report(0, best.gain)
	}
	r := sr.result()
	r.Elapsed = time.Since(sr.start)
	return r, nil
}
