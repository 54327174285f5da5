package learn

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// Split says how NewExamples cuts training databases into examples.
type Split int

const (
	// SplitAuto makes one example per constant of the query predicates'
	// argument type with the most constants (one CiteSeer citation per
	// example), as SplitType does, falling back to SplitComponents when
	// the query predicates have no argument.
	SplitAuto Split = iota
	// SplitType makes one example per constant of ExampleOptions.Type.
	SplitType
	// SplitComponents grounds the training set whole and makes every
	// independent component of its network an example.
	SplitComponents
	// SplitNone makes the whole training set one example (generative
	// learning sums over it).
	SplitNone
)

// ExampleOptions say how NewExamples builds training examples.
type ExampleOptions struct {
	// Query lists the query (non-evidence) predicates: their atoms in the
	// databases are the truth (unlisted: false), the others evidence.
	Query []mln.PredID
	// Ground are the grounding options (Query is replaced by Query).
	Ground ground.Options
	// MultipleDatabases makes each database one example (Alchemy's
	// -multipleDatabases), with its own domains (DatabaseSource);
	// otherwise the databases are merged into one training set and Split
	// cuts it.
	MultipleDatabases bool
	// Split and Type: see Split.
	Split Split
	Type  mln.TypeID
	// Whole grounds the training set at once even when its examples could
	// be ground one at a time: a batch learner visits every example on
	// every round. The examples are then the network's independent
	// components grouped by their constant of the example type.
	Whole bool
	// SharedDomains keeps the model's domains (every constant of the
	// training set) for examples ground one at a time, instead of each
	// example's own constants as in Alchemy (see PartitionSource).
	SharedDomains bool
	// ListedQuery (with MultipleDatabases) makes only the listed atoms of
	// the Query predicates query atoms, their unlisted atoms false
	// evidence (DatabaseSource.ListedQuery, Alchemy's -queryEvidence).
	ListedQuery bool
	// Log, when set, receives a line about each choice made (the example
	// type, a fall-back to the whole grounding and why).
	Log func(format string, args ...any)
}

// NewExamples builds the training examples of model m from the databases
// dbs (m must be compiled after they were loaded, so that its domains hold
// their constants):
//
//   - with MultipleDatabases, one example per database, ground when asked
//     for, each over its own constants (DatabaseSource);
//   - otherwise the databases are merged; with an example type (SplitType,
//     or SplitAuto's choice) and unless Whole, one example per constant of
//     the type, ground when asked for over the constants its atoms mention
//     (PartitionSource), so that only one example's network is in memory
//     at a time;
//   - when the model links constants of the type (a clause with two
//     variables of it, say: NewPartitionSource says why, and Log hears
//     it), or with Whole or SplitComponents, the training set is ground
//     once and its independent components, grouped by their constant of
//     the type if any, are the examples (ComponentSource);
//   - with SplitNone the whole ground training set is one example.
//
// It returns the source and, when the examples are ground one at a time
// by type, that type (else -1).
func NewExamples(ctx context.Context, m *mln.Model, dbs []*mln.Database, opt ExampleOptions) (ExampleSource, mln.TypeID, error) {
	if m == nil || len(dbs) == 0 {
		return nil, -1, errors.New("learn: NewExamples needs a model and at least one database")
	}
	logf := opt.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	gopt := opt.Ground
	gopt.Query = opt.Query
	if opt.MultipleDatabases {
		logf("%d examples, one per database, each ground when training reaches it", len(dbs))
		return &DatabaseSource{Model: m, DBs: dbs, Query: opt.Query, Options: gopt, SharedDomains: opt.SharedDomains, ListedQuery: opt.ListedQuery}, -1, nil
	}
	if opt.ListedQuery {
		return nil, -1, errors.New("learn: ListedQuery needs MultipleDatabases")
	}
	db := dbs[0]
	if len(dbs) > 1 {
		db = mln.NewDatabase(m)
		for _, d := range dbs {
			db.Merge(d)
		}
	}
	t, hasT := mln.TypeID(-1), false
	switch opt.Split {
	case SplitAuto:
		t, hasT = LargestQueryType(m, opt.Query)
	case SplitType:
		if opt.Type < 0 || int(opt.Type) >= len(m.Types) {
			return nil, -1, fmt.Errorf("learn: example type %d out of range", opt.Type)
		}
		t, hasT = opt.Type, true
	}
	if hasT && !opt.Whole && opt.Split != SplitNone {
		ps, err := NewPartitionSource(m, db, opt.Query, t, gopt)
		if err == nil {
			ps.SharedDomains = opt.SharedDomains
			logf("%d examples, one per constant of type %s, each ground when training reaches it", ps.Len(), m.Types[t].Name)
			return ps, t, nil
		}
		logf("grounding the whole training set: %v", err)
	}

	net, err := ground.Ground(ctx, m, db.Without(opt.Query...), gopt)
	if err != nil {
		return nil, -1, err
	}
	truth := net.Assignment(db)
	query := make([]bool, net.NumAtoms())
	for a := range query {
		query[a] = slices.Contains(opt.Query, net.AtomPred[a])
	}
	if opt.Split == SplitNone {
		logf("one example: %d atoms, %d clauses", net.NumAtoms(), net.NumClauses())
		return Examples{{Net: net, Truth: truth, Query: query, Name: "training set"}}, -1, nil
	}
	var key func(int32) int64
	if hasT {
		key = func(a int32) int64 {
			for i, at := range m.Preds[net.AtomPred[a]].Args {
				if at == t {
					return int64(net.AtomArgs[a][i])
				}
			}
			return -1
		}
	}
	cs := NewComponentSource(net, truth, query, key)
	logf("%d atoms, %d clauses, %d examples", net.NumAtoms(), net.NumClauses(), cs.Len())
	return cs, -1, nil
}

// LargestQueryType returns the argument type of the query predicates with
// the most constants, and false when they have no argument.
func LargestQueryType(m *mln.Model, query []mln.PredID) (mln.TypeID, bool) {
	best, size := mln.TypeID(-1), -1
	for _, q := range query {
		for _, t := range m.Preds[q].Args {
			if n := m.Types[t].Size(); n > size {
				best, size = t, n
			}
		}
	}
	return best, best >= 0
}

// Collect grounds every example of src and keeps them in memory (a batch
// learner then grounds each once rather than once per round).
func Collect(ctx context.Context, src ExampleSource) (Examples, error) {
	out := make(Examples, src.Len())
	for i := range out {
		ex, err := src.Example(ctx, i)
		if err != nil {
			return nil, fmt.Errorf("learn: example %d: %w", i, err)
		}
		out[i] = ex
	}
	return out, nil
}
