package syntax

import (
	"fmt"
	"strconv"
	"strings"
)

// Dialect is the system whose model and evidence languages a file is
// written in. The same text can mean different things in two systems, so
// the dialect is chosen explicitly, or from constructs only it has
// (DetectDialect); the zero value is Alchemy's.
//
// Tuffy's dialect (Tuffy 0.3): in .mln files a leading "@" before a weight
// fixes the weight (it is not learned; in Alchemy's dialect "@" is
// Marple's domain-size-aware weight); "," joins the literals before "=>"
// as "^" does; a condition in brackets, "[a1 != a2 AND t < 3]", is a
// formula of comparisons joined by AND/&&, OR/||, NOT/! and parentheses
// (the clause holds for the groundings where the condition fails, which
// is what Tuffy's filter on groundings means); "<>" is "!=". Datalog
// rules "head :- body." are refused (Tuffy runs them once, in order, as
// database queries that add derived facts to the evidence). In .db files
// a leading probability is soft evidence (ScanDBDialect). Predicates
// without a leading "*" are open world (mln.Model.OpenByDefault).
//
// LoMRF's dialect: a definite clause "[w] Head(args) :- Body" (Body a
// conjunction of literals) is the formula "[w] Body => Head(args)" (hard
// when it ends with "."), and for each head predicate the clauses of a
// file add the hard completion "Head(h1,...,hn) => D1 v ... v Dk", Di
// being clause i's body with the equalities its head arguments impose and
// its other variables existentially quantified: a head atom no body
// supports is false (LoMRF's predicate completion, decomposed form).
// "t++" and "t--" are the integer successor and predecessor, t+1 and t-1.
// Predicates without evidence are open world.
//
// RockIt's dialect has its own grammar and parser (dialect_rockit.go).
// pracmln's and ProbCog's dialect: see dialect_pracmln.go.
type Dialect uint8

// The dialects.
const (
	Alchemy Dialect = iota
	Tuffy
	LoMRF
	RockIt  // dialect_rockit.go
	Pracmln // dialect_pracmln.go
)

var dialectNames = [...]string{"alchemy", "tuffy", "lomrf", "rockit", "pracmln"}

// String returns the dialect's name as the -dialect flag spells it.
func (d Dialect) String() string {
	if int(d) < len(dialectNames) {
		return dialectNames[d]
	}
	return "dialect(" + strconv.Itoa(int(d)) + ")"
}

// DialectNames lists the dialects' names.
func DialectNames() []string { return append([]string(nil), dialectNames[:]...) }

// ParseDialect returns the dialect named s (any case; "" is Alchemy's).
func ParseDialect(s string) (Dialect, error) {
	if s == "" {
		return Alchemy, nil
	}
	for i, n := range dialectNames {
		if strings.EqualFold(s, n) {
			return Dialect(i), nil
		}
	}
	return Alchemy, fmt.Errorf("unknown dialect %q (one of %s)", s, strings.Join(dialectNames[:], ", "))
}

// dialectToken scans a token that exists only in the scanner's dialect,
// and reports whether there was one at s.off.
func (s *scanner) dialectToken() (token, bool) {
	src := s.src
	start := s.off
	c := src[start]
	at := func(t string) bool { return strings.HasPrefix(string(src[start:min(len(src), start+len(t))]), t) }
	tok := func(k tokKind, n int) (token, bool) {
		s.off += n
		return s.tok(k, start, ""), true
	}
	if at(":-") && !(start+2 < len(src) && (isDigit(src[start+2]) || src[start+2] == '.')) {
		return tok(tDefine, 2) // not "w:-1.5", a utility
	}
	switch s.dialect {
	case Pracmln:
		return s.pracToken()
	case Tuffy:
		switch {
		case c == '[':
			s.brack++
			return tok(tLbrack, 1)
		case c == ']':
			s.brack--
			return tok(tRbrack, 1)
		case at("&&"):
			return tok(tAnd, 2)
		case at("||"):
			return tok(tOr, 2)
		case at("<>"):
			return tok(tNeq, 2)
		case s.brack > 0 && isIdentStart(c):
			k := start
			for k < len(src) && isIdentChar(src[k]) {
				k++
			}
			switch string(src[start:k]) {
			case "AND":
				return tok(tAnd, 3)
			case "OR":
				return tok(tOr, 2)
			case "NOT":
				return tok(tNot, 3)
			}
		}
	case RockIt:
		// The numerical extension's brackets and connectives, read so
		// that the parser can refuse its constructs at their position.
		switch {
		case c == '[':
			return tok(tLbrack, 1)
		case c == ']':
			return tok(tRbrack, 1)
		case at("&&"):
			return tok(tAnd, 2)
		case c == '&':
			return tok(tAnd, 1)
		}
	case LoMRF:
		switch {
		case at("++"):
			return tok(tInc, 2)
		case at("--"):
			return tok(tDec, 2)
		case isIdentStart(c):
			// "t--": the name without its "--" (names may contain '-').
			k := start
			for k < len(src) && isIdentChar(src[k]) {
				k++
			}
			if k-start > 2 && string(src[k-2:k]) == "--" && src[k-3] != '-' {
				s.off = k - 2
				return s.tok(tIdent, start, string(src[start:k-2])), true
			}
		}
	}
	return token{}, false
}

// fixedWeight reads Tuffy's "@" before a weight: the weight is fixed. It
// returns the token after the "@".
func (p *parser) fixedWeight(d *FormulaDecl) token {
	at := p.advance()
	t := p.cur()
	if !isNumber(t.kind) {
		p.errorAt(at, "Tuffy's '@' fixes a weight: expected a weight after it, found %s", t.describe())
	}
	d.Fixed = true
	return t
}

// dialectAnd reports whether the formula continues with a conjunction
// written in the dialect's own way (Tuffy's ",").
func (p *parser) dialectAnd() bool {
	return p.dialect == Tuffy && p.cur().kind == tComma
}

// condition parses Tuffy's "[condition]": a formula of comparisons.
func (p *parser) condition() Formula {
	open := p.advance()
	p.depth++
	f := p.formula()
	p.depth--
	p.expect(tRbrack, "']' after the condition")
	var bad *Atom
	Walk(f, func(g Formula) bool {
		if a, ok := g.(*Atom); ok && bad == nil {
			bad = a
		}
		return bad == nil
	})
	if bad != nil {
		p.errs.Add(bad.PredPos, "Tuffy's function %s in a condition has no equivalent in Marple: a condition [...] compares terms with =, !=, <>, <, <=, >, >=", bad.Pred)
		panic(bailout{})
	}
	_ = open
	return f
}

// postfix applies LoMRF's "t++" and "t--" to term x: t+1 and t-1.
func (p *parser) postfix(x Term) Term {
	for {
		t := p.cur()
		var name string
		switch t.kind {
		case tInc:
			name = "plus"
		case tDec:
			name = "minus"
		default:
			return x
		}
		p.advance()
		one := Term{TermPos: p.posOf(t), Kind: ConstTerm, Name: "1"}
		x = Term{TermPos: x.TermPos, Kind: FuncTerm, Name: name, Args: []Term{x, one}}
	}
}

// definite parses the body of a definite clause after its head (d.F) and
// makes d the formula "body => head". Tuffy's Datalog rules are refused.
func (p *parser) definite(d *FormulaDecl) {
	op := p.cur()
	if p.dialect != LoMRF {
		p.errorAt(op, "Tuffy's Datalog rules (head :- body) are not supported: Tuffy runs them once, in order, as database queries that add the derived head atoms to the evidence, which no formula expresses")
	}
	head, ok := d.F.(*Atom)
	if !ok || head.Star {
		p.errorAt(op, "the head of a definite clause must be one positive atom")
	}
	p.advance()
	p.skipNewlines()
	body := p.formula()
	if w := NestedWeight(body); w != nil {
		p.errs.Add(w.WeightPos, "the body of a definite clause has no weighted sub-formulas")
		panic(bailout{})
	}
	bad := Pos{}
	Walk(body, func(g Formula) bool {
		switch g := g.(type) {
		case *Binary:
			if g.Op != OpAnd && !bad.IsValid() {
				bad = g.OpPos
			}
		case *Quant:
			if !bad.IsValid() {
				bad = g.QuantPos
			}
		case *Not:
			if _, ok := g.X.(*Atom); !ok && !bad.IsValid() {
				if _, ok := g.X.(*Compare); !ok {
					bad = g.NotPos
				}
			}
		}
		return true
	})
	if bad.IsValid() {
		p.errs.Add(bad, "the body of a definite clause is a conjunction (^) of literals")
		panic(bailout{})
	}
	for _, t := range head.Args {
		if t.Plus {
			p.errorAt(op, "'+' in the head of a definite clause")
		}
	}
	d.F = &Binary{Op: OpImplies, OpPos: p.posOf(op), X: body, Y: head}
	d.Definite = true
}

func isHeadVar(v string, hs []string) bool {
	for _, h := range hs {
		if v == h {
			return true
		}
	}
	return false
}

// renameTerm copies a term with its variables renamed ("+" flags kept).
func renameTerm(t Term, ren map[string]string) Term {
	return substTerm(t, renaming(ren))
}

// renameFormula copies a formula with its free variables renamed ("+"
// flags kept).
func renameFormula(f Formula, ren map[string]string) Formula {
	return Substitute(f, renaming(ren))
}

// renaming is the substitution of variables by variables that ren names.
func renaming(ren map[string]string) map[string]Term {
	sub := make(map[string]Term, len(ren))
	for v, r := range ren {
		sub[v] = Term{Kind: VarTerm, Name: r}
	}
	return sub
}
