package syntax

import (
	"math"
	"strconv"
	"strings"
)

// Config controls the parsing of a .mln file.
type Config struct {
	// Known holds the predicates (and functions) met before this file, by
	// earlier files. The parser adds every predicate it meets. Nil means
	// none.
	Known Known
	// Include, if set, is called for each #include directive as soon as it
	// is parsed (so that the included declarations are known to the rest of
	// the file); it sets inc.File or reports its own errors.
	Include func(inc *Include)
	// Dialect is the system whose language the file is written in
	// (dialect.go); the zero value is Alchemy's.
	Dialect Dialect
}

// Known records the predicate and function names met so far, with the
// argument types of predicate declarations (nil for a name only used in
// formulas, and for functions). A bare atom "P(a, b)" whose arguments are
// plain names declares P if P is not known yet, or if P was declared with
// exactly these types (a harmless redeclaration) or with another number of
// arguments (a conflicting redeclaration); otherwise it is a unit formula.
type Known map[string][]string

// ParseMLN parses a .mln model file. It returns the file (possibly partial)
// and, if there were syntax errors, an ErrorList sorted by position.
// #include directives are recorded but not resolved (see mln.LoadModel).
//
// The language is Alchemy's, one statement per line:
//
//	// comment, /* block comment */
//	#include "other.mln"
//	person = {Anna, Bob, "Quoted Name"}    type declaration (braces may span lines)
//	int = {1, ..., 10}                     integer range
//	Friends(person, person)                predicate declaration (first appearance)
//	HasColor(thing, color!)                "!": exactly one color per thing
//	*Next(position, position)              Tuffy: closed-world predicate
//	person motherOf(person)                function declaration (recorded only)
//	1.5 Smokes(x) => Cancer(x)             weighted formula (weight: float, may be negative)
//	Friends(x, y) ^ x != y => Friends(y, x).   hard formula (trailing ".")
//	EXIST y Friends(x, y)                  quantifiers: EXIST, FORALL (any case), scope to the right
//	!Token(+w, i, c) v InField(c, +f, i)   "+": one weight per constant of w and f
//	*InPhase(s, Pre) v *InPhase(s, Post)   "*": one formula per sign combination
//
// Connectives, tightest first: "!", "^", "v" (or "|"), "=>", "<=>";
// comparisons "=", "!=", "<", "<=", ">", ">=" between terms. Variables start
// with a lower-case letter; constants with an upper-case letter or a digit,
// or are "quoted strings". A formula continues on the next line inside
// parentheses, after a binary connective at the end of a line, or when the
// next line starts with one.
func ParseMLN(filename string, src []byte) (*File, error) {
	return ParseMLNConfig(filename, src, nil)
}

// ParseMLNConfig is ParseMLN with a configuration (cfg may be nil).
func ParseMLNConfig(filename string, src []byte, cfg *Config) (*File, error) {
	var errs ErrorList
	s := newScanner(filename, src, &errs)
	s.skipBOM()
	if cfg != nil {
		s.dialect = cfg.Dialect
	}
	s.pracSetup()
	p := &parser{file: filename, toks: s.scanAll(), errs: &errs, dialect: s.dialect, prac: s.prac}
	if cfg != nil {
		p.onInclude = cfg.Include
	}
	if cfg != nil && cfg.Known != nil {
		p.known = cfg.Known
	} else {
		p.known = make(Known)
	}
	f := &File{Name: filename}
	if p.dialect == RockIt {
		p.rockitFile(f)
	} else {
		p.parseFile(f)
	}
	errs.Sort()
	return f, errs.Err()
}

// ParseFormula parses a single formula statement ("[weight] formula [.]")
// given the predicates already declared (known may be nil). It is meant for
// programs that build formulas from text.
func ParseFormula(filename string, src string, known Known) (*FormulaDecl, error) {
	var errs ErrorList
	s := newScanner(filename, []byte(src), &errs)
	s.skipBOM()
	p := &parser{file: filename, toks: s.scanAll(), errs: &errs, known: known}
	if p.known == nil {
		p.known = Known{}
	}
	var d *FormulaDecl
	func() {
		defer p.recoverBailout()
		p.skipNewlines()
		if p.cur().kind == tEOF {
			p.errorAt(p.cur(), "expected a formula")
		}
		d = p.formulaDecl()
		p.skipNewlines()
		if t := p.cur(); t.kind != tEOF {
			p.errorAt(t, "unexpected %s after formula", t.describe())
		}
	}()
	errs.Sort()
	if len(errs) > 0 {
		return nil, errs
	}
	return d, nil
}

type parser struct {
	file  string
	toks  []token
	i     int
	depth int // parenthesis/brace nesting: newlines are skipped inside
	errs  *ErrorList
	known Known
	nest  int // formula nesting depth, bounded to keep the stack small
	conns int // binary connectives in the current formula statement

	onInclude func(inc *Include)

	dialect Dialect
	prac    bool // pracmln's PRACGrammar (dialect_pracmln.go)
	fixNext bool // pracmln's #fixweight applies to the next formula
}

// maxNesting bounds the nesting of formulas.
const maxNesting = 2000

// MaxConnectives bounds the binary connectives of one formula statement
// (a longer formula is refused with an error at the first connective past
// the bound). Chains of one connective are parsed iteratively, so the
// bound is about the size of what later stages build, not the stack.
const MaxConnectives = 1 << 20

// MaxRange is the most constants an integer range {lo,...,hi} may
// declare beyond its first; a larger one is an error at its upper bound.
var MaxRange = 10_000_000

// bailout is panicked to abandon the current statement after an error.
type bailout struct{}

func (p *parser) recoverBailout() {
	if r := recover(); r != nil {
		if _, ok := r.(bailout); !ok {
			panic(r)
		}
	}
}

func (p *parser) posOf(t token) Pos {
	return Pos{File: p.file, Line: int(t.line), Col: int(t.col)}
}

func (p *parser) errorAt(t token, format string, args ...any) {
	p.errs.Add(p.posOf(t), format, args...)
	panic(bailout{})
}

// cur returns the current token, skipping newlines inside brackets.
func (p *parser) cur() token {
	for p.depth > 0 && p.toks[p.i].kind == tNewline {
		p.i++
	}
	return p.toks[p.i]
}

// peek returns the token k positions after the current one (newlines
// count as tokens unless inside brackets).
func (p *parser) peek(k int) token {
	p.cur()
	j := p.i
	for ; k > 0; k-- {
		if p.toks[j].kind == tEOF {
			break
		}
		j++
		for p.depth > 0 && p.toks[j].kind == tNewline {
			j++
		}
	}
	return p.toks[j]
}

func (p *parser) advance() token {
	t := p.cur()
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) expect(k tokKind, what string) token {
	t := p.cur()
	if t.kind != k {
		p.errorAt(t, "expected %s, found %s", what, t.describe())
	}
	p.i++
	return t
}

func (p *parser) skipNewlines() {
	for p.toks[p.i].kind == tNewline {
		p.i++
	}
}

// parseFile parses statements until the end of the file, recovering from
// errors at line ends.
func (p *parser) parseFile(f *File) {
	const maxErrors = 100
	for {
		p.depth = 0
		p.skipNewlines()
		if p.toks[p.i].kind == tEOF || len(*p.errs) >= maxErrors {
			return
		}
		start := p.i
		d := p.statement()
		if d != nil {
			f.Decls = append(f.Decls, d)
			continue
		}
		// Error: skip to the end of the line.
		p.depth = 0
		if name := p.abandonedPred(start); name != "" {
			if f.Abandoned == nil {
				f.Abandoned = map[string]bool{}
			}
			f.Abandoned[name] = true
		}
		if p.i == start {
			p.i++
		}
		for p.toks[p.i].kind != tNewline && p.toks[p.i].kind != tEOF {
			p.i++
		}
	}
}

// abandonedPred returns the predicate name a statement starting at token
// start begins with ("Name(" or "*Name("), if that name is not declared:
// the statement had a syntax error, and may have been meant to declare it.
func (p *parser) abandonedPred(start int) string {
	j := start
	if p.toks[j].kind == tStar {
		j++
	}
	if p.toks[j].kind != tIdent || p.toks[j+1].kind != tLparen {
		return ""
	}
	if p.known[p.toks[j].text] != nil {
		return ""
	}
	return p.toks[j].text
}

func (p *parser) statement() (d Decl) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			// The statement is abandoned, even if it had parsed before an
			// error at its end: the caller skips the rest of its line
			// (rather than parsing it as a further statement).
			d = nil
		}
	}()
	t := p.cur()
	if p.dialect == Pracmln {
		if pd, ok := p.pracStatement(); ok {
			d = pd
			p.endStatement()
			return d
		}
	}
	switch {
	case t.kind == tInclude:
		d = p.include()
	case t.kind == tIdent && p.peek(1).kind == tEq && p.peek(2).kind == tLbrace:
		d = p.typeDecl()
	case t.kind == tIdent && !isQuantifier(t.text) && !isNonFinite(t.text) && !isHexNumber(t.text) && p.peek(1).kind == tIdent && p.peek(2).kind == tLparen:
		d = p.funcDecl()
	case t.kind == tIdent && p.peek(1).kind == tLparen && p.isDecl(t.text, 2):
		d = p.predDecl()
	case t.kind == tStar && p.peek(1).kind == tIdent && p.peek(2).kind == tLparen && p.isDecl(p.peek(1).text, 3):
		d = p.predDecl()
	default:
		d = p.formulaOrHybrid()
	}
	p.endStatement()
	return d
}

// endStatement requires the end of a line (or of the file).
func (p *parser) endStatement() {
	p.depth = 0
	t := p.cur()
	if t.kind != tNewline && t.kind != tEOF {
		p.errorAt(t, "unexpected %s at end of statement", t.describe())
	}
}

// isDecl reports whether the statement is a declaration of predicate name
// whose argument list starts at token k: the arguments are plain names
// ("ident[!], ...") followed by the end of the line, and name is not known
// yet, or declared with exactly these argument types, or declared with
// another number of arguments (a conflict reported by the model builder).
func (p *parser) isDecl(name string, k int) bool {
	args := p.declArgNames(k)
	if args == nil {
		return false
	}
	old, ok := p.known[name]
	if !ok {
		return true
	}
	if old == nil {
		return false
	}
	if len(old) != len(args) {
		// Not a valid unit formula: a conflicting redeclaration, which
		// the model builder reports.
		return true
	}
	for i := range old {
		if old[i] != args[i] {
			return false
		}
	}
	return true
}

// declArgNames returns the argument names if the tokens from k on look
// like the argument list of a declaration, and nil otherwise.
func (p *parser) declArgNames(k int) []string {
	j := p.i + k
	skip := func() {
		for p.toks[j].kind == tNewline {
			j++
		}
	}
	var names []string
	for {
		skip()
		if p.toks[j].kind != tIdent {
			return nil
		}
		names = append(names, p.toks[j].text)
		j++
		skip()
		if p.toks[j].kind == tNot {
			j++
			skip()
		}
		switch p.toks[j].kind {
		case tComma:
			j++
			continue
		case tRparen:
			j++
			if k := p.toks[j].kind; k == tNewline || k == tEOF {
				return names
			}
		}
		return nil
	}
}

func isQuantifier(s string) bool {
	switch strings.ToLower(s) {
	case "exist", "exists", "forall":
		return true
	}
	return false
}

func (p *parser) ident() Ident {
	t := p.expect(tIdent, "a name")
	return Ident{NamePos: p.posOf(t), Name: t.text}
}

func (p *parser) include() Decl {
	t := p.advance()
	s := p.expect(tString, "a quoted file name after #include")
	path, err := strconv.Unquote(s.text)
	if err != nil {
		path = strings.Trim(s.text, "\"")
	}
	inc := &Include{IncludePos: p.posOf(t), Path: path}
	p.endStatement()
	if p.onInclude != nil {
		p.onInclude(inc)
	}
	return inc
}

func (p *parser) typeDecl() Decl {
	d := &TypeDecl{Name: p.ident()}
	p.expect(tEq, "'='")
	p.expect(tLbrace, "'{'")
	p.depth++
	if p.cur().kind == tRbrace {
		p.advance()
		p.depth--
		return d
	}
	for {
		t := p.cur()
		switch t.kind {
		case tIdent, tInt, tString, tFloat:
			p.advance()
			d.Consts = append(d.Consts, Ident{NamePos: p.posOf(t), Name: t.text})
		case tEllipsis:
			// {lo, ..., hi}: an integer range.
			if len(d.Consts) != 1 || d.IsRange {
				p.errorAt(t, "'...' must follow the first integer of a range {lo,...,hi}")
			}
			lo, err := strconv.Atoi(d.Consts[0].Name)
			if err != nil {
				p.errorAt(t, "range {lo,...,hi} needs integer bounds, found %s", d.Consts[0].Name)
			}
			p.advance()
			if p.cur().kind == tComma {
				p.advance()
			}
			h := p.expect(tInt, "the integer upper bound of the range")
			hi, err := strconv.Atoi(h.text)
			if err != nil {
				p.errorAt(h, "bad integer %s", h.text)
			}
			if hi < lo {
				p.errorAt(h, "empty range {%d,...,%d}", lo, hi)
			}
			if hi-lo > MaxRange {
				p.errorAt(h, "range {%d,...,%d} is too large", lo, hi)
			}
			d.IsRange, d.Lo, d.Hi, d.Consts = true, lo, hi, nil
			p.depth--
			p.expect(tRbrace, "'}' after the range")
			return d
		default:
			p.errorAt(t, "expected a constant in the domain of %s, found %s", d.Name.Name, t.describe())
		}
		t = p.cur()
		if t.kind == tComma {
			p.advance()
			continue
		}
		if t.kind == tRbrace {
			p.depth--
			p.advance()
			return d
		}
		p.errorAt(t, "expected ',' or '}' in the domain of %s, found %s", d.Name.Name, t.describe())
	}
}

func (p *parser) declArgs() []ArgDecl {
	p.expect(tLparen, "'('")
	p.depth++
	var args []ArgDecl
	for {
		a := ArgDecl{Type: p.ident()}
		if p.cur().kind == tNot {
			p.advance()
			a.Unique = true
		}
		args = append(args, a)
		t := p.cur()
		if t.kind == tComma {
			p.advance()
			continue
		}
		p.depth--
		p.expect(tRparen, "',' or ')'")
		return args
	}
}

func (p *parser) predDecl() Decl {
	d := &PredDecl{}
	if t := p.cur(); t.kind == tStar {
		p.advance()
		d.Star, d.Closed = p.posOf(t), true
	}
	d.Name = p.ident()
	d.Args = p.declArgs()
	names := make([]string, len(d.Args))
	for i, a := range d.Args {
		names[i] = a.Type.Name
	}
	p.known[d.Name.Name] = names
	return d
}

func (p *parser) funcDecl() Decl {
	d := &FuncDecl{Ret: p.ident(), Name: p.ident()}
	d.Args = p.declArgs()
	p.known[d.Name.Name] = nil
	return d
}

func isNumber(k tokKind) bool { return k == tInt || k == tFloat }

func isCmp(k tokKind) bool {
	switch k {
	case tEq, tNeq, tLt, tLe, tGt, tGe:
		return true
	}
	return false
}

func (p *parser) formulaDecl() *FormulaDecl {
	t := p.cur()
	d := &FormulaDecl{StartPos: p.posOf(t)}
	p.conns = 0
	if p.dialect == Pracmln && p.pracWeight(d) {
		return d
	}
	if t.kind == tAt && p.dialect == Tuffy {
		t = p.fixedWeight(d)
	}
	if t.kind == tAt {
		d.DomainScaled = true
		p.advance()
		t = p.cur()
		if k := t.kind; k == tNewline || k == tEOF {
			p.errorAt(t, "expected a weight or a formula after '@'")
		}
	}
	if t.kind == tIdent && isNonFinite(t.text) && p.startsFormula(p.peek(1)) {
		p.errorAt(t, "weight %s is not a finite number", t.text)
	}
	if t.kind == tIdent && isHexNumber(t.text) && p.startsFormula(p.peek(1)) {
		p.errorAt(t, "weight %s is a hexadecimal number: write weights in decimal, as Alchemy reads them", t.text)
	}
	if isNumber(t.kind) && !isCmp(p.peek(1).kind) {
		w, err := strconv.ParseFloat(t.text, 64)
		if err != nil || math.IsInf(w, 0) || math.IsNaN(w) {
			p.errorAt(t, "weight %s is not a finite number", t.text)
		}
		p.advance()
		d.Weight, d.HasWeight = w, true
		if k := p.cur().kind; k == tNewline || k == tEOF {
			p.errorAt(p.cur(), "expected a formula after the weight")
		}
	}
	p.utility(d) // ":u", utility.go
	d.F = p.formula()
	if p.cur().kind == tDefine {
		p.definite(d)
	}
	if t := p.cur(); t.kind == tDot {
		p.advance()
		d.Hard, d.Dot = true, p.posOf(t)
	}
	return d
}

// isHexNumber reports whether an identifier spells a hexadecimal number
// (0x1F, 0x1p3): the scanner reads it as an identifier (a constant), and
// it is refused as a weight.
func isHexNumber(s string) bool {
	if len(s) < 3 || s[0] != '0' || s[1] != 'x' && s[1] != 'X' {
		return false
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return true
	}
	_, err := strconv.ParseUint(s[2:], 16, 64)
	return err == nil
}

// isNonFinite reports whether an identifier spells a non-finite number
// (nan, inf, infinity, any case, with a sign).
func isNonFinite(s string) bool {
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case "nan", "inf", "infinity":
		return true
	}
	return false
}

// startsFormula reports whether token t can start a formula (so that a
// name before it was meant as a weight).
func (p *parser) startsFormula(t token) bool {
	switch t.kind {
	case tIdent, tNot, tStar, tColon:
		return true
	}
	return false
}

// connective counts a binary connective of the current formula and
// refuses the formula past MaxConnectives.
func (p *parser) connective(op token) {
	p.conns++
	if p.conns > MaxConnectives {
		p.errorAt(op, "formula too long: more than %d connectives", MaxConnectives)
	}
}

// formula parses a formula at the loosest precedence (<=>).
func (p *parser) formula() Formula {
	x := p.implies()
	xs := []Formula{x}
	for p.continues(tIff) {
		op := p.advance()
		p.connective(op)
		p.skipNewlines()
		y := p.implies()
		xs = append(xs, y)
		x = &Binary{Op: OpIff, OpPos: p.posOf(op), X: x, Y: y}
	}
	p.checkWeightedChain(OpIff, xs)
	return x
}

// implies parses a chain "a => b => c", which associates to the right,
// iteratively (a long chain must not deepen the stack).
func (p *parser) implies() Formula {
	xs := []Formula{p.looser()}
	var ops []token
	for p.continues(tImplies) {
		op := p.advance()
		p.connective(op)
		p.skipNewlines()
		ops = append(ops, op)
		xs = append(xs, p.looser())
	}
	p.checkWeightedChain(OpImplies, xs)
	x := xs[len(xs)-1]
	for i := len(ops) - 1; i >= 0; i-- {
		x = &Binary{Op: OpImplies, OpPos: p.posOf(ops[i]), X: xs[i], Y: x}
	}
	return x
}

// looser parses a chain of the looser of "^" and "v": "v" (Alchemy's
// precedence) or, in pracmln's StandardGrammar, "^".
func (p *parser) looser() Formula {
	if p.standardGrammar() {
		return p.and()
	}
	return p.or()
}

func (p *parser) or() Formula {
	x := p.orOperand()
	xs := []Formula{x}
	for p.continues(tOr) {
		op := p.advance()
		p.connective(op)
		p.skipNewlines()
		y := p.orOperand()
		xs = append(xs, y)
		x = &Binary{Op: OpOr, OpPos: p.posOf(op), X: x, Y: y}
	}
	p.checkWeightedChain(OpOr, xs)
	return x
}

func (p *parser) orOperand() Formula {
	if p.standardGrammar() {
		return p.unary()
	}
	return p.and()
}

func (p *parser) andOperand() Formula {
	if p.standardGrammar() {
		return p.or()
	}
	return p.unary()
}

func (p *parser) and() Formula {
	x := p.andOperand()
	xs := []Formula{x}
	for p.continues(tAnd) || p.dialectAnd() {
		op := p.advance()
		p.connective(op)
		p.skipNewlines()
		y := p.andOperand()
		xs = append(xs, y)
		x = &Binary{Op: OpAnd, OpPos: p.posOf(op), X: x, Y: y}
	}
	p.checkWeightedChain(OpAnd, xs)
	return x
}

// isOp reports whether token t, following an operand, is the connective k
// ("v" counts as "|"). At the start of a continuation line (lineStart),
// "v" followed by "(" or a comparison is not taken as a connective.
func (p *parser) isOp(t token, next token, k tokKind, lineStart bool) bool {
	if t.kind == k {
		return true
	}
	if k != tOr || t.kind != tIdent || t.text != "v" {
		return false
	}
	return !lineStart || next.kind != tLparen && !isCmp(next.kind)
}

// continues reports whether the formula continues with connective k,
// either on this line or at the start of the next line (in which case
// the newlines are skipped).
func (p *parser) continues(k tokKind) bool {
	t := p.cur()
	if p.isOp(t, p.peek(1), k, false) {
		return true
	}
	if t.kind != tNewline {
		return false
	}
	j := p.i
	for p.toks[j].kind == tNewline {
		j++
	}
	if p.isOp(p.toks[j], p.toks[min(j+1, len(p.toks)-1)], k, true) {
		p.i = j
		return true
	}
	return false
}

func (p *parser) unary() Formula {
	t := p.cur()
	p.nest++
	defer func() { p.nest-- }()
	if p.nest > maxNesting {
		p.errorAt(t, "formula nested too deeply")
	}
	switch {
	case p.weightAhead():
		return p.weighted()
	case t.kind == tNot:
		p.advance()
		p.skipNewlines()
		return &Not{NotPos: p.posOf(t), X: p.unary()}
	case t.kind == tIdent && isQuantifier(t.text) && p.peek(1).kind == tIdent:
		p.advance()
		q := &Quant{QuantPos: p.posOf(t), Exist: strings.ToLower(t.text) != "forall"}
		for {
			v := p.ident()
			if !p.isVar(v.Name) {
				p.errs.Add(v.NamePos, "quantified variable %s must start with a lower-case letter", v.Name)
				panic(bailout{})
			}
			q.Vars = append(q.Vars, v)
			if p.cur().kind != tComma {
				break
			}
			p.advance()
			p.skipNewlines()
		}
		p.skipNewlines()
		if p.dialect == Pracmln {
			q.Body = p.quantBody()
			return q
		}
		q.Body = p.formula()
		return q
	}
	return p.primary()
}

func (p *parser) primary() Formula {
	t := p.cur()
	switch t.kind {
	case tLparen:
		p.advance()
		p.depth++
		f := p.formula()
		p.depth--
		p.expect(tRparen, "')'")
		return f
	case tStar:
		p.advance()
		n := p.cur()
		if n.kind != tIdent || p.peek(1).kind != tLparen {
			p.errorAt(n, "expected an atom after '*', found %s", n.describe())
		}
		a := p.atom()
		a.AtomPos, a.Star = p.posOf(t), true
		return a
	case tIdent:
		if p.peek(1).kind == tLparen {
			_, wasKnown := p.known[t.text]
			a := p.atom()
			if isCmp(p.cur().kind) {
				if !wasKnown {
					delete(p.known, t.text)
				}
				// A function term compared with something: min(x,y) <= z.
				x := Term{TermPos: a.PredPos, Kind: FuncTerm, Name: a.Pred, Args: a.Args}
				return p.compare(x)
			}
			return a
		}
		fallthrough
	case tInt, tFloat, tString, tPlus:
		x := p.term()
		if !isCmp(p.cur().kind) {
			if t.kind == tIdent && x.Kind == ConstTerm && x.TermPos == p.posOf(t) && isUpper(t.text[0]) {
				p.errorAt(t, "%s", zeroArity(t.text))
			}
			p.errorAt(p.cur(), "expected a comparison operator after term %s, found %s", x.Name, p.cur().describe())
		}
		return p.compare(x)
	}
	if t.kind == tLbrack {
		return p.condition()
	}
	p.errorAt(t, "expected a formula, found %s", t.describe())
	return nil
}

func (p *parser) compare(x Term) Formula {
	op := p.advance()
	var c CmpOp
	switch op.kind {
	case tEq:
		c = CmpEq
	case tNeq:
		c = CmpNe
	case tLt:
		c = CmpLt
	case tLe:
		c = CmpLe
	case tGt:
		c = CmpGt
	case tGe:
		c = CmpGe
	}
	y := p.term()
	return &Compare{Op: c, OpPos: p.posOf(op), X: x, Y: y}
}

// zeroArity is the error for a predicate written without arguments.
func zeroArity(name string) string {
	return "0-arity predicates are not supported: declare " + name + "(t) with a one-constant type t = {T} and write " + name + "(T)"
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

func (p *parser) atom() *Atom {
	name := p.advance()
	if p.cur().kind == tLparen && p.peek(1).kind == tRparen && !isCmp(p.peek(2).kind) {
		p.errorAt(name, "%s", zeroArity(name.text))
	}
	a := &Atom{AtomPos: p.posOf(name), Pred: name.text, PredPos: p.posOf(name)}
	if _, ok := p.known[name.text]; !ok {
		p.known[name.text] = nil
	}
	a.Args = p.termList()
	return a
}

func (p *parser) termList() []Term {
	p.nest++
	defer func() { p.nest-- }()
	if p.nest > maxNesting {
		p.errorAt(p.cur(), "term nested too deeply")
	}
	p.expect(tLparen, "'('")
	p.depth++
	var args []Term
	if p.cur().kind == tRparen {
		p.errorAt(p.cur(), "expected an argument, found ')'")
	}
	for {
		args = append(args, p.term())
		t := p.cur()
		if t.kind == tComma {
			p.advance()
			continue
		}
		p.depth--
		p.expect(tRparen, "',' or ')'")
		return args
	}
}

// isVarName reports whether an identifier names a variable (it starts with
// a lower-case ASCII letter).
func isVarName(s string) bool {
	return s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] == '?' && len(s) > 1)
}

// Infix integer operators in terms, as Alchemy writes them ("t+1"), are
// read as its internal functions: a + b is plus(a, b), a - b minus(a, b),
// a * b times(a, b), a / b dividedBy(a, b) and a % b mod(a, b), with the
// usual precedence, left associative. A negative number directly after a
// term ("t -1") is a subtraction. ("t-1" without spaces is one identifier,
// as in Alchemy, whose names may contain '-'.)
var infixFuncs = map[tokKind]string{tPlus: "plus", tMinus: "minus", tStar: "times", tSlash: "dividedBy", tPercent: "mod"}

// InfixFuncs are the internal function names infix operators stand for.
var InfixFuncs = []string{"plus", "minus", "times", "dividedBy", "mod"}

func (p *parser) term() Term {
	return p.sum()
}

// sum parses product (('+' | '-') product)*.
func (p *parser) sum() Term {
	x := p.product()
	for {
		t := p.cur()
		switch {
		case t.kind == tPlus || t.kind == tMinus:
			p.advance()
			y := p.product()
			x = Term{TermPos: x.TermPos, Kind: FuncTerm, Name: infixFuncs[t.kind], Args: []Term{x, y}}
		case (t.kind == tInt || t.kind == tFloat) && strings.HasPrefix(t.text, "-"):
			p.advance()
			y := Term{TermPos: p.posOf(t), Kind: ConstTerm, Name: t.text[1:]}
			y.TermPos.Col++
			x = Term{TermPos: x.TermPos, Kind: FuncTerm, Name: "minus", Args: []Term{x, y}}
		default:
			return x
		}
	}
}

// product parses operand (('*' | '/' | '%') operand)*.
func (p *parser) product() Term {
	x := p.postfix(p.operand())
	for {
		t := p.cur()
		if t.kind != tStar && t.kind != tSlash && t.kind != tPercent {
			return x
		}
		p.advance()
		y := p.postfix(p.operand())
		x = Term{TermPos: x.TermPos, Kind: FuncTerm, Name: infixFuncs[t.kind], Args: []Term{x, y}}
	}
}

func (p *parser) operand() Term {
	t := p.cur()
	switch t.kind {
	case tPlus:
		p.advance()
		v := p.cur()
		if v.kind != tIdent || !p.isVar(v.text) {
			p.errorAt(v, "'+' must precede a variable, found %s", v.describe())
		}
		if p.peek(1).kind == tLparen {
			p.errorAt(v, "'+' must precede a variable, found function %s", v.text)
		}
		p.advance()
		return Term{TermPos: p.posOf(t), Kind: VarTerm, Name: v.text, Plus: true}
	case tIdent:
		p.advance()
		if p.cur().kind == tLparen {
			args := p.termList()
			return Term{TermPos: p.posOf(t), Kind: FuncTerm, Name: t.text, Args: args}
		}
		k := ConstTerm
		if p.isVar(t.text) {
			k = VarTerm
		}
		return Term{TermPos: p.posOf(t), Kind: k, Name: t.text}
	case tInt, tFloat, tString:
		p.advance()
		name := t.text
		if p.dialect == Tuffy {
			name = TuffyConst(name)
		}
		return Term{TermPos: p.posOf(t), Kind: ConstTerm, Name: name}
	}
	p.errorAt(t, "expected a term, found %s", t.describe())
	return Term{}
}
