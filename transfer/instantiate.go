package transfer

import (
	"slices"

	"github.com/marple-mln/marple/mln"
)

// Instance is a template instantiated in a target domain: its predicate
// variables bound to target predicates, and the clauses of its feature
// template.
type Instance struct {
	Template *Template
	Preds    []*mln.Predicate // one per predicate variable
	// Clauses holds one clause per sign combination of the template's
	// literals (2^k of them): the feature template r(x,y) ∧ r(y,x),
	// r(x,y) ∧ ¬r(y,x), ... as clauses (a conjunction's negation is a
	// clause with every sign flipped, and the set of sign combinations is
	// closed under flipping). Clause i negates literal j when bit j of i
	// is set.
	Clauses []*mln.Clause
}

// Instantiate binds t's predicate variables to the predicates of target
// m in every way that types its object variables consistently (distinct
// predicate variables to distinct predicates; preds restricts the
// predicates used, nil meaning all), once per distinct instance (bindings
// related by a symmetry of the template give the same clauses), and
// returns each instance with its feature template's clauses. Object
// variables are named x, y, z, w as in the template; each clause ends with
// "x = z" for every two variables of the same type, so that it constrains
// distinct objects only, as the template does.
func Instantiate(t *Template, m *mln.Model, preds []mln.PredID) []Instance {
	var cand []*mln.Predicate
	if preds == nil {
		cand = m.Preds
	} else {
		for _, p := range preds {
			cand = append(cand, m.Preds[p])
		}
	}
	var out []Instance
	bindings(t, len(cand), func(i int) int { return cand[i].Arity() }, func(bind []int) {
		ps := make([]*mln.Predicate, t.NumPreds)
		for i, b := range bind {
			ps[i] = cand[b]
		}
		if inst, ok := instance(t, ps); ok {
			out = append(out, inst)
		}
	})
	return out
}

// instance builds the feature template of t bound to ps, or ok false when
// ps types an object variable two ways.
func instance(t *Template, ps []*mln.Predicate) (Instance, bool) {
	vars := make([]mln.Var, t.NumVars)
	set := make([]bool, t.NumVars)
	for _, l := range t.Lits {
		for j, v := range l.Args {
			ty := ps[l.Pred].Args[j]
			if set[v] && vars[v].Type != ty {
				return Instance{}, false
			}
			vars[v], set[v] = mln.Var{Name: varNames[v], Type: ty}, true
		}
	}
	// Distinct object variables never unify (004's templates): the clause
	// holds where two variables of one type are equal, so it speaks of
	// x != z only.
	var eqs []mln.Literal
	for v := range vars {
		for u := v + 1; u < len(vars); u++ {
			if vars[v].Type == vars[u].Type {
				eqs = append(eqs, mln.Literal{Pred: -1, Builtin: mln.Eq, Args: []mln.Term{mln.VarTerm(v), mln.VarTerm(u)}})
			}
		}
	}
	inst := Instance{Template: t, Preds: ps}
	k := len(t.Lits)
	for signs := 0; signs < 1<<uint(k); signs++ {
		c := &mln.Clause{Coef: 1, Formula: -1, Vars: append([]mln.Var(nil), vars...)}
		for j, l := range t.Lits {
			args := make([]mln.Term, len(l.Args))
			for a, v := range l.Args {
				args[a] = mln.VarTerm(v)
			}
			c.Lits = append(c.Lits, mln.Literal{Pred: ps[l.Pred].ID, Neg: signs&(1<<uint(j)) != 0, Args: args})
		}
		for _, e := range eqs {
			e.Args = slices.Clone(e.Args)
			c.Lits = append(c.Lits, e)
		}
		inst.Clauses = append(inst.Clauses, c)
	}
	return inst, true
}

// TransferClauses instantiates the first n templates of ranked (all when n
// is 0 or more than there are) in target m and returns the clauses of
// their feature templates, template by template in rank order, each clause
// once.
func TransferClauses(ranked []Ranked, n int, m *mln.Model, preds []mln.PredID) []*mln.Clause {
	if n <= 0 || n > len(ranked) {
		n = len(ranked)
	}
	var out []*mln.Clause
	seen := map[string]bool{}
	for _, r := range ranked[:n] {
		for _, inst := range Instantiate(r.Template, m, preds) {
			for _, c := range inst.Clauses {
				k := m.ClauseString(c)
				if !seen[k] {
					seen[k] = true
					out = append(out, c)
				}
			}
		}
	}
	return out
}
