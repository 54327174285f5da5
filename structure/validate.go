package structure

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/marple-mln/marple/eval"
	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/score"
)

// Validation configures LearnValidated: which predicates the held-out
// database is scored on and how the MC-SAT inference behind the score runs.
type Validation struct {
	// Preds are the predicates scored, each queried in turn with every
	// other predicate's atoms as evidence (nil: the search's NonEvidence,
	// else its Preds, else every predicate).
	Preds []mln.PredID
	// Samples is the number of MC-SAT samples per query (0:
	// mcsat.DefaultSamples).
	Samples int
	// Seed seeds MC-SAT.
	Seed int64
	// Log, when set, receives a line per validation search and the choice.
	Log io.Writer
	// Checkpoint, when set, receives the state of the run at each
	// checkpoint of its searches (Settings.Checkpoint) and after each
	// validation search; an error from it ends the run.
	Checkpoint func(*ValidatedState) error
	// Resume, when set, continues the run from a state Checkpoint received
	// (with the same settings and data): the validation searches done are
	// not run again.
	Resume *ValidatedState
}

// Choice is the setting LearnValidated chose and the held-out scores
// behind it.
type Choice struct {
	// RepeatedPredicates is the setting the final search ran with.
	RepeatedPredicates bool
	// HeldOut is the index of the held-out training database, -1 when
	// there was only one (the setting given in the Settings is kept).
	HeldOut int
	// CLL holds the held-out conditional log-likelihood (mean over the
	// scored predicates of the mean over their atoms) of the model
	// learned without [0] and with [1] repeated predicates.
	CLL [2]float64
	// Stopped says why a validation search ended early (its time limit),
	// without [0] and with [1] repeated predicates ("" when it finished):
	// the choice then depends on the machine's speed.
	Stopped [2]string
	// Seconds is the time the validation took (both searches and their
	// inference), not counting the final search.
	Seconds float64
}

// LearnValidated is LearnBatch with s.RepeatedPredicates chosen on held-out
// data, as Kok & Domingos tune their settings: the last training database
// is held out, a search with each setting runs on the others, each learned
// model infers each scored predicate of the held-out database given all
// the others (MC-SAT, the protocol of their experiments), and the setting
// with the higher mean conditional log-likelihood (ties: without) is used
// for the final search on every training database. With one training
// database there is nothing to hold out, and with s.Scorer set the
// databases cannot be split: s is then used as given (so is it for
// MethodWeights, which adds no clause).
//
// A positive s.TimeLimit bounds the whole: each validation search gets a
// quarter of it, the final search what is left (at least a quarter).
func LearnValidated(ctx context.Context, method Method, dbs []*mln.Database, s Settings, sc Scoring, v Validation) (*Result, *Choice, error) {
	ch := &Choice{RepeatedPredicates: s.RepeatedPredicates, HeldOut: -1, CLL: [2]float64{math.NaN(), math.NaN()}}
	if len(dbs) < 2 || method == MethodWeights || s.Scorer != nil {
		r, err := LearnBatch(ctx, method, dbs, s, sc)
		return r, ch, err
	}
	t0 := time.Now()
	preds := v.Preds
	switch {
	case preds != nil:
	case s.NonEvidence != nil:
		preds = s.NonEvidence
	case s.Preds != nil:
		preds = s.Preds
	default:
		for p := range s.Model.Preds {
			preds = append(preds, mln.PredID(p))
		}
	}
	ch.HeldOut = len(dbs) - 1
	train, held := dbs[:ch.HeldOut], dbs[ch.HeldOut]
	phase := 0
	if v.Resume != nil {
		if v.Resume.Phase < 0 || v.Resume.Phase > 2 {
			return nil, nil, fmt.Errorf("structure: the saved state's phase %d is not one of a validated search", v.Resume.Phase)
		}
		phase = v.Resume.Phase
		for i := 0; i < phase; i++ {
			ch.CLL[i], ch.Stopped[i] = v.Resume.CLL[i], v.Resume.Stopped[i]
		}
	}
	// withPhase sets the checkpoint and resume of the search of phase i.
	withPhase := func(vs Settings, i int) Settings {
		vs.Checkpoint, vs.Resume = nil, nil
		if v.Checkpoint != nil {
			vs.Checkpoint = func(ss *SearchState) error {
				return v.Checkpoint(&ValidatedState{Phase: i, CLL: ch.CLL, Stopped: ch.Stopped, Search: ss})
			}
		}
		if v.Resume != nil && v.Resume.Phase == i {
			vs.Resume = v.Resume.Search
		}
		return vs
	}
	for i, rep := range []bool{false, true} {
		if i < phase {
			if v.Log != nil {
				fmt.Fprintf(v.Log, "marple: validation: repeated predicates %v: held-out CLL %.4f (saved)\n", rep, ch.CLL[i])
			}
			continue
		}
		vs := withPhase(s, i)
		vs.RepeatedPredicates = rep
		if s.TimeLimit > 0 {
			vs.TimeLimit = s.TimeLimit / 4
		}
		r, err := LearnBatch(ctx, method, train, vs, sc)
		if err != nil {
			return nil, nil, err
		}
		learned, err := r.Model(s.Model)
		if err != nil {
			return nil, nil, err
		}
		sum := 0.0
		for _, p := range preds {
			probs, gold, err := InferHeldOut(ctx, learned, held, p, v.options())
			if err != nil {
				return nil, nil, err
			}
			sum += eval.CLL(probs, gold)
		}
		ch.CLL[i] = sum / float64(len(preds))
		ch.Stopped[i] = r.Stopped
		if v.Log != nil {
			stopped := ""
			if r.Stopped != "" {
				stopped = " (stopped: " + r.Stopped + ")"
			}
			fmt.Fprintf(v.Log, "marple: validation: repeated predicates %v: %d clauses learned without database %d%s, held-out CLL %.4f\n", rep, len(r.Clauses), ch.HeldOut+1, stopped, ch.CLL[i])
		}
		if v.Checkpoint != nil {
			if err := v.Checkpoint(&ValidatedState{Phase: i + 1, CLL: ch.CLL, Stopped: ch.Stopped}); err != nil {
				return nil, nil, err
			}
		}
	}
	ch.RepeatedPredicates = ch.CLL[1] > ch.CLL[0]
	ch.Seconds = time.Since(t0).Seconds()
	if v.Log != nil {
		fmt.Fprintf(v.Log, "marple: validation chose repeated predicates %v (held-out CLL %.4f against %.4f) in %.1fs\n",
			ch.RepeatedPredicates, ch.CLL[b2i(ch.RepeatedPredicates)], ch.CLL[1-b2i(ch.RepeatedPredicates)], ch.Seconds)
	}
	s.RepeatedPredicates = ch.RepeatedPredicates
	if s.TimeLimit > 0 {
		s.TimeLimit = max(s.TimeLimit-time.Since(t0), s.TimeLimit/4)
	}
	r, err := LearnBatch(ctx, method, dbs, withPhase(s, 2), sc)
	return r, ch, err
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (v Validation) options() mcsat.Options {
	opt := mcsat.Options{Samples: v.Samples}
	opt.Seed = v.Seed
	return opt
}

// InferHeldOut infers predicate p of a database given all its other
// atoms: model (whose types and constants are the database's model's, as
// Result.Model's are) is grounded over the database's own constants with p
// the only query predicate and every other predicate's atoms evidence
// (closed world), and MC-SAT gives the marginal of each of p's atoms.
// It returns the marginals and the atoms' truth in the database.
func InferHeldOut(ctx context.Context, model *mln.Model, db *mln.Database, p mln.PredID, opt mcsat.Options) (probs []float64, gold []bool, err error) {
	truth := map[string]bool{}
	ev := mln.NewDatabase(model)
	for q := range model.Preds {
		db.Atoms(mln.PredID(q), func(args []mln.ConstID, v mln.Truth) {
			if mln.PredID(q) == p {
				if v == mln.True {
					truth[mln.BindingKey(args)] = true
				}
				return
			}
			ev.Set(mln.PredID(q), args, v)
		})
	}
	doms := map[mln.TypeID][]mln.ConstID{}
	for t, d := range score.OwnDomains(db.Model, db) {
		doms[mln.TypeID(t)] = d
	}
	net, err := ground.Ground(ctx, model, ev, ground.Options{Query: []mln.PredID{p}, Domains: doms})
	if err != nil {
		return nil, nil, err
	}
	marg, err := mcsat.Components(ctx, net, 0, opt, mcsat.MCSAT)
	if err != nil {
		return nil, nil, err
	}
	for a := 0; a < net.NumAtoms(); a++ {
		if net.AtomPred[a] != p {
			continue
		}
		probs = append(probs, marg[a])
		gold = append(gold, truth[mln.BindingKey(net.AtomArgs[a])])
	}
	return probs, gold, nil
}
