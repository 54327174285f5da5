package structure

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/score"
)

// JoinCompanions returns the companions of a join (nil for a clause that
// is not a Join): for each literal !R(t) of its repeated predicate and
// each negative literal !G(v) of a one-argument predicate whose variable
// v is among t's, the clause R(t) v !G(v). For the join
// !movie(f,a) v !movie(f,d) v !director(d) v !actor(a) v workedUnder(a,d)
// they are movie(f,d) v !director(d) and movie(f,a) v !actor(a).
//
// A join only penalises its repeated predicate's atoms: with that
// predicate queried as a block, a near-hard join keeps a guarded constant
// (a director) out of every value (film) that holds one unrelated
// constant (an actor who did not work under them), and the marginals of
// the guarded constants' true atoms fall to 0 (results/dsa.md). The
// companion gives those atoms back their rate; its weight is fit to the
// blocked pseudo-likelihood (FitJoinCompanions).
func JoinCompanions(c *mln.Clause) []*mln.Clause {
	if !Join(c) {
		return nil
	}
	count := map[mln.PredID]int{}
	for _, l := range c.Lits {
		if l.Pred >= 0 {
			count[l.Pred]++
		}
	}
	var out []*mln.Clause
	seen := map[string]bool{}
	for _, r := range c.Lits {
		if r.Pred < 0 || count[r.Pred] < 2 {
			continue
		}
		for _, g := range c.Lits {
			if g.Pred < 0 || !g.Neg || count[g.Pred] != 1 || len(g.Args) != 1 || !g.Args[0].IsVar() {
				continue
			}
			if !slices.Contains(r.Args, g.Args[0]) {
				continue
			}
			d := renumber(c, []mln.Literal{{Pred: r.Pred, Args: slices.Clone(r.Args)}, {Pred: g.Pred, Neg: true, Args: slices.Clone(g.Args)}})
			if k := CanonicalKey(d); !seen[k] {
				seen[k] = true
				out = append(out, d)
			}
		}
	}
	return out
}

// renumber returns a clause of lits, whose variables are c's, with its
// variables numbered in order of occurrence.
func renumber(c *mln.Clause, lits []mln.Literal) *mln.Clause {
	d := &mln.Clause{Coef: 1, Formula: -1}
	idx := map[int]int{}
	for li := range lits {
		for ai, t := range lits[li].Args {
			if !t.IsVar() {
				continue
			}
			v := t.Var()
			n, ok := idx[v]
			if !ok {
				n = len(d.Vars)
				idx[v] = n
				d.Vars = append(d.Vars, c.Vars[v])
			}
			lits[li].Args[ai] = mln.VarTerm(n)
		}
	}
	d.Lits = lits
	return d
}

// BlockMarginals returns the marginals of predicate p's atoms in db given
// every other predicate's atoms (closed world), keyed by
// mln.BindingKey of the atom's arguments, for model grounded over the
// database's own constants.
type BlockMarginals func(ctx context.Context, model *mln.Model, db *mln.Database, p mln.PredID) (map[string]float64, error)

// MCSATBlockMarginals is the BlockMarginals of InferHeldOut: MC-SAT with
// opt (the protocol by which the msl experiment scores each predicate).
func MCSATBlockMarginals(opt mcsat.Options) BlockMarginals {
	return func(ctx context.Context, model *mln.Model, db *mln.Database, p mln.PredID) (map[string]float64, error) {
		probs, _, args, err := inferBlock(ctx, model, db, p, opt, 1)
		if err != nil {
			return nil, err
		}
		out := make(map[string]float64, len(probs))
		for i, a := range args {
			out[mln.BindingKey(a)] = probs[i]
		}
		return out, nil
	}
}

// BlockedPLLGradient returns the gradient, with respect to the weights of
// the clauses cs of model, of the blocked pseudo-log-likelihood of the
// databases: the sum over databases and over the predicates P of cs's
// literals of (1/N_P) log P(x_P | x_rest), P's N_P atoms one block given
// all other atoms (each predicate queried in turn given the others, as the
// msl experiment scores a model). The derivative for clause c is the sum
// of (1/N_P)(n_c(x) - E[n_c | x_rest]) over the blocks, n_c counting c's
// true groundings with an atom of P. Each predicate may occur in at most
// one literal of each clause of cs (a companion's shape), so that the
// expectation needs only the marginals of P's atoms, which marg gives.
// The clauses must be unscaled, without existential or "+" variables.
// Databases and blocks are computed workers at a time and summed in a
// fixed order: the result does not depend on workers.
func BlockedPLLGradient(ctx context.Context, model *mln.Model, cs []*mln.Clause, dbs []*mln.Database, marg BlockMarginals, workers int) ([]float64, error) {
	var preds []mln.PredID
	for _, c := range cs {
		if c.DomainScaled || len(c.Exist) > 0 || len(c.Plus) > 0 {
			return nil, errors.New("structure: blocked gradient of a scaled, existential or per-constant clause")
		}
		seen := map[mln.PredID]bool{}
		for _, l := range c.Lits {
			if l.Pred < 0 {
				return nil, errors.New("structure: blocked gradient of a clause with a comparison")
			}
			if seen[l.Pred] {
				return nil, fmt.Errorf("structure: blocked gradient: %s repeats a predicate", model.ClauseString(c))
			}
			seen[l.Pred] = true
			if !slices.Contains(preds, l.Pred) {
				preds = append(preds, l.Pred)
			}
		}
	}
	slices.Sort(preds)
	type job struct{ db, p int }
	var jobs []job
	for d := range dbs {
		for p := range preds {
			jobs = append(jobs, job{d, p})
		}
	}
	parts := make([][]float64, len(jobs))
	errs := make([]error, len(jobs))
	if workers <= 0 {
		workers = 1
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(workers, len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				parts[j], errs[j] = blockGradient(ctx, model, cs, dbs[jobs[j].db], preds[jobs[j].p], marg)
			}
		}()
	}
	for j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	g := make([]float64, len(cs))
	for j := range jobs {
		if errs[j] != nil {
			return nil, errs[j]
		}
		for i, v := range parts[j] {
			g[i] += v
		}
	}
	return g, nil
}

// blockGradient is BlockedPLLGradient's term of one database and block.
func blockGradient(ctx context.Context, model *mln.Model, cs []*mln.Clause, db *mln.Database, p mln.PredID, marg BlockMarginals) ([]float64, error) {
	m, err := marg(ctx, model, db, p)
	if err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return make([]float64, len(cs)), nil
	}
	doms := score.OwnDomains(db.Model, db)
	g := make([]float64, len(cs))
	for i, c := range cs {
		at := -1
		for li, l := range c.Lits {
			if l.Pred == p {
				at = li
			}
		}
		if at < 0 {
			continue
		}
		binding := make([]mln.ConstID, len(c.Vars))
		args := make([]mln.ConstID, 0, 4)
		ground := func(l mln.Literal) []mln.ConstID {
			args = args[:0]
			for _, t := range l.Args {
				if t.IsVar() {
					args = append(args, binding[t.Var()])
				} else {
					args = append(args, mln.ConstID(t))
				}
			}
			return args
		}
		sum := 0.0
		var rec func(v int) error
		rec = func(v int) error {
			if v < len(c.Vars) {
				for _, k := range doms[c.Vars[v].Type] {
					binding[v] = k
					if err := rec(v + 1); err != nil {
						return err
					}
				}
				return nil
			}
			for li, l := range c.Lits {
				if li == at {
					continue
				}
				t, _ := db.Get(l.Pred, ground(l))
				if (t == mln.True) != l.Neg {
					return nil // satisfied whatever the block's atom
				}
			}
			l := c.Lits[at]
			a := ground(l)
			q, ok := m[mln.BindingKey(a)]
			if !ok {
				return fmt.Errorf("structure: blocked gradient: no marginal for %s", model.Preds[p].Name)
			}
			t, _ := db.Get(p, a)
			x := 0.0
			if (t == mln.True) != l.Neg {
				x = 1
			}
			if l.Neg {
				q = 1 - q
			}
			sum += x - q
			return nil
		}
		if err := rec(0); err != nil {
			return nil, err
		}
		g[i] = sum / float64(len(m))
	}
	return g, nil
}

// companionFit bounds the fit of a companion's weight.
const (
	companionMaxWeight  = 64
	companionBisections = 12
	companionCycles     = 2
)

// FitJoinCompanions adds to r the companions (JoinCompanions) of the
// joins given (r's learned joins) that r does not hold, each weight fit to the blocked
// pseudo-likelihood of the databases (BlockedPLLGradient) with a Gaussian
// prior of σ sigma, every other weight fixed: each in turn, twice, by
// bisection on the sign of its derivative over [0, 64] (the objective is
// concave in the weight). The joins' weights are left as the search fit
// them: the blocked pseudo-likelihood cannot fit a join that holds on
// every training grounding (its true world satisfies every grounding, so
// each block's derivative n(x) - E[n] is never negative and the weight
// grows without bound), but it does fit the companion, whose derivative
// matches the expected number of the guarded constants' true atoms in
// each block to the data's. Companions whose weight is under minWt are
// not added. It returns the number added.
func FitJoinCompanions(ctx context.Context, base *mln.Model, dbs []*mln.Database, r *Result, joins []*mln.Clause, sigma, minWt float64, marg BlockMarginals, workers int) (int, error) {
	have := map[string]bool{}
	for _, c := range r.Clauses {
		have[CanonicalKey(c)] = true
	}
	var comps []*mln.Clause
	for _, c := range joins {
		for _, d := range JoinCompanions(c) {
			if k := CanonicalKey(d); !have[k] {
				have[k] = true
				comps = append(comps, d)
			}
		}
	}
	if len(comps) == 0 {
		return 0, nil
	}
	n0 := len(r.Clauses)
	trial := &Result{Clauses: append(slices.Clone(r.Clauses), comps...), Weights: append(slices.Clone(r.Weights), make([]float64, len(comps))...)}
	deriv := func(i int, w float64) (float64, error) {
		trial.Weights[n0+i] = w
		m, err := trial.Model(base)
		if err != nil {
			return 0, err
		}
		var mc []*mln.Clause
		for _, f := range m.Formulas[n0+i].Clauses {
			mc = append(mc, m.Clauses[f])
		}
		g, err := BlockedPLLGradient(ctx, m, mc, dbs, marg, workers)
		if err != nil {
			return 0, err
		}
		d := 0.0
		for _, v := range g {
			d += v
		}
		if sigma > 0 {
			d -= w / (sigma * sigma)
		}
		return d, nil
	}
	for cycle := 0; cycle < companionCycles; cycle++ {
		for i := range comps {
			g, err := deriv(i, 0)
			if err != nil {
				return 0, err
			}
			if g <= 0 {
				trial.Weights[n0+i] = 0
				continue
			}
			lo, hi := 0.0, 1.0
			for hi < companionMaxWeight {
				g, err := deriv(i, hi)
				if err != nil {
					return 0, err
				}
				if g <= 0 {
					break
				}
				lo, hi = hi, 2*hi
			}
			for it := 0; it < companionBisections; it++ {
				mid := (lo + hi) / 2
				g, err := deriv(i, mid)
				if err != nil {
					return 0, err
				}
				if g > 0 {
					lo = mid
				} else {
					hi = mid
				}
			}
			trial.Weights[n0+i] = (lo + hi) / 2
		}
	}
	added := 0
	for i, c := range comps {
		if w := trial.Weights[n0+i]; math.Abs(w) >= minWt && w > 0 {
			r.Clauses = append(r.Clauses, c)
			r.Weights = append(r.Weights, w)
			added++
		}
	}
	return added, nil
}
