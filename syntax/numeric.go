package syntax

import (
	"math"
	"strconv"
	"strings"
)

// HybridDecl is a formula with a numeric term (a hybrid MLN feature, in
// Alchemy's syntax):
//
//	w  Formula * NumericTerm
//	w  * NumericTerm          no formula: the term alone
//	w  Pred(x) = 3.5          Gaussian shorthand: -(Pred(x) - 3.5)^2
//
// The feature of a grounding is the formula's indicator (1 when F is nil)
// times the value of the term. The predicates of a numeric term are
// real-valued.
type HybridDecl struct {
	FormulaDecl         // weight and formula; F is nil when there is none
	Star        Pos     // position of the "*" (invalid without a formula)
	Term        NumExpr // the numeric term
}

// NumExpr is a node of a numeric term: *NumLit, *NumAtom, *NumNeg,
// *NumBinary, *NumPow or *Gaussian.
type NumExpr interface {
	Node
	numExpr()
}

// NumLit is a number.
type NumLit struct {
	LitPos Pos
	Value  float64
}

// NumAtom is a real-valued ground or non-ground atom: its value.
type NumAtom struct {
	Atom *Atom
}

// NumNeg is "-X".
type NumNeg struct {
	MinusPos Pos
	X        NumExpr
}

// NumBinary is "X + Y", "X - Y" or "X * Y" (Op is '+', '-' or '*').
type NumBinary struct {
	Op    byte
	OpPos Pos
	X, Y  NumExpr
}

// NumPow is "X^Exp" for a non-negative integer exponent.
type NumPow struct {
	X     NumExpr
	OpPos Pos
	Exp   int
}

// Gaussian is Alchemy's shorthand "Pred(x) = Mean", the term
// -(Pred(x) - Mean)^2.
type Gaussian struct {
	Atom  *Atom
	EqPos Pos
	Mean  float64
}

// MaxExponent bounds the exponent of a power in a numeric term.
const MaxExponent = 16

func (*NumLit) numExpr()    {}
func (*NumAtom) numExpr()   {}
func (*NumNeg) numExpr()    {}
func (*NumBinary) numExpr() {}
func (*NumPow) numExpr()    {}
func (*Gaussian) numExpr()  {}

// Pos returns the position of the number.
func (x *NumLit) Pos() Pos { return x.LitPos }

// Pos returns the position of the atom.
func (x *NumAtom) Pos() Pos { return x.Atom.AtomPos }

// Pos returns the position of the "-".
func (x *NumNeg) Pos() Pos { return x.MinusPos }

// Pos returns the position of the left operand.
func (x *NumBinary) Pos() Pos { return x.X.Pos() }

// Pos returns the position of the base.
func (x *NumPow) Pos() Pos { return x.X.Pos() }

// Pos returns the position of the atom.
func (x *Gaussian) Pos() Pos { return x.Atom.AtomPos }

// NumAtoms returns the atoms of a numeric term, left to right.
func NumAtoms(e NumExpr) []*Atom {
	var out []*Atom
	var walk func(NumExpr)
	walk = func(e NumExpr) {
		switch e := e.(type) {
		case *NumAtom:
			out = append(out, e.Atom)
		case *Gaussian:
			out = append(out, e.Atom)
		case *NumNeg:
			walk(e.X)
		case *NumBinary:
			walk(e.X)
			walk(e.Y)
		case *NumPow:
			walk(e.X)
		}
	}
	walk(e)
	return out
}

// formulaOrHybrid parses a formula statement, with or without a numeric
// part.
func (p *parser) formulaOrHybrid() Decl {
	k := 0
	if t := p.cur(); isNumber(t.kind) && !isCmp(p.peek(1).kind) {
		k = 1
	}
	// "w * term": a numeric part alone (a term that starts with an atom
	// is one when what follows the atom cannot follow a "*" atom).
	if n := p.peek(k + 1).kind; p.peek(k).kind == tStar && (n == tLparen || n == tMinus || isNumber(n) || p.numericAfterAtom(k+1)) {
		d := &HybridDecl{}
		p.hybridWeight(d, k)
		d.Star = p.posOf(p.advance())
		d.Term = p.numTerm()
		p.hybridEnd(d)
		return d
	}
	// "w Pred(args) = number": the Gaussian shorthand over a declared
	// predicate.
	if t := p.peek(k); t.kind == tIdent && p.peek(k+1).kind == tLparen && p.known[t.text] != nil && p.gaussianAhead(k+1) {
		d := &HybridDecl{}
		p.hybridWeight(d, k)
		d.Term = p.numTerm()
		if _, ok := d.Term.(*Gaussian); !ok {
			p.errorAt(p.cur(), "expected '= number' after %s", t.text)
		}
		p.hybridEnd(d)
		return d
	}
	f := p.formulaDecl()
	if t := p.cur(); t.kind != tStar {
		return f
	}
	d := &HybridDecl{FormulaDecl: *f}
	if d.Hard {
		p.errorAt(p.cur(), "a hard formula (trailing '.') cannot have a numeric term")
	}
	d.Star = p.posOf(p.advance())
	d.Term = p.numTerm()
	p.hybridEnd(d)
	return d
}

// numericAfterAtom reports whether the tokens from k on are an atom
// "Name(...)" followed by what continues a numeric term but cannot
// continue a formula: "+", "-", "*", a negative number, "^ integer" or
// "= number".
func (p *parser) numericAfterAtom(k int) bool {
	if p.peek(k).kind != tIdent || p.peek(k+1).kind != tLparen {
		return false
	}
	depth := 0
	for j := k + 1; ; j++ {
		switch t := p.peek(j); t.kind {
		case tLparen:
			depth++
		case tRparen:
			depth--
			if depth > 0 {
				continue
			}
			n, nn := p.peek(j+1), p.peek(j+2)
			switch {
			case n.kind == tPlus || n.kind == tMinus || n.kind == tStar:
				return true
			case isNumber(n.kind) && strings.HasPrefix(n.text, "-"):
				return true
			case n.kind == tAnd && nn.kind == tInt, n.kind == tEq && isNumber(nn.kind):
				return true
			}
			return false
		case tNewline, tEOF:
			return false
		}
	}
}

// gaussianAhead reports whether the tokens from k on are "( ... ) =
// number" followed by the end of the line.
func (p *parser) gaussianAhead(k int) bool {
	depth := 0
	for j := k; ; j++ {
		t := p.peek(j)
		switch t.kind {
		case tLparen:
			depth++
		case tRparen:
			depth--
			if depth == 0 {
				if p.peek(j+1).kind != tEq || !isNumber(p.peek(j+2).kind) {
					return false
				}
				e := p.peek(j + 3).kind
				return e == tNewline || e == tEOF
			}
		case tNewline:
			// A line break inside the parentheses continues the
			// statement, as it does for formulas.
			if depth == 0 {
				return false
			}
		case tEOF:
			return false
		}
	}
}

// hybridWeight reads the weight of a statement when k is 1.
func (p *parser) hybridWeight(d *HybridDecl, k int) {
	t := p.cur()
	d.StartPos = p.posOf(t)
	if k == 0 {
		return
	}
	w, err := strconv.ParseFloat(t.text, 64)
	if err != nil || math.IsInf(w, 0) || math.IsNaN(w) {
		p.errorAt(t, "weight %s is not a finite number", t.text)
	}
	p.advance()
	d.Weight, d.HasWeight = w, true
}

// hybridEnd reads an optional trailing "." after the numeric term.
func (p *parser) hybridEnd(d *HybridDecl) {
	if t := p.cur(); t.kind == tDot {
		p.errorAt(t, "a hard formula (trailing '.') cannot have a numeric term")
	}
}

// numTerm parses a numeric term: a polynomial over real-valued atoms and
// numbers with "+", "-", "*", "^" (a non-negative integer exponent) and
// parentheses, or the Gaussian shorthand "Pred(args) = number".
func (p *parser) numTerm() NumExpr {
	x := p.numSum()
	if a, ok := x.(*NumAtom); ok && p.cur().kind == tEq {
		eq := p.advance()
		t := p.cur()
		if !isNumber(t.kind) {
			p.errorAt(t, "expected a number after '=' (Gaussian shorthand), found %s", t.describe())
		}
		p.advance()
		return &Gaussian{Atom: a.Atom, EqPos: p.posOf(eq), Mean: p.numValue(t)}
	}
	return x
}

func (p *parser) numValue(t token) float64 {
	v, err := strconv.ParseFloat(t.text, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		p.errorAt(t, "number %s is not finite", t.text)
	}
	return v
}

func (p *parser) numNest(t token) func() {
	p.nest++
	if p.nest > maxNesting {
		p.errorAt(t, "numeric term nested too deeply")
	}
	return func() { p.nest-- }
}

func (p *parser) numSum() NumExpr {
	x := p.numProduct()
	for {
		t := p.cur()
		switch {
		case t.kind == tPlus || t.kind == tMinus:
			p.advance()
			y := p.numProduct()
			op := byte('+')
			if t.kind == tMinus {
				op = '-'
			}
			x = &NumBinary{Op: op, OpPos: p.posOf(t), X: x, Y: y}
		case isNumber(t.kind) && strings.HasPrefix(t.text, "-"):
			// "X -2": a subtraction.
			p.advance()
			pos := p.posOf(t)
			y := &NumLit{LitPos: Pos{File: pos.File, Line: pos.Line, Col: pos.Col + 1}, Value: -p.numValue(t)}
			var rest NumExpr = y
			if p.cur().kind == tAnd {
				rest = p.numPowOf(y)
			}
			for p.cur().kind == tStar {
				op := p.advance()
				rest = &NumBinary{Op: '*', OpPos: p.posOf(op), X: rest, Y: p.numUnary()}
			}
			x = &NumBinary{Op: '-', OpPos: pos, X: x, Y: rest}
		default:
			return x
		}
	}
}

func (p *parser) numProduct() NumExpr {
	x := p.numUnary()
	for p.cur().kind == tStar {
		op := p.advance()
		y := p.numUnary()
		x = &NumBinary{Op: '*', OpPos: p.posOf(op), X: x, Y: y}
	}
	return x
}

func (p *parser) numUnary() NumExpr {
	t := p.cur()
	defer p.numNest(t)()
	if t.kind == tMinus {
		p.advance()
		return &NumNeg{MinusPos: p.posOf(t), X: p.numUnary()}
	}
	return p.numPowOf(p.numPrimary())
}

// numPowOf reads an optional "^ n" after x.
func (p *parser) numPowOf(x NumExpr) NumExpr {
	if t := p.cur(); t.kind == tAnd {
		p.advance()
		n := p.cur()
		e, err := strconv.Atoi(n.text)
		if n.kind != tInt || err != nil || e < 0 {
			p.errorAt(n, "expected a non-negative integer exponent after '^', found %s", n.describe())
		}
		if e > MaxExponent {
			p.errorAt(n, "exponent %d is too large (at most %d)", e, MaxExponent)
		}
		p.advance()
		return &NumPow{X: x, OpPos: p.posOf(t), Exp: e}
	}
	return x
}

func (p *parser) numPrimary() NumExpr {
	t := p.cur()
	switch t.kind {
	case tInt, tFloat:
		p.advance()
		if strings.HasPrefix(t.text, "-") {
			// "-2": a negation, so that "-2^2" is -(2^2).
			pos := p.posOf(t)
			lit := &NumLit{LitPos: Pos{File: pos.File, Line: pos.Line, Col: pos.Col + 1}, Value: -p.numValue(t)}
			return &NumNeg{MinusPos: pos, X: p.numPowOf(lit)}
		}
		return &NumLit{LitPos: p.posOf(t), Value: p.numValue(t)}
	case tLparen:
		p.advance()
		p.depth++
		x := p.numSum()
		p.depth--
		p.expect(tRparen, "')'")
		return x
	case tIdent:
		if p.peek(1).kind == tLparen {
			return &NumAtom{Atom: p.atom()}
		}
	}
	p.errorAt(t, "expected a number, an atom or '(' in a numeric term, found %s", t.describe())
	return nil
}

// writeHybrid writes a hybrid statement.
func writeHybrid(b *strings.Builder, d *HybridDecl) {
	if d.DomainScaled {
		b.WriteByte('@')
	}
	if d.HasWeight {
		b.WriteString(FormatWeight(d.Weight))
		b.WriteByte(' ')
	}
	writeUtility(b, &d.FormulaDecl)
	if d.F != nil {
		// Parenthesized unless an atom: a comparison's right term would
		// take the "*" as a product.
		// A "*" atom is parenthesized too: printed bare, "*A(x) * t" would
		// read as the "* term" form with no formula.
		a, atom := d.F.(*Atom)
		writeParen(b, d.F, !atom || a.Star)
		b.WriteByte(' ')
	}
	if d.F == nil && d.Star.IsValid() {
		// "w * term": the term goes in parentheses, since a term starting
		// with an atom after a lone "*" would read as a "*" atom.
		b.WriteString("* (")
		if g, ok := d.Term.(*Gaussian); ok {
			writeFormula(b, g.Atom)
			b.WriteString(") = ")
			b.WriteString(FormatWeight(g.Mean))
			return
		}
		writeNum(b, d.Term)
		b.WriteByte(')')
		return
	}
	if d.F != nil {
		b.WriteString("* ")
	}
	writeNum(b, d.Term)
}

// writeNum writes a numeric term, parenthesizing every compound operand.
func writeNum(b *strings.Builder, e NumExpr) {
	operand := func(x NumExpr) {
		switch x := x.(type) {
		case *NumAtom:
			writeNum(b, x)
			return
		case *NumLit:
			if x.Value >= 0 && !math.Signbit(x.Value) {
				writeNum(b, x)
				return
			}
		}
		b.WriteByte('(')
		writeNum(b, x)
		b.WriteByte(')')
	}
	switch e := e.(type) {
	case *NumLit:
		b.WriteString(FormatWeight(e.Value))
	case *NumAtom:
		writeFormula(b, e.Atom)
	case *Gaussian:
		writeFormula(b, e.Atom)
		b.WriteString(" = ")
		b.WriteString(FormatWeight(e.Mean))
	case *NumNeg:
		b.WriteString("-")
		b.WriteByte('(')
		writeNum(b, e.X)
		b.WriteByte(')')
	case *NumBinary:
		operand(e.X)
		b.WriteByte(' ')
		b.WriteByte(e.Op)
		b.WriteByte(' ')
		operand(e.Y)
	case *NumPow:
		operand(e.X)
		b.WriteString("^")
		b.WriteString(strconv.Itoa(e.Exp))
	}
}

// knowHybrid records the predicates of a hybrid statement as the parser
// does.
func knowHybrid(d *HybridDecl, known Known) {
	add := func(a *Atom) {
		if _, ok := known[a.Pred]; !ok {
			known[a.Pred] = nil
		}
	}
	if d.F != nil {
		Walk(d.F, func(f Formula) bool {
			if a, ok := f.(*Atom); ok {
				add(a)
			}
			return true
		})
	}
	for _, a := range NumAtoms(d.Term) {
		add(a)
	}
}
