package structure

import (
	"fmt"

	"github.com/marple-mln/marple/mln"
)

// Model returns a model with base's types, predicates and functions whose
// formulas are the learned clauses with their weights (hard clauses
// without weight), ready for mln.WriteModel. base is not changed.
func (r *Result) Model(base *mln.Model) (*mln.Model, error) {
	m := *base
	m.Formulas, m.Clauses, m.Weights, m.ParamFormula, m.ParamBinding = nil, nil, nil, nil, nil
	for i, c := range r.Clauses {
		f := &mln.Formula{AST: base.ClauseFormula(c), Hard: c.Hard, DomainScaled: c.DomainScaled && !c.Hard}
		if !c.Hard {
			f.Weight, f.HasWeight = r.Weights[i], true
		}
		if _, err := m.AddFormula(f); err != nil {
			return nil, fmt.Errorf("structure: learned clause %s: %w", base.ClauseString(c), err)
		}
		if !c.Hard && len(f.PlusVars) == 0 {
			m.Weights[f.Params[""]] = r.Weights[i]
		}
	}
	return &m, nil
}
