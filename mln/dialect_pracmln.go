package mln

import (
	"math"
	"slices"
	"strconv"

	"github.com/marple-mln/marple/syntax"
)

// ProbConstraint is pracmln's and ProbCog's "P(F) = p" (syntax.
// ProbConstraint): the weight of formula Formula is fitted so that one
// grounding of it, its free variables bound to the first constants of
// their types, has prior probability P (package infer/probfit). With
// Posterior set it is soft evidence, "R(F) = p" or "0.6 A" in a .db file:
// Formula is the ground formula F (or atom A), added to the model with a
// fixed weight that is fitted so that F's probability given the evidence
// is P.
type ProbConstraint struct {
	Pos       syntax.Pos
	AST       syntax.Formula
	P         float64
	Formula   int // index in Model.Formulas, -1 until resolved
	Posterior bool
}

// addProbConstraint records a probability constraint of the model; a
// posterior one adds its ground formula to the model.
func (m *Model) addProbConstraint(d *syntax.ProbConstraint, errs *syntax.ErrorList) {
	pc := &ProbConstraint{Pos: d.PPos, AST: d.F, P: d.P, Formula: -1, Posterior: d.Posterior}
	if d.Posterior {
		if vs := syntax.FreeVars(d.F); len(vs) > 0 {
			errs.Add(d.PPos, "soft evidence R(F) = p is on a ground formula: %s has variable %s", syntax.FormulaString(d.F), vs[0])
			return
		}
		fs, ferrs := m.newFormulas(&syntax.FormulaDecl{StartPos: d.PPos, Weight: math.Log(d.P / (1 - d.P)), HasWeight: true, Fixed: true, F: d.F})
		if len(ferrs) > 0 {
			*errs = append(*errs, ferrs...)
			return
		}
		pc.Formula = len(m.Formulas)
		m.Formulas = append(m.Formulas, fs...)
	}
	m.ProbConstraints = append(m.ProbConstraints, pc)
}

// addSoftEvidence gives soft evidence "p A" of a .db file (a) on atom
// p(args) pracmln's meaning: A stays unknown, and the unit formula A, with
// a fixed weight (log(P/(1-P)) to start with), is fitted by infer so that
// A's probability given the evidence is P.
func (m *Model) addSoftEvidence(p *Predicate, args []ConstID, a *syntax.RawAtom) error {
	n := len(m.Formulas)
	if err := m.addPrior(p, args, a); err != nil {
		return err
	}
	m.ProbConstraints = append(m.ProbConstraints, &ProbConstraint{Pos: a.Pos, AST: m.Formulas[n].AST, P: a.Prior, Formula: n, Posterior: true})
	return nil
}

// ResolveProbConstraints finds, for each probability constraint, the
// formula of the model it constrains: the first formula written the same
// way (as printed; pracmln matches the text). A constraint on a formula
// the model lacks, on a hard formula or on a formula with "+" variables
// is an error at its position.
func (m *Model) ResolveProbConstraints() error {
	var errs syntax.ErrorList
	soft := map[int]bool{}
	for _, pc := range m.ProbConstraints {
		if pc.Posterior {
			soft[pc.Formula] = true
		}
	}
	for _, pc := range m.ProbConstraints {
		if pc.Posterior {
			continue // its own formula
		}
		want := syntax.FormulaString(pc.AST)
		pc.Formula = -1
		for i, f := range m.Formulas {
			if f.AST != nil && !f.Synthetic && !soft[i] && syntax.FormulaString(f.AST) == want {
				pc.Formula = i
				break
			}
		}
		switch {
		case pc.Formula < 0:
			errs.Add(pc.Pos, "probability constraint on %s, which is not a formula of the model (pracmln requires the formula in the model, with some weight)", want)
		case m.Formulas[pc.Formula].Hard:
			errs.Add(pc.Pos, "probability constraint on the hard formula %s", want)
		case len(m.Formulas[pc.Formula].PlusVars) > 0:
			errs.Add(pc.Pos, "probability constraint on %s, which has '+' variables (one weight per constant): not supported", want)
		}
	}
	errs.Sort()
	return errs.Err()
}

// AddProbInstance adds to the compiled model, as a hard formula, the
// grounding of constraint pc's formula that pracmln constrains: its free
// variables bound to the first constants of their types. The returned
// undo removes it again (call it before changing the model otherwise).
func (m *Model) AddProbInstance(pc *ProbConstraint) (undo func(), err error) {
	f := m.Formulas[pc.Formula]
	if len(f.Clauses) == 0 {
		return nil, syntax.Errorf(pc.Pos, "probability constraint on %s, a formula with no clause (true or false in every world)", syntax.FormulaString(f.AST))
	}
	types := map[string]TypeID{}
	for _, v := range m.Clauses[f.Clauses[0]].Vars {
		types[v.Name] = v.Type
	}
	sub := map[string]syntax.Term{}
	for _, name := range syntax.FreeVars(f.AST) {
		t, ok := types[name]
		if !ok {
			return nil, syntax.Errorf(pc.Pos, "probability constraint on %s: cannot find the type of variable %s", syntax.FormulaString(f.AST), name)
		}
		if len(m.Types[t].Consts) == 0 {
			return nil, syntax.Errorf(pc.Pos, "probability constraint on %s: type %s has no constants", syntax.FormulaString(f.AST), m.Types[t].Name)
		}
		sub[name] = syntax.Term{Kind: syntax.ConstTerm, Name: m.ConstName(m.Types[t].Consts[0])}
	}
	fs, errs := m.newFormulas(&syntax.FormulaDecl{StartPos: pc.Pos, Hard: true, Dot: pc.Pos, F: syntax.Substitute(f.AST, sub)})
	if len(errs) > 0 {
		return nil, errs
	}
	nf, nc := len(m.Formulas), len(m.Clauses)
	if _, err := m.AddFormula(fs[0]); err != nil {
		return nil, err
	}
	return func() {
		m.Formulas = m.Formulas[:nf]
		m.Clauses = m.Clauses[:nc]
	}, nil
}

// addDBDomain adds the constants of a domain declaration in a .db file
// (pracmln's dialect) to their type; a type the model does not know is an
// error, as the constants would belong to no predicate.
func (db *Database) addDBDomain(a *syntax.RawAtom, errs *syntax.ErrorList) {
	m := db.Model
	t, ok := m.Type(string(a.Pred))
	if !ok {
		errs.Add(a.Pos, "unknown type %s in a domain declaration", a.Pred)
		return
	}
	for _, b := range a.Args {
		c, ok := m.constIndex[string(b)]
		if !ok {
			c = m.AddConst(string(b))
		}
		t.add(c)
	}
}

// wholeFormula compiles the soft formula f of a model of pracmln's dialect
// into clauses whose weights add up to f's weight times f's truth value,
// up to a constant: pracmln weighs a formula as a whole (it does not split
// its weight over its CNF's clauses as Alchemy does). raw is f's CNF.
//
//   - A single clause keeps the weight.
//   - When ¬f is one clause D, w·[f] = w - w·[D]: D with weight -w.
//   - Otherwise f's Boolean function is split (Shannon expansion on its
//     literals) into disjoint conjunctions S_j, w·[f] = Σ_j w·[S_j] and
//     each S_j becomes the clause ¬S_j with weight -w; or ¬f into
//     disjoint T_j, w·[f] = w - Σ_j w·[T_j], each ¬T_j with weight w,
//     whichever has fewer terms. Literals that denote one atom in some
//     grounding (P(x), P(y)) keep this exact: the expansion is an
//     identity of Boolean functions, and terms are disjoint by a literal
//     and its complement.
func (c *compiler) wholeFormula(f *Formula, root *node, raw []cl) []*Clause {
	pos, constF := c.keep(raw)
	if constF {
		return nil // f is true or false in every world: a constant
	}
	if len(pos) == 1 && c.oneClause(pos[0]) {
		return []*Clause{c.wholeClause(f, pos[0], 1)}
	}
	neg, constN := c.keep(c.cnf(c.nnf(c.copyNode(root, nil), true)))
	if constN {
		return nil
	}
	if len(neg) == 1 && c.oneClause(neg[0]) {
		return []*Clause{c.wholeClause(f, neg[0], -1)}
	}
	for _, set := range [][]cl{pos, neg} {
		for _, x := range set {
			if len(x.exist) > 0 {
				c.fail("pracmln weighs a formula as a whole; this one (neither it nor its negation one clause) has an existential quantifier in a clause of several, which Marple cannot weigh as one")
			}
			for _, l := range x.lits {
				for _, t := range l.Args {
					if t.IsVar() && c.vars[t.Var()].bound {
						c.fail("pracmln weighs a formula as a whole; this one (neither it nor its negation one clause) quantifies variable %s inside, which Marple cannot weigh as one", c.vars[t.Var()].name)
					}
				}
			}
		}
	}
	sPos := shannon(pos, maxWholeTerms)
	sNeg := shannon(neg, maxWholeTerms)
	if sPos == nil && sNeg == nil {
		c.fail("pracmln weighs a formula as a whole; this one needs more than %d clauses to be weighed exactly", maxWholeTerms)
	}
	coef, terms := -1.0, sPos
	if sPos == nil || sNeg != nil && len(sNeg) < len(sPos) {
		coef, terms = 1, sNeg
	}
	out := make([]*Clause, 0, len(terms))
	for _, t := range terms {
		var x cl
		for _, l := range t {
			x.lits = append(x.lits, negLit(l))
		}
		if c.simplify(&x) {
			continue // a term false in every world
		}
		out = append(out, c.wholeClause(f, x, coef))
	}
	return out
}

// wholeClause makes a clause of formula f that ranges over all of f's
// free variables, those its literals lost included: pracmln counts a
// formula's groundings over all its variables.
func (c *compiler) wholeClause(f *Formula, x cl, coef float64) *Clause {
	cls := c.makeClause(f, x, coef)
	names := map[string]bool{}
	for _, v := range cls.Vars {
		names[v.Name] = true
	}
	for v, fv := range c.vars {
		if fv.bound || fv.plus || !fv.used || fv.typ < 0 || clauseUses(x, v) {
			continue
		}
		name := fv.name
		for k := 1; names[name]; k++ {
			name = fv.name + "_" + strconv.Itoa(k)
		}
		names[name] = true
		cls.Vars = append(cls.Vars, Var{Name: name, Type: fv.typ})
	}
	return cls
}

// oneClause reports whether raw clause x is one ground clause per
// grounding of the formula's free variables: every quantified variable
// in it is existential (a universal one makes it a conjunction).
func (c *compiler) oneClause(x cl) bool {
	for _, l := range x.lits {
		for _, t := range l.Args {
			if t.IsVar() && c.vars[t.Var()].bound && !slices.Contains(x.exist, t.Var()) {
				return false
			}
		}
	}
	return true
}

// maxWholeTerms bounds the clauses of one formula weighed as a whole.
const maxWholeTerms = 256

// keep drops the tautologies of raw clauses; it reports constant when the
// conjunction is constant (no clause left: true; an empty clause: false).
func (c *compiler) keep(raw []cl) (kept []cl, constant bool) {
	for _, x := range raw {
		if c.simplify(&x) {
			continue
		}
		if len(x.lits) == 0 {
			return nil, true
		}
		kept = append(kept, x)
	}
	return kept, len(kept) == 0
}

// atomKey identifies the atom of a literal and its sign (a comparison
// and its complement share their atom).
func atomKey(l Literal) (string, bool) {
	if l.Pred < 0 && !l.Builtin.IsArith() {
		b, nb := l.Builtin, negBuiltin(l.Builtin)
		canon := min(b, nb)
		l.Builtin = canon
		return litKey(&l), b == canon
	}
	return litKey(&l), !l.Neg
}

// shannon returns disjoint conjunctions of literals whose disjunction is
// the CNF cls, or nil past limit terms.
func shannon(cls []cl, limit int) [][]Literal {
	var out [][]Literal
	assign := map[string]bool{}
	var term []Literal
	var rec func() bool
	rec = func() bool {
		// The first clause not yet satisfied, and its first free literal.
		var pick *Literal
		for _, x := range cls {
			sat := false
			var free *Literal
			for i := range x.lits {
				k, s := atomKey(x.lits[i])
				if v, ok := assign[k]; ok {
					if v == s {
						sat = true
						break
					}
				} else if free == nil {
					free = &x.lits[i]
				}
			}
			if sat {
				continue
			}
			if free == nil {
				return true // falsified: no term
			}
			pick = free
			break
		}
		if pick == nil {
			if len(out) >= limit {
				return false
			}
			out = append(out, append([]Literal(nil), term...))
			return true
		}
		k, s := atomKey(*pick)
		for _, val := range []bool{s, !s} {
			assign[k] = val
			l := *pick
			if val != s {
				l = negLit(l)
			}
			term = append(term, l)
			ok := rec()
			term = term[:len(term)-1]
			if !ok {
				return false
			}
		}
		delete(assign, k)
		return true
	}
	if !rec() {
		return nil
	}
	return out
}

// formulaText prints a formula of the model as its dialect reads it back:
// in pracmln's, with every connective operand parenthesized
// (syntax.FormulaStringPracmln).
func (m *Model) formulaText(f syntax.Formula) string {
	if m.Dialect == syntax.Pracmln {
		return syntax.FormulaStringPracmln(f)
	}
	return syntax.FormulaString(f)
}
