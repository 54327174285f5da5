package structure

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
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
	// Skipped is the number of searches with repeated predicates not run
	// because those done already decided against them (the last Skipped
	// databases in the order the searches see them, a hash of their
	// contents): a held-out CLL is at most 0, so no result of theirs could
	// make the mean gain positive. Their CLL in FoldCLL is NaN, and CLL[1]
	// is the mean over the databases searched.
	Skipped int
	// Bounded is set when the held-out CLL of the last search with
	// repeated predicates run (in CLL[1] and FoldCLL) is an upper bound,
	// not the value: its held-out predicates are scored cheapest first,
	// each CLL is at most 0, and the scoring stopped once the sum of
	// those scored, over the number of predicates, settled the choice
	// against them (as Skipped). The choice is that of scoring them all.
	Bounded bool
	// Scored counts the candidates the validation searches scored.
	Scored int
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
// the model depends on the order of dbs.
//
// The searches without repeated predicates run first, as many at once as
// there are processors, then those with them one at a time, each only
// while the searches done leave the choice open: a held-out CLL is at most
// 0, so when the gains so far plus minus the CLL without repeated
// predicates of each database left sum to 0 or less, no search left can
// make the mean gain positive, and they are not run (Choice.Skipped).
// For the same reason a search with them scores the held-out predicates
// cheapest first and stops once those scored settle it (Choice.Bounded).
// Every search, refit and count shares one count cache: a clause is
// counted once per database. The choice and the model are those of
// running every search, one at a time. With one training database there is nothing to hold out, and with s.Scorer set the databases cannot be split: s is
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
	if sc.counts == nil {
		// Every search and refit below counts a clause in a database once.
		sc.counts = score.NewCountCache()
	}
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
	// Phase f is the search without repeated predicates with database f
	// held out, phase n+f the search with them; phase 2n the final search.
	final := 2 * n
	cll := make([]float64, final)
	stops := make([]string, final)
	for i := range cll {
		cll[i] = math.NaN()
	}
	phase := 0
	vr0bounded := false
	if v.Resume != nil {
		if v.Resume.Phase < 0 || v.Resume.Phase > final || len(v.Resume.CLL) < v.Resume.Phase || len(v.Resume.Stopped) < v.Resume.Phase {
			return nil, nil, fmt.Errorf("structure: the saved state's phase %d is not one of a validated search over %d databases", v.Resume.Phase, n)
		}
		phase = v.Resume.Phase
		copy(cll, v.Resume.CLL[:phase])
		copy(stops, v.Resume.Stopped[:phase])
		vr0bounded = v.Resume.Bounded
	}
	pr := newRunProgress(t0, final+1, min(runtime.GOMAXPROCS(0), n))
	vr := &validationRun{ctx: ctx, method: method, dbs: dbs, pos: pos, s: s, sc: sc, v: v, preds: preds, n: n,
		cll: cll, stops: stops, done: make([]bool, final), results: make([]*Result, final), errs: make([]error, final),
		saved: make([]*SearchState, final), pr: pr, bounded: vr0bounded}
	for i := 0; i < phase; i++ {
		vr.done[i] = true
	}
	vr.run(phase)
	if err := vr.firstErr(); err != nil {
		// The model so far: the search's under way when one stopped with
		// its model, else the last finished validation search's.
		for ph, e := range vr.errs {
			if e != nil && vr.results[ph] != nil {
				ch.HeldOut = pos[ph%n] + 1
				return vr.results[ph], ch, err
			}
		}
		for ph := final - 1; ph >= 0; ph-- {
			if vr.results[ph] != nil {
				ch.HeldOut = pos[ph%n] + 1
				return vr.results[ph], ch, err
			}
		}
		return nil, nil, err
	}
	for ph := range vr.results {
		if r := vr.results[ph]; r != nil {
			ch.Scored += r.Scored
		}
	}
	ch.Skipped, ch.Bounded = vr.skipped, vr.bounded
	var gains, with []float64
	for f := 0; f < n; f++ {
		ch.FoldCLL[pos[f]] = [2]float64{cll[f], cll[n+f]}
		if f < n-ch.Skipped {
			gains = append(gains, cll[n+f]-cll[f])
			with = append(with, cll[n+f])
		}
		for i := 0; i < 2; i++ {
			if ch.Stopped[i] == "" {
				ch.Stopped[i] = stops[i*n+f]
			}
		}
	}
	ch.CLL = [2]float64{orderFreeMean(cll[:n]), orderFreeMean(with)}
	gain, se := meanSE(gains)
	ch.SE = se
	// A bounded CLL settled the choice against them (the gain's mean is
	// at most 0).
	ch.RepeatedPredicates = ch.Skipped == 0 && !ch.Bounded && gain > se
	ch.Seconds = time.Since(t0).Seconds()
	if v.Log != nil {
		at := ""
		if ch.Bounded {
			at = "at most "
		}
		if ch.Skipped > 0 {
			fmt.Fprintf(v.Log, "marple: validation chose repeated predicates false (mean held-out CLL %s%.4f with, over the first %d held-out databases, %.4f without, over %d; the other %d searches with them could not make the mean gain positive, since a CLL is at most 0) in %.1fs\n",
				at, ch.CLL[1], n-ch.Skipped, ch.CLL[0], n, ch.Skipped, ch.Seconds)
		} else {
			fmt.Fprintf(v.Log, "marple: validation chose repeated predicates %v (mean held-out CLL %s%.4f with, %.4f without, over %d held-out databases; gain %.4f ± %.4f) in %.1fs\n",
				ch.RepeatedPredicates, at, ch.CLL[1], ch.CLL[0], n, gain, se, ch.Seconds)
		}
	}
	s.RepeatedPredicates = ch.RepeatedPredicates
	if s.TimeLimit > 0 {
		s.TimeLimit = max(s.TimeLimit-time.Since(t0), s.TimeLimit/4)
	}
	// On an error (Ctrl-C, say) the model so far is returned with it, as
	// LearnBatch returns its search's.
	fs := vr.withPhase(s, final)
	fs.Progress = pr.search(final-vr.skipped+1, s.Progress)
	r, err := LearnBatch(ctx, method, dbs, fs, sc)
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
			pr.setTotal(final - vr.skipped + 2)
			ns.Progress = pr.search(final-vr.skipped+2, s.Progress)
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

// orderFreeMean is the mean of xs, summed smallest first so that the
// order of the databases does not change the rounding.
func orderFreeMean(xs []float64) float64 {
	v := slices.Clone(xs)
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

// heldOutBounded is heldOutScores's CLL, except that the predicates are
// scored cheapest first (those whose grounding is refused first, then by
// ground.Estimate's count of ground clauses) and the scoring stops once
// enough reports that an upper bound on the mean CLL settles what it is
// for: each predicate's CLL is at most 0, so the sum of those scored,
// divided by len(preds), bounds the mean. It then returns that bound with
// bounded set. Each predicate's CLL does not depend on the order (each
// inference grounds anew and starts from v's seed), and when every one is
// scored the mean is summed in the order of preds, so the value is
// heldOutScores's.
func heldOutBounded(ctx context.Context, model *mln.Model, db *mln.Database, preds []mln.PredID, v Validation, enough func(bound float64) bool) (cll float64, bounded bool, err error) {
	type job struct {
		i       int
		refused bool
		size    int64
	}
	jobs := make([]job, len(preds))
	for i, p := range preds {
		ev, doms := heldOutEvidence(model, db, p)
		clauses, bytes, err := ground.Estimate(model, ev, ground.Options{Query: []mln.PredID{p}, Domains: doms})
		if err != nil {
			return 0, false, err
		}
		jobs[i] = job{i: i, refused: bytes > ground.DefaultMaxBytes, size: clauses}
	}
	// Refused groundings first (each ends the scoring at -Inf), then the
	// smallest: the order only decides how soon the bound settles.
	slices.SortStableFunc(jobs, func(a, b job) int {
		if a.refused != b.refused {
			if a.refused {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.size, b.size)
	})
	np := float64(len(preds))
	cl := make([]float64, len(preds))
	sum := 0.0
	for k, j := range jobs {
		probs, gold, err := InferHeldOut(ctx, model, db, preds[j.i], v.options())
		if errors.Is(err, ground.ErrTooLarge) {
			if v.Log != nil {
				fmt.Fprintf(v.Log, "marple: validation: a model too large to ground on a held-out database scores -Inf (%v)\n", err)
			}
			return math.Inf(-1), false, nil
		}
		if err != nil {
			return 0, false, err
		}
		cl[j.i] = eval.CLL(probs, gold)
		sum += cl[j.i]
		if k < len(jobs)-1 && enough(sum/np) {
			if v.Log != nil {
				fmt.Fprintf(v.Log, "marple: validation: %d of %d predicates scored on the held-out database bound its CLL by %.4f, which settles the choice: the other %d are not inferred\n", k+1, len(preds), sum/np, len(preds)-k-1)
			}
			return sum / np, true, nil
		}
	}
	for i := range preds {
		cll += cl[i]
	}
	return cll / np, false, nil
}

// heldOutEvidence returns the evidence of predicate p's inference on db
// (every other predicate's atoms) and db's own domains.
func heldOutEvidence(model *mln.Model, db *mln.Database, p mln.PredID) (*mln.Database, map[mln.TypeID][]mln.ConstID) {
	ev := mln.NewDatabase(model)
	for q := range model.Preds {
		if mln.PredID(q) == p {
			continue
		}
		db.Atoms(mln.PredID(q), func(args []mln.ConstID, v mln.Truth) {
			ev.Set(mln.PredID(q), args, v)
		})
	}
	doms := map[mln.TypeID][]mln.ConstID{}
	for t, d := range score.OwnDomains(db.Model, db) {
		doms[mln.TypeID(t)] = d
	}
	return ev, doms
}

// InferHeldOut infers predicate p of a database given all its other
// atoms: model (whose types and constants are the database's model's, as
// Result.Model's are) is grounded over the database's own constants with p
// the only query predicate and every other predicate's atoms evidence
// (closed world), and MC-SAT gives the marginal of each of p's atoms.
// It returns the marginals and the atoms' truth in the database.
func InferHeldOut(ctx context.Context, model *mln.Model, db *mln.Database, p mln.PredID, opt mcsat.Options) (probs []float64, gold []bool, err error) {
	truth := map[string]bool{}
	db.Atoms(p, func(args []mln.ConstID, v mln.Truth) {
		if v == mln.True {
			truth[mln.BindingKey(args)] = true
		}
	})
	ev, doms := heldOutEvidence(model, db, p)
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

// validationRun runs the validation searches of LearnValidated, the
// independent ones concurrently.
type validationRun struct {
	ctx    context.Context
	method Method
	dbs    []*mln.Database
	pos    []int
	s      Settings
	sc     Scoring
	v      Validation
	preds  []mln.PredID
	n      int

	mu      sync.Mutex
	cll     []float64 // by phase; NaN: not run
	stops   []string
	done    []bool
	results []*Result
	errs    []error
	saved   []*SearchState // by phase: its search's last state
	skipped int            // searches with repeated predicates not needed
	bounded bool           // a held-out CLL is a bound (Choice.Bounded)
	pr      *runProgress
}

// run runs the validation phases from phase on (the earlier ones are
// done). The searches without repeated predicates run first, as many at
// once as there are processors; each search with them runs once every
// earlier phase is done, and only while the searches done leave the choice
// open (settled): the choice and every score are then the same however
// many run at once.
func (vr *validationRun) run(phase int) {
	n, final := vr.n, 2*vr.n
	workers := max(1, min(runtime.GOMAXPROCS(0), n))
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for ph := 0; ph < final; ph++ {
		if ph >= n {
			wg.Wait()
			if vr.firstErr() != nil {
				break
			}
			if vr.settled(ph - n) {
				vr.skip(ph)
				break
			}
		}
		if ph < phase || vr.done[ph] {
			continue
		}
		if vr.firstErr() != nil || vr.ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(ph int) {
			defer wg.Done()
			defer func() { <-sem }()
			vr.phase(ph)
		}(ph)
	}
	wg.Wait()
	if err := vr.ctx.Err(); err != nil && vr.firstErr() == nil && !vr.allDone() {
		vr.errs[0] = err
	}
}

// settled reports whether the searches done (every one without repeated
// predicates, and those with them for the first k databases) already
// decide against repeated predicates: they are admitted only when the
// mean held-out CLL gain exceeds its standard error, so only when it is
// positive, and a held-out CLL is at most 0, so database f's gain is at
// most minus its CLL without them. When even those gains leave the mean
// at or below 0, no result of the searches left can change the choice.
func (vr *validationRun) settled(k int) bool {
	n := vr.n
	bound := 0.0
	for f := 0; f < n; f++ {
		if f < k {
			bound += vr.cll[n+f] - vr.cll[f]
		} else {
			bound -= vr.cll[f]
		}
	}
	return bound <= 0
}

// settledWith reports whether the searches done, with cll the held-out
// CLL of the search with repeated predicates without database f (every
// earlier phase done), settle the choice (settled(f+1)).
func (vr *validationRun) settledWith(f int, cll float64) bool {
	vr.mu.Lock()
	defer vr.mu.Unlock()
	saved := vr.cll[vr.n+f]
	defer func() { vr.cll[vr.n+f] = saved }()
	vr.cll[vr.n+f] = cll
	return vr.settled(f + 1)
}

// skip marks the searches from phase ph on as not needed.
func (vr *validationRun) skip(ph int) {
	vr.mu.Lock()
	defer vr.mu.Unlock()
	final := 2 * vr.n
	vr.skipped = final - ph
	var held []string
	for i := ph; i < final; i++ {
		vr.done[i] = true
		held = append(held, fmt.Sprint(vr.pos[i-vr.n]+1))
	}
	vr.pr.setTotal(final - vr.skipped + 1)
	if vr.v.Log != nil {
		fmt.Fprintf(vr.v.Log, "marple: validation: the searches with repeated predicates without database %s are not needed: whatever their held-out CLL (at most 0), the mean gain cannot be positive\n", strings.Join(held, ", "))
	}
	vr.checkpoint()
}

// phase runs validation search ph and scores its model on the held-out
// database.
func (vr *validationRun) phase(ph int) {
	n := vr.n
	f, rep := ph%n, ph >= n
	vs := vr.withPhase(vr.s, ph)
	vs.RepeatedPredicates = rep
	if vr.s.TimeLimit > 0 {
		vs.TimeLimit = vr.s.TimeLimit / time.Duration(4*n)
	}
	vs.Progress = vr.pr.search(ph+1, vr.s.Progress)
	t := time.Now()
	r, err := LearnBatch(vr.ctx, vr.method, without(vr.dbs, f), vs, vr.sc)
	var cll float64
	var bounded bool
	if err == nil {
		var learned *mln.Model
		if learned, err = r.Model(vr.s.Model); err == nil {
			if rep {
				// Every earlier phase is done: the scoring stops once a
				// bound on this CLL settles the choice.
				cll, bounded, err = heldOutBounded(vr.ctx, learned, vr.dbs[f], vr.preds, vr.v, func(bound float64) bool {
					return vr.settledWith(f, bound)
				})
			} else {
				cll, _, err = heldOutScores(vr.ctx, learned, vr.dbs[f], vr.preds, vr.v)
			}
		}
	}
	vr.mu.Lock()
	defer vr.mu.Unlock()
	vr.results[ph] = r
	if err != nil {
		vr.errs[ph] = err
		return
	}
	vr.cll[ph], vr.stops[ph], vr.done[ph] = cll, r.Stopped, true
	if bounded {
		vr.bounded = true
	}
	vr.pr.finished(time.Since(t))
	if vr.v.Log != nil {
		stopped := ""
		if r.Stopped != "" {
			stopped = " (stopped: " + r.Stopped + ")"
		}
		at := ""
		if bounded {
			at = "at most "
		}
		fmt.Fprintf(vr.v.Log, "marple: validation: repeated predicates %v: %d clauses learned without database %d%s, held-out CLL %s%.4f (search %d of %d, %s, %s elapsed)\n",
			rep, len(r.Clauses), vr.pos[f]+1, stopped, at, cll, ph+1, vr.pr.totalSearches(), time.Since(t).Round(100*time.Millisecond), vr.pr.elapsed().Round(time.Second))
	}
	if err := vr.checkpoint(); err != nil {
		vr.errs[ph] = err
	}
}

// prefix returns the first phase not done (the phase a resumed run starts
// at).
func (vr *validationRun) prefix() int {
	for i, d := range vr.done {
		if !d {
			return i
		}
	}
	return len(vr.done)
}

func (vr *validationRun) allDone() bool {
	vr.mu.Lock()
	defer vr.mu.Unlock()
	return vr.prefix() == len(vr.done)
}

// checkpoint saves the phases done before the first one not done, and
// that one's search state if saved (vr.mu held).
func (vr *validationRun) checkpoint() error {
	if vr.v.Checkpoint == nil {
		return nil
	}
	p := vr.prefix()
	st := &ValidatedState{Phase: p, CLL: slices.Clone(vr.cll[:p]), Stopped: slices.Clone(vr.stops[:p]), Bounded: vr.bounded}
	if p < len(vr.saved) {
		st.Search = vr.saved[p]
	}
	return vr.v.Checkpoint(st)
}

// withPhase sets the checkpoint and resume of the search of phase i. A
// search's state is saved while every earlier phase is done (a resumed
// run starts at the first phase not done); a later one's only when it
// becomes that phase.
func (vr *validationRun) withPhase(vs Settings, i int) Settings {
	vs.Checkpoint, vs.Resume = nil, nil
	if vr.v.Checkpoint != nil {
		vs.Checkpoint = func(ss *SearchState) error {
			vr.mu.Lock()
			defer vr.mu.Unlock()
			if i < len(vr.saved) {
				vr.saved[i] = ss
			}
			if vr.prefix() != i {
				return nil
			}
			return vr.v.Checkpoint(&ValidatedState{Phase: i, CLL: slices.Clone(vr.cll[:i]), Stopped: slices.Clone(vr.stops[:i]), Search: ss, Bounded: vr.bounded})
		}
	}
	if vr.v.Resume != nil && vr.v.Resume.Phase == i {
		vs.Resume = vr.v.Resume.Search
	}
	return vs
}

// firstErr returns the error of the first phase that failed, if any.
func (vr *validationRun) firstErr() error {
	vr.mu.Lock()
	defer vr.mu.Unlock()
	for _, err := range vr.errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// runProgress numbers the searches of a LearnValidated run and estimates
// the time to its end for their Progress reports.
type runProgress struct {
	t0    time.Time
	mu    sync.Mutex
	total int           // searches expected in all
	done  int           // searches finished
	spent time.Duration // their durations, summed
	conc  int           // searches at once
}

func newRunProgress(t0 time.Time, total, conc int) *runProgress {
	return &runProgress{t0: t0, total: total, conc: max(conc, 1)}
}

func (rp *runProgress) setTotal(n int) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	rp.total = n
}

func (rp *runProgress) totalSearches() int {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.total
}

func (rp *runProgress) elapsed() time.Duration { return time.Since(rp.t0) }

// finished records a search that took d.
func (rp *runProgress) finished(d time.Duration) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	rp.done++
	rp.spent += d
}

// eta estimates the time to the end of the run's searches: those not
// finished at the mean duration of those finished, conc at once (0 before
// one has finished).
func (rp *runProgress) eta() time.Duration {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.done == 0 {
		return 0
	}
	left := rp.total - rp.done
	return time.Duration(float64(rp.spent) / float64(rp.done) * float64(left) / float64(min(rp.conc, max(left, 1))))
}

// search returns the Progress of search k (1-based) of the run, which
// reports to fn (nil when fn is).
func (rp *runProgress) search(k int, fn func(Progress)) func(Progress) {
	if fn == nil {
		return nil
	}
	var mu sync.Mutex
	return func(p Progress) {
		p.Search, p.Searches = k, rp.totalSearches()
		p.RunElapsed, p.RunETA = rp.elapsed(), rp.eta()
		mu.Lock()
		defer mu.Unlock()
		fn(p)
	}
}
