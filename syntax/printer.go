package syntax

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Fprint writes node in Alchemy syntax. node is a *File, a Decl, a
// Formula, a *Term, a *DBFile or a *GroundAtom. Formulas are written with
// the fewest parentheses that keep their structure (so parsing the output
// gives the same tree), declarations one per line. Included files are not
// expanded: the #include line is written.
func Fprint(w io.Writer, node any) error {
	bw := bufio.NewWriter(w)
	var b strings.Builder
	switch n := node.(type) {
	case *File:
		known := Known{}
		for _, d := range n.Decls {
			b.Reset()
			writeTopDecl(&b, d, known)
			b.WriteByte('\n')
			bw.WriteString(b.String())
		}
	case Decl:
		writeDecl(&b, n)
		bw.WriteString(b.String())
	case Formula:
		writeFormula(&b, n)
		bw.WriteString(b.String())
	case *Term:
		writeTerm(&b, *n)
		bw.WriteString(b.String())
	case *DBFile:
		for _, a := range n.Atoms {
			b.Reset()
			writeGroundAtom(&b, a)
			b.WriteByte('\n')
			bw.WriteString(b.String())
		}
	case *GroundAtom:
		writeGroundAtom(&b, n)
		bw.WriteString(b.String())
	default:
		return fmt.Errorf("syntax.Fprint: unsupported node %T", node)
	}
	return bw.Flush()
}

// FormulaString returns a formula in Alchemy syntax.
func FormulaString(f Formula) string {
	var b strings.Builder
	writeFormula(&b, f)
	return b.String()
}

// FormatWeight writes a weight so that it reads back exactly.
func FormatWeight(w float64) string {
	return strconv.FormatFloat(w, 'g', -1, 64)
}

// writeTopDecl writes a declaration of a file, tracking the predicates
// met so far as the parser does: a unit formula that would read back as a
// declaration is parenthesized.
func writeTopDecl(b *strings.Builder, d Decl, known Known) {
	switch d := d.(type) {
	case *PredDecl:
		names := make([]string, len(d.Args))
		for i, a := range d.Args {
			names[i] = a.Type.Name
		}
		known[d.Name.Name] = names
	case *FuncDecl:
		known[d.Name.Name] = nil
	case *Include:
		if d.File != nil {
			var sub strings.Builder
			for _, x := range d.File.Decls {
				writeTopDecl(&sub, x, known)
			}
		}
	case *FormulaDecl:
		if a, ok := d.F.(*Atom); ok && !d.HasWeight && d.Utility == nil && !d.Hard && !d.DomainScaled && declLike(a) {
			old, isKnown := known[a.Pred]
			same := len(old) == len(a.Args)
			for i := 0; same && i < len(old); i++ {
				same = old[i] == a.Args[i].Name
			}
			if !isKnown || same || old != nil && len(old) != len(a.Args) {
				b.WriteByte('(')
				writeFormula(b, a)
				b.WriteByte(')')
				if !isKnown {
					known[a.Pred] = nil
				}
				return
			}
		}
		Walk(d.F, func(f Formula) bool {
			if a, ok := f.(*Atom); ok {
				if _, ok := known[a.Pred]; !ok {
					known[a.Pred] = nil
				}
			}
			return true
		})
	case *HybridDecl:
		knowHybrid(d, known)
	}
	writeDecl(b, d)
}

// declLike reports whether an atom's arguments would read as a declaration
// (each one identifier token, as the parser's declArgNames sees them: a
// constant such as 0A scans as an identifier too).
func declLike(a *Atom) bool {
	for _, t := range a.Args {
		if t.Kind == FuncTerm || t.Plus || !scansAsIdent(t.Name) {
			return false
		}
	}
	return true
}

// scansAsIdent reports whether s scans as exactly one identifier token.
func scansAsIdent(s string) bool {
	if s == "" {
		return false
	}
	var errs ErrorList
	toks := newScanner("", []byte(s), &errs).scanAll()
	return len(errs) == 0 && len(toks) == 2 && toks[0].kind == tIdent && toks[0].text == s && toks[1].kind == tEOF
}

func writeDecl(b *strings.Builder, d Decl) {
	switch d := d.(type) {
	case *TypeDecl:
		b.WriteString(d.Name.Name)
		b.WriteString(" = {")
		if d.IsRange {
			fmt.Fprintf(b, "%d, ..., %d", d.Lo, d.Hi)
		}
		for i, c := range d.Consts {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(c.Name)
		}
		b.WriteString("}")
	case *PredDecl:
		if d.Closed {
			b.WriteByte('*')
		}
		b.WriteString(d.Name.Name)
		writeArgDecls(b, d.Args)
	case *FuncDecl:
		b.WriteString(d.Ret.Name)
		b.WriteByte(' ')
		b.WriteString(d.Name.Name)
		writeArgDecls(b, d.Args)
	case *FormulaDecl:
		if d.DomainScaled {
			b.WriteByte('@')
		}
		if d.HasWeight {
			b.WriteString(FormatWeight(d.Weight))
			b.WriteByte(' ')
		}
		writeUtility(b, d)
		// A formula that starts with a nested weight is parenthesized:
		// bare, after no formula weight, its weight would read as one
		// (and after one, two numbers in a row read badly).
		writeParen(b, d.F, leftmostWeighted(d.F))
		if d.Hard {
			b.WriteByte('.')
		}
	case *HybridDecl:
		writeHybrid(b, d)
	case *ProbConstraint:
		b.WriteString("P(")
		writeFormula(b, d.F)
		b.WriteString(") = ")
		b.WriteString(strconv.FormatFloat(d.P, 'g', -1, 64))
	case *Include:
		b.WriteString("#include ")
		b.WriteString(strconv.Quote(d.Path))
	}
}

func writeArgDecls(b *strings.Builder, args []ArgDecl) {
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.Type.Name)
		if a.Unique {
			b.WriteByte('!')
		}
	}
	b.WriteByte(')')
}

func writeGroundAtom(b *strings.Builder, a *GroundAtom) {
	switch a.Value {
	case ValFalse:
		b.WriteByte('!')
	case ValUnknown:
		b.WriteByte('?')
	}
	b.WriteString(a.Pred.Name)
	b.WriteByte('(')
	for i, c := range a.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Name)
	}
	b.WriteByte(')')
	if a.HasReal {
		b.WriteByte(' ')
		b.WriteString(FormatWeight(a.Real))
	}
}

func writeTerm(b *strings.Builder, t Term) {
	if t.Plus {
		b.WriteByte('+')
	}
	b.WriteString(t.Name)
	if t.Kind == FuncTerm {
		writeTerms(b, t.Args)
	}
}

func writeTerms(b *strings.Builder, ts []Term) {
	b.WriteByte('(')
	for i, t := range ts {
		if i > 0 {
			b.WriteByte(',')
		}
		writeTerm(b, t)
	}
	b.WriteByte(')')
}

// Precedence levels for printing: higher binds tighter.
const (
	precQuant = 0
	precIff   = 1
	precImpl  = 2
	precOr    = 3
	precAnd   = 4
	precNot   = 5
	precAtom  = 6
)

func prec(f Formula) int {
	switch f := f.(type) {
	case *Binary:
		switch f.Op {
		case OpIff:
			return precIff
		case OpImplies:
			return precImpl
		case OpOr:
			return precOr
		}
		return precAnd
	case *Quant:
		return precQuant
	case *Not, *Weighted:
		return precNot
	}
	return precAtom
}

func writeParen(b *strings.Builder, f Formula, paren bool) {
	if paren {
		b.WriteByte('(')
		writeFormula(b, f)
		b.WriteByte(')')
		return
	}
	writeFormula(b, f)
}

func writeFormula(b *strings.Builder, f Formula) {
	switch f := f.(type) {
	case *Atom:
		if f.Star {
			b.WriteByte('*')
		}
		b.WriteString(f.Pred)
		writeTerms(b, f.Args)
	case *Compare:
		writeTerm(b, f.X)
		b.WriteByte(' ')
		b.WriteString(f.Op.String())
		b.WriteByte(' ')
		writeTerm(b, f.Y)
	case *Not:
		b.WriteByte('!')
		_, isCmp := f.X.(*Compare)
		writeParen(b, f.X, prec(f.X) < precNot || isCmp)
	case *Binary:
		// A chain of one connective is written without recursion along
		// it (a chain may be a million operands long). A quantifier
		// extends as far right as possible: as an operand it always gets
		// parentheses (precQuant is below every connective).
		p := prec(f)
		xs := chain(f)
		// A weighted chain written in parentheses as an operand of an
		// unweighted chain of the same connective ("(1 A v 2 B) v C")
		// is one operand: flattened, the operands would mix weighted and
		// unweighted ones.
		mixed := slices.ContainsFunc(xs, isWeighted) && !all(xs, isWeighted)
		if mixed {
			xs = []Formula{f.X, f.Y}
		}
		for i, x := range xs {
			if i > 0 {
				b.WriteByte(' ')
				b.WriteString(f.Op.String())
				b.WriteByte(' ')
			}
			q := prec(x)
			var paren bool
			switch {
			case f.Op == OpImplies && i < len(xs)-1:
				paren = q <= p
			case f.Op == OpImplies || i == 0:
				paren = q < p
			default:
				paren = q <= p
			}
			if mixed && i == 0 {
				paren = true // the weighted chain, kept apart
			}
			writeParen(b, x, paren)
		}
	case *Weighted:
		// "w F", F a unary formula: a quantifier or a chain is
		// parenthesized (a quantifier's scope would take the rest).
		b.WriteString(FormatWeight(f.Weight))
		b.WriteByte(' ')
		_, isCmp := f.X.(*Compare)
		_, isWeighted := f.X.(*Weighted) // "w1 w2 F" would read "w1 w2" as a term
		writeParen(b, f.X, prec(f.X) < precNot || isCmp || isWeighted)
	case *Quant:
		if f.Exist {
			b.WriteString("EXIST ")
		} else {
			b.WriteString("FORALL ")
		}
		for i, v := range f.Vars {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(v.Name)
		}
		b.WriteByte(' ')
		writeFormula(b, f.Body)
	case nil:
		b.WriteString("<nil>")
	}
}

// chain returns the operands of the chain of f's connective starting at
// f, in order: the left spine of a left-associative connective, the right
// spine of "=>".
func chain(f *Binary) []Formula {
	var out []Formula
	var x Formula = f
	if f.Op == OpImplies {
		for {
			b, ok := x.(*Binary)
			if !ok || b.Op != f.Op {
				return append(out, x)
			}
			out = append(out, b.X)
			x = b.Y
		}
	}
	for {
		b, ok := x.(*Binary)
		if !ok || b.Op != f.Op {
			out = append(out, x)
			break
		}
		out = append(out, b.Y)
		x = b.X
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Chain returns the operands of the chain of f's connective that starts
// at f, in order ("a ^ b ^ c" gives a, b, c; "a => b => c", which
// associates to the right, too). Programs that walk long formulas use it
// to avoid recursing along a chain.
func Chain(f *Binary) []Formula { return chain(f) }

func isWeighted(f Formula) bool { _, ok := f.(*Weighted); return ok }

func all(xs []Formula, f func(Formula) bool) bool {
	for _, x := range xs {
		if !f(x) {
			return false
		}
	}
	return true
}
