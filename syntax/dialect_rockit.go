package syntax

import (
	"fmt"
	"strconv"
	"strings"
)

// RockIt's dialect (RockIt 0.5, its ANTLR grammar Model.g and
// GroundValues.g) is read by its own parser: a model file is a sequence of
// one-line statements,
//
//	*observed(type1, type2)          a declaration; "*": observed (closed world)
//	hidden(type1, type2)             no "*": hidden (open world)
//	*conf(type1, float_)             a last argument float_ carries a real value
//	2.5 !observed(x, y) v hidden(x, y)   a soft formula: a disjunction of literals
//	!hidden(x, "A") v hidden("A", x).    a hard formula
//	w: !conf(x, w) v hidden(x, x)        a soft formula weighted by the evidence
//	|y| !observed(x, y) v hidden(x, y) <= 1   a cardinality constraint
//
// Arguments are variables (identifiers of any case) or "quoted" constants.
// RockIt's constants are their names without quotes, in the model and in
// the evidence alike: "A" and A are one constant, spelled A in Marple (a
// quoted name that is not a Marple constant name, "owl:Thing" or "bob",
// keeps its quotes). A variable that is not a Marple variable name (X)
// is renamed v-X.
//
// The meaning in Marple's model: an observed predicate's literals are
// conditions on the groundings, which is what a closed-world literal is;
// a formula without a hidden literal is dropped, as RockIt drops it. A
// formula weighted by a variable, "w: ... !conf(args, w) ...", is a
// RockItConf: for each evidence atom conf(c1, ..., r) it adds the formula
// with the variables of the atom bound to c1, ... and the weight r
// (mln.Model instantiates it as the evidence is read; the weight is
// fixed). A cardinality constraint "|o1,...,om| F <= k", F with one
// hidden literal A (positive), is the hard formula that, for each
// binding of F's other variables, forbids k+1 distinct atoms A true among
// the bindings of o1..om that satisfy F's conditions: F's literals over
// k+1 copies of o1..om, "!A" for each copy, and for each pair of copies
// the equality of their atoms. k is at most MaxRockItCardinality.
//
// Refused, with the reason at the position: "|...| F >= k" (RockIt's own
// solvers disagree on it: its ILP adds the constraint at least k only for
// groups its current solution already satisfies, its Gibbs sampler
// counts more than k); cardinality constraints with more than one hidden
// literal, a negated one, or k past the bound; numerical predicates
// "p(x) := [expr]" and arithmetic terms "[x+1]" (RockIt evaluates them
// with real numbers on constants read as numbers and makes a constant of
// each computed value, outside every type's domain, which no Marple term
// does); "!" before a constant (RockIt ignores it).

// RockItConf is RockIt's formula weighted by the evidence, "w: F": F
// holds a negated literal Atom of a predicate whose last argument is
// float_, with the weight variable Var as that argument. It is not a
// formula of the model itself: each evidence atom of Atom's predicate
// adds F with Atom's variables bound and the atom's value as the weight.
type RockItConf struct {
	Decl *FormulaDecl // F; no weight
	Var  Ident        // the weight variable (its Marple name)
	Atom *Atom        // the literal of F that binds Var (inside Decl.F)
}

func (*RockItConf) decl() {}

// Pos returns the start of the statement.
func (d *RockItConf) Pos() Pos { return d.Decl.StartPos }

// MaxRockItCardinality bounds k in a cardinality constraint "... <= k":
// its hard clauses range over k+1 copies of the counted variables.
const MaxRockItCardinality = 3

// rockitFloat is RockIt's type of the real value of a predicate's last
// argument.
const rockitFloat = "float_"

// RockItConst returns the Marple name of RockIt constant s as written in
// a model or .db file: quoted strings lose their quotes when their content
// is a Marple constant name (upper-case identifier or integer); other
// names are quoted.
func RockItConst(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		c := s[1 : len(s)-1]
		if isBareConst(c) {
			return c
		}
		return s
	}
	if isBareConst(s) || isNumeral(s) {
		return s
	}
	return strconv.Quote(s)
}

// TuffyConst returns the Marple name of Tuffy constant s as written in a
// model or .db file: Tuffy drops the quotes of a string constant, so
// "Anna" and Anna are one constant; a quoted string whose content is a
// Marple constant name (upper-case identifier or integer) loses its
// quotes, any other keeps them.
func TuffyConst(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' && isBareConst(s[1:len(s)-1]) {
		return s[1 : len(s)-1]
	}
	return s
}

// isBareConst reports whether s is a constant name Marple reads without
// quotes and RockIt could write: an identifier starting with an upper-case
// letter, or an integer.
func isBareConst(s string) bool {
	if s == "" {
		return false
	}
	if isUpper(s[0]) {
		for i := 1; i < len(s); i++ {
			c := s[i]
			if !(c >= 'a' && c <= 'z' || isUpper(c) || isDigit(c) || c == '_') {
				return false
			}
		}
		return true
	}
	i := 0
	if s[0] == '-' {
		i = 1
	}
	if i == len(s) {
		return false
	}
	for ; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// isNumeral reports whether s is a decimal number as RockIt writes the
// value of a float_ argument (sign, digits, a point and digits).
func isNumeral(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil && s != "" && (isDigit(s[0]) || s[0] == '-' || s[0] == '+')
}

// rockitVar returns the Marple name of RockIt variable s.
func rockitVar(s string) string {
	if isVarName(s) {
		return s
	}
	return "v-" + s
}

// rockitObservedKey is the key under which Known records that a predicate
// is observed (declared with "*"); no predicate name starts with "*".
func rockitObservedKey(name string) string { return "*" + name }

// rockitFile parses a RockIt model file.
func (p *parser) rockitFile(f *File) {
	const maxErrors = 100
	for {
		p.depth = 0
		p.skipNewlines()
		if p.toks[p.i].kind == tEOF || len(*p.errs) >= maxErrors {
			return
		}
		start := p.i
		d, ok := p.rockitStatement()
		if ok {
			if d != nil {
				f.Decls = append(f.Decls, d)
			}
			continue
		}
		p.depth = 0
		if p.i == start {
			p.i++
		}
		for p.toks[p.i].kind != tNewline && p.toks[p.i].kind != tEOF {
			p.i++
		}
	}
}

// rockitStatement parses one statement; d is nil for a formula RockIt
// drops. It reports false after an error.
func (p *parser) rockitStatement() (d Decl, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, isBail := r.(bailout); !isBail {
				panic(r)
			}
			d, ok = nil, false
		}
	}()
	t := p.cur()
	if t.kind == tStar || t.kind == tIdent && p.peek(1).kind == tLparen && p.rockitIsDecl() {
		d = p.rockitDecl()
	} else {
		d = p.rockitFormula()
	}
	p.endStatement()
	return d, true
}

// rockitIsDecl reports whether the statement at the current token, "name(",
// is a declaration: its closing parenthesis ends the line or is followed
// by ":=".
func (p *parser) rockitIsDecl() bool {
	j := p.i + 2
	for ; p.toks[j].kind != tRparen; j++ {
		if k := p.toks[j].kind; k == tNewline || k == tEOF {
			return false
		}
	}
	switch p.toks[j+1].kind {
	case tNewline, tEOF, tColon:
		return true
	}
	return false
}

// rockitDecl parses "[*] name(type, ..., [float_ [name]]) [:= expr]".
func (p *parser) rockitDecl() Decl {
	d := &PredDecl{}
	if t := p.cur(); t.kind == tStar {
		p.advance()
		d.Star, d.Closed = p.posOf(t), true
	}
	d.Name = p.ident()
	if _, dup := p.known[d.Name.Name]; dup {
		p.errs.Add(d.Name.NamePos, "predicate %s is declared twice (RockIt declares a predicate once)", d.Name.Name)
		panic(bailout{})
	}
	p.expect(tLparen, "'('")
	var names []string
	for {
		ty := p.ident()
		if ty.Name == rockitFloat {
			if !d.Closed {
				p.errs.Add(ty.NamePos, "a predicate with a float_ argument must be observed (declared with a leading '*'), as RockIt requires")
				panic(bailout{})
			}
			if p.cur().kind == tIdent {
				p.advance() // the value's name, which RockIt ignores
			}
			if p.cur().kind != tRparen {
				p.errorAt(p.cur(), "float_ must be the last argument, found %s after it", p.cur().describe())
			}
		}
		d.Args = append(d.Args, ArgDecl{Type: ty})
		names = append(names, ty.Name)
		if p.cur().kind == tComma {
			p.advance()
			continue
		}
		p.expect(tRparen, "',' or ')'")
		break
	}
	if t := p.cur(); t.kind == tColon && p.peek(1).kind == tEq {
		p.known[d.Name.Name] = names // its uses are not errors of their own
		p.errorAt(t, "RockIt's numerical predicates (name(x) := [expr]) are not supported: RockIt evaluates expr with real arithmetic on the constants read as numbers, which no Marple formula over constants does")
	}
	p.known[d.Name.Name] = names
	if d.Closed {
		p.known[rockitObservedKey(d.Name.Name)] = []string{}
	}
	return d
}

// rockitLit is a literal of a RockIt formula.
type rockitLit struct {
	atom     *Atom
	neg      bool
	notPos   Pos
	observed bool
	float    bool // the predicate's last argument is float_
}

func (l rockitLit) formula() Formula {
	if l.neg {
		return &Not{NotPos: l.notPos, X: l.atom}
	}
	return l.atom
}

// rockitFormula parses a soft, hard or cardinality formula.
func (p *parser) rockitFormula() Decl {
	t := p.cur()
	d := &FormulaDecl{StartPos: p.posOf(t)}
	var confVar *Ident
	var over []Ident
	switch {
	case t.kind == tPlus && isNumber(p.peek(1).kind):
		p.advance()
		fallthrough
	case isNumber(t.kind):
		n := p.advance()
		w, err := strconv.ParseFloat(n.text, 64)
		if err != nil {
			p.errorAt(n, "weight %s is not a finite number", n.text)
		}
		d.Weight, d.HasWeight = w, true
	case t.kind == tIdent && p.peek(1).kind == tColon:
		p.advance()
		p.advance()
		confVar = &Ident{NamePos: p.posOf(t), Name: rockitVar(t.text)}
	case t.kind == tOr:
		p.advance()
		for {
			v := p.ident()
			v.Name = rockitVar(v.Name)
			over = append(over, v)
			if p.cur().kind == tComma {
				p.advance()
				continue
			}
			p.expect(tOr, "',' or '|' after the over-variables of a cardinality constraint")
			break
		}
	}
	lits := p.rockitBody()
	var disj Formula
	hidden := 0
	for i, l := range lits {
		if !l.observed {
			hidden++
		}
		if i == 0 {
			disj = l.formula()
		} else {
			disj = &Binary{Op: OpOr, OpPos: l.atom.AtomPos, X: disj, Y: l.formula()}
		}
	}
	d.F = disj
	if over != nil {
		return p.rockitCardinality(d, over, lits)
	}
	if c := p.cur(); c.kind == tDot {
		if d.HasWeight || confVar != nil {
			p.errorAt(c, "a hard formula (trailing '.') has no weight")
		}
		p.advance()
		d.Hard, d.Dot = true, p.posOf(c)
	} else if !d.HasWeight && confVar == nil {
		p.errorAt(c, "expected '.' after a formula without a weight (a soft formula starts with its weight or 'w:'), found %s", c.describe())
	}
	var conf *RockItConf
	if confVar != nil {
		conf = &RockItConf{Decl: d, Var: *confVar}
	}
	for _, l := range lits {
		if !l.float {
			continue
		}
		last := l.atom.Args[len(l.atom.Args)-1]
		if last.Kind != VarTerm {
			p.errs.Add(last.TermPos, "the value of float_ predicate %s must be a variable", l.atom.Pred)
			panic(bailout{})
		}
		if !l.neg {
			p.errs.Add(l.atom.AtomPos, "a literal of float_ predicate %s must be negated: it is the condition that binds its value", l.atom.Pred)
			panic(bailout{})
		}
		if conf != nil && last.Name == confVar.Name {
			if conf.Atom != nil {
				p.errs.Add(l.atom.AtomPos, "weight variable %s is the value of two literals", t.text)
				panic(bailout{})
			}
			conf.Atom = l.atom
		}
	}
	if conf != nil {
		if conf.Atom == nil {
			p.errs.Add(confVar.NamePos, "weight variable %s is not the value (last argument) of a negated literal of a float_ predicate", t.text)
			panic(bailout{})
		}
		uses := 0
		Walk(d.F, func(g Formula) bool {
			if a, ok := g.(*Atom); ok {
				for _, x := range a.Args {
					if x.Kind == VarTerm && x.Name == confVar.Name {
						uses++
					}
				}
			}
			return true
		})
		if uses > 1 {
			p.errs.Add(confVar.NamePos, "weight variable %s appears in more than one argument", t.text)
			panic(bailout{})
		}
	}
	if hidden == 0 {
		return nil // RockIt drops a formula without a hidden literal
	}
	if conf != nil {
		return conf
	}
	return d
}

// rockitBody parses "literal (v literal)*".
func (p *parser) rockitBody() []rockitLit {
	var lits []rockitLit
	for {
		var l rockitLit
		t := p.cur()
		if t.kind == tNot {
			p.advance()
			l.neg, l.notPos = true, p.posOf(t)
		}
		name := p.expect(tIdent, "a literal")
		types, ok := p.known[name.text]
		if !ok || types == nil {
			p.errorAt(name, "predicate %s is not declared (RockIt declares predicates before the formulas)", name.text)
		}
		_, l.observed = p.known[rockitObservedKey(name.text)]
		l.float = types[len(types)-1] == rockitFloat
		a := &Atom{AtomPos: p.posOf(name), Pred: name.text, PredPos: p.posOf(name)}
		p.expect(tLparen, "'('")
		for {
			a.Args = append(a.Args, p.rockitArg())
			if p.cur().kind == tComma {
				p.advance()
				continue
			}
			p.expect(tRparen, "',' or ')'")
			break
		}
		if len(a.Args) != len(types) {
			p.errorAt(name, "predicate %s has %d argument(s), found %d", name.text, len(types), len(a.Args))
		}
		l.atom = a
		lits = append(lits, l)
		if c := p.cur(); c.kind == tIdent && c.text == "v" {
			p.advance()
			continue
		}
		return lits
	}
}

// rockitArg parses an argument: a variable (any case) or a quoted constant.
func (p *parser) rockitArg() Term {
	t := p.cur()
	switch t.kind {
	case tIdent:
		p.advance()
		return Term{TermPos: p.posOf(t), Kind: VarTerm, Name: rockitVar(t.text)}
	case tString:
		p.advance()
		return Term{TermPos: p.posOf(t), Kind: ConstTerm, Name: RockItConst(t.text)}
	case tNot:
		if p.peek(1).kind == tString {
			p.errorAt(t, "'!' before a constant: RockIt ignores it, so the formula does not mean what it says")
		}
	case tLbrack:
		p.errorAt(t, "RockIt's arithmetic terms [expr] are not supported: RockIt computes them with real arithmetic on the constants read as numbers and makes a new constant of the value, outside the type's domain, which no Marple term does")
	}
	p.errorAt(t, "expected a variable or a \"quoted\" constant, found %s", t.describe())
	return Term{}
}

// rockitCardinality finishes "|over| F <= k" (d.F is F) and compiles it
// to a hard formula.
func (p *parser) rockitCardinality(d *FormulaDecl, over []Ident, lits []rockitLit) Decl {
	op := p.cur()
	switch op.kind {
	case tLe:
	case tGe:
		p.errorAt(op, "RockIt's cardinality constraints with '>=' are not supported: RockIt's solvers disagree on their meaning (its ILP adds the constraint only for the groups its current solution already satisfies, its Gibbs sampler counts more than k atoms)")
	default:
		p.errorAt(op, "expected '<=' and the bound of the cardinality constraint, found %s", op.describe())
	}
	p.advance()
	n := p.cur()
	k, err := strconv.Atoi(n.text)
	if n.kind != tInt || err != nil || k < 0 {
		p.errorAt(n, "expected a non-negative integer bound, found %s", n.describe())
	}
	p.advance()
	if k > MaxRockItCardinality {
		p.errorAt(n, "cardinality bound %d is past %d: Marple compiles the constraint to hard clauses over every %d of the counted atoms, which grow as their number to the power %d", k, MaxRockItCardinality, k+1, k+1)
	}
	vars := map[string]bool{}
	for _, l := range lits {
		for _, a := range l.atom.Args {
			if a.Kind == VarTerm {
				vars[a.Name] = true
			}
		}
	}
	isOver := map[string]bool{}
	for _, v := range over {
		if !vars[v.Name] {
			p.errs.Add(v.NamePos, "over-variable %s does not occur in the formula", strings.TrimPrefix(v.Name, "v-"))
			panic(bailout{})
		}
		isOver[v.Name] = true
	}
	var counted *rockitLit
	for i := range lits {
		l := &lits[i]
		if l.observed {
			continue
		}
		if counted != nil {
			p.errs.Add(l.atom.AtomPos, "a cardinality constraint with more than one hidden literal is not supported (RockIt counts the true atoms of all of them)")
			panic(bailout{})
		}
		if l.neg {
			p.errs.Add(l.notPos, "a negated hidden literal in a cardinality constraint is not supported: RockIt counts its atom true whatever its sign")
			panic(bailout{})
		}
		counted = l
	}
	if counted == nil {
		return nil // no hidden literal: RockIt drops the formula
	}
	for _, l := range lits {
		if l.float {
			p.errs.Add(l.atom.AtomPos, "a float_ predicate in a cardinality constraint is not supported")
			panic(bailout{})
		}
	}
	// Positions of the counted atom whose term is an over-variable: two
	// copies name the same atom when they agree there.
	var pos []int
	for i, a := range counted.atom.Args {
		if a.Kind == VarTerm && isOver[a.Name] {
			pos = append(pos, i)
		}
	}
	if len(pos) == 0 && k >= 1 {
		return nil // one atom per group: at most k >= 1 holds
	}
	copies := k + 1
	ren := make([]map[string]string, copies)
	for c := range ren {
		ren[c] = map[string]string{}
		for _, v := range over {
			ren[c][v.Name] = v.Name + "-" + strconv.Itoa(c+1)
		}
	}
	at := counted.atom.AtomPos
	var out Formula
	or := func(f Formula) {
		if out == nil {
			out = f
		} else {
			out = &Binary{Op: OpOr, OpPos: at, X: out, Y: f}
		}
	}
	for _, l := range lits {
		if l == *counted {
			continue
		}
		mentions := false
		for _, a := range l.atom.Args {
			mentions = mentions || a.Kind == VarTerm && isOver[a.Name]
		}
		if !mentions {
			or(l.formula())
			continue
		}
		for c := 0; c < copies; c++ {
			or(renameFormula(l.formula(), ren[c]))
		}
	}
	cp := make([]*Atom, copies)
	for c := range cp {
		cp[c] = renameFormula(counted.atom, ren[c]).(*Atom)
		or(&Not{NotPos: at, X: cp[c]})
	}
	for i := 0; i < copies; i++ {
		for j := i + 1; j < copies; j++ {
			var same Formula
			for _, q := range pos {
				e := &Compare{Op: CmpEq, OpPos: at, X: cp[i].Args[q], Y: cp[j].Args[q]}
				if same == nil {
					same = e
				} else {
					same = &Binary{Op: OpAnd, OpPos: at, X: same, Y: e}
				}
			}
			or(same)
		}
	}
	d.F, d.Hard, d.Dot = out, true, p.posOf(op)
	return d
}

// RockItConfs returns the formulas weighted by the evidence in files
// (and their includes), in order.
func RockItConfs(files []*File) []*RockItConf {
	var out []*RockItConf
	var walk func(f *File)
	walk = func(f *File) {
		if f == nil {
			return
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *RockItConf:
				out = append(out, d)
			case *Include:
				walk(d.File)
			}
		}
	}
	for _, f := range files {
		walk(f)
	}
	return out
}

// Bind returns the formula of c for an evidence atom of c.Atom's
// predicate with constants args (Marple names; the last is the value):
// F with c.Atom's variables bound, weighing the value. It reports false
// when the atom does not match c.Atom (a constant or a repeated variable
// of c.Atom disagrees with args) and an error when the value is not a
// number.
func (c *RockItConf) Bind(args []string) (*FormulaDecl, bool, error) {
	if len(args) != len(c.Atom.Args) {
		return nil, false, nil
	}
	val := args[len(args)-1]
	w, err := strconv.ParseFloat(strings.Trim(val, "\""), 64)
	if err != nil {
		return nil, false, fmt.Errorf("the value %s of a float_ argument is not a number", val)
	}
	sub := map[string]Term{}
	for i, t := range c.Atom.Args {
		switch t.Kind {
		case VarTerm:
			if old, ok := sub[t.Name]; ok && old.Name != args[i] {
				return nil, false, nil
			}
			sub[t.Name] = Term{Kind: ConstTerm, Name: args[i]}
		case ConstTerm:
			if t.Name != args[i] {
				return nil, false, nil
			}
		}
	}
	d := *c.Decl
	d.F = Substitute(c.Decl.F, sub)
	d.Weight, d.HasWeight, d.Fixed = w, true, true
	return &d, true, nil
}

// rockitAtom finishes an atom of a RockIt .db file: its constants get
// their Marple names (RockItConst); a last argument that is a number is
// the value of a float_ argument and is kept as written.
func (d *dbScanner) rockitAtom() {
	a := &d.atom
	for i, b := range a.Args {
		s := string(b)
		if c := RockItConst(s); c != s {
			a.Args[i] = []byte(c)
		}
	}
}
