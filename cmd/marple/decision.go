package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/decision"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/mln"
)

// decisionFlags are the flags of marple infer -decision: maximum expected
// utility in a Markov logic decision network (package infer/decision).
type decisionFlags struct {
	on                 bool
	maxExact, restarts int
	maxEvaluations     int64
	meaning            string
}

func (d *decisionFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&d.on, "decision", false, "decision inference: choose the values of the -q action atoms that maximise the expected utility of the formulas' utilities (w:u formula); writes \"Max. Utility: u\" and each action atom with 0 or 1")
	fs.IntVar(&d.maxExact, "decisionExact", decision.DefaultMaxExact, "-decision: evaluate every assignment of up to this many action atoms of each independent part of the network (exact); a part with more is searched by greedy flips (approximate)")
	fs.IntVar(&d.restarts, "decisionRestarts", decision.DefaultRestarts, "-decision: greedy searches of a part with more than -decisionExact action atoms (the first from no action, the others from random assignments)")
	fs.StringVar(&d.meaning, "decisionMeaning", decision.MarpleMeaning.String(), "-decision: marple (the -q predicates are the actions) or alchemy (Alchemy's infer -decision: the atoms of every utility formula that is a single literal are the actions, whatever -q says, searched by Alchemy's single flips in turn from no action; the utility written with 6 digits, the actions in Alchemy's order)")
	fs.Int64Var(&d.maxEvaluations, "decisionMaxEvaluations", decision.DefaultMaxEvaluations, "-decision: refuse an exhaustive search of a part that needs more than this many evaluations of the expected utility (2^k for k action atoms)")
}

// check refuses the flags that do not go with -decision.
func (d *decisionFlags) check(ax *inferExtras, mapInf bool, lossAug string, given map[string]bool) error {
	if !d.on {
		return nil
	}
	meaning, err := decision.ParseMeaning(d.meaning)
	if err != nil {
		return usagef("-decisionMeaning must be marple or alchemy, not %q", d.meaning)
	}
	if meaning == decision.AlchemyMeaning {
		for _, f := range []string{"decisionExact", "decisionRestarts", "decisionMaxEvaluations"} {
			if given[f] {
				return usagef("-%s sets Marple's search: -decisionMeaning alchemy runs Alchemy's", f)
			}
		}
	}
	switch {
	case d.maxExact < 0 || d.maxExact > 62:
		return usagef("-decisionExact must be in 0..62, not %d", d.maxExact)
	case d.maxEvaluations < 1:
		return usagef("-decisionMaxEvaluations must be at least 1, not %d", d.maxEvaluations)
	case d.restarts < 1:
		return usagef("-decisionRestarts must be at least 1, not %d", d.restarts)
	case mapInf || ax.all:
		return usagef("-decision excludes -m and -a: it sets the action atoms itself")
	case lossAug != "":
		return usagef("-decision excludes -lossAugment")
	case ax.lifted || ax.outputNetwork || ax.queryEvidence || ax.queryFile != "":
		return usagef("-decision excludes -lifted, -outputNetwork, -queryEvidence and -f")
	case ax.maxSeconds > 0:
		return usagef("-decision excludes -maxSeconds: bound the sampler by -maxSteps")
	}
	for _, a := range ax.atoms {
		if a.Args != nil {
			return usagef("-q: with -decision, name whole action predicates, not atoms (%s)", a.Text)
		}
	}
	return nil
}

// runDecision runs decision inference: engine is the marginal engine asked
// for ("" picks BP, or MC-SAT when the network has hard clauses, for the
// parts too large to enumerate; "bp" runs BP on every part).
func runDecision(ctx context.Context, e *env, p *progress, d *decisionFlags, ax *inferExtras, wf *worldFlags, ef *engineFlags,
	modelFiles, evidenceFiles []string, out, engine string, seed int64, start time.Time) error {
	m, db, err := loadProblem(ctx, p, wf, modelFiles, evidenceFiles)
	if err != nil {
		return err
	}
	gopt, err := wf.groundOptions(m, e.stderr)
	if err != nil {
		return usagef("%v", err)
	}
	meaning, err := decision.ParseMeaning(d.meaning)
	if err != nil {
		return usagef("%v", err)
	}
	actions := gopt.Query
	if meaning == decision.MarpleMeaning && len(actions) == 0 {
		return usagef("no action predicates: give -q Action1,Action2")
	}
	if !m.HasUtilities() {
		return fmt.Errorf("-decision: no formula of the model has a utility (write \"w:u formula\" or \":u formula\")")
	}
	if meaning == decision.MarpleMeaning {
		gopt.Query = nil
	} else {
		actions = nil // Alchemy's: the -q predicates are open world, not the actions
	}
	done := p.stage("ground")
	prob, err := decision.NewProblem(ctx, m, db, actions, decision.Options{Ground: gopt, Meaning: meaning})
	if errors.Is(err, ground.ErrTooLarge) {
		return fmt.Errorf("%v; -maxMem (MiB) raises the limit if the machine has the memory", err)
	}
	if err != nil && meaning == decision.AlchemyMeaning && strings.Contains(err.Error(), "Alchemy's meaning") {
		return fmt.Errorf("%v (Marple's meaning, the -q predicates as the actions: -decisionMeaning marple, or -marpleDecision under Alchemy's name)", err)
	}
	if err != nil {
		return err
	}
	done("%d atoms, %d clauses, %d action atoms", prob.Net.NumAtoms(), prob.Net.NumClauses(), len(prob.Actions))
	s := ef.settings(wf.workers, nil)
	s.WalkProb = ax.walkProb
	if ax.walkProb == 0 {
		s.WalkProb = -1 // mcsat: none
	}
	if ax.saTemp > 0 {
		s.Temp = ax.saTemp
	}
	s.MaxIterations, s.Tolerance = ax.maxSteps, ax.convThresh
	var eng infer.Marginal
	if engine == "" {
		eng, err = prob.AutoEngine(s)
	} else {
		eng, err = engines.NewMarginal(engine, s)
	}
	if err != nil {
		return err
	}
	if eng.Name() == "bp" && hasHard(prob) {
		fmt.Fprintln(e.stderr, "marple infer: warning: belief propagation on a network with hard clauses (the model's, or the definitions of utility formulas that are not single literals) can settle on wrong marginals; -ms samples instead")
	}
	done = p.stage("decide")
	maxExact := d.maxExact
	if maxExact == 0 {
		maxExact = -1 // decision: never enumerate
	}
	exactAtoms, exactWidth := 0, 0 // the defaults: exact when small
	if engine == "bp" {
		exactAtoms, exactWidth = -1, -1 // belief propagation asked for: on every part
	}
	res, err := prob.Solve(ctx, decision.SolveOptions{Engine: eng, MaxExact: maxExact, MaxEvaluations: d.maxEvaluations,
		ExactAtoms: exactAtoms, ExactWidth: exactWidth, Restarts: d.restarts, Seed: seed, Progress: decisionProgress(p)})
	var tooLarge *decision.TooLargeError
	if errors.As(err, &tooLarge) {
		return fmt.Errorf("%v: -decisionExact %d searches it greedily (approximate), -decisionMaxEvaluations %.0f allows it", err, tooLarge.Actions-1, tooLarge.Evaluations)
	}
	if err != nil {
		return err
	}
	search := searchLabel(res)
	done("expected utility %s, %d evaluations, %s; marginals: %s", res.Text(), res.Evaluations, search, strings.Join(res.Methods, ", "))
	switch {
	case res.Meaning == decision.AlchemyMeaning:
		fmt.Fprintf(e.stderr, "marple infer: warning: the decision comes from %s: it may not be the best assignment of the action atoms\n", search)
	case !res.Exact:
		fmt.Fprintf(e.stderr, "marple infer: warning: the decision comes from an %s: it may not be the best; -decisionExact searches larger parts exhaustively\n", search)
	}
	if res.Unconverged > 0 {
		fmt.Fprintf(e.stderr, "marple infer: warning: belief propagation did not converge in %d of %d evaluations (-maxSteps raises its iterations; -ms samples instead)\n", res.Unconverged, res.Evaluations)
	}
	if err := atomicfile.Write(out, func(w io.Writer) error { return writeDecision(w, m, prob, res) }); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "marple infer: %d atoms, %d clauses, %d action atoms, expected utility %s (%s; marginals: %s; %d evaluations), %.2fs\n",
		prob.Net.NumAtoms(), prob.Net.NumClauses(), len(prob.Actions), shortUtility(res), search, strings.Join(res.Methods, ", "), res.Evaluations, time.Since(start).Seconds())
	return nil
}

// writeDecision writes the decision as Alchemy's infer -decision does: the
// line "Max. Utility: u", then each action atom with 1 (act) or 0, in
// prob.Order. Under Alchemy's meaning the utility has Alchemy's 6
// significant digits.
func writeDecision(w io.Writer, m *mln.Model, prob *decision.Problem, res *decision.Result) error {
	u := res.Text()
	if res.Meaning == decision.AlchemyMeaning && res.Scale == 0 {
		u = strconv.FormatFloat(res.Utility, 'g', 6, 64)
	}
	if _, err := fmt.Fprintf(w, "Max. Utility: %s\n", u); err != nil {
		return err
	}
	for _, i := range prob.Order() {
		a := prob.Actions[i]
		if _, err := fmt.Fprintf(w, "%s %d\n", atomString(m, prob.Net.AtomPred[a], prob.Net.AtomArgs[a]), b2i(res.Actions[i])); err != nil {
			return err
		}
	}
	return nil
}

// decisionEngine names the marginal engine the -ms, -p and -bp flags ask
// for ("" when none: decision inference picks).
func decisionEngine(mcsatInf, gibbsInf, bpInf bool) string {
	switch {
	case mcsatInf:
		return "mcsat"
	case gibbsInf:
		return "gibbs"
	case bpInf:
		return "bp"
	}
	return ""
}

// hasHard reports whether the problem's network has a hard clause.
func hasHard(prob *decision.Problem) bool {
	for c := range prob.Net.NumClauses() {
		if prob.Net.IsHard(c) {
			return true
		}
	}
	return false
}

// searchLabel says whether the decision is exact and how it was searched.
func searchLabel(res *decision.Result) string {
	if res.Meaning == decision.AlchemyMeaning {
		return fmt.Sprintf("Alchemy's search (single flips of the %d action atoms in turn from no action, each kept unless the expected utility falls; %d flips)", res.GreedyActions, res.Flips)
	}
	parts := fmt.Sprintf("%d independent parts", res.Parts)
	if res.Parts == 1 {
		parts = "1 part"
	}
	if res.Exact {
		return "exact search (every assignment of " + parts + ")"
	}
	if res.ExactParts == 0 {
		return fmt.Sprintf("approximate search (greedy flips, %d restarts, over %d action atoms in %s)", res.Restarts, res.GreedyActions, parts)
	}
	return fmt.Sprintf("approximate search (greedy flips, %d restarts, over %d action atoms; every assignment of %d of %s)", res.Restarts, res.GreedyActions, res.ExactParts, parts)
}

// shortUtility is the expected utility with 6 significant digits.
func shortUtility(res *decision.Result) string {
	if math.IsInf(res.Utility, 0) {
		return res.Text()
	}
	return strconv.FormatFloat(res.Utility, 'g', 6, 64)
}

// decisionProgress returns the progress callback of the search: a line on
// stderr at most every two seconds (every second under -v).
func decisionProgress(p *progress) func(decision.Progress) {
	every := 2 * time.Second
	if p.verbose {
		every = time.Second
	}
	last, partStart, part := time.Now(), time.Now(), 0
	return func(g decision.Progress) {
		if g.Part != part {
			part, partStart = g.Part, time.Now()
		}
		if time.Since(last) < every {
			return
		}
		last = time.Now()
		best := strconv.FormatFloat(g.Best, 'g', 6, 64)
		if g.Exhaustive {
			left := time.Duration(float64(time.Since(partStart)) * float64(g.Total-g.Done) / float64(max(g.Done, 1)))
			fmt.Fprintf(p.w, "marple: decide: part %d of %d (%d action atoms, exhaustive): %d of %d assignments (%.1f%%, about %s left), best %s, %d evaluations in all\n",
				g.Part, g.Parts, g.Actions, g.Done, g.Total, 100*float64(g.Done)/float64(g.Total), left.Round(time.Second), best, g.Evaluations)
			return
		}
		fmt.Fprintf(p.w, "marple: decide: part %d of %d (%d action atoms, greedy search %d of %d): best %s, %d evaluations in all\n",
			g.Part, g.Parts, g.Actions, g.Restart, g.Restarts, best, g.Evaluations)
	}
}
