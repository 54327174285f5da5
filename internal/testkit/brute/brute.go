// Package brute holds brute-force oracles for tests: naive evaluation of a
// compiled MLN's first-order clauses in a world (full cross-product
// enumeration of every grounding, independent of package ground's
// evidence-driven grounder), and exact MAP, marginals and expected counts of
// a small ground network by enumerating all its assignments.
//
// Everything here is exponential or worse; use it on tiny instances only.
package brute

import (
	"strconv"
	"strings"

	"github.com/marple-mln/marple/mln"
)

// Atom is a ground atom.
type Atom struct {
	Pred mln.PredID
	Args []mln.ConstID
}

// String renders the atom with the model's names.
func (a Atom) String(m *mln.Model) string {
	var b strings.Builder
	b.WriteString(m.Preds[a.Pred].Name)
	b.WriteByte('(')
	for i, c := range a.Args {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(m.ConstName(c))
	}
	b.WriteByte(')')
	return b.String()
}

func atomKey(p mln.PredID, args []mln.ConstID) string {
	return strconv.Itoa(int(p)) + ":" + mln.BindingKey(args)
}

// Problem is a model with its evidence and world assumption: the unknown
// ground atoms are those of the open-world predicates that are unlisted or
// listed unknown, and the listed-unknown atoms of the others.
type Problem struct {
	Model *mln.Model
	DB    *mln.Database
	Open  []bool // per predicate
	// Atoms are the unknown atoms, by predicate, then argument tuples in
	// lexicographic order of domain positions.
	Atoms []Atom
	// Domains, when set, overrides the domains of some types (as
	// ground.Options.Domains does): variables and atoms range over these
	// constants only.
	Domains map[mln.TypeID][]mln.ConstID
	index   map[string]int
}

// NewProblem lists the unknown atoms of m under db, open being the
// open-world predicates (query and -ow predicates).
func NewProblem(m *mln.Model, db *mln.Database, open []mln.PredID) *Problem {
	return NewProblemDomains(m, db, open, nil)
}

// NewProblemDomains is NewProblem with the domains of some types replaced by
// the given constants: the problem of a model whose type t has exactly the
// constants domains[t] (evidence about other constants of t is ignored).
func NewProblemDomains(m *mln.Model, db *mln.Database, open []mln.PredID, domains map[mln.TypeID][]mln.ConstID) *Problem {
	p := &Problem{Model: m, DB: db, Open: make([]bool, len(m.Preds)), Domains: domains, index: make(map[string]int)}
	for _, q := range open {
		p.Open[q] = true
	}
	for pi, pr := range m.Preds {
		p.forEachTuple(pr.Args, func(args []mln.ConstID) {
			v, listed := db.Get(mln.PredID(pi), args)
			if (listed && v == mln.Unknown) || (!listed && p.Open[pi]) {
				a := Atom{Pred: mln.PredID(pi), Args: append([]mln.ConstID(nil), args...)}
				p.index[atomKey(a.Pred, a.Args)] = len(p.Atoms)
				p.Atoms = append(p.Atoms, a)
			}
		})
	}
	return p
}

// Index returns the position of atom pred(args) in Atoms.
func (p *Problem) Index(pred mln.PredID, args []mln.ConstID) (int, bool) {
	i, ok := p.index[atomKey(pred, args)]
	return i, ok
}

// domain returns the constants of type t.
func (p *Problem) domain(t mln.TypeID) []mln.ConstID {
	if d, ok := p.Domains[t]; ok {
		return d
	}
	return p.Model.Types[t].Consts
}

// forEachTuple calls fn with every tuple of constants over the given types.
func (p *Problem) forEachTuple(types []mln.TypeID, fn func([]mln.ConstID)) {
	args := make([]mln.ConstID, len(types))
	var rec func(i int)
	rec = func(i int) {
		if i == len(types) {
			fn(args)
			return
		}
		for _, c := range p.domain(types[i]) {
			args[i] = c
			rec(i + 1)
		}
	}
	rec(0)
}

// Truth returns the value of pred(args) in the world made of the evidence
// and world (the values of Atoms).
func (p *Problem) Truth(pred mln.PredID, args []mln.ConstID, world []bool) bool {
	if i, ok := p.index[atomKey(pred, args)]; ok {
		return world[i]
	}
	v, _ := p.DB.Get(pred, args)
	return v == mln.True
}

// ParamKey names a parameter: a formula and a binding of its "+" variables
// (mln.BindingKey of the constants in PlusVars order).
type ParamKey struct {
	Formula int
	Binding string
}

// Result is the evaluation of a world.
type Result struct {
	// Score is Σ over soft clauses and groundings of weight·Coef·[true]
	// (Coef divided by mln.DomainScale for a domain-size-aware clause),
	// the weight being the binding's parameter weight, or the formula's
	// weight when the binding has no parameter.
	Score float64
	// HardViolated counts the false groundings of hard clauses.
	HardViolated int
	// Counts is, per soft formula and "+" binding, Σ Coef·[true grounding]
	// over the formula's clauses (every binding is present).
	Counts map[ParamKey]float64
}

// Eval evaluates every grounding of every clause of the model in world.
func (p *Problem) Eval(world []bool) Result {
	m := p.Model
	res := Result{Counts: make(map[ParamKey]float64)}
	for _, c := range m.Clauses {
		fm := m.Formulas[c.Formula]
		isExist := make([]bool, len(c.Vars))
		for _, v := range c.Exist {
			isExist[v] = true
		}
		plus := c.Plus // in Formula.PlusVars order
		var univ, exist []int
		for v := range c.Vars {
			if isExist[v] {
				exist = append(exist, v)
			} else {
				univ = append(univ, v)
			}
		}
		// A domain-size-aware clause's groundings weigh Coef over its
		// DomainScale in this problem's domains.
		coef := c.Coef / mln.DomainScale(c, func(t mln.TypeID) int { return len(p.domain(t)) })
		vals := make([]mln.ConstID, len(c.Vars))
		binding := make([]mln.ConstID, len(plus))
		p.enumerate(c, univ, vals, func() {
			for k, v := range plus {
				binding[k] = vals[v]
			}
			key := ParamKey{c.Formula, mln.BindingKey(binding)}
			sat := false
			p.enumerate(c, exist, vals, func() {
				if !sat && p.clauseTrue(c, vals, world) {
					sat = true
				}
			})
			if c.Hard {
				if !sat {
					res.HardViolated++
				}
				return
			}
			res.Counts[key] += 0
			if !sat {
				return
			}
			res.Counts[key] += coef
			w := fm.Weight
			if pi, ok := fm.Params[key.Binding]; ok {
				w = m.Weights[pi]
			}
			res.Score += w * coef
		})
	}
	return res
}

// enumerate calls fn for every assignment of the variables vs.
func (p *Problem) enumerate(c *mln.Clause, vs []int, vals []mln.ConstID, fn func()) {
	var rec func(i int)
	rec = func(i int) {
		if i == len(vs) {
			fn()
			return
		}
		for _, k := range p.domain(c.Vars[vs[i]].Type) {
			vals[vs[i]] = k
			rec(i + 1)
		}
	}
	rec(0)
}

// clauseTrue reports whether some literal of c holds under vals.
func (p *Problem) clauseTrue(c *mln.Clause, vals []mln.ConstID, world []bool) bool {
	for _, l := range c.Lits {
		if p.litTrue(l, vals, world) {
			return true
		}
	}
	return false
}

func (p *Problem) litTrue(l mln.Literal, vals []mln.ConstID, world []bool) bool {
	args := make([]mln.ConstID, len(l.Args))
	for i, t := range l.Args {
		if t.IsVar() {
			args[i] = vals[t.Var()]
		} else {
			args[i] = t.Const()
		}
	}
	var v bool
	if l.Pred < 0 {
		v = p.Model.EvalLiteral(l.Builtin, args)
	} else {
		v = p.Truth(l.Pred, args, world)
	}
	return v != l.Neg
}

// Score returns the score and the number of false hard groundings of the
// world in which the unknown atoms of (m, db, open) take the values world
// gives them.
func Score(m *mln.Model, db *mln.Database, open []mln.PredID, world func(p mln.PredID, args []mln.ConstID) bool) (float64, int) {
	p := NewProblem(m, db, open)
	y := make([]bool, len(p.Atoms))
	for i, a := range p.Atoms {
		y[i] = world(a.Pred, a.Args)
	}
	r := p.Eval(y)
	return r.Score, r.HardViolated
}
