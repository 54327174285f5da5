package mln

import (
	"math"

	"github.com/marple-mln/marple/syntax"
)

// OpenByDefault reports whether predicate p is open world (its atoms not
// listed in the evidence are unknown) without being named a query or
// open-world predicate, by the rule of the model's dialect: in Tuffy's
// and RockIt's every predicate declared without a leading "*"; in LoMRF's
// every predicate of which db lists no atom (db may be nil: none); in
// pracmln's every predicate (its atoms not in the evidence are unknown);
// in Alchemy's none. Naming a predicate closed world (-cw) overrides this default.
func (m *Model) OpenByDefault(p PredID, db *Database) bool {
	if int(p) >= len(m.Preds) {
		return false
	}
	pr := m.Preds[p] // a function's auxiliary predicate is Closed
	switch m.Dialect {
	case syntax.Tuffy, syntax.RockIt:
		return !pr.Closed
	case syntax.LoMRF:
		return !pr.Closed && (db == nil || db.Count(p) == 0)
	case syntax.Pracmln:
		return !pr.Closed
	}
	return false
}

// FixedFormula returns the first formula whose weight is fixed (Tuffy's
// "@w" or a soft-evidence prior), or nil.
func (m *Model) FixedFormula() *Formula {
	for _, f := range m.Formulas {
		if f.Fixed {
			return f
		}
	}
	return nil
}

// addPrior adds the prior of soft evidence a on atom p(args): the unit
// formula p(args) with weight log(P/(1-P)), P the probability, as Tuffy
// weighs it (its weight is fixed). The atom itself is left unknown.
func (m *Model) addPrior(p *Predicate, args []ConstID, a *syntax.RawAtom) error {
	atom := &syntax.Atom{AtomPos: a.Pos, Pred: p.Name, PredPos: a.PredPos()}
	for i, c := range args {
		atom.Args = append(atom.Args, syntax.Term{TermPos: a.ArgPos(i), Kind: syntax.ConstTerm, Name: m.ConstName(c)})
	}
	w := math.Log(a.Prior / (1 - a.Prior))
	fs, errs := m.newFormulas(&syntax.FormulaDecl{StartPos: a.Pos, Weight: w, HasWeight: true, Fixed: true, F: atom})
	if len(errs) > 0 {
		return errs
	}
	if len(m.Clauses) > 0 {
		// Compiled already: compile the new formula alone.
		_, err := m.AddFormula(fs[0])
		return err
	}
	m.Formulas = append(m.Formulas, fs...)
	return nil
}
