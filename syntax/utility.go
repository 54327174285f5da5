package syntax

import (
	"math"
	"strconv"
	"strings"
)

// Utility is the utility of a formula in a Markov logic decision network
// (Alchemy's "w:u formula", or ":u formula" without a weight): each true
// grounding of the formula adds Value to the utility of a world.
type Utility struct {
	ColonPos Pos // position of the ":"
	Value    float64
}

// Pos returns the position of the ":".
func (u *Utility) Pos() Pos { return u.ColonPos }

// utility parses an optional ":u" after the weight (or at the start of the
// statement) into d.Utility. The value is a finite number; a formula must
// follow.
func (p *parser) utility(d *FormulaDecl) {
	c := p.cur()
	if c.kind != tColon {
		return
	}
	p.advance()
	t := p.cur()
	switch {
	case t.kind == tIdent && isNonFinite(t.text):
		p.errorAt(t, "utility %s is not a finite number", t.text)
	case t.kind == tIdent && isHexNumber(t.text):
		p.errorAt(t, "utility %s is a hexadecimal number: write utilities in decimal", t.text)
	case !isNumber(t.kind):
		p.errorAt(t, "expected a utility (a number) after ':', found %s", t.describe())
	}
	u, err := strconv.ParseFloat(t.text, 64)
	if err != nil || math.IsInf(u, 0) || math.IsNaN(u) {
		p.errorAt(t, "utility %s is not a finite number", t.text)
	}
	p.advance()
	d.Utility = &Utility{ColonPos: p.posOf(c), Value: u}
	if k := p.cur().kind; k == tNewline || k == tEOF {
		p.errorAt(p.cur(), "expected a formula after the utility")
	}
}

// writeUtility writes d's ":u" (after its weight, if any).
func writeUtility(b *strings.Builder, d *FormulaDecl) {
	if d.Utility == nil {
		return
	}
	b.WriteString(":" + FormatWeight(d.Utility.Value) + " ")
}
