package structure

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/score"
)

// Scoring configures the scorer LearnBatch builds: Alchemy's learnstruct
// settings of the pseudo-likelihood, its prior and its optimiser.
type Scoring struct {
	// PriorStdDev is σ of the Gaussian prior on the weights (-priorStdDev,
	// 100); NoPrior drops it (-noPrior).
	PriorStdDev float64
	NoPrior     bool
	// NoWtPredsEqually weighs every atom 1 instead of 1/(atoms of its
	// predicate) (-noWtPredsEqually).
	NoWtPredsEqually bool
	// Tight and loose L-BFGS settings: iterations and relative change of
	// the objective (-tightMaxIter 10000, -tightConvThresh 1e-5,
	// -looseMaxIter 10, -looseConvThresh 1e-3).
	TightMaxIter, LooseMaxIter       int
	TightConvThresh, LooseConvThresh float64
	// Atom sampling while scoring candidates (-noSampleAtoms, -fractAtoms
	// 0.8, -minAtomSamples, -maxAtomSamples; -1: no bound).
	NoSampleAtoms                  bool
	FractAtoms                     float64
	MinAtomSamples, MaxAtomSamples int
	// MaxGroundings bounds the groundings counting one candidate may
	// examine per database (0: no bound); a candidate above it is skipped.
	// Marple counts exactly by joins instead of Alchemy's clause sampling
	// (on by default there: -noSampleClauses, -delta, -epsilon): this
	// bound, on by default (DefaultMaxGroundings), is what keeps a
	// candidate's cost in check.
	MaxGroundings int64
	// SharedDomains gives every training database the union of all
	// databases' constants as its domain (Marple before per-database
	// domains). By default each database has its own domains, the model
	// files' constants and those its atoms mention, as Alchemy's
	// learnstruct -multipleDatabases does: with k training databases the
	// shared domain makes each predicate's atoms about k^arity times more
	// numerous, so every weight (unit clauses included) is calibrated to
	// atoms much rarer than in one database, and held-out CLL suffers.
	SharedDomains bool
	// ListedOnly scores only the atoms the databases list, true or false
	// (score.CountOptions.ListedOnly): for training data whose unlisted
	// atoms are unknown, such as the MRC data sets' held-out folds.
	ListedOnly bool
	// Seed seeds the samplers.
	Seed int64

	// counts, when set, is shared by the scorers built with these
	// settings (LearnValidated's searches, each over a subset of the same
	// databases): a clause is counted once per database.
	counts *score.CountCache
}

// DefaultMaxGroundings is the default Scoring.MaxGroundings: on IMDB
// without a bound a few candidates take minutes each (0.2 candidates/s
// in the round that meets them), with it the whole beam search takes 2-4
// minutes on a loaded machine.
const DefaultMaxGroundings = 1000000

// DefaultScoring returns Alchemy's learnstruct defaults, and
// DefaultMaxGroundings.
func DefaultScoring() Scoring {
	return Scoring{
		PriorStdDev: 100, TightMaxIter: 10000, TightConvThresh: 1e-5, LooseMaxIter: 10, LooseConvThresh: 1e-3,
		FractAtoms: 0.8, MinAtomSamples: -1, MaxAtomSamples: -1, MaxGroundings: DefaultMaxGroundings, Seed: 1,
	}
}

// Check reports settings out of their ranges (Alchemy's checks).
func (s *Scoring) Check() error {
	switch {
	case !(s.PriorStdDev > 0):
		return errors.New("-priorStdDev must be positive")
	case s.TightMaxIter <= 0 || s.LooseMaxIter <= 0:
		return errors.New("-tightMaxIter and -looseMaxIter must be positive")
	case !(s.TightConvThresh > 0 && s.TightConvThresh < 1) || !(s.LooseConvThresh > 0 && s.LooseConvThresh < 1):
		return errors.New("-tightConvThresh and -looseConvThresh must be between 0 and 1")
	case !(s.FractAtoms >= 0 && s.FractAtoms <= 1):
		return errors.New("-fractAtoms must be between 0 and 1")
	case s.MaxGroundings < 0:
		return errors.New("-maxGroundings must not be negative")
	}
	return nil
}

// Method is the search method of LearnBatch; its settings are those of
// Settings.
type Method int

// The methods of LearnBatch.
const (
	// MethodBeam is the beam search (BeamSearch), the default.
	MethodBeam Method = iota
	// MethodSFS is the shortest-first search (ShortestFirst).
	MethodSFS
	// MethodWeights searches nothing: it learns the weights of the unit
	// clauses and the starting clauses (FitWeights).
	MethodWeights
)

var methodNames = []string{MethodBeam: "beam", MethodSFS: "sfs", MethodWeights: "weights"}

// String returns the method's name: beam, sfs or weights.
func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod returns the method called name (one of MethodNames).
func ParseMethod(name string) (Method, error) {
	for m, n := range methodNames {
		if n == name {
			return Method(m), nil
		}
	}
	return 0, fmt.Errorf("unknown search method %q: the methods are %s", name, strings.Join(methodNames, ", "))
}

// MethodNames returns the names of the methods, MethodBeam's first.
func MethodNames() []string { return append([]string(nil), methodNames...) }

// LearnBatch learns the structure of s.Model from training databases (each
// its own domain: its constants and the model's declared ones, unless
// sc.SharedDomains) with method MethodBeam (BeamSearch), MethodSFS
// (ShortestFirst) or MethodWeights (only the weights of the unit clauses
// and the clauses of s.Start), scored by a pseudo-likelihood scorer built
// with sc over the databases. s.Scorer, when set, is used instead.
func LearnBatch(ctx context.Context, method Method, dbs []*mln.Database, s Settings, sc Scoring) (*Result, error) {
	if s.Model == nil || len(dbs) == 0 {
		return nil, errors.New("structure: LearnBatch needs a model and training databases")
	}
	s, err := withScorer(ctx, s, dbs, sc)
	if err != nil {
		return nil, err
	}
	switch method {
	case MethodBeam:
		return BeamSearch(ctx, s)
	case MethodSFS:
		return ShortestFirst(ctx, s)
	case MethodWeights:
		return FitWeights(ctx, s)
	}
	return nil, fmt.Errorf("structure: unknown search method %v", method)
}

// FitWeights learns the weights of the unit clauses of s.NonEvidence and
// the clauses of s.Start (tight tolerances), without searching or
// dropping any clause: the weight-learning baseline of a search.
func FitWeights(ctx context.Context, s Settings) (*Result, error) {
	s.MinWt = 0
	sr, err := newSearcher(ctx, s)
	if err != nil {
		return nil, err
	}
	r := sr.result()
	r.Elapsed = time.Since(sr.start)
	return r, nil
}

// withScorer returns s with, unless it has one, the weighted
// pseudo-likelihood scorer built with sc over the databases.
func withScorer(ctx context.Context, s Settings, dbs []*mln.Database, sc Scoring) (Settings, error) {
	if err := sc.Check(); err != nil {
		return s, err
	}
	if s.Scorer == nil {
		scorer, err := newBatchScorer(ctx, s, dbs, sc)
		if err != nil {
			return s, err
		}
		s.Scorer = scorer
	}
	return s, nil
}
