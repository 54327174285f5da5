package syntax

import (
	"math"
	"strconv"
	"strings"
)

// pracmln's and ProbCog's dialect (-dialect pracmln). Both read Alchemy's
// language with these differences, which this file implements:
//
//   - A model file is one statement per line. The weight is the line's
//     first word, a Python expression (EvalWeightExpr): log(0.9/0.1),
//     logx(0) (-100), float('inf') (the formula is hard), -float('inf')
//     (its negation is hard).
//   - Grammar: a file that writes a variable with a leading "?" (?x) is in
//     pracmln's PRACGrammar, where every other name is a constant whatever
//     its case; any other file is in its StandardGrammar, where names are
//     as in Alchemy but "v" binds tighter than "^" (a ^ b v c is
//     a ^ (b v c)). In both, "=/=" is "!=", and a quantifier's scope is
//     the parenthesized formula right after its variables
//     (EXIST y (F(y)) ^ G(x) is (EXIST y F(y)) ^ G(x)).
//   - "#fixweight" fixes the weight of the formula on the next line;
//     "#fuzzy" before a predicate declaration is read as pracmln's
//     FirstOrderLogic reads it, a Boolean predicate.
//   - "P(F) = p" is a probability constraint on formula F, which must be
//     a formula of the model: its weight is fitted so that the prior
//     probability of a grounding of F is p (ProbConstraint); "R(F) = p"
//     is soft evidence on the ground formula F (its probability given
//     the evidence is p).
//   - In .db files, domain declarations "type = {A, B}" add constants to
//     a type (RawAtom.Domain), constants may start with a lower-case
//     letter, and "0.6 P(A)" is soft evidence (RawAtom.Prior).
//
// Refused, with the reason: several databases in one file ("---"),
// "#unique", "#group", literal groups (foo|bar(x)), variables in weights
// ($w) and domSize(...), soft functional arguments (t?).

// ProbConstraint is pracmln's and ProbCog's probability constraint
// "P(F) = p" on formula F of the model (one line): the weight of F is
// fitted so that the prior probability (without evidence) of one
// grounding of F, its free variables bound to the first constants of
// their types, is p.
type ProbConstraint struct {
	PPos Pos // position of the "P"
	F    Formula
	Text string // F as written, spaces removed (how pracmln matches it to a formula)
	P    float64
	// Posterior marks "R(F) = p" (or "SE(F) = p"): soft evidence on the
	// ground formula F, whose probability given the evidence is to be p.
	Posterior bool
}

func (*ProbConstraint) decl() {}

// Pos returns the position of the "P".
func (d *ProbConstraint) Pos() Pos { return d.PPos }

// pracToken scans a token of pracmln's dialect at s.off.
func (s *scanner) pracToken() (token, bool) {
	src := s.src
	start := s.off
	c := src[start]
	if s.atLineStart() {
		end := start
		for end < len(src) && src[end] != ' ' && src[end] != '\t' && src[end] != '\n' && src[end] != '\r' {
			end++
		}
		run := string(src[start:end])
		if isWeightExprStart(run) && !strings.HasPrefix(run, "//") && !strings.HasPrefix(run, "/*") && s.moreOnLine(end) {
			v, err := EvalWeightExpr(run)
			switch {
			case err == nil:
				s.off = end
				return s.tok(tFloat, start, strconv.FormatFloat(v, 'g', -1, 64)), true
			case c != '(':
				// "(" may start a formula instead.
				s.off = end
				s.errorf(start, "weight %s: %v", run, err)
				return token{}, false
			}
		}
	}
	prevIdent := start > 0 && isIdentChar(src[start-1])
	switch {
	case c == '$':
		s.off++
		s.errorf(start, "pracmln's variables ($name) are not supported: write the value")
		return token{}, false
	case c == '?' && prevIdent && start+1 < len(src) && (src[start+1] == ',' || src[start+1] == ')'):
		s.off++
		s.errorf(start, "pracmln's soft functional argument (type?: at most one value true) is not supported")
		return token{}, false
	case c == '|' && prevIdent && start+1 < len(src) && isIdentStart(src[start+1]):
		s.off++
		s.errorf(start, "pracmln's literal groups (foo|bar(x), one formula per predicate) are not supported: write the formulas out")
		return token{}, false
	case c == '=' && start+2 < len(src) && src[start+1] == '/' && src[start+2] == '=':
		s.off += 3
		return s.tok(tNeq, start, ""), true
	case c == '?' && start+1 < len(src) && isIdentStart(src[start+1]), s.prac && isIdentStart(c):
		k := start + 1
		for k < len(src) && (isIdentChar(src[k]) || s.prac && s.isPracChar(k)) {
			k++
		}
		s.off = k
		return s.tok(tIdent, start, string(src[start:k])), true
	case c == '#' && !strings.HasPrefix(string(src[start+1:min(len(src), start+8)]), "include"):
		k := start + 1
		for k < len(src) && isIdentChar(src[k]) {
			k++
		}
		if k == start+1 {
			return token{}, false
		}
		// A directive: the rest of its line goes with it.
		e := k
		for e < len(src) && src[e] != '\n' {
			e++
		}
		s.off = e
		return s.tok(tIdent, start, string(src[start:k])), true
	}
	return token{}, false
}

// atLineStart reports whether only blanks precede s.off on its line.
func (s *scanner) atLineStart() bool {
	for k := s.off - 1; k >= s.lineStart; k-- {
		if c := s.src[k]; c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// moreOnLine reports whether something other than blanks and a comment
// follows offset k on its line.
func (s *scanner) moreOnLine(k int) bool {
	src := s.src
	for k < len(src) && (src[k] == ' ' || src[k] == '\t' || src[k] == '\r') {
		k++
	}
	return k < len(src) && src[k] != '\n' && !(src[k] == '/' && k+1 < len(src) && src[k+1] == '/')
}

// pracSetup looks for the marker of pracmln's PRACGrammar, a variable
// written with "?" (outside comments).
func (s *scanner) pracSetup() {
	if s.dialect != Pracmln {
		return
	}
	src := s.src
	for k := 0; k+1 < len(src); k++ {
		switch {
		case src[k] == '/' && src[k+1] == '/':
			for k < len(src) && src[k] != '\n' {
				k++
			}
		case src[k] == '/' && src[k+1] == '*':
			e := strings.Index(string(src[k+2:]), "*/")
			if e < 0 {
				return
			}
			k += e + 3
		case src[k] == '?' && isIdentStart(src[k+1]):
			s.prac = true
			return
		}
	}
}

// isPracChar reports whether c continues a name in pracmln's PRACGrammar
// at offset k: Alchemy's name characters and . : ; $ ~ \ ! /, except a
// '.' that ends its line (a hard formula's), a "!" before no name
// character and a "//" comment.
func (s *scanner) isPracChar(k int) bool {
	src := s.src
	c := src[k]
	switch c {
	case ':', ';', '$', '~', '\\':
		return true
	case '!':
		// Not the "!" of a declaration's argument (state(t, st!)).
		return k+1 < len(src) && isIdentChar(src[k+1])
	case '/':
		return !(k+1 < len(src) && (src[k+1] == '/' || src[k+1] == '*'))
	case '.':
		return s.moreOnLine(k + 1)
	}
	return isIdentChar(c)
}

// isVar reports whether an identifier in a term is a variable: in
// PRACGrammar only "?x"; otherwise a name starting with a lower-case
// letter.
func (p *parser) isVar(name string) bool {
	if p.prac {
		return len(name) > 1 && name[0] == '?'
	}
	return isVarName(name)
}

// standardGrammar reports whether "v" binds tighter than "^", as in
// pracmln's StandardGrammar.
func (p *parser) standardGrammar() bool { return p.dialect == Pracmln && !p.prac }

// pracStatement parses the statements only pracmln's dialect has; it
// reports false when the statement is not one of them.
func (p *parser) pracStatement() (Decl, bool) {
	t := p.cur()
	if t.kind != tIdent {
		return nil, false
	}
	if t.text[0] == '#' {
		p.advance()
		switch t.text {
		case "#fixweight":
			p.fixNext = true
		case "#fuzzy":
			// pracmln's FirstOrderLogic reads a fuzzy predicate as a
			// Boolean one (it warns); its truth degrees in a .db file
			// are refused there.
		case "#unique":
			p.errorAt(t, "pracmln's #unique (expanding a template only into combinations that differ up to order) is not supported: write the formulas out")
		case "#group":
			p.errorAt(t, "pracmln's formula groups (#group, // <group>) are not supported")
		default:
			p.errorAt(t, "unknown directive %s in pracmln's dialect (known: #include, #fixweight, #fuzzy)", t.text)
		}
		return nil, true
	}
	if (t.text == "P" || t.text == "R" || t.text == "SE") && p.peek(1).kind == tLparen && p.probLine() {
		p.advance()
		p.expect(tLparen, "'('")
		p.depth++
		from := p.i
		f := p.formula()
		text := p.tokText(from, p.i)
		p.depth--
		p.expect(tRparen, "')' after the formula of P(...)")
		p.expect(tEq, "'=' after P(...)")
		n := p.cur()
		if !isNumber(n.kind) {
			p.errorAt(n, "expected a probability after P(...) =, found %s", n.describe())
		}
		v, err := strconv.ParseFloat(n.text, 64)
		if err != nil || !(v >= 0 && v <= 1) {
			p.errorAt(n, "probability %s is not in [0,1]", n.text)
		}
		if v == 0 || v == 1 {
			p.errorAt(n, "probability constraint %s: a probability of 0 or 1 has no finite weight (write the formula hard)", n.text)
		}
		p.advance()
		return &ProbConstraint{PPos: p.posOf(t), F: f, Text: text, P: v, Posterior: t.text != "P"}, true
	}
	return nil, false
}

// probLine reports whether the line from the current token on reads
// "P(...) = number", a probability constraint.
func (p *parser) probLine() bool {
	depth := 0
	for j := p.i + 1; j < len(p.toks); j++ {
		switch p.toks[j].kind {
		case tLparen:
			depth++
		case tRparen:
			depth--
			if depth == 0 {
				return p.toks[j+1].kind == tEq
			}
		case tNewline, tEOF:
			return false
		}
	}
	return false
}

// tokText spells tokens [from, to) without spaces, as pracmln matches a
// constraint's formula to the model's formulas.
func (p *parser) tokText(from, to int) string {
	var b strings.Builder
	for _, t := range p.toks[from:to] {
		if t.text != "" {
			b.WriteString(t.text)
		} else if int(t.kind) < len(tokNames) {
			b.WriteString(strings.Trim(tokNames[t.kind], "'"))
		}
	}
	return b.String()
}

// pracWeight applies what pracmln's dialect adds before a formula: a fixed
// weight ("#fixweight" on the line before) and an infinite weight,
// +inf (hard) or -inf (the negation is hard). It reports true when it
// parsed the whole formula.
func (p *parser) pracWeight(d *FormulaDecl) bool {
	if p.fixNext {
		p.fixNext = false
		d.Fixed = true
	}
	t := p.cur()
	if t.kind != tFloat {
		return false
	}
	w, err := strconv.ParseFloat(t.text, 64)
	if err != nil || !math.IsInf(w, 0) {
		return false
	}
	p.advance()
	d.F = p.formula()
	if c := p.cur(); c.kind == tDot {
		p.errorAt(c, "a formula with an infinite weight is hard already: no '.' after it")
	}
	if w < 0 {
		d.F = &Not{NotPos: p.posOf(t), X: d.F}
	}
	d.Hard, d.Dot, d.Fixed = true, p.posOf(t), false
	return true
}

// quantBody parses the scope of a quantifier in pracmln's dialect: the
// parenthesized formula after its variables.
func (p *parser) quantBody() Formula {
	if t := p.cur(); t.kind != tLparen {
		p.errorAt(t, "pracmln's quantifier takes its formula in parentheses: EXIST x (F), found %s", t.describe())
	}
	return p.primary()
}

// pracDBLine reads what only pracmln's .db files have at the start of a
// line: a domain declaration "type = {A, B}" (into d.atom with Domain
// set). It reports done when the line was one (ok false after an error).
func (d *dbScanner) pracDBLine() (ok, done bool) {
	src := d.src
	a := &d.atom
	a.Domain = false
	start := d.i
	c := src[start]
	if c == '-' && strings.HasPrefix(string(src[start:min(len(src), start+3)]), "---") {
		d.errorf(start, "several databases in one file (---) are not supported: give each its own .db file")
		return false, true
	}
	if isDigit(c) || c == '.' || (c == '-' || c == '+') && start+1 < len(src) && (isDigit(src[start+1]) || src[start+1] == '.') {
		// Soft evidence "0.6 P(A)": the probability is read as Tuffy's is
		// (RawAtom.Prior); the model gives it pracmln's meaning.
		return d.prior(), false
	}
	if !isIdentStart(c) {
		return true, false
	}
	k := start
	for k < len(src) && isIdentChar(src[k]) {
		k++
	}
	e := k
	for e < len(src) && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	if e >= len(src) || src[e] != '=' || e+1 < len(src) && src[e+1] == '/' {
		return true, false
	}
	a.Pos = Pos{File: d.file, Line: d.line, Col: start - d.lineStart + 1}
	a.PredCol = a.Pos.Col
	a.Pred = src[start:k]
	a.Args = a.Args[:0]
	a.argPos = a.argPos[:0]
	a.Value, a.Func, a.HasReal, a.HasPrior = ValTrue, false, false, false
	d.i = e + 1
	d.skipSpace(false)
	if d.i >= len(src) || src[d.i] != '{' {
		d.errorf(d.i, "expected '{' in the domain declaration of %s, found %s", a.Pred, d.describe(d.i))
		return false, true
	}
	d.i++
	for {
		d.skipSpace(true)
		if d.i < len(src) && src[d.i] == '}' && len(a.Args) == 0 {
			d.i++
			break
		}
		col := d.i - d.lineStart + 1
		name := d.name()
		if name == nil {
			d.errorf(d.i, "expected a constant in the domain of %s, found %s", a.Pred, d.describe(d.i))
			return false, true
		}
		a.Args = append(a.Args, name)
		a.argPos = append(a.argPos, Pos{File: d.file, Line: d.line, Col: col})
		d.skipSpace(true)
		if d.i < len(src) && src[d.i] == ',' {
			d.i++
			continue
		}
		if d.i < len(src) && src[d.i] == '}' {
			d.i++
			break
		}
		d.errorf(d.i, "expected ',' or '}' in the domain of %s, found %s", a.Pred, d.describe(d.i))
		return false, true
	}
	d.skipSpace(false)
	if d.i < len(src) && src[d.i] != '\n' {
		d.errorf(d.i, "unexpected %s after the domain declaration of %s", d.describe(d.i), a.Pred)
		return false, true
	}
	a.Domain = true
	return true, true
}

// FormulaStringPracmln prints f so that pracmln's dialect reads it back
// the same in both of its grammars: every operand that is a connective
// in parentheses (StandardGrammar and PRACGrammar disagree on "^" and
// "v"), quantifier scopes in parentheses, "=/=" for "!=".
func FormulaStringPracmln(f Formula) string {
	var b strings.Builder
	writePrac(&b, f, false)
	return b.String()
}

func writePrac(b *strings.Builder, f Formula, operand bool) {
	switch f := f.(type) {
	case *Binary:
		if operand {
			b.WriteByte('(')
		}
		writePrac(b, f.X, true)
		b.WriteByte(' ')
		b.WriteString(f.Op.String())
		b.WriteByte(' ')
		writePrac(b, f.Y, true)
		if operand {
			b.WriteByte(')')
		}
	case *Not:
		b.WriteByte('!')
		if _, ok := f.X.(*Atom); ok {
			writePrac(b, f.X, true)
			return
		}
		b.WriteByte('(')
		writePrac(b, f.X, false)
		b.WriteByte(')')
	case *Quant:
		if operand {
			b.WriteByte('(')
		}
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
		b.WriteString(" (")
		writePrac(b, f.Body, false)
		b.WriteByte(')')
		if operand {
			b.WriteByte(')')
		}
	case *Compare:
		if operand {
			b.WriteByte('(')
		}
		writeTerm(b, f.X)
		if f.Op == CmpNe {
			b.WriteString(" =/= ")
		} else {
			b.WriteString(" " + f.Op.String() + " ")
		}
		writeTerm(b, f.Y)
		if operand {
			b.WriteByte(')')
		}
	default:
		writeFormula(b, f)
	}
}
