package mln

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/marple-mln/marple/syntax"
)

// WriteModel writes m in Alchemy syntax: the types with the constants the
// model files gave them and those of "+" bindings (not the other constants
// that came from evidence), the
// predicate declarations ("*" for closed-world predicates, "!" for unique
// arguments), the function declarations, and the formulas with their
// current weights (Model.Weights). A formula with "+" variables is written
// once per allocated parameter, the "+" variables replaced by the binding's
// constants (as Alchemy does); one without allocated parameters is written
// as in the file. Hard formulas end with "."; formulas without a parameter
// or written weight are written without weight. Synthetic formulas are
// skipped (they follow from the "!" declarations).
func WriteModel(w io.Writer, m *Model) error {
	bw := bufio.NewWriter(w)
	var b strings.Builder
	// Constants of "+" bindings are written into the formulas, so they are
	// declared too: printing the printed model again gives the same text.
	used := make(map[ConstID]bool)
	for _, b := range m.ParamBinding {
		for _, c := range b {
			used[c] = true
		}
	}
	header := false
	for _, t := range m.Types {
		var consts []ConstID
		for i, c := range t.Consts {
			if i < t.Declared || used[c] {
				consts = append(consts, c)
			}
		}
		if len(consts) == 0 {
			continue // its constants all come from evidence
		}
		if !header {
			bw.WriteString("// types\n")
			header = true
		}
		b.Reset()
		b.WriteString(t.Name)
		b.WriteString(" = {")
		for i, c := range consts {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(m.constNames[c])
		}
		b.WriteString("}\n")
		bw.WriteString(b.String())
	}
	if len(m.Preds) > 0 {
		bw.WriteString("\n// predicates\n")
	}
	for _, p := range m.Preds {
		b.Reset()
		if p.Closed {
			b.WriteByte('*')
		}
		b.WriteString(p.Name)
		b.WriteByte('(')
		for i, t := range p.Args {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(m.Types[t].Name)
			if p.Unique[i] {
				b.WriteByte('!')
			}
		}
		b.WriteString(")\n")
		bw.WriteString(b.String())
	}
	if len(m.Funcs) > 0 {
		bw.WriteString("\n// functions\n")
	}
	for _, f := range m.Funcs {
		bw.WriteString(m.Types[f.Ret].Name + " " + m.sigString(f.Name, f.Args) + "\n")
	}
	if len(m.Formulas) > 0 {
		bw.WriteString("\n// formulas\n")
	}
	for _, f := range m.Formulas {
		if f.Synthetic || f.AST == nil {
			continue
		}
		if len(f.PlusVars) == 0 || len(f.Params) == 0 {
			b.Reset()
			if f.DomainScaled {
				b.WriteByte('@')
			}
			if p, ok := f.Params[""]; ok && !f.Hard {
				b.WriteString(syntax.FormatWeight(m.Weights[p]))
				b.WriteByte(' ')
			} else if f.HasWeight && !f.Hard {
				b.WriteString(syntax.FormatWeight(f.Weight))
				b.WriteByte(' ')
			}
			writeUtility(&b, f)
			text := m.formulaText(f.AST)
			if _, atom := f.AST.(*syntax.Atom); atom && b.Len() == 0 && !f.Hard {
				// An unweighted unit formula: parenthesized so that it
				// cannot read back as a declaration.
				text = "(" + text + ")"
			}
			b.WriteString(text)
			if f.Hard {
				b.WriteByte('.')
			}
			b.WriteByte('\n')
			bw.WriteString(b.String())
			continue
		}
		params := make([]int, 0, len(f.Params))
		for _, p := range f.Params {
			params = append(params, p)
		}
		sort.Ints(params)
		for _, p := range params {
			sub := map[string]string{}
			for i, name := range f.PlusVars {
				if i < len(m.ParamBinding[p]) {
					sub[name] = m.constNames[m.ParamBinding[p][i]]
				}
			}
			b.Reset()
			if f.DomainScaled {
				b.WriteByte('@')
			}
			if !f.Hard {
				b.WriteString(syntax.FormatWeight(m.Weights[p]))
				b.WriteByte(' ')
			}
			writeUtility(&b, f)
			b.WriteString(m.formulaText(substPlus(f.AST, sub)))
			if f.Hard {
				b.WriteByte('.')
			}
			b.WriteByte('\n')
			bw.WriteString(b.String())
		}
	}
	return bw.Flush()
}

// substPlus returns a copy of f with the free "+" variables named in sub
// replaced by constants. Quantified variables of the same name are left
// alone.
func substPlus(f syntax.Formula, sub map[string]string) syntax.Formula {
	consts := make(map[string]syntax.Term, len(sub))
	for v, c := range sub {
		consts[v] = syntax.Term{Kind: syntax.ConstTerm, Name: c}
	}
	return syntax.Substitute(f, consts)
}

// ClauseString returns clause c in Alchemy syntax (see ClauseFormula),
// for messages and debugging.
func (m *Model) ClauseString(c *Clause) string {
	return syntax.FormulaString(m.ClauseFormula(c))
}

// ReplicatedAtoms returns the atoms of db written k times, the constants
// of type t renamed in copy j by the suffix "_rj" (copy 0 keeps the
// names): a data set k times larger with the same statistics, whose
// examples (one per constant of t) stay distinct. Atoms are written
// predicate by predicate, in the database's order, "!" before a false
// atom and "?" before an unknown one; the text reads back as a .db file.
func ReplicatedAtoms(m *Model, db *Database, t TypeID, k int) string {
	var b strings.Builder
	for j := 0; j < k; j++ {
		suffix := ""
		if j > 0 {
			suffix = fmt.Sprintf("_r%d", j)
		}
		for p := range m.Preds {
			pr := m.Preds[p]
			db.Atoms(PredID(p), func(args []ConstID, v Truth) {
				switch v {
				case False:
					b.WriteByte('!')
				case Unknown:
					b.WriteByte('?')
				}
				b.WriteString(pr.Name)
				b.WriteByte('(')
				for i, c := range args {
					if i > 0 {
						b.WriteByte(',')
					}
					b.WriteString(m.ConstName(c))
					if pr.Args[i] == t {
						b.WriteString(suffix)
					}
				}
				b.WriteString(")\n")
			})
		}
	}
	return b.String()
}
