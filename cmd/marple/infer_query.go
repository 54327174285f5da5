package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
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
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// inferExtras are the flags of marple infer that select what is queried
// and how it is reported beyond whole query predicates (Alchemy's infer
// names): -a, -f, -queryEvidence, partially ground -q atoms, belief
// propagation (-bp), the sampler's -maxSteps, -maxSeconds and SampleSAT
// settings, and -outputNetwork.
type inferExtras struct {
	all, bp, lifted, queryEvidence, outputNetwork bool
	queryFile                                     string
	convThresh, maxSeconds                        float64
	maxSteps                                      int
	walkProb, saTemp                              float64
	smooth                                        float64

	atoms    []queryAtom             // the -q items
	patterns map[mln.PredID][][]term // per predicate: the atoms asked for (nil: all)
	qevPreds []mln.PredID            // the query predicates under -queryEvidence
}

// queryAtom is one item of -q: a predicate name, alone or with arguments
// (constants, or variables starting with a lower-case letter).
type queryAtom struct {
	text, pred string
	args       []string // nil: every grounding
}

// term is an argument of a query pattern: a constant, or variable v (a
// repeated variable asks for equal arguments).
type term struct {
	isVar bool
	v     int
	c     mln.ConstID
}

func (x *inferExtras) register(fs *flag.FlagSet) {
	fs.BoolVar(&x.all, "a", false, "MAP inference writing every non-evidence query atom with 0 or 1 (\"Smokes(Anna) 1\")")
	fs.StringVar(&x.queryFile, "f", "", "file of ground query atoms (.db syntax), in addition to -q")
	fs.BoolVar(&x.queryEvidence, "queryEvidence", false, "the query predicates' atoms listed in the evidence are the query atoms (their listed values unused); their unlisted atoms are false evidence")
	fs.BoolVar(&x.bp, "bp", false, "marginal inference with loopy belief propagation")
	fs.BoolVar(&x.lifted, "lifted", false, "with -bp: lifted belief propagation (BP on the clusters of atoms and clauses that exchange identical messages; the same marginals)")
	fs.Float64Var(&x.convThresh, "convThresh", 1e-4, "BP: converged when no marginal changes by more than this in an iteration")
	fs.IntVar(&x.maxSteps, "maxSteps", 0, "MC-SAT/Gibbs: number of samples (overrides -numSamples); BP: maximum iterations (0: "+strconv.Itoa(bp.DefaultMaxIterations)+")")
	fs.Float64Var(&x.walkProb, "walkProb", mcsat.DefaultWalkProb, "MC-SAT: probability that a SampleSAT move is a WalkSAT move rather than an annealing move")
	fs.Float64Var(&x.saTemp, "saTemp", 0, "MC-SAT: SampleSAT's temperature (0: the default)")
	fs.Float64Var(&x.smooth, "smooth", 0, "MC-SAT/Gibbs: write (p·n + 1/2)/(n + 1) for an estimate p, so that no probability is 0 or 1 (Alchemy's infer smooths with n = 10000; 0: no smoothing)")
	fs.BoolVar(&x.outputNetwork, "outputNetwork", false, "write the ground network to -r instead of running inference, as Alchemy's factor graph: the atoms, then per ground clause its atoms and its log-factor table")
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
		return usagef("-a is MAP inference: it excludes -ms, -p and -bp")
	case x.lifted && !x.bp:
		return liftedMisuse(marginal, gibbs, x.all)
	case x.maxSeconds > 0 && (gibbs || x.bp || !marginal):
		return usagef("-maxSeconds applies to MC-SAT (-ms) only: bound Gibbs sampling and BP by -maxSteps")
	}
	if x.maxSteps > 0 && !x.bp {
		*samples = x.maxSteps
	}
	atoms, err := parseQueryAtoms(wf.query)
	if err != nil {
		return err
	}
	x.atoms = atoms
	var names []string
	seen := map[string]bool{}
	for _, a := range atoms {
		if !seen[a.pred] {
			seen[a.pred] = true
			names = append(names, a.pred)
		}
	}
	wf.query = strings.Join(names, ",")
	if wf.query == "" && x.queryFile == "" {
		return usagef("no query predicates: give -q Pred1,Pred2 or -f query.db")
	}
	return nil
}

// parseQueryAtoms splits -q at the commas outside parentheses: "Friends(Anna,x),Smokes".
func parseQueryAtoms(list string) ([]queryAtom, error) {
	var out []queryAtom
	depth, start := 0, 0
	flush := func(end int) error {
		item := strings.TrimSpace(list[start:end])
		start = end + 1
		if item == "" {
			return nil
		}
		a := queryAtom{text: item, pred: item}
		if i := strings.IndexByte(item, '('); i >= 0 {
			if !strings.HasSuffix(item, ")") || i == 0 {
				return usagef("-q: malformed query atom %q", item)
			}
			a.pred = strings.TrimSpace(item[:i])
			a.args = []string{}
			for _, s := range strings.Split(item[i+1:len(item)-1], ",") {
				if s = strings.TrimSpace(s); s == "" {
					return usagef("-q: malformed query atom %q", item)
				}
				a.args = append(a.args, s)
			}
		}
		out = append(out, a)
		return nil
	}
	for i := 0; i < len(list); i++ {
		switch list[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return nil, usagef("-q: unbalanced parentheses in %q", list)
			}
		case ',':
			if depth == 0 {
				if err := flush(i); err != nil {
					return nil, err
				}
			}
		}
	}
	if depth != 0 {
		return nil, usagef("-q: unbalanced parentheses in %q", list)
	}
	if err := flush(len(list)); err != nil {
		return nil, err
	}
	return out, nil
}

// isVariable reports whether a query argument is a variable (Alchemy: it
// starts with a lower-case letter).
func isVariable(s string) bool { return s != "" && s[0] >= 'a' && s[0] <= 'z' }

// load reads the model, the evidence and the -f query atoms (before the
// model is compiled, so that their constants join the domains), and
// resolves the query atoms against the model.
func (x *inferExtras) load(ctx context.Context, p *progress, wf *worldFlags, modelFiles, evidenceFiles []string) (*mln.Model, *mln.Database, error) {
	var m *mln.Model
	var db *mln.Database
	var err error
	var qdb *mln.Database
	if x.queryFile == "" {
		m, db, err = loadProblem(ctx, p, modelFiles, evidenceFiles)
	} else {
		done := p.stage("parse")
		if m, err = mln.LoadModel(modelFiles...); err != nil {
			return nil, nil, err
		}
		if db, err = mln.LoadDatabase(m, evidenceFiles...); err != nil {
			return nil, nil, err
		}
		if qdb, err = mln.LoadDatabase(m, x.queryFile); err != nil {
			return nil, nil, err
		}
		printWarnings(p.w, db, qdb)
		if err = m.CompileContext(ctx); err != nil {
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
	if x.queryEvidence {
		x.applyQueryEvidence(m, db, wf)
	}
	return m, db, nil
}

// resolve turns the -q items and the -f atoms into per-predicate
// patterns; a predicate named alone is asked for whole.
func (x *inferExtras) resolve(m *mln.Model, qdb *mln.Database, wf *worldFlags) error {
	x.patterns = map[mln.PredID][][]term{}
	whole := map[mln.PredID]bool{}
	for _, a := range x.atoms {
		pr, ok := m.Pred(a.pred)
		if !ok {
			return usagef("-q: unknown predicate %q", a.pred)
		}
		if a.args == nil {
			whole[pr.ID] = true
			continue
		}
		if len(a.args) != pr.Arity() {
			return usagef("-q: %s: %s takes %d arguments, not %d", a.text, pr.Name, pr.Arity(), len(a.args))
		}
		var pat []term
		vars := map[string]int{}
		for _, s := range a.args {
			if isVariable(s) {
				v, ok := vars[s]
				if !ok {
					v = len(vars)
					vars[s] = v
				}
				pat = append(pat, term{isVar: true, v: v})
				continue
			}
			c, ok := m.Const(strings.Trim(s, `"`))
			if !ok {
				return usagef("-q: %s: unknown constant %q", a.text, s)
			}
			pat = append(pat, term{c: c})
		}
		x.patterns[pr.ID] = append(x.patterns[pr.ID], pat)
	}
	if qdb != nil {
		var names []string
		if wf.query != "" {
			names = []string{wf.query}
		}
		for p := range m.Preds {
			pid := mln.PredID(p)
			if qdb.Count(pid) == 0 {
				continue
			}
			if _, ok := x.patterns[pid]; !ok && !whole[pid] {
				names = append(names, m.Preds[p].Name)
			}
			qdb.Atoms(pid, func(args []mln.ConstID, _ mln.Truth) {
				pat := make([]term, len(args))
				for i, c := range args {
					pat[i] = term{c: c}
				}
				x.patterns[pid] = append(x.patterns[pid], pat)
			})
		}
		wf.query = strings.Join(names, ",")
		if wf.query == "" {
			return usagef("-f %s: no query atom in the file", x.queryFile)
		}
	}
	for p := range whole {
		delete(x.patterns, p)
	}
	return nil
}

// keep reports whether atom p(args) is asked for.
func (x *inferExtras) keep(p mln.PredID, args []mln.ConstID) bool {
	pats, ok := x.patterns[p]
	if !ok {
		return true
	}
	var bound [8]mln.ConstID
next:
	for _, pat := range pats {
		vals := bound[:0]
		for i, t := range pat {
			switch {
			case !t.isVar:
				if args[i] != t.c {
					continue next
				}
			case t.v < len(vals):
				if args[i] != vals[t.v] {
					continue next
				}
			default:
				vals = append(vals, args[i])
			}
		}
		return true
	}
	return false
}

// applyQueryEvidence makes the listed atoms of the -q predicates unknown
// and the predicates closed world: their unlisted atoms are false
// evidence. The -f predicates stay open world, as in Alchemy.
func (x *inferExtras) applyQueryEvidence(m *mln.Model, db *mln.Database, wf *worldFlags) {
	var rest []string
	for _, name := range splitList(wf.query) {
		pr, _ := m.Pred(name)
		if !slices.ContainsFunc(x.atoms, func(a queryAtom) bool { return a.pred == name }) {
			rest = append(rest, name)
			continue
		}
		x.qevPreds = append(x.qevPreds, pr.ID)
		var listed [][]mln.ConstID
		db.Atoms(pr.ID, func(args []mln.ConstID, _ mln.Truth) {
			listed = append(listed, append([]mln.ConstID(nil), args...))
		})
		for _, args := range listed {
			db.Set(pr.ID, args, mln.Unknown)
		}
	}
	wf.query = strings.Join(rest, ",")
}

// markQuery adds the -queryEvidence predicates to the query predicates of
// the output.
func (x *inferExtras) markQuery(isQuery []bool) {
	for _, p := range x.qevPreds {
		isQuery[p] = true
	}
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
// name (bp with -bp) and says how in a few words for the summary line.
func (x *inferExtras) marginals(ctx context.Context, net *ground.Network, name string, s engines.Settings, seed int64) ([]float64, string, error) {
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
		}
		s.MaxIterations, s.Tolerance = x.maxSteps, x.convThresh
	}
	if x.maxSeconds > 0 && name == "mcsat" {
		burnIn := s.BurnIn
		if burnIn == 0 {
			burnIn = -1
		}
		return x.timedMCSAT(ctx, net, mcsat.Options{Options: infer.Options{Seed: seed}, Samples: s.Samples, BurnIn: burnIn, WalkProb: s.WalkProb, Temp: s.Temp})
	}
	var report strings.Builder
	s.Report = &report
	e, err := engines.NewMarginal(name, s)
	if err != nil {
		return nil, "", err
	}
	probs, err := e.Marginals(ctx, net, infer.Options{Seed: seed})
	if err != nil {
		return nil, "", err
	}
	if how := strings.TrimSpace(report.String()); how != "" {
		return probs, how, nil
	}
	return probs, fmt.Sprintf("%d samples", s.Samples), nil
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

// writeMarginals writes "atom probability" for every query atom asked for.
func (x *inferExtras) writeMarginals(w io.Writer, m *mln.Model, net *ground.Network, probs []float64, isQuery []bool) error {
	for a := 0; a < net.NumAtoms(); a++ {
		pr := net.AtomPred[a]
		if !isQuery[pr] || !x.keep(pr, net.AtomArgs[a]) {
			continue
		}
		p := probs[a]
		if x.smooth > 0 && !x.bp {
			p = (p*x.smooth + 0.5) / (x.smooth + 1)
		}
		if _, err := fmt.Fprintf(w, "%s %s\n", atomString(m, pr, net.AtomArgs[a]), strconv.FormatFloat(p, 'g', 6, 64)); err != nil {
			return err
		}
	}
	return nil
}

// writeMAP writes the MAP state: with -a every unknown query atom asked
// for with 0 or 1, else the true query atoms asked for (evidence first).
func (x *inferExtras) writeMAP(w io.Writer, m *mln.Model, db *mln.Database, net *ground.Network, y []bool, isQuery []bool) error {
	if !x.all && len(x.patterns) == 0 {
		return writeMAP(w, m, db, net, y, isQuery)
	}
	if !x.all {
		for p := range m.Preds {
			if !isQuery[p] {
				continue
			}
			var err error
			db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) {
				if v == mln.True && err == nil && x.keep(mln.PredID(p), args) {
					_, err = fmt.Fprintln(w, atomString(m, mln.PredID(p), args))
				}
			})
			if err != nil {
				return err
			}
		}
	}
	for a := 0; a < net.NumAtoms(); a++ {
		pr := net.AtomPred[a]
		if !isQuery[pr] || !x.keep(pr, net.AtomArgs[a]) {
			continue
		}
		var err error
		switch {
		case x.all && y[a]:
			_, err = fmt.Fprintln(w, atomString(m, pr, net.AtomArgs[a]), 1)
		case x.all:
			_, err = fmt.Fprintln(w, atomString(m, pr, net.AtomArgs[a]), 0)
		case y[a]:
			_, err = fmt.Fprintln(w, atomString(m, pr, net.AtomArgs[a]))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// maxFactorLits bounds the literals of a ground clause -outputNetwork
// writes: its table has 2^k entries.
const maxFactorLits = 20

// writeNetwork writes the ground network as Alchemy's factor graph: the
// line "variables:", the unknown atoms one per line, the line "factors:",
// then one line per ground clause: its atoms joined by "/ ", "// ", and
// the table of the log of the factor over the 2^k states of its k atoms,
// atom i being bit i of the state (the first atom varies fastest): the
// clause's weight where the clause holds, 0 where it does not (a hard
// clause: 0 and -inf).
func writeNetwork(w io.Writer, m *mln.Model, net *ground.Network) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("variables:\n")
	for a := 0; a < net.NumAtoms(); a++ {
		bw.WriteString(atomString(m, net.AtomPred[a], net.AtomArgs[a]))
		bw.WriteByte('\n')
	}
	bw.WriteString("factors:\n")
	for c := 0; c < net.NumClauses(); c++ {
		lits := net.Clause(c)
		if len(lits) > maxFactorLits {
			return fmt.Errorf("-outputNetwork: a ground clause has %d literals: its table would have 2^%d entries", len(lits), len(lits))
		}
		for i, l := range lits {
			if i > 0 {
				bw.WriteString("/ ")
			}
			a := l.Atom()
			bw.WriteString(atomString(m, net.AtomPred[a], net.AtomArgs[a]))
		}
		bw.WriteString("//")
		sat, unsat := syntax.FormatWeight(net.Weight(c)), "0"
		if net.IsHard(c) {
			sat, unsat = "0", "-inf"
		}
		for state := 0; state < 1<<len(lits); state++ {
			holds := false
			for i, l := range lits {
				if (state>>i&1 == 1) != l.Neg() {
					holds = true
					break
				}
			}
			bw.WriteByte(' ')
			if holds {
				bw.WriteString(sat)
			} else {
				bw.WriteString(unsat)
			}
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
