package mln

import (
	"strings"

	"github.com/marple-mln/marple/syntax"
)

// checkUtility reports what is wrong with the utility of a formula
// statement: a hard formula has no utility (Markov logic decision networks
// give utilities to soft formulas and to formulas without a weight).
// The parser already refuses a utility that is not a finite number.
func checkUtility(d *syntax.FormulaDecl, errs *syntax.ErrorList) {
	if d.Utility != nil && d.Hard {
		errs.Add(d.Utility.Pos(), "utility on a hard formula (give the formula a weight, or state its utility in a formula of its own)")
	}
}

// setUtility copies the utility of a statement to its formulas.
func setUtility(fs []*Formula, d *syntax.FormulaDecl) {
	if d.Utility == nil {
		return
	}
	for _, f := range fs {
		f.Utility, f.HasUtility = d.Utility.Value, true
	}
}

// writeUtility writes f's ":u " (after its weight, if any) as a .mln file
// reads it back.
func writeUtility(b *strings.Builder, f *Formula) {
	if f.HasUtility {
		b.WriteString(":" + syntax.FormatWeight(f.Utility) + " ")
	}
}

// HasUtilities reports whether some formula of the model has a utility: the
// model is a Markov logic decision network.
func (m *Model) HasUtilities() bool {
	for _, f := range m.Formulas {
		if f.HasUtility {
			return true
		}
	}
	return false
}
