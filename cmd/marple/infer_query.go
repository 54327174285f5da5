package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/marple-mln/marple/query"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/bp"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/infer/wmc"
	"github.com/marple-mln/marple/mln"
)

// inferExtras are the flags of marple infer that select what is queried
// and how it is reported beyond whole query predicates (Alchemy's infer
// names): -a, -f, -queryEvidence, partially ground -q atoms, belief
// propagation (-bp), the sampler's -maxSteps, -maxSeconds and SampleSAT
// settings, and -outputNetwork.
type inferExtras struct {
	all, bp, lifted, queryEvidence, outputNetwork bool
	wmc, logZ                                     bool
	firstOrder                                    bool // -fomc or -lis (infer_lifted.go)
	wmcMaxNodes, wmcMaxWork                       int64
	queryOrder, omitFree, networkNumbers          bool
	listHidden                                    bool
	queryFile                                     string
	convThresh, maxSeconds                        float64
	bpCheck                                       int
	liftRounds                                    int
	maxSteps                                      int
	walkProb, saTemp                              float64
	smooth                                        float64

	atoms    []query.Item // the -q items
	list     string       // the -q list as given
	q        *query.Query // what is asked for, once resolved against the model
	qevPreds []mln.PredID // the query predicates under -queryEvidence
}

func (x *inferExtras) register(fs *flag.FlagSet) {
	fs.BoolVar(&x.all, "a", false, "MAP inference writing every non-evidence query atom with 0 or 1 (\"Smokes(Anna) 1\")")
	fs.StringVar(&x.queryFile, "f", "", "file of ground query atoms (.db syntax), in addition to -q")
	fs.BoolVar(&x.queryEvidence, "queryEvidence", false, "the query predicates' atoms listed in the evidence are the query atoms (their listed values unused); their unlisted atoms are false evidence")
	fs.BoolVar(&x.bp, "bp", false, "marginal inference with loopy belief propagation")
	fs.BoolVar(&x.wmc, "wmc", false, "exact marginal inference by weighted model counting (variable elimination, or DPLL search with component decomposition and caching); refused, suggesting -ms, past -wmcMaxWork or -wmcMaxNodes")
	fs.Int64Var(&x.wmcMaxNodes, "wmcMaxNodes", 0, "with -wmc: the most search nodes before exact counting is refused as out of reach (0: "+strconv.Itoa(wmc.DefaultMaxNodes)+"; negative: no bound)")
	fs.Int64Var(&x.wmcMaxWork, "wmcMaxWork", 0, "with -wmc: the most search work (atoms and open clauses of the components branched on, about 100 million a second) before exact counting is refused as out of reach (0: "+strconv.Itoa(wmc.DefaultMaxWork)+"; negative: no bound)")
	fs.BoolVar(&x.logZ, "z", false, "with an exact engine (-wmc): also print log Z, the natural log of the partition function (the evidence's groundings included)")
	fs.BoolVar(&x.lifted, "lifted", false, "with -bp: lifted belief propagation (BP on the clusters of atoms and clauses that exchange identical messages; the same marginals; ground BP, said on stderr, when lifting does not compress)")
	fs.IntVar(&x.liftRounds, "liftRounds", 0, "with -bp -lifted: approximate lifting, colour passing stopped after this many rounds (asymmetric evidence still compresses; the marginals approximate ground BP's and the summary says so); 0: exact")
	fs.Float64Var(&x.convThresh, "convThresh", 1e-4, "BP: converged when no marginal changes by more than this in an iteration")
	fs.IntVar(&x.bpCheck, "bpCheck", engines.DefaultBPCheck, "BP: MC-SAT samples per chain of the check that confirms BP's marginals within "+strconv.FormatFloat(bp.DefaultCheckTolerance, 'g', -1, 64)+" (0: no check; the summary then says the marginals are not checked)")
	fs.IntVar(&x.maxSteps, "maxSteps", 0, "MC-SAT/Gibbs: number of samples (overrides -numSamples); BP: maximum iterations (0: "+strconv.Itoa(bp.DefaultMaxIterations)+")")
	fs.Float64Var(&x.walkProb, "walkProb", mcsat.DefaultWalkProb, "MC-SAT: probability that a SampleSAT move is a WalkSAT move rather than an annealing move")
	fs.Float64Var(&x.saTemp, "saTemp", 0, "MC-SAT: SampleSAT's temperature (0: the default)")
	fs.Float64Var(&x.smooth, "smooth", 0, "MC-SAT/Gibbs: write (p·n + 1/2)/(n + 1) for an estimate p, so that no probability is 0 or 1 (Alchemy's infer smooths with n = 10000; 0: no smoothing)")
	fs.BoolVar(&x.queryOrder, "queryOrder", false, "write the results in the order of the query: the -f atoms, then item by item of the -q list, each atom once (Alchemy's order; default: the network's, by predicate)")
	fs.BoolVar(&x.omitFree, "omitFree", false, "marginals: Alchemy's BP output: each predicate's atoms in the order of Alchemy's factor graph, without the query atoms in no ground clause but those of a predicate with evidence atoms, listed after the others as Alchemy lists them (with their marginal, 1/2, where Alchemy writes 0)")
	fs.BoolVar(&x.listHidden, "listHidden", false, "with -omitFree: list every atom of Alchemy's factor graph, as Alchemy's BP output does: also those of the open-world predicates not queried (hidden: with -nonEvidenceOpen, those without evidence) and those of a query predicate that partly ground -q atoms do not ask for, among the query atoms by predicate, in the order of the factor graph")
	fs.BoolVar(&x.networkNumbers, "networkNumbers", false, "with -outputNetwork: Alchemy's layout and order: the atoms in the order they enter Alchemy's factor graph, each written as the numbers Alchemy gives its arguments' constants (type by type; without its predicate, as Alchemy), then its factors, each value followed by a blank (a factor's value: the sum of the weights of the ground clauses it stands for, where Alchemy writes the square of one)")
	fs.BoolVar(&x.outputNetwork, "outputNetwork", false, "write the ground network to -r instead of running inference, as Alchemy's factor graph: the atoms, then per ground clause its atoms and its log-factor table (a clause of more than 20 literals: the clause and its weight)")
}

// setup checks the flags and turns the -q items into predicate names in
// wf.query (the atoms asked for are kept for the output); samples receives
// -maxSteps for the samplers. marginal and gibbs say which inference runs.
// liftedMisuse is the error for -lifted without -bp: it names the mode
// the command line asked for.
func liftedMisuse(marginal, gibbs, all bool) error {
	const what = "-lifted is lifted belief propagation (-bp -lifted)"
	switch {
	case gibbs:
		return usagef("%s: it excludes -p (Gibbs sampling)", what)
	case marginal:
		return usagef("%s: it excludes -ms (MC-SAT)", what)
	case all:
		return usagef("%s: it excludes -a (MAP inference)", what)
	}
	return usagef("%s: it does not apply to MAP inference (-m, the default)", what)
}

func (x *inferExtras) setup(wf *worldFlags, samples *int, marginal, gibbs bool) error {
	switch {
	case x.maxSteps < 0:
		return usagef("-maxSteps must not be negative, not %d", x.maxSteps)
	case x.bpCheck < 0:
		return usagef("-bpCheck must not be negative, not %d", x.bpCheck)
	case !(x.convThresh >= 0):
		return usagef("-convThresh must not be negative, not %v", x.convThresh)
	case !(x.maxSeconds >= 0):
		return usagef("-maxSeconds must not be negative, not %v", x.maxSeconds)
	case !(x.walkProb >= 0 && x.walkProb <= 1):
		return usagef("-walkProb must be in [0, 1], not %v", x.walkProb)
	case !(x.saTemp >= 0):
		return usagef("-saTemp must not be negative, not %v", x.saTemp)
	case !(x.smooth >= 0) || math.IsInf(x.smooth, 0):
		return usagef("-smooth must be a non-negative number, not %v", x.smooth)
	case x.all && marginal:
		return usagef("-a is MAP inference: it excludes -ms, -p, -bp and -wmc")
	case x.logZ && !x.wmc && !x.firstOrder:
		return usagef("-z prints log Z: give -wmc, -fomc or -lis")
	case (x.wmcMaxNodes != 0 || x.wmcMaxWork != 0) && !x.wmc:
		return usagef("-wmcMaxNodes and -wmcMaxWork bound -wmc: give -wmc")
	case x.networkNumbers && !x.outputNetwork:
		return usagef("-networkNumbers goes with -outputNetwork")
	case x.listHidden && !x.omitFree:
		return usagef("-listHidden goes with -omitFree (Alchemy's BP output)")
	case x.lifted && !x.bp:
		return liftedMisuse(marginal, gibbs, x.all)
	case x.liftRounds < 0:
		return usagef("-liftRounds must not be negative, not %d", x.liftRounds)
	case x.liftRounds > 0 && !x.lifted:
		return usagef("-liftRounds applies to lifted belief propagation: give -bp -lifted")
	case x.maxSeconds > 0 && (gibbs || x.bp || !marginal):
		return usagef("-maxSeconds applies to MC-SAT (-ms) only: bound Gibbs sampling and BP by -maxSteps")
	}
	if x.maxSteps > 0 && !x.bp {
		*samples = x.maxSteps
	}
	atoms, err := query.ParseList(wf.query)
	if err != nil {
		return usagef("-q: %v", err)
	}
	x.atoms, x.list = atoms, wf.query
	wf.query = strings.Join(query.Names(atoms), ",")
	if wf.query == "" && x.queryFile == "" {
		return usagef("no query predicates: give -q Pred1,Pred2 or -f query.db")
	}
	return nil
}

// load reads the model, the evidence and the -f query atoms (before the
// model is compiled, so that their constants join the domains), and
// resolves the query atoms against the model.
func (x *inferExtras) load(ctx context.Context, p *progress, wf *worldFlags, modelFiles, evidenceFiles []string) (*mln.Model, *mln.Database, error) {
	var m *mln.Model
	var db *mln.Database
	var err error
	var qdb *mln.Database
	if x.queryFile == "" {
		m, db, err = loadProblem(ctx, p, wf, modelFiles, evidenceFiles)
	} else {
		done := p.stage("parse")
		if m, err = wf.loadModel(p.w, modelFiles, append(evidenceFiles[:len(evidenceFiles):len(evidenceFiles)], x.queryFile)); err != nil {
			return nil, nil, swapHint(err, modelFiles, evidenceFiles)
		}
		if db, err = mln.LoadDatabase(m, evidenceFiles...); err != nil {
			return nil, nil, swapHint(err, modelFiles, evidenceFiles)
		}
		if qdb, err = mln.LoadDatabase(m, x.queryFile); err != nil {
			return nil, nil, err
		}
		printWarnings(p.w, db, qdb)
		if err = m.CompileContext(ctx); err != nil {
			return nil, nil, err
		}
		if err = fitProbConstraints(ctx, p, m, db); err != nil {
			return nil, nil, err
		}
		done("%d predicates, %d formulas, %d clauses", len(m.Preds), len(m.Formulas), len(m.Clauses))
	}
	if err != nil {
		return nil, nil, err
	}
	if err := x.resolve(m, qdb, wf); err != nil {
		return nil, nil, err
	}
	if err := emptyQueryDomains(m, wf.query, evidenceFiles); err != nil {
		return nil, nil, err
	}
	if x.queryEvidence {
		x.applyQueryEvidence(m, db, wf)
	}
	return m, db, nil
}

// resolve resolves the -q list against the model (query.Parse) and adds
// the -f atoms; wf.query becomes the query predicates' names.
func (x *inferExtras) resolve(m *mln.Model, qdb *mln.Database, wf *worldFlags) error {
	q, err := query.Parse(m, x.list)
	var se *query.SyntaxError
	switch {
	case errors.As(err, &se):
		return usagef("-q: %v", err)
	case err != nil:
		return fmt.Errorf("-q: %w", err)
	}
	if qdb != nil {
		if err := q.AddAtoms(qdb); err != nil {
			return usagef("-f %s: %v", x.queryFile, err)
		}
	}
	x.q = q
	q.SetAlchemyOrder(x.queryOrder)
	q.SetOmitFree(x.omitFree)
	wf.query = predNames(m, q.Preds())
	return nil
}

// predNames joins the names of preds with commas.
func predNames(m *mln.Model, preds []mln.PredID) string {
	names := make([]string, len(preds))
	for i, p := range preds {
		names[i] = m.Preds[p].Name
	}
	return strings.Join(names, ",")
}

// keep reports whether atom p(args) is asked for.
func (x *inferExtras) keep(p mln.PredID, args []mln.ConstID) bool { return x.q.Keep(p, args) }

// applyQueryEvidence makes the listed atoms of the -q predicates unknown
// and the predicates closed world: their unlisted atoms are false
// evidence. The -f predicates stay open world, as in Alchemy.
func (x *inferExtras) applyQueryEvidence(m *mln.Model, db *mln.Database, wf *worldFlags) {
	x.qevPreds = x.q.ListedEvidence(db)
	wf.query = predNames(m, x.q.Preds())
}

// alchemyOrder rebuilds Alchemy's factor graph of the grounding net (made
// with options gopt) and, for Alchemy's BP output (-omitFree), orders the
// atoms to write by it, with those of the hidden predicates (-listHidden).
// It says on stderr, and returns false, when Marple does not rebuild that
// order for the model.
func alchemyOrder(stderr io.Writer, ax *inferExtras, m *mln.Model, db *mln.Database, net *ground.Network, gopt ground.Options, isQuery []bool) ([]query.AlchemyFactor, bool) {
	closed := query.AlchemyClosedWorld(db, gopt.Query, gopt.OpenWorld, gopt.ClosedWorld)
	fg, err := query.AlchemyFactorGraph(m, db, closed)
	if err != nil {
		what := ""
		if ax.listHidden {
			what = ", and the query atoms only"
		}
		fmt.Fprintf(stderr, "marple infer: the atoms are not in the order of Alchemy's factor graph but by their constants%s: Marple does not reproduce that order for %v\n", what, err)
		return nil, false
	}
	switch {
	case !ax.omitFree:
	case ax.listHidden:
		// The hidden predicates: open world in Alchemy's reading and in
		// the grounding, not queried.
		hidden := func(p mln.PredID) bool {
			return !isQuery[p] && !closed(p) && groundOpen(m, db, gopt, p)
		}
		rank, extra := query.AlchemyBPOrder(net, db, fg, hidden)
		ax.q.SetAtomRanks(rank)
		ax.q.SetListHidden(true, extra)
	default:
		ax.q.SetAtomRanks(query.AlchemyBPRanks(net, db, fg))
	}
	return fg, true
}

// groundOpen reports whether the grounding with options gopt takes
// predicate p as open world (its unlisted atoms unknown), as package
// ground decides.
func groundOpen(m *mln.Model, db *mln.Database, gopt ground.Options, p mln.PredID) bool {
	switch {
	case slices.Contains(gopt.Query, p) || slices.Contains(gopt.OpenWorld, p):
		return true
	case slices.Contains(gopt.ClosedWorld, p):
		return false
	}
	return m.OpenByDefault(p, db) || gopt.NonEvidenceOpen && !m.Preds[p].Closed && (db == nil || db.Count(p) == 0)
}

// queryMask marks the predicates of the output: the query predicates
// and the -queryEvidence ones.
func (x *inferExtras) queryMask(m *mln.Model, query []mln.PredID) []bool {
	isQuery := make([]bool, len(m.Preds))
	for _, q := range query {
		isQuery[q] = true
	}
	for _, p := range x.qevPreds {
		isQuery[p] = true
	}
	return isQuery
}

// samplerOptions sets the SampleSAT settings of -walkProb and -saTemp.
func (x *inferExtras) samplerOptions(opt *mcsat.Options) {
	opt.WalkProb = x.walkProb
	if x.walkProb == 0 {
		opt.WalkProb = -1 // mcsat: negative means none
	}
	if x.saTemp > 0 {
		opt.Temp = x.saTemp
	}
}

// marginals computes the query marginals with the marginal engine called
// name (bp with -bp) and says how in a few words for the summary line;
// with -bp it also returns BP's statistics.
func (x *inferExtras) marginals(ctx context.Context, net *ground.Network, name string, s engines.Settings, seed int64) ([]float64, string, *bp.Stats, error) {
	s.WalkProb = x.walkProb
	if x.walkProb == 0 {
		s.WalkProb = -1 // mcsat: negative means none
	}
	if x.saTemp > 0 {
		s.Temp = x.saTemp
	}
	if x.bp {
		name = "bp"
		if x.lifted {
			name = "lifted-bp"
			s.LiftRounds = x.liftRounds
		}
		s.MaxIterations, s.Tolerance = x.maxSteps, x.convThresh
		s.BPCheck = x.bpCheck
		if x.bpCheck == 0 {
			s.BPCheck = -1 // engines: none
		}
	}
	if x.wmc {
		name = "wmc"
		s.WMCMaxNodes, s.WMCMaxWork = x.wmcMaxNodes, x.wmcMaxWork
	}
	if x.maxSeconds > 0 && name == "mcsat" {
		burnIn := s.BurnIn
		if burnIn == 0 {
			burnIn = -1
		}
		probs, how, err := x.timedMCSAT(ctx, net, mcsat.Options{Options: infer.Options{Seed: seed}, Samples: s.Samples, BurnIn: burnIn, WalkProb: s.WalkProb, Temp: s.Temp})
		return probs, how, nil, err
	}
	var report strings.Builder
	s.Report = &report
	var st *bp.Stats
	s.BPStats = func(b *bp.Stats) { st = b }
	e, err := engines.NewMarginal(name, s)
	if err != nil {
		return nil, "", nil, err
	}
	probs, err := e.Marginals(ctx, net, infer.Options{Seed: seed})
	if errors.Is(err, wmc.ErrOutOfReach) {
		return nil, "", nil, fmt.Errorf("%w (bounds: -wmcMaxWork, -wmcMaxNodes; MC-SAT: -ms)", err)
	}
	if err != nil {
		return nil, "", nil, err
	}
	if how := strings.TrimSpace(report.String()); how != "" {
		return probs, how, st, nil
	}
	return probs, fmt.Sprintf("%d samples", s.Samples), st, nil
}

// timedMCSAT samples the whole network with one MC-SAT chain until it has
// opt.Samples samples or -maxSeconds have passed.
func (x *inferExtras) timedMCSAT(ctx context.Context, net *ground.Network, opt mcsat.Options) ([]float64, string, error) {
	tctx, cancel := context.WithTimeout(ctx, time.Duration(x.maxSeconds*float64(time.Second)))
	defer cancel()
	ch, err := mcsat.NewChain(net, opt)
	if err != nil {
		return nil, "", err
	}
	counts := make([]float64, net.NumAtoms())
	n := 0
	err = ch.Sample(tctx, max(opt.BurnIn, 0), func([]bool) {})
	if err == nil {
		err = ch.Sample(tctx, opt.Samples, func(y []bool) {
			n++
			for a, v := range y {
				if v {
					counts[a]++
				}
			}
		})
	}
	stopped := ""
	if err != nil {
		if ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
			return nil, "", err
		}
		if n == 0 {
			return nil, "", fmt.Errorf("-maxSeconds %g: no sample drawn in time (burn-in %d steps)", x.maxSeconds, opt.BurnIn)
		}
		stopped = fmt.Sprintf(" (stopped at -maxSeconds %g)", x.maxSeconds)
	}
	for a := range counts {
		counts[a] /= float64(n)
	}
	return counts, fmt.Sprintf("%d samples%s", n, stopped), nil
}

// warnBP says on w when belief propagation (lifted: on the ground
// network's clusters) did not converge or its check did not confirm some
// marginals, naming the atoms (at most ten).
func warnBP(w io.Writer, m *mln.Model, net *ground.Network, st *bp.Stats, tol float64, lifted bool) {
	if st == nil {
		return
	}
	names := func(atoms []int32, total int) string {
		var ns []string
		for _, a := range atoms[:min(len(atoms), 10)] {
			ns = append(ns, atomString(m, net.AtomPred[a], net.AtomArgs[a]))
		}
		if total > len(ns) {
			ns = append(ns, fmt.Sprintf("and %d more", total-len(ns)))
		}
		return strings.Join(ns, ", ")
	}
	if !st.Converged {
		still, hint := "", "raise -maxSteps"
		if lifted {
			hint += "; -bp without -lifted damps the messages"
		}
		if len(st.Changing) > 0 {
			still = "; still changing: " + names(st.Changing, st.NumChanging)
		}
		fmt.Fprintf(w, "marple infer: warning: belief propagation did not converge in %d iterations: largest change of a marginal %.3g > -convThresh %g (%s)%s\n",
			st.Iterations, st.MaxChange, tol, hint, still)
	}
	if len(st.Unreliable) > 0 && math.IsNaN(st.CheckDiff) {
		fmt.Fprintln(w, "marple infer: warning: belief propagation unreliable: MC-SAT found no world satisfying the hard clauses, so no marginal is confirmed")
	} else if len(st.Unreliable) > 0 {
		fmt.Fprintf(w, "marple infer: warning: belief propagation unreliable: %d atoms' marginals not confirmed by MC-SAT within %g (largest difference %.3g; loopy BP can settle on a wrong fixed point, use -ms): %s\n",
			len(st.Unreliable), bp.DefaultCheckTolerance, st.CheckDiff, names(st.Unreliable, len(st.Unreliable)))
	}
}

// writeMarginals writes "atom probability" for every query atom asked for
// (query.Query.WriteMarginals), smoothed as -smooth says (not BP's).
func (x *inferExtras) writeMarginals(w io.Writer, m *mln.Model, net *ground.Network, probs []float64, isQuery []bool) error {
	smooth := x.smooth
	if x.bp {
		smooth = 0
	}
	return x.q.WriteMarginals(w, net, probs, smooth)
}

// writeMAP writes the MAP state: with -a every unknown query atom asked
// for with 0 or 1, else the true query atoms asked for (evidence first).
func (x *inferExtras) writeMAP(w io.Writer, m *mln.Model, db *mln.Database, net *ground.Network, y []bool, isQuery []bool) error {
	return x.q.WriteMAP(w, db, net, y, x.all)
}

// emptyQueryDomains refuses a query predicate with an argument type that has
// no constant: it has no ground atom, and an answer would be empty for want
// of evidence, not because of the model.
func emptyQueryDomains(m *mln.Model, query string, evidenceFiles []string) error {
	ids, err := m.PredIDs(query)
	if err != nil {
		return err
	}
	for _, p := range ids {
		pr := m.Preds[p]
		for _, t := range pr.Args {
			if ty := m.Types[t]; ty.Size() == 0 {
				hint := "list its constants in the model (" + ty.Name + " = {A, B}) or give evidence that names them"
				if len(evidenceFiles) == 0 {
					hint = "give the evidence with -e, or list its constants in the model (" + ty.Name + " = {A, B})"
				}
				return fmt.Errorf("-q %s: the type %s has no constant, so %s has no ground atom: %s", pr.Name, ty.Name, pr.Name, hint)
			}
		}
	}
	return nil
}
