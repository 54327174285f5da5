package engines

import (
	"context"
	"fmt"

	"github.com/marple-mln/marple/infer/lifted"
	"github.com/marple-mln/marple/mln"
)

// FirstOrder is a lifted inference engine with its settings fixed: it
// runs on the first-order model and its evidence, without grounding, and
// computes log Z and the marginals of the unknown query atoms (package
// lifted): exactly by lifted weighted first-order model counting
// ("fomc", which counts the ground network exactly instead when the model
// is outside the lifted fragment, saying so), or by lifted importance
// sampling ("lis", with standard errors).
type FirstOrder struct {
	name, doc string
	exact     bool
	opt       lifted.Options
	sampling  lifted.Sampling
}

// Name returns the engine's name (fomc or lis).
func (e FirstOrder) Name() string { return e.name }

// Exact reports whether the engine's answers are exact.
func (e FirstOrder) Exact() bool { return e.exact }

// Run runs the engine on m (compiled) under db: query lists the query
// predicates (their unknown atoms get marginals; none with noMarginals),
// open the other open-world predicates; the seed fixes lis's draws.
func (e FirstOrder) Run(ctx context.Context, m *mln.Model, db *mln.Database, query, open []mln.PredID, noMarginals bool, seed int64) (*lifted.Result, error) {
	opt := e.opt
	opt.Query, opt.OpenWorld, opt.NoMarginals = query, open, noMarginals
	if e.exact {
		return lifted.Exact(ctx, m, db, opt)
	}
	s := e.sampling
	s.Seed = uint64(seed)
	return lifted.Sample(ctx, m, db, opt, s)
}

// firstOrderEngines lists the lifted engines of the first-order model.
var firstOrderEngines = []struct {
	name, doc string
	build     func(s Settings) FirstOrder
}{
	{
		name: "fomc", doc: "exact log Z and marginals by lifted weighted first-order model counting, without grounding; exact counting of the ground network when the model is outside the lifted fragment",
		build: func(s Settings) FirstOrder {
			return FirstOrder{exact: true, opt: lifted.Options{MaxWork: s.LiftedMaxWork}}
		},
	},
	{
		name: "lis", doc: "lifted importance sampling of log Z and the marginals (informed, binomial or uniform proposal), with standard errors",
		build: func(s Settings) FirstOrder {
			return FirstOrder{opt: lifted.Options{MaxWork: s.LiftedMaxWork}, sampling: lifted.Sampling{Samples: s.Samples, Proposal: s.LIS.Proposal, LearningRate: s.LIS.LearningRate, UpdateInterval: s.LIS.UpdateInterval}}
		},
	},
}

// LISSettings are the settings of lifted importance sampling (lis)
// beyond Samples: the proposal and, for the informed one, its learning
// rate and update interval (0: the package defaults).
type LISSettings struct {
	Proposal       lifted.Proposal
	LearningRate   float64
	UpdateInterval int
}

// NewFirstOrder returns the lifted engine called name (one of
// FirstOrderNames) configured by s.
func NewFirstOrder(name string, s Settings) (FirstOrder, error) {
	for _, e := range firstOrderEngines {
		if e.name == name {
			if err := s.check(); err != nil {
				return FirstOrder{}, err
			}
			f := e.build(s)
			f.name, f.doc = e.name, e.doc
			return f, nil
		}
	}
	return FirstOrder{}, fmt.Errorf("unknown lifted engine %q: the lifted engines are %s", name, List(FirstOrderNames()))
}

// FirstOrderNames returns the names of the lifted engines of the
// first-order model, exact first.
func FirstOrderNames() []string {
	names := make([]string, len(firstOrderEngines))
	for i, e := range firstOrderEngines {
		names[i] = e.name
	}
	return names
}
