package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/score"
)

// GenerativeSettings configure Generative and GenerativeCounts.
type GenerativeSettings struct {
	score.PLLOptions
	// PriorStdDev is σ of the Gaussian prior N(μ, σ²) on every weight (0
	// means score.DefaultPLLPriorStdDev).
	PriorStdDev float64
	// PriorMeans holds each parameter's prior mean μ (nil or missing
	// entries: 0). Alchemy's learnwts takes the weights written in the
	// .mln file (its -priorMean for formulas without one); Marple's
	// default shrinks every weight towards 0. The learner starts from 0
	// either way, as Alchemy's.
	PriorMeans []float64
	// TieShared learns the formulas that are the same clause
	// (SharedClauseGroups) as one weight, split evenly among them, as
	// Alchemy keeps one clause with one weight.
	TieShared bool
	// AlchemySchedule runs L-BFGS as Alchemy's learnwts -g runs its
	// L-BFGS-B (score.FitOptions.AlchemySchedule).
	AlchemySchedule bool
	// NoPrior drops the prior (Alchemy's -noPrior): plain WPLL, whose
	// optimum may be at infinity.
	NoPrior bool
	// MaxIter bounds the L-BFGS iterations (0 means
	// score.DefaultPLLMaxIter).
	MaxIter int
	// ConvThresh stops L-BFGS when an iteration improves the objective by
	// less than this fraction of its magnitude (0 means
	// score.DefaultPLLConvThresh).
	ConvThresh float64
	// GradTol, when positive, also stops L-BFGS when the largest gradient
	// entry of the objective is below it (always when below 1e-12).
	GradTol float64
	// KeepInitial starts from the model's weights instead of 0.
	KeepInitial bool
	// OwnDomains gives each database its own domains in GenerativeCounts
	// (score.CountOptions.OwnDomains; Alchemy's learnwts
	// -multipleDatabases).
	OwnDomains bool
	// ListedOnly sums the pseudo-log-likelihood over the atoms each
	// database lists only (score.CountOptions.ListedOnly; Alchemy's
	// learnwts -queryEvidence): the unlisted atoms are false evidence.
	ListedOnly bool
	// Progress, when set, is called after every L-BFGS iteration with its
	// number and the objective (WPLL minus the prior) reached.
	Progress func(iter int, objective float64)
}

// GenerativeStats summarise a run of Generative.
type GenerativeStats struct {
	// WPLL is Σ over the examples of their WPLL at the learned weights,
	// and Objective WPLL minus the prior's Σ w²/(2σ²) (the maximised
	// function).
	WPLL, Objective float64
	// GradNorm is the largest entry of the objective's gradient at the
	// learned weights.
	GradNorm float64
	// Iterations and Evaluations count L-BFGS iterations and function
	// evaluations; Status is L-BFGS's reason to stop.
	Iterations, Evaluations int
	Status                  string
	// Atoms counts the atoms in the sums, Rows the distinct rows after
	// merging equal ones, Params the parameters.
	Atoms, Rows, Params int
	// Prepare is the time spent computing the rows, Elapsed the total.
	Prepare, Elapsed time.Duration
	// Shared lists the groups of parameters learned as one weight
	// (GenerativeSettings.TieShared).
	Shared [][]int
}

// Generative learns the weights of model by maximising the weighted
// pseudo-log-likelihood (score.WPLL) of the examples minus a Gaussian
// prior (Richardson & Domingos 2006; Alchemy's `learnwts -g`) with L-BFGS,
// and writes them into model.Weights. Each example's atoms must all have
// known values (Example.Truth); its Query mask selects the atoms whose
// conditional probabilities are summed (nil: all), the others stay fixed
// at their values in the Markov blankets. Each example is weighted on its
// own (c_a = 1/atoms of the predicate in that example), as Alchemy weighs
// each database. Every example's network is kept in memory (as its rows)
// while learning. Parameters in no example's network are only pulled by
// the prior.
func Generative(ctx context.Context, model *mln.Model, examples ExampleSource, s GenerativeSettings) (*GenerativeStats, error) {
	start := time.Now()
	if model == nil || examples == nil {
		return nil, errors.New("learn: Generative needs a model and examples")
	}
	if err := checkGenerative(s); err != nil {
		return nil, err
	}
	st := &GenerativeStats{}
	var ps []*score.WPLL
	for i := 0; i < examples.Len(); i++ {
		ex, err := examples.Example(ctx, i)
		if err == nil {
			err = ex.validate()
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("learn: example %d: %w", i, err)
		}
		p, err := score.NewWPLL(ex.Net, ex.Truth, ex.Query, s.PLLOptions)
		if err != nil {
			return nil, fmt.Errorf("learn: example %d (%s): %w", i, ex.Name, err)
		}
		ps = append(ps, p)
		st.Atoms += p.Atoms()
		st.Rows += p.Rows()
	}
	np := len(model.Weights)
	for _, p := range ps {
		if p.NumParams() > np {
			return nil, fmt.Errorf("learn: Generative: the examples have %d parameters, the model %d", p.NumParams(), np)
		}
	}
	st.Params = np
	st.Prepare = time.Since(start)
	err := maximize(ctx, model, ps, s, st)
	st.Elapsed = time.Since(start)
	return st, err
}

// GenerativeCounts learns the weights of model by maximising the weighted
// pseudo-log-likelihood of the databases minus a Gaussian prior, like
// Generative (Alchemy's `learnwts -g`), but from clause counts
// (score.PLLData): each database is a closed world (atoms not listed true
// are false), the atoms of the scored predicates (nil: all) are summed,
// the others stay at their values in the Markov blankets, and no clause is
// ever ground. It writes the weights into model.Weights.
func GenerativeCounts(ctx context.Context, model *mln.Model, dbs []*mln.Database, scored []mln.PredID, s GenerativeSettings) (*GenerativeStats, error) {
	start := time.Now()
	if model == nil {
		return nil, errors.New("learn: GenerativeCounts needs a model")
	}
	if err := checkGenerative(s); err != nil {
		return nil, err
	}
	d, err := score.NewPLLData(model, dbs, scored, score.CountOptions{PLLOptions: s.PLLOptions, OwnDomains: s.OwnDomains, ListedOnly: s.ListedOnly})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ps, err := d.ModelRows(ctx)
	if err != nil {
		return nil, err
	}
	st := &GenerativeStats{Params: len(model.Weights)}
	for _, p := range ps {
		st.Atoms += p.Atoms()
		st.Rows += p.Rows()
	}
	st.Prepare = time.Since(start)
	err = maximize(ctx, model, ps, s, st)
	st.Elapsed = time.Since(start)
	return st, err
}

// checkGenerative validates s.
func checkGenerative(s GenerativeSettings) error {
	sigma, maxIter, conv := s.PriorStdDev, s.MaxIter, s.ConvThresh
	if sigma < 0 || math.IsNaN(sigma) || math.IsInf(sigma, 0) || maxIter < 0 || conv < 0 || conv >= 1 || math.IsNaN(conv) {
		return fmt.Errorf("learn: Generative: bad settings (prior σ %v, max iterations %d, threshold %v)", sigma, maxIter, conv)
	}
	for _, x := range s.PriorMeans {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("learn: Generative: prior mean %v", x)
		}
	}
	return nil
}

// maximize fits model's weights to the rows ps with score.Maximize (from
// model.Weights with s.KeepInitial, otherwise from 0), writes them into
// model.Weights (also when ctx is cancelled: the weights reached) and
// fills the result fields of st.
func maximize(ctx context.Context, model *mln.Model, ps []*score.WPLL, s GenerativeSettings, st *GenerativeStats) error {
	opt := score.FitOptions{PriorStdDev: s.PriorStdDev, NoPrior: s.NoPrior, MaxIter: s.MaxIter,
		ConvThresh: s.ConvThresh, GradTol: s.GradTol, Progress: s.Progress,
		PriorMeans: s.PriorMeans, AlchemySchedule: s.AlchemySchedule}
	if s.TieShared {
		opt.Shared = SharedClauseGroups(model, s.OwnDomains)
		st.Shared = opt.Shared
	}
	if s.KeepInitial {
		opt.Warm = model.Weights
	}
	fit, err := score.Maximize(ctx, ps, len(model.Weights), opt)
	if fit == nil {
		return err
	}
	copy(model.Weights, fit.Weights)
	st.WPLL, st.Objective, st.GradNorm = fit.WPLL, fit.Objective, fit.GradNorm
	st.Iterations, st.Evaluations, st.Status = fit.Iterations, fit.Evaluations, fit.Status
	return err
}
