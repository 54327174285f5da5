package structure

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/marple-mln/marple/mln"
)

// DefaultMaxExpansion is the most per-constant clauses one refinement of
// chooseConstants may add (Validation.MaxExpansion).
const DefaultMaxExpansion = 36

// ConstantChoice reports the per-constant refinements LearnValidated
// tried on held-out data and those it kept. A refinement of a learned
// clause gives some of its variables a weight per constant, as Alchemy's
// "+" variables do: inPhase(a1,+a2) v !yearsInProgram(a1,+a3) is the
// clause kept with one clause added per phase and year, so a person's
// phases, interchangeable under the clause alone, are told apart by the
// years in the program.
type ConstantChoice struct {
	// Tried lists the refinements tried, in the order tried, each as its
	// clause with the variables given a weight per constant marked "+";
	// Kept those kept.
	Tried, Kept []string
	// CLL and AUCPR are the held-out conditional log-likelihood and area
	// under the precision-recall curve (means over the scored predicates
	// and the held-out databases) of the model before [0] and after [1]
	// the refinements kept.
	CLL, AUCPR [2]float64
	// Seconds is the time the choice took.
	Seconds float64
}

// categoryConsts returns, per type, the constants that every database of
// dbs mentions, sorted by name: the categories (phases, levels, genders)
// a per-constant weight can carry from one database to another, unlike an
// individual (a person, a film) that only one database knows.
func categoryConsts(m *mln.Model, dbs []*mln.Database) [][]mln.ConstID {
	count := make([]map[mln.ConstID]int, len(m.Types))
	for t := range count {
		count[t] = map[mln.ConstID]int{}
	}
	for _, db := range dbs {
		seen := make([]map[mln.ConstID]bool, len(m.Types))
		for t := range seen {
			seen[t] = map[mln.ConstID]bool{}
		}
		for p, pr := range m.Preds {
			db.Atoms(mln.PredID(p), func(args []mln.ConstID, _ mln.Truth) {
				for j, c := range args {
					if t := pr.Args[j]; !seen[t][c] {
						seen[t][c] = true
						count[t][c]++
					}
				}
			})
		}
	}
	out := make([][]mln.ConstID, len(m.Types))
	for t := range count {
		for c, n := range count[t] {
			if n == len(dbs) {
				out[t] = append(out[t], c)
			}
		}
		slices.SortFunc(out[t], func(a, b mln.ConstID) int { return cmp.Compare(m.ConstName(a), m.ConstName(b)) })
	}
	return out
}

// refinement is a clause with some of its variables given a weight per
// constant: the clauses that bind those variables to each combination of
// their constants.
type refinement struct {
	name    string
	clauses []*mln.Clause
}

// refinements returns the refinements of c over the constants consts (per
// type): for each nonempty set of c's variables whose types have
// constants, whose combinations number at most maxExp, the clauses with
// those variables bound to each combination (a binding that makes a
// literal repeat an atom is skipped). Sets are listed smallest first.
func refinements(m *mln.Model, c *mln.Clause, consts [][]mln.ConstID, maxExp int) []refinement {
	if c.Hard || !Searchable(c) {
		return nil
	}
	var vars []int
	for v, x := range c.Vars {
		if len(consts[x.Type]) > 0 && occurs(c, v) {
			vars = append(vars, v)
		}
	}
	if len(vars) == 0 || len(vars) > 16 {
		return nil
	}
	var masks []int
	for mask := 1; mask < 1<<len(vars); mask++ {
		masks = append(masks, mask)
	}
	slices.SortStableFunc(masks, func(a, b int) int { return bitsSet(a) - bitsSet(b) })
	var out []refinement
	for _, mask := range masks {
		var set []int
		n := 1
		for i, v := range vars {
			if mask&(1<<i) != 0 {
				set = append(set, v)
				n *= len(consts[c.Vars[v].Type])
			}
		}
		if n > maxExp {
			continue
		}
		marked := &mln.Clause{Coef: c.Coef, Formula: -1, Vars: c.Vars, Lits: c.Lits, Plus: set}
		r := refinement{name: m.ClauseString(marked)}
		pick := make([]mln.ConstID, len(set))
		var rec func(i int)
		rec = func(i int) {
			if i < len(set) {
				for _, k := range consts[c.Vars[set[i]].Type] {
					pick[i] = k
					rec(i + 1)
				}
				return
			}
			d := &mln.Clause{Coef: 1, Formula: -1, Vars: slices.Clone(c.Vars), Lits: cloneLits(c.Lits)}
			for li := range d.Lits {
				for j, t := range d.Lits[li].Args {
					if t.IsVar() {
						if k := slices.Index(set, t.Var()); k >= 0 {
							d.Lits[li].Args[j] = mln.ConstTerm(pick[k])
						}
					}
				}
			}
			for li := range d.Lits {
				if hasAtom(&mln.Clause{Lits: d.Lits[:li]}, &d.Lits[li]) {
					return
				}
			}
			d = normalize(d)
			d.DomainScaled = c.DomainScaled && len(mln.FreeVars(d)) > 0
			r.clauses = append(r.clauses, d)
		}
		rec(0)
		if len(r.clauses) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// occurs reports whether variable v occurs in a literal of c.
func occurs(c *mln.Clause, v int) bool {
	for _, l := range c.Lits {
		for _, t := range l.Args {
			if t.IsVar() && t.Var() == v {
				return true
			}
		}
	}
	return false
}

func bitsSet(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// chooseConstants tries, on held-out data, the refinements of r's clauses
// that give variables of a type a weight per constant (refinements over
// categoryConsts of dbs), and applies those it keeps to r. The clauses in
// fixed (by index in r: capped joins) keep their weights; the others are
// refit. Each database of dbs is held out in turn: the model's clauses are
// refit on the rest (FitWeights) and every scored predicate of the held-out
// database inferred given the others (InferHeldOut). The refinements of
// the clauses with a literal of preds are tried one at a time, clause by
// clause in r's order and smaller sets of variables first, each against
// the model with those kept so far. One is kept, its per-constant clauses
// added beside the clause, when its mean held-out CLL gain exceeds the
// gain's standard error over the held-out databases (the rule that admits
// repeated predicates) and its mean held-out AUC-PR is no lower: a
// refinement adds weights, so held-out data must show that it helps. When
// one is kept, r's refittable clauses are refit on every database of dbs.
func chooseConstants(ctx context.Context, r *Result, dbs []*mln.Database, s Settings, sc Scoring, v Validation, preds []mln.PredID, fixed []int) (*ConstantChoice, error) {
	t0 := time.Now()
	maxExp := v.MaxExpansion
	if maxExp == 0 {
		maxExp = DefaultMaxExpansion
	}
	consts := categoryConsts(s.Model, dbs)
	isFixed := make([]bool, len(r.Clauses))
	for _, i := range fixed {
		isFixed[i] = true
	}
	var cur, fixC []*mln.Clause
	var fixW []float64
	var cands []refinement
	for i, c := range r.Clauses {
		if isFixed[i] {
			fixC, fixW = append(fixC, c), append(fixW, r.Weights[i])
			continue
		}
		cur = append(cur, c)
	}
	for _, c := range cur {
		if slices.ContainsFunc(c.Lits, func(l mln.Literal) bool { return l.Pred >= 0 && slices.Contains(preds, l.Pred) }) {
			cands = append(cands, refinements(s.Model, c, consts, maxExp)...)
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	fit := refitSettings(s)
	n := len(dbs)
	folds := make([]Settings, n)
	err := eachFold(n, func(f int) error {
		var err error
		folds[f], err = withScorer(ctx, fit, without(dbs, f), sc)
		return err
	})
	if err != nil {
		return nil, err
	}
	// scores refits clauses on each fold's training databases and scores
	// the held-out one, the folds at once on the processors.
	scores := func(clauses []*mln.Clause) (cll, auc []float64, err error) {
		cll, auc = make([]float64, n), make([]float64, n)
		err = eachFold(n, func(f int) error {
			fs := folds[f]
			fs.Start = clauses
			base, err := FitWeights(ctx, fs)
			if err != nil {
				return err
			}
			m := &Result{Clauses: append(base.Clauses, fixC...), Weights: append(base.Weights, fixW...)}
			learned, err := m.Model(s.Model)
			if err != nil {
				return err
			}
			cll[f], auc[f], err = heldOutScores(ctx, learned, dbs[f], preds, v)
			return err
		})
		if err != nil {
			return nil, nil, err
		}
		return cll, auc, nil
	}
	curCLL, curAUC, err := scores(cur)
	if err != nil {
		return nil, err
	}
	cc := &ConstantChoice{}
	cc.CLL[0], _ = meanSE(curCLL)
	cc.AUCPR[0], _ = meanSE(curAUC)
	have := map[string]bool{}
	for _, c := range cur {
		have[CanonicalKey(c)] = true
	}
	for _, rf := range cands {
		var add []*mln.Clause
		for _, d := range rf.clauses {
			if k := CanonicalKey(d); !have[k] {
				add = append(add, d)
			}
		}
		if len(add) == 0 {
			continue
		}
		cc.Tried = append(cc.Tried, rf.name)
		try := append(slices.Clone(cur), add...)
		cll, auc, err := scores(try)
		if err != nil {
			return nil, err
		}
		d := make([]float64, n)
		for f := range d {
			d[f] = cll[f] - curCLL[f]
		}
		gain, se := meanSE(d)
		a0, _ := meanSE(curAUC)
		a1, _ := meanSE(auc)
		keep := gain > se && !math.IsInf(gain, 0) && !math.IsNaN(gain) && a1 >= a0
		if v.Log != nil {
			verdict := "dropped"
			if keep {
				verdict = "kept"
			}
			fmt.Fprintf(v.Log, "marple: validation: %s (%d clauses) %s: held-out CLL gain %.4f ± %.4f, AUC-PR %.4f -> %.4f\n", rf.name, len(add), verdict, gain, se, a0, a1)
		}
		if !keep {
			continue
		}
		cc.Kept = append(cc.Kept, rf.name)
		cur, curCLL, curAUC = try, cll, auc
		for _, c := range add {
			have[CanonicalKey(c)] = true
		}
	}
	cc.CLL[1], _ = meanSE(curCLL)
	cc.AUCPR[1], _ = meanSE(curAUC)
	cc.Seconds = time.Since(t0).Seconds()
	if v.Log != nil {
		fmt.Fprintf(v.Log, "marple: validation kept %d of %d per-constant refinements (held-out CLL %.4f -> %.4f, AUC-PR %.4f -> %.4f) in %.1fs\n",
			len(cc.Kept), len(cc.Tried), cc.CLL[0], cc.CLL[1], cc.AUCPR[0], cc.AUCPR[1], cc.Seconds)
	}
	if len(cc.Kept) == 0 {
		return cc, nil
	}
	fit.Start = cur
	all, err := LearnBatch(ctx, MethodWeights, dbs, fit, sc)
	if err != nil {
		return nil, err
	}
	final := &Result{Clauses: append(all.Clauses, fixC...), Weights: append(all.Weights, fixW...), Score: all.Score, Scored: r.Scored, Steps: r.Steps, Stopped: r.Stopped, Elapsed: r.Elapsed}
	*r = *final
	return cc, nil
}

// eachFold calls fn for each fold of n, as many at once as there are
// processors, and returns the error of the first fold (in order) that
// failed. The folds are independent: their results do not depend on how
// many run at once.
func eachFold(n int, fn func(f int) error) error {
	errs := make([]error, n)
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for f := 0; f < n; f++ {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[f] = fn(f)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
