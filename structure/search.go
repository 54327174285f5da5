package structure

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/marple-mln/marple/mln"
)

// Defaults of the batch structure search, Alchemy's learnstruct where it
// has the setting.
const (
	DefaultBeamSize               = 5    // -beamSize
	DefaultMinWt                  = 0.01 // -minWt
	DefaultPenalty                = 0.01 // -penalty
	DefaultBestGainUnchangedLimit = 2    // -bestGainUnchangedLimit
	DefaultNumClausesReEval       = 10   // -numClausesReEval
	// DefaultSFSClausesPerStep is K of shortest-first search, the number
	// of clauses of length L added at once (Kok & Domingos 2005 leave it
	// open; 1 adds the single best, as beam search does).
	DefaultSFSClausesPerStep = 1
)

// Settings configure BeamSearch and ShortestFirst. Start from
// DefaultSettings: a zero Penalty or MinWt means zero.
type Settings struct {
	// Scorer scores sets of clauses. Required.
	Scorer Scorer
	// Model declares the predicates and types. Required.
	Model *mln.Model
	// Preds are the predicates new literals may use (nil: all).
	Preds []mln.PredID
	// NonEvidence are the predicates whose unit clauses the search always
	// keeps in the model (Alchemy adds one per non-evidence predicate;
	// nil: all predicates).
	NonEvidence []mln.PredID
	// Start holds the starting MLN's clauses. Those Searchable may be
	// refined (and are the first beam); the others stay as they are.
	Start []*mln.Clause
	// StartFromEmpty starts from the unit clauses only; the clauses of
	// Start are then candidates of the first step (Alchemy's
	// -startFromEmptyMLN).
	StartFromEmpty bool
	// InitialBeam, when not empty, replaces the first beam of the first
	// beam-search iteration (the model's searchable clauses otherwise):
	// deep transfer's "seed" beam. Each of its clauses is itself a
	// candidate of the first step too.
	InitialBeam []*mln.Clause
	// InitialClauses are extra candidates of the first step (beam search)
	// or of the step of their length (shortest-first search), as the
	// clauses of Start are with StartFromEmpty: deep transfer's
	// transferred clauses.
	InitialClauses []*mln.Clause

	BeamSize         int // beam width (0: DefaultBeamSize)
	MaxVars          int // at most this many variables per clause (0: DefaultMaxVars)
	MaxNumPredicates int // at most this many literals per clause (0: DefaultMaxNumPredicates)
	// MinWt drops candidates, and learned clauses of two or more
	// literals (not the starting MLN's), whose absolute weight is below
	// it.
	MinWt float64
	// Penalty is the structure prior: each literal by which a candidate
	// differs from the clause it came from (all its literals for a new
	// clause) subtracts Penalty from its gain.
	Penalty float64
	// BestGainUnchangedLimit stops a beam search after this many beam
	// steps without a new best clause (0: the default).
	BestGainUnchangedLimit int
	// NumClausesReEval is the number of best candidates re-scored with the
	// tight tolerances before one is added (0: the default).
	NumClausesReEval int
	// ClausesPerStep is K of shortest-first search (0: the default).
	ClausesPerStep int
	// Refits is the number of candidates of a round refit with the loose
	// L-BFGS tolerances (every weight free) when the Scorer is a
	// Screener: all candidates are first ranked by their screened gain
	// (their own weight optimised, the others fixed), and only the
	// Refits best that may enter a beam are refit; a candidate's gain is
	// the better of the two (both are lower bounds of its gain). 0:
	// max(BeamSize, NumClausesReEval); negative: refit every candidate,
	// no screening (Alchemy's way, much slower).
	Refits int
	// FreeVars lets clauses of two or more literals in which a variable
	// occurs in only one literal enter the model (Alchemy's learnstruct
	// does). By default such clauses are only stepping stones of the
	// beam: a free variable makes a clause count one grounding per
	// constant of its type, so its weight is calibrated to the training
	// databases' domain sizes, and the model predicts with extreme,
	// domain-dependent confidence on a database of another size (on IMDB,
	// held-out CLL fell far below the unit clauses' with them).
	FreeVars bool
	// DomainScaled makes new clauses with free variables domain-size
	// aware (mln.Clause.DomainScaled: each ground clause weighs the weight
	// divided by the groundings of the free variables, mln.DomainScale,
	// in fitting and in inference alike), as are refinements of a model
	// clause that is, and lets those whose free variables each occur in a
	// negative literal enter the model (FreeVarsNegative): their weights
	// no longer depend on the training databases' domain sizes. On IMDB
	// and on UW-CSE from unit clauses (results/dsa.md) it improves both
	// held-out CLL and AUC-PR; from the UW-CSE KB it did worse, so the
	// commands turn it on for searches from a KB only when asked.
	DomainScaled bool
	// SinglePredicate lets clauses of two or more literals, all of one
	// predicate, enter the model. By default such clauses only extend the
	// beam, unless given (in Start, InitialBeam or InitialClauses: a
	// hand-built or transferred clause), and a refinement of a model
	// clause of that kind may stay one:
	// the pseudo-likelihood scores each atom given all the others, so
	// such a clause is scored entirely by how atoms of a predicate
	// predict other atoms of the same predicate, which is never evidence
	// when that predicate is queried. PLL then rewards exactly the
	// clauses that wreck the joint distribution: on UW-CSE, SFS added
	// courseLevel(a1,a2) v !courseLevel(a3,a2) v !courseLevel(a3,a4) v
	// !courseLevel(a1,a4) (weight 9.6), which explains every false
	// courseLevel atom by the others; the unit clause's weight rose from
	// -1 to +6.4 to fit the true ones, and, courseLevel queried jointly,
	// the model put every course at every level (held-out courseLevel CLL
	// -4.7 against -0.6).
	SinglePredicate bool
	// RepeatedPredicates lets new clauses in which a predicate occurs in
	// two or more literals enter the model. By default (false) they only
	// extend the beam, unless given or refining a model clause that
	// repeats a predicate itself. This is the single-predicate rule for
	// clauses that mix predicates: such a clause is scored in part by how
	// atoms of the repeated predicate predict each other, which is never
	// evidence when that predicate is queried. On UW-CSE, beam search
	// from the knowledge base added !publication(a1,a2) v
	// !publication(a1,a3) v advisedBy(a2,a3) v advisedBy(a3,a2); the
	// publication unit clause's weight rose to +10 and, queried jointly,
	// most publication atoms became likely. Whether a data set gains or
	// loses by them is for held-out data to say: LearnValidated chooses
	// this setting by the held-out conditional log-likelihood.
	RepeatedPredicates bool
	// Joins lets new clauses that repeat a predicate enter the model when
	// they are joins (Join: one predicate in two negative literals, a
	// conclusion of another predicate, no free variable), as in
	// !movie(f,a) v !movie(f,d) v !director(d) v workedUnder(a,d); a
	// refinement of such a join must be a join too. Beam search then also
	// proposes joins directly (Operators.AddJoin) and fits them tightly
	// from zero weights (the screen and warm-started fits miss their
	// gain). The scorer LearnBatch builds scores a join the search makes
	// at its conclusion's atoms only (JoinConclusion): its weight is fit
	// to the conditional likelihood of the conclusion given the rest, and
	// the repeated predicate's atoms are scored without it (scored at
	// every atom, a join that holds on every training grounding gets a
	// near-hard weight from the repeated predicate's atoms, each given the
	// others, and every weight around it shifts: on IMDB, held-out CLL
	// -0.855). The clauses the repeated-predicates rule guards against (a
	// repeated predicate that predicts itself, as in !workedUnder(a,d) v
	// !movie(f,a) v movie(f,d), or clauses with no conclusion) stay
	// refused unless RepeatedPredicates. Off by default: on IMDB (leave one
	// fold out) it lifts held-out AUC-PR from 0.616 to 0.744, but with
	// movie queried the join keeps directors out of films, and CLL falls
	// from -0.231 to -0.252 (results/dsa.md).
	Joins bool
	// MaxSteps, when positive, bounds the clauses added (or changed).
	MaxSteps int
	// MaxCandidates, when positive, ends the search at the first
	// beam-search iteration or shortest-first round that would start
	// with at least this many candidates scored, keeping the model so
	// far (Result.Stopped says so). Unlike TimeLimit it does not depend
	// on the machine's speed or load: the same data, settings and seed
	// give the same model.
	MaxCandidates int
	// TimeLimit, when positive, ends the search once it has passed,
	// keeping the model so far (a round of candidates under way is
	// dropped; Result.Stopped says so).
	TimeLimit time.Duration
	// Workers scores candidates concurrently (0: GOMAXPROCS). The result
	// does not depend on it.
	Workers int
	// Progress, when set, is called about once a second during scoring
	// and after each step.
	Progress func(Progress)
	// Checkpoint, when set, receives the search's state after each
	// beam-search iteration and at the start of each shortest-first
	// round; an error from it ends the search.
	Checkpoint func(*SearchState) error
	// Resume, when set, continues the search from a state Checkpoint
	// received (with the same settings and data) instead of starting it.
	Resume *SearchState
}

// DefaultSettings returns Alchemy's learnstruct defaults, with
// domain-size-aware weights for new clauses with free variables
// (DomainScaled; Alchemy has no such setting and admits them unscaled).
func DefaultSettings() Settings {
	return Settings{
		BeamSize:               DefaultBeamSize,
		MaxVars:                DefaultMaxVars,
		MaxNumPredicates:       DefaultMaxNumPredicates,
		MinWt:                  DefaultMinWt,
		Penalty:                DefaultPenalty,
		BestGainUnchangedLimit: DefaultBestGainUnchangedLimit,
		NumClausesReEval:       DefaultNumClausesReEval,
		ClausesPerStep:         DefaultSFSClausesPerStep,
		DomainScaled:           true,
	}
}

// Progress reports a search under way.
type Progress struct {
	// Step counts the clauses added so far; Length is the clause length
	// shortest-first search is at (beam search: the beam step).
	Step, Length int
	// Scored counts the candidates scored so far, Rate per second;
	// Round and RoundTotal the candidates of the current round.
	Scored            int
	Rate              float64
	Round, RoundTotal int
	// BestGain is the best gain found in this step (NaN before one).
	BestGain float64
	// Clauses is the number of clauses in the model, Score its score.
	Clauses int
	Score   float64
	// ETA is the expected time to the end of the current round.
	ETA     time.Duration
	Elapsed time.Duration
	// Search and Searches number the search among those of a
	// LearnValidated run (1-based; 0 outside one), RunElapsed is the
	// time since the run started and RunETA the expected time to the end
	// of its searches (0 until one has finished).
	Search, Searches   int
	RunElapsed, RunETA time.Duration
}

// Result is the outcome of a search.
type Result struct {
	// Clauses are the learned model's clauses and Weights their weights.
	Clauses []*mln.Clause
	Weights []float64
	// Score is the scorer's objective at those weights (tight).
	Score float64
	// Scored counts the candidates scored, Steps the clauses added or
	// changed.
	Scored, Steps int
	// Pruned counts the candidates of Scored never screened: a bound on
	// their gain, computed without counting them, showed that they could
	// neither be refit nor enter a beam or the best of an iteration (beam
	// search; the result is the same as screening them).
	Pruned int
	// Stopped is set when the search ended early (TimeLimit, MaxSteps or
	// cancellation) rather than because no candidate improved the score.
	Stopped string
	Elapsed time.Duration
}

// op is what a candidate does to the model.
type op uint8

const (
	opAdd     op = iota // append the clause
	opReplace           // replace clause target by it
	opRemove            // remove clause target
)

type candidate struct {
	clause  *mln.Clause
	key     string
	op      op
	target  int
	penalty float64
	// results
	score, gain, wt float64
	w               []float64
	done            bool
	screened        bool // gain and wt are the screen's (score and w unset)
	// pruned: not screened, because bound, an upper bound on its screened
	// gain, showed that it could not be refit, enter a beam or the best
	// (beam search; settlePruned screens it when a later comparison
	// needs it).
	pruned bool
	bound  float64
}

func (c *candidate) id() string {
	return fmt.Sprintf("%d/%d/%s", c.op, c.target, c.key)
}

// state is the current model.
type state struct {
	clauses []*mln.Clause
	keys    []string
	fixed   []bool // not searchable: never modified
	unit    []bool // a kept unit clause: never removed
	w       []float64
	score   float64
	// screen, when the scorer is a Screener, screens candidates against
	// this model (built on first use); screenObj is its reference
	// objective.
	screen    ScreenFunc
	screenObj float64
	// bound, when the scorer has one, bounds the screen's gains before
	// counting (boundScreener).
	bound boundFunc
}

type searcher struct {
	s Settings
	// startKeys are the keys of the starting MLN's clauses (none with
	// StartFromEmpty).
	startKeys map[string]bool
	ops       Operators
	cur       *state
	start     time.Time
	scored    atomic.Int64
	steps     int
	workers   int
	stopped   string
	grace     bool // the time limit does not apply (lastCommit)
	// pruning bounds screened gains before counting and skips the
	// candidates that cannot matter (beam search, pruneCandidates).
	pruning bool
	pruned  atomic.Int64
	// given holds the keys of the clauses the settings give (Start,
	// InitialBeam, InitialClauses): a clause over one predicate, or one
	// repeating a predicate, may enter the model if given.
	given map[string]bool
}

func newSearcher(ctx context.Context, s Settings) (*searcher, error) {
	if s.Scorer == nil || s.Model == nil {
		return nil, errors.New("structure: a search needs a model and a scorer")
	}
	if s.BeamSize <= 0 {
		s.BeamSize = DefaultBeamSize
	}
	if s.MaxVars <= 0 {
		s.MaxVars = DefaultMaxVars
	}
	if s.MaxNumPredicates <= 0 {
		s.MaxNumPredicates = DefaultMaxNumPredicates
	}
	if s.BestGainUnchangedLimit <= 0 {
		s.BestGainUnchangedLimit = DefaultBestGainUnchangedLimit
	}
	if s.NumClausesReEval <= 0 {
		s.NumClausesReEval = DefaultNumClausesReEval
	}
	if s.ClausesPerStep <= 0 {
		s.ClausesPerStep = DefaultSFSClausesPerStep
	}
	if s.Refits == 0 {
		s.Refits = max(s.BeamSize, s.NumClausesReEval)
	}
	if s.MinWt < 0 || s.Penalty < 0 || math.IsNaN(s.MinWt) || math.IsNaN(s.Penalty) {
		return nil, errors.New("structure: -minWt and -penalty must not be negative")
	}
	sr := &searcher{s: s, start: time.Now(),
		ops: Operators{Model: s.Model, Preds: s.Preds, MaxVars: s.MaxVars, MaxNumPredicates: s.MaxNumPredicates}}
	sr.given, sr.startKeys = map[string]bool{}, map[string]bool{}
	for _, cs := range [][]*mln.Clause{s.Start, s.InitialBeam, s.InitialClauses} {
		for _, c := range cs {
			sr.given[CanonicalKey(c)] = true
		}
	}
	if !s.StartFromEmpty {
		for _, c := range s.Start {
			sr.startKeys[CanonicalKey(c)] = true
		}
	}
	sr.workers = s.Workers
	if sr.workers <= 0 {
		sr.workers = runtime.GOMAXPROCS(0)
	}
	st := &state{}
	has := map[string]bool{}
	add := func(c *mln.Clause, fixed, unit bool) {
		k := CanonicalKey(c)
		if len(c.Exist) > 0 {
			// CanonicalKey ignores EXIST: keep such a clause apart from its
			// universal twin.
			k = "exist|" + s.Model.ClauseString(c)
		}
		if has[k] {
			return
		}
		has[k] = true
		st.clauses = append(st.clauses, c)
		st.keys = append(st.keys, k)
		st.fixed = append(st.fixed, fixed)
		st.unit = append(st.unit, unit)
	}
	nonEv := s.NonEvidence
	if nonEv == nil {
		for p := range s.Model.Preds {
			nonEv = append(nonEv, mln.PredID(p))
		}
	}
	for _, p := range nonEv {
		add(UnitClause(s.Model, p), false, true)
	}
	if !s.StartFromEmpty {
		for _, c := range s.Start {
			add(c, !Searchable(c), false)
		}
	}
	sr.cur = st
	score, w, err := s.Scorer.Score(ctx, st.clauses, nil, true)
	if err != nil {
		return nil, err
	}
	st.score, st.w = score, w
	if err := sr.dropSmall(ctx); err != nil {
		return nil, err
	}
	return sr, nil
}

func (sr *searcher) result() *Result {
	return &Result{Clauses: slices.Clone(sr.cur.clauses), Weights: slices.Clone(sr.cur.w), Score: sr.cur.score,
		Scored: int(sr.scored.Load()), Pruned: int(sr.pruned.Load()), Steps: sr.steps, Stopped: sr.stopped, Elapsed: time.Since(sr.start)}
}

// outOfTime reports (and records) whether the search must end.
func (sr *searcher) outOfTime() bool {
	if sr.s.TimeLimit > 0 && time.Since(sr.start) > sr.s.TimeLimit {
		sr.stopped = fmt.Sprintf("time limit %s reached", sr.s.TimeLimit)
		return true
	}
	if sr.s.MaxSteps > 0 && sr.steps >= sr.s.MaxSteps {
		sr.stopped = fmt.Sprintf("%d steps taken", sr.steps)
		return true
	}
	if n := int(sr.scored.Load()); sr.s.MaxCandidates > 0 && n >= sr.s.MaxCandidates {
		sr.stopped = fmt.Sprintf("%d candidates scored (limit %d)", n, sr.s.MaxCandidates)
		return true
	}
	return false
}

// trial returns the clauses and starting weights of the model with c
// applied.
func (sr *searcher) trial(c *candidate) ([]*mln.Clause, []float64, int) {
	st := sr.cur
	switch c.op {
	case opReplace:
		// The clause replaced goes, the candidate comes last (scorers
		// cache the model without its last clause).
		cl := append(slices.Delete(slices.Clone(st.clauses), c.target, c.target+1), c.clause)
		w := append(slices.Delete(slices.Clone(st.w), c.target, c.target+1), 0)
		return cl, w, sr.trialPos(c)
	case opRemove:
		return slices.Delete(slices.Clone(st.clauses), c.target, c.target+1),
			slices.Delete(slices.Clone(st.w), c.target, c.target+1), -1
	}
	return append(slices.Clone(st.clauses), c.clause), append(slices.Clone(st.w), 0), sr.trialPos(c)
}

// trialPos is the candidate's position in trial's clauses (-1 for a
// removal), without building them.
func (sr *searcher) trialPos(c *candidate) int {
	switch c.op {
	case opReplace:
		return len(sr.cur.clauses) - 1
	case opRemove:
		return -1
	}
	return len(sr.cur.clauses)
}

// evaluate scores the candidates concurrently (loose or tight), in place.
// Loose rounds with a Screener screen every candidate and refit the
// Refits best.
func (sr *searcher) evaluate(ctx context.Context, cands []*candidate, tight bool, length int, bestGain float64) error {
	if len(cands) == 0 {
		return nil
	}
	scr, ok := sr.s.Scorer.(Screener)
	if tight || !ok || sr.s.Refits < 0 {
		return sr.parallel(ctx, cands, true, length, bestGain, func(c *candidate) error { return sr.fit(ctx, c, tight, math.NaN()) })
	}
	st := sr.cur
	if st.screen == nil {
		var f ScreenFunc
		var b boundFunc
		var obj float64
		var err error
		if bs, ok := scr.(boundScreener); ok {
			f, b, obj, err = bs.screenBound(ctx, st.clauses, st.w)
		} else {
			f, obj, err = scr.Screen(ctx, st.clauses, st.w)
		}
		if err != nil {
			return err
		}
		st.screen, st.bound, st.screenObj = f, b, obj
	}
	var err error
	if sr.pruning && st.bound != nil {
		err = sr.screenPruning(ctx, cands, length, bestGain)
	} else {
		err = sr.parallel(ctx, cands, true, length, bestGain, func(c *candidate) error { return sr.screenOne(ctx, c) })
	}
	if err != nil {
		return err
	}
	// The best that may enter a beam, refit.
	var best []*candidate
	for _, c := range cands {
		if sr.keep(c) {
			best = append(best, c)
		}
	}
	sortCands(best)
	best = best[:min(len(best), sr.s.Refits)]
	if err := sr.parallel(ctx, best, false, length, bestGain, func(c *candidate) error { return sr.fit(ctx, c, false, st.screenObj) }); err != nil {
		return err
	}
	if !sr.s.Joins {
		return nil
	}
	// Joins are fit with the tight tolerances from zero (joinFromZero): a
	// join's gain comes with its conclusion's unit weight moving too,
	// which neither the screen (its own weight only) nor the loose fit
	// from the model's weights sees (on IMDB, !movie(f,a) v !movie(f,d) v
	// workedUnder(a,d): screened and loose gain 0.015, weight 0.007;
	// tight from zero 0.278, 0.208).
	var joins []*candidate
	for _, c := range cands {
		if c.op != opRemove && Join(c.clause) {
			joins = append(joins, c)
		}
	}
	return sr.parallel(ctx, joins, false, length, bestGain, func(c *candidate) error {
		if err := sr.fit(ctx, c, true, math.NaN()); err != nil {
			return err
		}
		c.screened = false
		return nil
	})
}

// screenOne screens c against the current model.
func (sr *searcher) screenOne(ctx context.Context, c *candidate) error {
	cand := c.clause
	if c.op == opRemove {
		cand = nil
	}
	g, wt, err := sr.cur.screen(ctx, c.target, cand)
	if err != nil {
		return err
	}
	c.gain, c.wt, c.done, c.screened, c.pruned = g-c.penalty, wt, true, true, false
	if c.op == opRemove {
		c.wt = math.Inf(1)
	}
	return nil
}

// pruneCandidates turns candidate pruning on in beam search (tests turn
// it off to compare).
var pruneCandidates = true

// screenPruning screens the candidates of a loose round in decreasing
// order of a bound on their screened gain (the current model's loss at
// the atoms of their predicates, boundFunc), and stops when the bound
// falls below the Refits-th best screened gain of the candidates that may
// enter a beam: the rest cannot be among the Refits refit (their screened
// gain is at most their bound), and they are marked pruned, for
// settlePruned to screen if a beam or the best could still want them.
// Removals and, with Joins, joins (fit from zero whatever their screen)
// are always screened. Each candidate counts as scored.
func (sr *searcher) screenPruning(ctx context.Context, cands []*candidate, length int, bestGain float64) error {
	st := sr.cur
	bounds := make([]float64, len(cands))
	for i, c := range cands {
		bounds[i] = math.Inf(1)
		if c.op == opRemove || sr.s.Joins && Join(c.clause) {
			continue
		}
		b, err := st.bound(c.target, c.clause)
		if err != nil {
			return err
		}
		b -= c.penalty
		bounds[i] = b + 1e-9*(1+math.Abs(b)) // rounding
	}
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return bounds[order[a]] > bounds[order[b]] })
	chunk := max(4*sr.workers, 16)
	threshold := math.Inf(-1)
	var kept []float64
	next := 0
	for next < len(order) && !(bounds[order[next]] < threshold) {
		end := next
		for end < len(order) && end-next < chunk && !(bounds[order[end]] < threshold) {
			end++
		}
		batch := make([]*candidate, 0, end-next)
		for _, i := range order[next:end] {
			batch = append(batch, cands[i])
		}
		if err := sr.parallel(ctx, batch, true, length, bestGain, func(c *candidate) error { return sr.screenOne(ctx, c) }); err != nil {
			return err
		}
		for _, c := range batch {
			if sr.keep(c) {
				kept = append(kept, c.gain)
			}
		}
		threshold = kthLargest(kept, sr.s.Refits)
		next = end
	}
	for _, i := range order[next:] {
		c := cands[i]
		c.pruned, c.bound, c.done = true, bounds[i], false
		sr.scored.Add(1)
		sr.pruned.Add(1)
	}
	return nil
}

// settlePruned screens the pruned candidates of cands (this beam step's,
// those of earlier steps included) whose bound does not rule out that a
// beam or the best wants them: it is not below the BeamSize-th best gain
// of the candidates that may enter a beam, or not below the
// NumClausesReEval-th best of those that may enter the model. A candidate
// left pruned has a gain below that many others', so the beam and the
// best are those of screening every candidate; screening more only raises
// those gains. Candidates screened here are not refit: they were not among
// the Refits best of their round.
func (sr *searcher) settlePruned(ctx context.Context, cands []*candidate, length int) error {
	var pruned []*candidate
	var beamGains, admitGains []float64
	for _, c := range cands {
		switch {
		case c.pruned:
			pruned = append(pruned, c)
		case sr.keep(c) && c.op != opRemove:
			beamGains = append(beamGains, c.gain)
			if sr.admit(c) {
				admitGains = append(admitGains, c.gain)
			}
		}
	}
	if len(pruned) == 0 {
		return nil
	}
	threshold := min(kthLargest(beamGains, sr.s.BeamSize), kthLargest(admitGains, sr.s.NumClausesReEval))
	var need []*candidate
	for _, c := range pruned {
		if !(c.bound < threshold) {
			need = append(need, c)
		}
	}
	return sr.parallel(ctx, need, false, length, math.NaN(), func(c *candidate) error { return sr.screenOne(ctx, c) })
}

// kthLargest returns the k-th largest of xs (-Inf when it has fewer).
func kthLargest(xs []float64, k int) float64 {
	if k <= 0 || len(xs) < k {
		return math.Inf(-1)
	}
	v := slices.Clone(xs)
	slices.SortFunc(v, func(a, b float64) int { return cmp.Compare(b, a) })
	return v[k-1]
}

// joinFromZero reports whether a tight fit of c starts from zero weights
// rather than the model's: with Joins, for a join. The pseudo-likelihood
// is nearly flat along the direction in which a join's weight and its
// conclusion's unit weight move together, and L-BFGS started at the
// model's weights stops there at once (on IMDB, !movie(f,a) v !movie(f,d)
// v workedUnder(a,d): gain -0.02, weight 0.006 from the model's weights;
// 0.28, 0.21 from zero), as the final refit of a search starts from zero
// for the same reason.
func (sr *searcher) joinFromZero(c *candidate, tight bool) bool {
	return tight && sr.s.Joins && c.op != opRemove && Join(c.clause)
}

// fit scores one candidate with Score. For a loose refit of a screened
// candidate (ref: the screen's reference objective), the gain is the
// better of the screen's and the refit's.
func (sr *searcher) fit(ctx context.Context, c *candidate, tight bool, ref float64) error {
	pos := sr.trialPos(c)
	var score float64
	var w []float64
	var err error
	if scr, ok := sr.s.Scorer.(Screener); ok && !sr.joinFromZero(c, tight) {
		// Score the change against the model's clauses, which the scorer
		// keeps, and bring the weights to the trial's order.
		var cand *mln.Clause
		if c.op != opRemove {
			cand = c.clause
		}
		score, w, err = scr.Replace(ctx, sr.cur.clauses, sr.cur.w, c.target, cand, tight)
		if err == nil && c.target >= 0 {
			w = slices.Delete(w, c.target, c.target+1)
		}
	} else {
		cl, w0, _ := sr.trial(c)
		if sr.joinFromZero(c, tight) {
			w0 = nil
		}
		score, w, err = sr.s.Scorer.Score(ctx, cl, w0, tight)
	}
	if err != nil {
		return err
	}
	wt := math.Inf(1) // a removal passes the weight filter
	if pos >= 0 {
		wt = w[pos]
	}
	if !math.IsNaN(ref) {
		if g := score - ref - c.penalty; g > c.gain {
			c.gain, c.wt = g, wt
		}
		c.score, c.w, c.screened = score, w, false
		return nil
	}
	c.score, c.w, c.done, c.wt = score, w, true, wt
	c.gain = score - sr.cur.score - c.penalty
	return nil
}

// parallel runs fn on the candidates on every worker, reporting progress
// and, with count, counting them as scored; a round the time limit cuts
// short returns errTimeUp.
func (sr *searcher) parallel(ctx context.Context, cands []*candidate, count bool, length int, bestGain float64, fn func(*candidate) error) error {
	if len(cands) == 0 {
		return nil
	}
	var next, done atomic.Int64
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	roundStart := time.Now()
	for k := 0; k < min(sr.workers, len(cands)); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(cands) || ctx.Err() != nil || sr.pastLimit() {
					return
				}
				if err := fn(cands[i]); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				if count {
					sr.scored.Add(1)
				}
				done.Add(1)
			}
		}()
	}
	if sr.s.Progress != nil {
		stop := make(chan struct{})
		go func() { wg.Wait(); close(stop) }()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
	loop:
		for {
			select {
			case <-stop:
				break loop
			case <-tick.C:
				n := int(done.Load())
				el := time.Since(roundStart)
				rate := float64(n) / el.Seconds()
				var eta time.Duration
				if rate > 0 {
					eta = time.Duration(float64(len(cands)-n) / rate * float64(time.Second))
				}
				sr.s.Progress(Progress{Step: sr.steps, Length: length, Scored: int(sr.scored.Load()), Rate: rate,
					Round: n, RoundTotal: len(cands), BestGain: bestGain, Clauses: len(sr.cur.clauses),
					Score: sr.cur.score, ETA: eta, Elapsed: time.Since(sr.start)})
			}
		}
	} else {
		wg.Wait()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if firstErr == nil && int(done.Load()) < len(cands) && sr.pastLimit() {
		sr.outOfTime()
		return errTimeUp
	}
	return firstErr
}

// errTimeUp ends a search whose TimeLimit passed in the middle of a
// round: the model so far is kept.
var errTimeUp = errors.New("structure: time limit reached")

func (sr *searcher) pastLimit() bool {
	return !sr.grace && sr.s.TimeLimit > 0 && time.Since(sr.start) > sr.s.TimeLimit
}

// lastCommit, when the time limit ends a round, still adds the best
// candidate scored so far if it improves the score (re-scored with the
// tight tolerances, past the limit): the model so far includes the best
// clause found.
func (sr *searcher) lastCommit(ctx context.Context, cands []*candidate, length int) error {
	var best *candidate
	for _, c := range cands {
		if sr.admit(c) && (best == nil || c.gain > best.gain) {
			best = c
		}
	}
	if best == nil {
		return nil
	}
	sr.grace = true
	defer func() { sr.grace = false }()
	_, err := sr.commit(ctx, []*candidate{best}, length)
	return err
}

func (sr *searcher) report(length int, bestGain float64) {
	if sr.s.Progress == nil {
		return
	}
	el := time.Since(sr.start)
	n := int(sr.scored.Load())
	sr.s.Progress(Progress{Step: sr.steps, Length: length, Scored: n, Rate: float64(n) / el.Seconds(),
		BestGain: bestGain, Clauses: len(sr.cur.clauses), Score: sr.cur.score, Elapsed: el})
}

// keep reports whether an evaluated candidate may enter a beam:
// positive gain and weight at least MinWt in magnitude.
func (sr *searcher) keep(c *candidate) bool {
	return c.done && c.gain > 0 && math.Abs(c.wt) >= sr.s.MinWt
}

// admit reports whether an evaluated candidate may enter the model: keep;
// unless SinglePredicate, not a clause over one predicate (unless it
// refines one); unless RepeatedPredicates, no predicate in two literals
// (unless it refines such a clause, or Joins and it is a Join); and unless FreeVars, no free
// variable in a new clause (unless DomainScaled and FreeVarsNegative), and
// no more free variables than the clause it replaces in a refinement (a
// starting model's clauses may have some).
func (sr *searcher) admit(c *candidate) bool {
	if !sr.keep(c) || c.op == opRemove {
		return sr.keep(c)
	}
	if !sr.s.SinglePredicate && sr.newShape(c, SinglePredicate) || !sr.s.RepeatedPredicates && sr.newRepeats(c) {
		return false
	}
	if sr.s.FreeVars || c.clause.DomainScaled && FreeVarsNegative(c.clause) {
		return true
	}
	n := CountFreeVars(c.clause)
	if c.op == opReplace {
		return n <= CountFreeVars(sr.cur.clauses[c.target])
	}
	return n == 0
}

// newShape reports whether a candidate brings a clause of a shape the
// model may only have when given: its clause has the shape, is not a given
// clause, and is not a refinement of a clause that has it already.
func (sr *searcher) newShape(c *candidate, shape func(*mln.Clause) bool) bool {
	return shape(c.clause) && !sr.given[c.key] && (c.op != opReplace || !shape(sr.cur.clauses[c.target]))
}

// newRepeats reports whether a candidate brings a clause that repeats a
// predicate where the model may have one only when given: newShape, except
// that a Join may enter when Joins is set, and a refinement of a join that
// entered so must be a join itself (a join is not a licence for its
// refinements to repeat predicates in any way).
func (sr *searcher) newRepeats(c *candidate) bool {
	if !RepeatsPredicate(c.clause) || sr.given[c.key] {
		return false
	}
	if sr.s.Joins && Join(c.clause) {
		return false
	}
	if c.op != opReplace {
		return true
	}
	t := sr.cur.clauses[c.target]
	return !RepeatsPredicate(t) || sr.s.Joins && Join(t) && !sr.given[CanonicalKey(t)]
}

// SinglePredicate reports whether a clause has two or more predicate
// literals, all of the same predicate.
func SinglePredicate(c *mln.Clause) bool {
	p, n := mln.PredID(-1), 0
	for _, l := range c.Lits {
		if l.Pred < 0 {
			continue
		}
		if n > 0 && l.Pred != p {
			return false
		}
		p = l.Pred
		n++
	}
	return n >= 2
}

// RepeatsPredicate reports whether a predicate occurs in two or more of a
// clause's literals.
func RepeatsPredicate(c *mln.Clause) bool {
	for i, l := range c.Lits {
		if l.Pred < 0 {
			continue
		}
		for _, k := range c.Lits[i+1:] {
			if k.Pred == l.Pred {
				return true
			}
		}
	}
	return false
}

// Join reports whether a clause that repeats a predicate (RepeatsPredicate)
// is a join: one predicate occurs in two literals, both negative, every
// other predicate once, a positive literal concludes it, and it has no
// free variable (each variable is in two or more literals: a path between
// the conclusion's arguments, not a count of unrelated constants).
func Join(c *mln.Clause) bool {
	if CountFreeVars(c) > 0 {
		return false
	}
	count := map[mln.PredID]int{}
	pos := map[mln.PredID]bool{}
	for _, l := range c.Lits {
		if l.Pred >= 0 {
			count[l.Pred]++
			pos[l.Pred] = pos[l.Pred] || !l.Neg
		}
	}
	repeats, head := false, false
	for p, n := range count {
		switch {
		case n >= 2 && (pos[p] || n > 2 || repeats):
			return false
		case n >= 2:
			repeats = true
		case pos[p]:
			head = true
		}
	}
	return repeats && head
}

// FreeVarsNegative reports whether each free variable of a clause
// (mln.FreeVars) occurs in a negative literal. A domain-size-aware clause
// whose free variable occurs only in a positive literal of a sparse
// predicate (Smokes(x) v !Cancer(x) v Friends(x,y)) is nearly the clause
// without that literal, its feature the shorter clause's times the
// fraction of constants y unrelated to x; one whose free variable is in a
// negative literal (!genre(p,g) v !workedUnder(q,p)) counts, per atom,
// the fraction of the related constants, an aggregate no clause without
// it expresses.
func FreeVarsNegative(c *mln.Clause) bool {
	for _, v := range mln.FreeVars(c) {
		neg := false
		for _, l := range c.Lits {
			if l.Pred < 0 || !l.Neg {
				continue
			}
			for _, t := range l.Args {
				if t.IsVar() && t.Var() == v {
					neg = true
				}
			}
		}
		if !neg {
			return false
		}
	}
	return true
}

// HasFreeVar reports whether a clause of two or more predicate literals has a
// variable that occurs in only one of its literals.
func HasFreeVar(c *mln.Clause) bool { return CountFreeVars(c) > 0 }

// CountFreeVars returns the number of variables of a clause of two or more
// predicate literals that occur in only one of them (0 for a unit clause).
func CountFreeVars(c *mln.Clause) int {
	if predLits(c) < 2 {
		return 0
	}
	seen := map[int]int{} // variable -> predicate literals it occurs in
	for _, l := range c.Lits {
		if l.Pred < 0 {
			continue // an x = z does not tie a variable down
		}
		mark := map[int]bool{}
		for _, a := range l.Args {
			if a.IsVar() && !mark[a.Var()] {
				mark[a.Var()] = true
				seen[a.Var()]++
			}
		}
	}
	n := 0
	for _, k := range seen {
		if k < 2 {
			n++
		}
	}
	return n
}

// sortCands orders candidates by decreasing gain, ties by position
// (stable).
func sortCands(cs []*candidate) {
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].gain > cs[j].gain })
}

// apply makes c's evaluation the current model.
func (sr *searcher) apply(ctx context.Context, c *candidate) error {
	st := sr.cur
	n := &state{score: c.score, w: c.w}
	switch c.op {
	case opAdd:
		n.clauses = append(slices.Clone(st.clauses), c.clause)
		n.keys = append(slices.Clone(st.keys), c.key)
		n.fixed = append(slices.Clone(st.fixed), false)
		n.unit = append(slices.Clone(st.unit), false)
	case opReplace:
		n.clauses = append(slices.Delete(slices.Clone(st.clauses), c.target, c.target+1), c.clause)
		n.keys = append(slices.Delete(slices.Clone(st.keys), c.target, c.target+1), c.key)
		n.fixed = append(slices.Delete(slices.Clone(st.fixed), c.target, c.target+1), false)
		n.unit = append(slices.Delete(slices.Clone(st.unit), c.target, c.target+1), false)
	case opRemove:
		n.clauses = slices.Delete(slices.Clone(st.clauses), c.target, c.target+1)
		n.keys = slices.Delete(slices.Clone(st.keys), c.target, c.target+1)
		n.fixed = slices.Delete(slices.Clone(st.fixed), c.target, c.target+1)
		n.unit = slices.Delete(slices.Clone(st.unit), c.target, c.target+1)
	}
	sr.cur = n
	sr.steps++
	return sr.dropSmall(ctx)
}

// dropSmall removes the learned clauses of two or more literals whose
// weight is under MinWt, refitting after each removal. A clause of the
// starting MLN is not a learned clause and stays (Alchemy's minWt filters
// candidates only): a small weight need not mean a small effect, since a
// clause with a variable in only one literal counts a grounding per
// constant of its type (on UW-CSE the knowledge base's !student(p) v
// yearsInProgram(p,Year_1) v ta(c,p,q) fits -0.0025, one pull per course
// and quarter), and removing it would cost the structure prior.
func (sr *searcher) dropSmall(ctx context.Context) error {
	for {
		st := sr.cur
		drop := -1
		for i, c := range st.clauses {
			if !st.unit[i] && !st.fixed[i] && !sr.startKeys[st.keys[i]] && predLits(c) > 1 && math.Abs(st.w[i]) < sr.s.MinWt {
				drop = i
				break
			}
		}
		if drop < 0 {
			return nil
		}
		c := &candidate{op: opRemove, target: drop}
		cl, w0, _ := sr.trial(c)
		score, w, err := sr.s.Scorer.Score(ctx, cl, w0, true)
		if err != nil {
			return err
		}
		c.score, c.w = score, w
		steps := sr.steps
		if err := sr.apply(ctx, c); err != nil {
			return err
		}
		sr.steps = steps
	}
}

// inModel returns the index of the model clause with key k, or -1.
func (sr *searcher) inModel(k string) int {
	return slices.Index(sr.cur.keys, k)
}

// candidates makes the candidates of one beam (or source) clause: added
// and removed literals as new clauses, and for a modifiable model clause
// of two or more literals also as its replacement, with flips and its
// removal (Alchemy's OP_ADD, OP_REPLACE_ADDPRED/REMPRED, OP_REMOVE; flips
// are 004's third operator).
func (sr *searcher) candidatesOf(c *mln.Clause, minRemoveLen int, seen map[string]bool, out []*candidate) []*candidate {
	push := func(d *mln.Clause, o op, target int, penalty float64) {
		if o != opRemove {
			sr.markScaled(c, d)
		}
		k := CanonicalKey(d)
		if o != opRemove && sr.inModel(k) >= 0 {
			return
		}
		cand := &candidate{clause: d, key: k, op: o, target: target, penalty: penalty}
		if id := cand.id(); !seen[id] {
			seen[id] = true
			out = append(out, cand)
		}
	}
	pen := sr.s.Penalty
	var added []*mln.Clause
	added = append(added, sr.ops.AddLiteral(c)...)
	if sr.s.Joins {
		added = append(added, sr.ops.AddJoin(c)...)
	}
	if predLits(c) == 1 {
		// Alchemy also extends the unit clause with its sign flipped.
		f := &mln.Clause{Coef: 1, Formula: -1, Vars: c.Vars, Lits: cloneLits(c.Lits)}
		f.Lits[0].Neg = !f.Lits[0].Neg
		added = append(added, sr.ops.AddLiteral(f)...)
	}
	removed := sr.ops.RemoveLiteral(c, minRemoveLen)
	for _, d := range added {
		push(d, opAdd, -1, pen*float64(predLits(d)))
	}
	for _, d := range removed {
		push(d, opAdd, -1, pen*float64(predLits(d)))
	}
	t := sr.inModel(CanonicalKey(c))
	if t >= 0 && !sr.cur.fixed[t] && !sr.cur.unit[t] && predLits(c) > 1 {
		for _, d := range added {
			push(d, opReplace, t, pen)
		}
		for _, d := range removed {
			push(d, opReplace, t, pen)
		}
		for _, d := range sr.ops.FlipLiteral(c) {
			push(d, opReplace, t, pen)
		}
		push(c, opRemove, t, pen*float64(predLits(c)))
	}
	return out
}

// markScaled makes d, a clause derived from c, domain-size aware when it
// has free variables and the search (Settings.DomainScaled) or c is.
func (sr *searcher) markScaled(c, d *mln.Clause) {
	if sr.s.DomainScaled || c.DomainScaled {
		d.DomainScaled = len(mln.FreeVars(d)) > 0
	}
}

// addAsCandidates appends clauses as new-clause candidates.
func (sr *searcher) addAsCandidates(cs []*mln.Clause, seen map[string]bool, out []*candidate) []*candidate {
	for _, c := range cs {
		if !Searchable(c) {
			continue
		}
		k := CanonicalKey(c)
		if sr.inModel(k) >= 0 {
			continue
		}
		cand := &candidate{clause: c, key: k, op: opAdd, target: -1, penalty: sr.s.Penalty * float64(predLits(c))}
		if id := cand.id(); !seen[id] {
			seen[id] = true
			out = append(out, cand)
		}
	}
	return out
}

// commit re-scores the best candidates with the tight tolerances and
// applies the first that still improves the score. It reports whether one
// was applied.
func (sr *searcher) commit(ctx context.Context, best []*candidate, length int) (bool, error) {
	re := make([]*candidate, len(best))
	for i, c := range best {
		x := *c
		x.done = false
		re[i] = &x
	}
	if err := sr.evaluate(ctx, re, true, length, math.NaN()); err != nil {
		return false, err
	}
	sortCands(re)
	for _, c := range re {
		if sr.admit(c) && c.score > sr.cur.score {
			return true, sr.apply(ctx, c)
		}
	}
	return false, nil
}

// BeamSearch learns clauses by Alchemy's beam search (Kok & Domingos
// 2005): each iteration starts a beam from the model's modifiable
// clauses, makes every candidate of the beam's clauses with the clause
// construction operators, scores each (loose tolerances, weights warm
// started from the model's), keeps the BeamSize best with positive gain
// and |weight| >= MinWt as the next beam and the NumClausesReEval best
// seen so far, and stops after BestGainUnchangedLimit beam steps without a
// new best clause. The best ones are re-scored with the tight tolerances
// and the first that improves the score is added to the model (or
// replaces, or removes, the clause it came from). Iterations repeat until
// no candidate improves the score; then each clause of two or more
// literals is removed if that does not lower the score.
//
// If ctx is cancelled the search stops and returns the model so far with
// ctx's error.
func BeamSearch(ctx context.Context, s Settings) (*Result, error) {
	sr, err := newSearcher(ctx, s)
	if err != nil {
		return nil, err
	}
	return sr.finish(ctx, sr.beam(ctx))
}

func (sr *searcher) beam(ctx context.Context) error {
	s := sr.s
	sr.pruning = pruneCandidates
	iter0 := 0
	if s.Resume != nil {
		it, _, err := sr.restore("beam")
		if err != nil {
			return err
		}
		iter0 = it
	}
	for iter := iter0; ; iter++ {
		if err := sr.saveState("beam", iter, nil); err != nil {
			return err
		}
		if sr.outOfTime() {
			return nil
		}
		var beam []*mln.Clause
		if iter == 0 && len(s.InitialBeam) > 0 {
			beam = slices.Clone(s.InitialBeam)
		} else {
			for i, c := range sr.cur.clauses {
				if !sr.cur.fixed[i] {
					beam = append(beam, c)
				}
			}
		}
		memo := map[string]*candidate{}
		var best []*candidate
		unchanged := 0
		for bstep := 0; len(beam) > 0 && unchanged < s.BestGainUnchangedLimit; bstep++ {
			seen := map[string]bool{}
			var cands []*candidate
			if iter == 0 && bstep == 0 {
				var first []*mln.Clause
				if s.StartFromEmpty {
					first = append(first, s.Start...)
				}
				first = append(first, s.InitialClauses...)
				first = append(first, s.InitialBeam...)
				cands = sr.addAsCandidates(first, seen, cands)
			}
			for _, c := range beam {
				cands = sr.candidatesOf(c, 2, seen, cands)
			}
			// Candidates scored in an earlier beam step of this iteration
			// keep their score.
			var todo []*candidate
			for i, c := range cands {
				if m, ok := memo[c.id()]; ok {
					cands[i] = m
					continue
				}
				memo[c.id()] = c
				todo = append(todo, c)
			}
			bg := math.NaN()
			if len(best) > 0 {
				bg = best[0].gain
			}
			err := sr.evaluate(ctx, todo, false, bstep, bg)
			if err == nil {
				err = sr.settlePruned(ctx, cands, bstep)
			}
			if err != nil {
				if errors.Is(err, errTimeUp) {
					if err := sr.lastCommit(ctx, append(slices.Clone(best), todo...), 0); err != nil {
						return err
					}
				}
				return err
			}
			sortCands(cands)
			beam = beam[:0]
			for _, c := range cands {
				if len(beam) >= s.BeamSize {
					break
				}
				if sr.keep(c) && c.op != opRemove {
					beam = append(beam, c.clause)
				}
			}
			// The best NumClausesReEval among these and the earlier best.
			var prev *candidate
			if len(best) > 0 {
				prev = best[0]
			}
			pool := slices.Clone(best)
			inPool := map[string]bool{}
			for _, c := range best {
				inPool[c.id()] = true
			}
			for _, c := range cands {
				if sr.admit(c) && !inPool[c.id()] {
					inPool[c.id()] = true
					pool = append(pool, c)
				}
			}
			sortCands(pool)
			best = pool[:min(len(pool), s.NumClausesReEval)]
			changed := len(best) > 0 && (prev == nil || best[0].id() != prev.id() && best[0].gain > prev.gain)
			if changed {
				unchanged = 0
			} else {
				unchanged++
			}
			sr.report(bstep, bg)
		}
		if len(best) == 0 {
			return nil
		}
		ok, err := sr.commit(ctx, best, 0)
		if err != nil {
			return err
		}
		sr.report(0, best[0].gain)
		if !ok {
			return nil
		}
	}
}

// finish ends a search whose steps returned err: unless they failed, it
// prunes the learned clauses and refits the weights from zero; a search
// the time limit ended returns its model with a nil error.
func (sr *searcher) finish(ctx context.Context, err error) (*Result, error) {
	if err == nil {
		err = sr.prune(ctx)
	}
	if err == nil || errors.Is(err, errTimeUp) {
		err = sr.refitCold(ctx, err)
	}
	if errors.Is(err, errTimeUp) {
		err = nil
	}
	return sr.result(), err
}

// refitCold refits the final model's weights from zero with the tight
// tolerances (as FitWeights and `learn -g` fit a given structure), so
// that the weights depend on the clauses learned, not on the path the
// search took to them: the pseudo-likelihood is nearly flat along some
// directions, and L-BFGS, which stops on a relative change of the
// objective, stops far along them when warm-started from an earlier
// model's weights (on UW-CSE from the KB, after dropping two clauses,
// weights drifted from 0.15 to -5.9 and held-out CLL fell). It returns
// err unless the refit fails.
func (sr *searcher) refitCold(ctx context.Context, err error) error {
	score, w, ferr := sr.s.Scorer.Score(ctx, sr.cur.clauses, nil, true)
	if ferr != nil {
		return ferr
	}
	st := *sr.cur
	st.score, st.w, st.screen = score, w, nil
	sr.cur = &st
	return err
}

// prune removes, one at a time, each clause of two or more literals whose
// removal does not lower the score (Alchemy's pruneMLN), counting the
// structure prior for a clause of the starting MLN: removing it costs
// Penalty per literal, as the search's own removal does. (Alchemy's
// pruneMLN compares the pseudo-likelihood alone, and so drops starting
// clauses that add nothing to it once other clauses determine their
// atoms: on UW-CSE, !inPhase(p,x) v student(p) and !advisedBy(s,p) v
// student(s) once student v professor and !student v !professor had large
// weights, which left student to those two clauses when queried.)
func (sr *searcher) prune(ctx context.Context) error {
	for i := 0; i < len(sr.cur.clauses); i++ {
		if sr.cur.fixed[i] || sr.cur.unit[i] || len(sr.cur.clauses[i].Lits) < 2 {
			continue
		}
		c := &candidate{op: opRemove, target: i, key: sr.cur.keys[i]}
		if sr.startKeys[c.key] {
			c.penalty = sr.s.Penalty * float64(predLits(sr.cur.clauses[i]))
		}
		if err := sr.evaluate(ctx, []*candidate{c}, true, 0, math.NaN()); err != nil {
			return err
		}
		if c.score-c.penalty >= sr.cur.score {
			steps := sr.steps
			if err := sr.apply(ctx, c); err != nil {
				return err
			}
			sr.steps = steps
			i--
		}
	}
	return nil
}

// ShortestFirst learns clauses by shortest-first search (Kok & Domingos
// 2005, as in paper 004): for L = 1 .. MaxNumPredicates it makes the
// candidates of length L by adding a literal to the clauses of length L-1
// (the model's and the BeamSize best of length L-1 scored so far) and
// removing one from the model's clauses of length L+1, adds the
// ClausesPerStep best (positive gain, |weight| >= MinWt, re-scored with the
// tight tolerances) to the model, and repeats until no clause of length L
// improves the score; then it moves to L+1. Finally each clause of two or
// more literals is removed if that does not lower the score.
func ShortestFirst(ctx context.Context, s Settings) (*Result, error) {
	sr, err := newSearcher(ctx, s)
	if err != nil {
		return nil, err
	}
	return sr.finish(ctx, sr.sfs(ctx))
}

func (sr *searcher) sfs(ctx context.Context) error {
	s := sr.s
	pool := map[int][]*mln.Clause{} // best scored clauses by length
	L0 := 1
	if s.Resume != nil {
		l, p, err := sr.restore("sfs")
		if err != nil {
			return err
		}
		L0, pool = l, p
	}
	for L := L0; L <= s.MaxNumPredicates; L++ {
		for {
			if err := sr.saveState("sfs", L, pool); err != nil {
				return err
			}
			if sr.outOfTime() {
				return nil
			}
			seen := map[string]bool{}
			var cands []*candidate
			var extra []*mln.Clause
			if s.StartFromEmpty {
				extra = append(extra, s.Start...)
			}
			extra = append(extra, s.InitialClauses...)
			extra = append(extra, s.InitialBeam...)
			var ofLen []*mln.Clause
			for _, c := range extra {
				if predLits(c) == L {
					ofLen = append(ofLen, c)
				}
			}
			cands = sr.addAsCandidates(ofLen, seen, cands)
			var sources []*mln.Clause
			for i, c := range sr.cur.clauses {
				if !sr.cur.fixed[i] && (predLits(c) == L-1 || predLits(c) == L+1) {
					sources = append(sources, c)
				}
			}
			sources = append(sources, pool[L-1]...)
			for _, c := range sources {
				for _, d := range sr.ops.AddLiteral(c) {
					if predLits(d) == L {
						sr.markScaled(c, d)
						cands = sr.addAsCandidates([]*mln.Clause{d}, seen, cands)
					}
				}
				for _, d := range sr.ops.RemoveLiteral(c, 1) {
					if len(d.Lits) == L {
						sr.markScaled(c, d)
						cands = sr.addAsCandidates([]*mln.Clause{d}, seen, cands)
					}
				}
			}
			if err := sr.evaluate(ctx, cands, false, L, math.NaN()); err != nil {
				if errors.Is(err, errTimeUp) {
					if err := sr.lastCommit(ctx, cands, L); err != nil {
						return err
					}
				}
				return err
			}
			sortCands(cands)
			pool[L] = pool[L][:0]
			for _, c := range cands[:min(len(cands), s.BeamSize)] {
				pool[L] = append(pool[L], c.clause)
			}
			var best []*candidate
			for _, c := range cands {
				if sr.admit(c) {
					best = append(best, c)
				}
			}
			if len(best) == 0 {
				sr.report(L, math.NaN())
				break
			}
			added := 0
			for added < s.ClausesPerStep && len(best) > 0 {
				ok, err := sr.commit(ctx, best[:min(len(best), s.NumClausesReEval)], L)
				if err != nil {
					return err
				}
				if !ok {
					break
				}
				added++
				// The others of this round, re-scored against the new model
				// by the next commit.
				last := sr.cur.keys[len(sr.cur.keys)-1]
				best = slices.DeleteFunc(best, func(c *candidate) bool { return c.key == last || sr.inModel(c.key) >= 0 })
			}
			sr.report(L, cands[0].gain)
			if added == 0 {
				break
			}
		}
	}
	return nil
}
