package structure

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/marple-mln/marple/eval"
	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/score"
	"gonum.org/v1/gonum/stat"
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
	// NoJoins leaves Settings.Joins as given. By default every search of
	// LearnValidated makes joins (Settings.Joins), and the weights of the
	// joins the final search made are then capped at a value chosen on
	// held-out data (see JoinChoice).
	NoJoins bool
	// NoConstants turns off the per-constant refinements: by default the
	// final model's clauses are tried with variables given a weight per
	// constant, and those that improve the held-out CLL are kept (see
	// ConstantChoice).
	NoConstants bool
	// MaxExpansion bounds the per-constant clauses of one refinement (0:
	// DefaultMaxExpansion).
	MaxExpansion int
}

// DefaultValidation returns the default validation: the scored
// predicates chosen from the settings, mcsat.DefaultSamples samples, seed
// 0, joins searched and capped (NoJoins false), and per-constant
// refinements tried (NoConstants false).
func DefaultValidation() Validation { return Validation{} }

// Choice is the setting LearnValidated chose and the held-out scores
// behind it.
type Choice struct {
	// RepeatedPredicates is the setting the final search ran with.
	RepeatedPredicates bool
	// Folds is the number of training databases held out in turn (every
	// one; 0 when there was only one, and the setting given in the
	// Settings is kept).
	Folds int
	// CLL holds the held-out conditional log-likelihood (mean over the
	// scored predicates of the mean over their atoms), averaged over the
	// held-out databases, of the models learned without [0] and with [1]
	// repeated predicates; FoldCLL holds each held-out database's, in the
	// order of the databases given.
	CLL     [2]float64
	FoldCLL [][2]float64
	// SE is the standard error of the mean gain CLL[1]-CLL[0] over the
	// held-out databases: repeated predicates are admitted only when the
	// gain exceeds it.
	SE float64
	// Stopped says why a validation search ended early (its time limit),
	// without [0] and with [1] repeated predicates ("" when every one
	// finished): the choice then depends on the machine's speed.
	Stopped [2]string
	// Seconds is the time the validation took (both searches and their
	// inference), not counting the final search.
	Seconds float64
	// Joins is the choice of the cap on the learned joins' weights (nil
	// when the final model has no learned join).
	Joins *JoinChoice
	// Constants is the choice of per-constant refinements (nil when none
	// was tried).
	Constants *ConstantChoice
	// HeldOut is set when the run stopped with an error (Ctrl-C, say)
	// during the validation searches: the model returned is then the
	// search's under way, learned without this database (1-based, in the
	// order of the databases given). It is 0 otherwise.
	HeldOut int
}

// LearnValidated is LearnBatch with s.RepeatedPredicates chosen on held-out
// data, as Kok & Domingos tune their settings: each training database is
// held out in turn, a search with each setting runs on the others, each
// learned model infers each scored predicate of the held-out database
// given all the others (MC-SAT, the protocol of their experiments), and
// the held-out conditional log-likelihoods are averaged over the
// databases. Repeated predicates, which admit more clauses, are used for
// the final search on every training database only when their mean gain
// exceeds its standard error over the held-out databases; within that
// noise the simpler setting, without, is kept. Unless v.NoJoins, every
// search makes joins (Settings.Joins), and the final model's learned joins
// get their weights capped at a value chosen on the held-out databases
// (chooseJoinCap, reported in Choice.Joins); when the final search made
// none, or the choice drops them, it runs again without joins (unless
// s.Joins asked for them). Unless v.NoConstants, the final model's clauses
// are then tried with variables given a weight per constant, and the
// refinements that improve the held-out CLL are kept (chooseConstants,
// reported in Choice.Constants). Every search sees the
// databases sorted by a hash of their contents, so neither the choice nor
// the model depends on the order of dbs. With one training database there is nothing to hold out, and with s.Scorer set the databases cannot be split: s is
// then used as given (so is it for MethodWeights, which adds no clause).
//
// A positive s.TimeLimit bounds the searches: the validation searches
// share half of it equally, the final search gets what is left (at least a
// quarter); the choices of join caps and refinements after it are not
// bounded. A positive s.MaxCandidates bounds each search, validation
// searches included, and, unlike a time limit, leaves the choice and the
// model independent of the machine's load.
//
// On an error (Ctrl-C, say) the model so far is returned with it: during
// the validation searches, the search's under way, learned without one
// database (Choice.HeldOut says which); after them, the final search's.
func LearnValidated(ctx context.Context, method Method, dbs []*mln.Database, s Settings, sc Scoring, v Validation) (*Result, *Choice, error) {
	ch := &Choice{RepeatedPredicates: s.RepeatedPredicates, CLL: [2]float64{math.NaN(), math.NaN()}}
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
	givenJoins := s.Joins
	if !v.NoJoins {
		s.Joins = true
	}
	// The searches see the databases in an order of their contents, not
	// the order given (a search's result can depend on it).
	dbs, pos := canonicalOrder(s.Model, dbs)
	n := len(dbs)
	ch.Folds = n
	ch.FoldCLL = make([][2]float64, n)
	// Phase 2f+i is the search with setting i with database f held out;
	// phase 2n the final search.
	final := 2 * n
	cll := make([]float64, final)
	stops := make([]string, final)
	phase := 0
	if v.Resume != nil {
		if v.Resume.Phase < 0 || v.Resume.Phase > final || len(v.Resume.CLL) < v.Resume.Phase || len(v.Resume.Stopped) < v.Resume.Phase {
			return nil, nil, fmt.Errorf("structure: the saved state's phase %d is not one of a validated search over %d databases", v.Resume.Phase, n)
		}
		phase = v.Resume.Phase
		copy(cll, v.Resume.CLL[:phase])
		copy(stops, v.Resume.Stopped[:phase])
	}
	// withPhase sets the checkpoint and resume of the search of phase i.
	withPhase := func(vs Settings, i int) Settings {
		vs.Checkpoint, vs.Resume = nil, nil
		if v.Checkpoint != nil {
			vs.Checkpoint = func(ss *SearchState) error {
				return v.Checkpoint(&ValidatedState{Phase: i, CLL: slices.Clone(cll[:i]), Stopped: slices.Clone(stops[:i]), Search: ss})
			}
		}
		if v.Resume != nil && v.Resume.Phase == i {
			vs.Resume = v.Resume.Search
		}
		return vs
	}
	var last *Result // the last validation search's
	lastHeldOut := 0
	for ph := 0; ph < final; ph++ {
		f, rep := ph/2, ph%2 == 1
		if ph < phase {
			if v.Log != nil {
				fmt.Fprintf(v.Log, "marple: validation: repeated predicates %v, database %d held out: held-out CLL %.4f (saved)\n", rep, pos[f]+1, cll[ph])
			}
			continue
		}
		train := without(dbs, f)
		vs := withPhase(s, ph)
		vs.RepeatedPredicates = rep
		if s.TimeLimit > 0 {
			vs.TimeLimit = s.TimeLimit / time.Duration(2*final)
		}
		r, err := LearnBatch(ctx, method, train, vs, sc)
		if err != nil {
			if r == nil {
				// Stopped before its first step: the model so far is the
				// last finished validation search's, if any.
				if last == nil {
					return nil, nil, err
				}
				ch.HeldOut = lastHeldOut
				return last, ch, err
			}
			// The model so far is the search's under way.
			ch.HeldOut = pos[f] + 1
			return r, ch, err
		}
		last, lastHeldOut = r, pos[f]+1
		learned, err := r.Model(s.Model)
		if err != nil {
			return nil, nil, err
		}
		cll[ph], _, err = heldOutScores(ctx, learned, dbs[f], preds, v)
		if err != nil {
			ch.HeldOut = pos[f] + 1
			return r, ch, err
		}
		stops[ph] = r.Stopped
		if v.Log != nil {
			stopped := ""
			if r.Stopped != "" {
				stopped = " (stopped: " + r.Stopped + ")"
			}
			fmt.Fprintf(v.Log, "marple: validation: repeated predicates %v: %d clauses learned without database %d%s, held-out CLL %.4f\n", rep, len(r.Clauses), pos[f]+1, stopped, cll[ph])
		}
		if v.Checkpoint != nil {
			if err := v.Checkpoint(&ValidatedState{Phase: ph + 1, CLL: slices.Clone(cll[:ph+1]), Stopped: slices.Clone(stops[:ph+1])}); err != nil {
				return nil, nil, err
			}
		}
	}
	gains := make([]float64, n)
	for f := 0; f < n; f++ {
		ch.FoldCLL[pos[f]] = [2]float64{cll[2*f], cll[2*f+1]}
		gains[f] = cll[2*f+1] - cll[2*f]
		for i := 0; i < 2; i++ {
			if ch.Stopped[i] == "" {
				ch.Stopped[i] = stops[2*f+i]
			}
		}
	}
	ch.CLL = [2]float64{orderFreeMean(cll, 0), orderFreeMean(cll, 1)}
	gain, se := meanSE(gains)
	ch.SE = se
	ch.RepeatedPredicates = gain > se
	ch.Seconds = time.Since(t0).Seconds()
	if v.Log != nil {
		fmt.Fprintf(v.Log, "marple: validation chose repeated predicates %v (mean held-out CLL %.4f with, %.4f without, over %d held-out databases; gain %.4f ± %.4f) in %.1fs\n",
			ch.RepeatedPredicates, ch.CLL[1], ch.CLL[0], n, gain, se, ch.Seconds)
	}
	s.RepeatedPredicates = ch.RepeatedPredicates
	if s.TimeLimit > 0 {
		s.TimeLimit = max(s.TimeLimit-time.Since(t0), s.TimeLimit/4)
	}
	// On an error (Ctrl-C, say) the model so far is returned with it, as
	// LearnBatch returns its search's.
	r, err := LearnBatch(ctx, method, dbs, withPhase(s, final), sc)
	if err != nil {
		return r, ch, err
	}
	if s.Joins {
		if ch.Joins, err = chooseJoinCap(ctx, r, dbs, s, sc, v, preds, givenJoins); err != nil {
			return r, ch, err
		}
		if !givenJoins && (ch.Joins == nil || ch.Joins.Cap == 0) {
			// No learned join is kept: the model is the search's without
			// joins, whose path the joins in its beam would otherwise have
			// changed.
			if v.Log != nil {
				fmt.Fprintln(v.Log, "marple: validation kept no learned join: the final search runs again without joins")
			}
			ns := s
			ns.Joins, ns.Checkpoint, ns.Resume = false, nil, nil
			if r, err = LearnBatch(ctx, method, dbs, ns, sc); err != nil {
				return r, ch, err
			}
		}
	}
	if v.NoConstants {
		return r, ch, nil
	}
	var fixed []int
	if ch.Joins != nil && ch.Joins.Cap > 0 {
		fixed = learnedJoins(r, s)
	}
	ch.Constants, err = chooseConstants(ctx, r, dbs, s, sc, v, preds, fixed)
	return r, ch, err
}

// canonicalOrder returns dbs sorted by a hash of their contents (each
// listed atom's predicate and constant names and truth value, sorted), the
// given order kept among equal hashes, and each one's index in dbs.
func canonicalOrder(m *mln.Model, dbs []*mln.Database) ([]*mln.Database, []int) {
	keys := make([]uint64, len(dbs))
	for i, db := range dbs {
		var lines []string
		var b strings.Builder
		for p := range m.Preds {
			db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
				b.Reset()
				b.WriteString(m.Preds[p].Name)
				for _, c := range args {
					b.WriteByte(0)
					b.WriteString(m.ConstName(c))
				}
				fmt.Fprintf(&b, "\x00%d", v)
				lines = append(lines, b.String())
			})
		}
		slices.Sort(lines)
		h := fnv.New64a()
		for _, l := range lines {
			h.Write([]byte(l))
			h.Write([]byte{'\n'})
		}
		keys[i] = h.Sum64()
	}
	pos := make([]int, len(dbs))
	for i := range pos {
		pos[i] = i
	}
	slices.SortStableFunc(pos, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	out := make([]*mln.Database, len(dbs))
	for i, k := range pos {
		out[i] = dbs[k]
	}
	return out, pos
}

// without returns dbs without its f-th database: the training databases
// when that one is held out.
func without(dbs []*mln.Database, f int) []*mln.Database {
	return append(slices.Clone(dbs[:f]), dbs[f+1:]...)
}

// orderFreeMean is the mean of every other element of xs from start,
// summed smallest first so that the order of the databases does not change
// the rounding.
func orderFreeMean(xs []float64, start int) float64 {
	var v []float64
	for i := start; i < len(xs); i += 2 {
		v = append(v, xs[i])
	}
	slices.Sort(v)
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}

// meanSE is the mean of xs and its standard error (0 for fewer than two),
// both independent of the order of xs.
func meanSE(xs []float64) (mean, se float64) {
	v := slices.Clone(xs)
	slices.Sort(v)
	if len(v) < 2 {
		return stat.Mean(v, nil), 0
	}
	mean, sd := stat.MeanStdDev(v, nil)
	return mean, sd / math.Sqrt(float64(len(v)))
}

func (v Validation) options() mcsat.Options {
	opt := mcsat.Options{Samples: v.Samples}
	opt.Seed = v.Seed
	return opt
}

// heldOutScores returns the mean over preds of the CLL and AUC-PR of each
// predicate of db inferred given the others (InferHeldOut). A model too
// large to ground on db (ground.ErrTooLarge) scores -Inf and NaN: it
// cannot be used there, so the setting that learned it loses.
func heldOutScores(ctx context.Context, model *mln.Model, db *mln.Database, preds []mln.PredID, v Validation) (cll, auc float64, err error) {
	for _, p := range preds {
		probs, gold, err := InferHeldOut(ctx, model, db, p, v.options())
		if errors.Is(err, ground.ErrTooLarge) {
			if v.Log != nil {
				fmt.Fprintf(v.Log, "marple: validation: a model too large to ground on a held-out database scores -Inf (%v)\n", err)
			}
			return math.Inf(-1), math.NaN(), nil
		}
		if err != nil {
			return 0, 0, err
		}
		cll += eval.CLL(probs, gold)
		auc += eval.AUCPR(probs, gold)
	}
	n := float64(len(preds))
	return cll / n, auc / n, nil
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
