package syntax

import (
	"math"
	"strconv"
)

// Weighted is a weighted sub-formula "w F" inside a formula: a node of a
// recursive random field (Marple's extension; Lowd and Domingos 2007). The
// weight comes before the sub-formula, as the weight of a formula does:
//
//	1.5 (2 Smokes(x) ^ 0.8 Cancer(x))          a soft conjunction of two features
//	0.7 (1.2 Friends(x, y) v -0.4 Smokes(y))   a soft disjunction
//	1 EXIST y 2 Advises(y, x)                  a soft existential over y
//
// The operands of a "^" or "v" chain are all weighted or none is; "=>" and
// "<=>" do not join weighted sub-formulas. The weight is a number directly
// followed by something that starts a formula (a name, "!", "(" or a
// quantifier), which no formula without nested weights contains, so every
// other model reads as before. Only the recursive random field engines
// (package rrf) give such formulas a meaning; the model builder of package
// mln refuses them.
type Weighted struct {
	WeightPos Pos
	Weight    float64
	X         Formula
}

func (*Weighted) formula() {}

// Pos returns the position of the weight.
func (f *Weighted) Pos() Pos { return f.WeightPos }

// NestedWeight returns the first weighted sub-formula of f, in reading
// order, or nil when f has none (an ordinary Markov logic formula).
func NestedWeight(f Formula) *Weighted {
	var first *Weighted
	Walk(f, func(g Formula) bool {
		if w, ok := g.(*Weighted); ok && first == nil {
			first = w
		}
		return first == nil
	})
	return first
}

// leftmostWeighted reports whether the text of f starts with a nested
// weight (so that, written after no formula weight, it would read as one).
func leftmostWeighted(f Formula) bool {
	for {
		switch g := f.(type) {
		case *Weighted:
			return true
		case *Binary:
			f = g.X
		default:
			return false
		}
	}
}

// weightAhead reports whether the current token, a number, is the weight
// of a nested sub-formula: the next token starts a formula.
func (p *parser) weightAhead() bool {
	t := p.cur()
	if !isNumber(t.kind) {
		return false
	}
	switch p.peek(1).kind {
	case tIdent, tNot, tLparen:
		return true
	}
	return false
}

// weighted parses "w F" (the current token is the weight), F a unary
// formula.
func (p *parser) weighted() Formula {
	t := p.advance()
	w, ok := parseWeight(t.text)
	if !ok {
		p.errorAt(t, "weight %s is not a finite number", t.text)
	}
	return &Weighted{WeightPos: p.posOf(t), Weight: w, X: p.unary()}
}

// checkWeightedChain refuses a chain of connective op whose operands are
// weighted and not weighted both, or weighted ones under "=>" or "<=>".
func (p *parser) checkWeightedChain(op BinOp, xs []Formula) {
	if len(xs) < 2 {
		return
	}
	_, first := xs[0].(*Weighted)
	for _, x := range xs {
		w, ok := x.(*Weighted)
		switch {
		case ok && (op == OpImplies || op == OpIff):
			p.errs.Add(w.WeightPos, "%s does not join weighted sub-formulas: only ^ and v chains do (write F => G as w1 !F v w2 G)", op)
			panic(bailout{})
		case ok != first:
			pos := x.Pos()
			if ok {
				pos = w.WeightPos
			}
			p.errs.Add(pos, "the operands of a %s chain are all weighted or none is (parenthesize a weighted chain after the formula's weight: 1.5 (2 A(x) %s 1 B(x)))", op, op)
			panic(bailout{})
		}
	}
}

// parseWeight reads a nested weight, which must be a finite number.
func parseWeight(s string) (float64, bool) {
	w, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(w, 0) || math.IsNaN(w) {
		return 0, false
	}
	return w, true
}
