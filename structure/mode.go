package structure

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// Place is a place-maker of a path mode declaration (Huynh & Mooney, ECML
// 2011, §3.1): which arguments relational pathfinding may follow.
type Place byte

// The place-makers of modep declarations.
const (
	Ignore Place = '.' // do not explore through this argument
	Input  Place = '+' // must already be in the path
	Output Place = '-' // may introduce a new constant
)

// PathMode is a modep(r, p(...)) declaration: a path holds at most Recall
// atoms of the predicate, and its arguments are explored as Places says.
type PathMode struct {
	Recall int
	Places []Place
	Pos    syntax.Pos
}

// Modes are the mode declarations that guide OSL: modep for relational
// pathfinding and modec for turning paths into clauses. A predicate without
// a modep is never added to a path; a predicate without a modec has every
// argument variabilised.
type Modes struct {
	// Path holds, per predicate (indexed by mln.PredID), its modep or nil.
	Path []*PathMode
	// Const holds, per predicate, which arguments keep their constant
	// when a path becomes a clause (modec "c"); nil means none.
	Const [][]bool
}

// IO reports whether argument j of predicate p is an input or output
// argument (a node of the hypergraph).
func (ms *Modes) IO(p mln.PredID, j int) bool {
	pm := ms.Path[p]
	return pm != nil && j < len(pm.Places) && pm.Places[j] != Ignore
}

// KeepConst reports whether argument j of predicate p keeps its constant
// in a clause.
func (ms *Modes) KeepConst(p mln.PredID, j int) bool {
	c := ms.Const[p]
	return c != nil && j < len(c) && c[j]
}

// LoadModes reads a mode declaration file for model m.
func LoadModes(m *mln.Model, path string) (*Modes, error) {
	src, err := mln.ReadInput(path)
	if err != nil {
		return nil, err
	}
	return ParseModes(m, path, src)
}

// ParseModes parses mode declarations for model m, one per line:
//
//	modep(2, Token(., +, .))   // recall, then one place-maker per argument
//	modep(1, Next(-, -))
//	modec(Token(c, v, v))      // c: keep the constant, v: variabilise
//
// Blank lines and comments (// to the end of the line, or a line starting
// with #) are ignored. Errors name file:line:col; all of them are
// reported.
func ParseModes(m *mln.Model, filename string, src []byte) (*Modes, error) {
	ms := &Modes{Path: make([]*PathMode, len(m.Preds)), Const: make([][]bool, len(m.Preds))}
	constPos := make([]syntax.Pos, len(m.Preds))
	var errs syntax.ErrorList
	for ln, line := range strings.Split(string(src), "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		if t := strings.TrimSpace(line); t == "" || t[0] == '#' {
			continue
		}
		sc := &modeScanner{src: line, pos: syntax.Pos{File: filename, Line: ln + 1}}
		if err := sc.decl(m, ms, constPos); err != nil {
			errs = append(errs, err)
		}
	}
	errs.Sort()
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return ms, nil
}

// modeScanner reads one declaration line.
type modeScanner struct {
	src string
	off int
	pos syntax.Pos // File and Line; Col is set per token
}

func (s *modeScanner) at(off int) syntax.Pos {
	p := s.pos
	p.Col = off + 1
	return p
}

func (s *modeScanner) skip() {
	for s.off < len(s.src) && (s.src[s.off] == ' ' || s.src[s.off] == '\t' || s.src[s.off] == '\r') {
		s.off++
	}
}

// word reads an identifier or number; it returns "" at anything else.
func (s *modeScanner) word() (string, int) {
	s.skip()
	start := s.off
	for s.off < len(s.src) {
		r := rune(s.src[s.off])
		if r == '_' || r == '\'' || unicode.IsLetter(r) || unicode.IsDigit(r) || r >= 0x80 {
			s.off++
			continue
		}
		break
	}
	return s.src[start:s.off], start
}

func (s *modeScanner) expect(c byte) *syntax.Error {
	s.skip()
	if s.off >= len(s.src) {
		return syntax.Errorf(s.at(s.off), "expected %q, found end of line", c)
	}
	if s.src[s.off] != c {
		return syntax.Errorf(s.at(s.off), "expected %q, found %q", c, s.src[s.off])
	}
	s.off++
	return nil
}

func (s *modeScanner) decl(m *mln.Model, ms *Modes, constPos []syntax.Pos) *syntax.Error {
	kw, kwOff := s.word()
	if kw != "modep" && kw != "modec" {
		if kw == "" {
			return syntax.Errorf(s.at(kwOff), "expected modep or modec")
		}
		return syntax.Errorf(s.at(kwOff), "unknown declaration %q (want modep or modec)", kw)
	}
	if err := s.expect('('); err != nil {
		return err
	}
	recall := 0
	if kw == "modep" {
		num, off := s.word()
		n, err := strconv.Atoi(num)
		if err != nil || n < 1 {
			return syntax.Errorf(s.at(off), "modep needs a positive recall number, found %q", num)
		}
		recall = n
		if err := s.expect(','); err != nil {
			return err
		}
	}
	name, nameOff := s.word()
	if name == "" {
		return syntax.Errorf(s.at(nameOff), "expected a predicate name")
	}
	pred, ok := m.Pred(name)
	if !ok {
		return syntax.Errorf(s.at(nameOff), "unknown predicate %s", name)
	}
	if err := s.expect('('); err != nil {
		return err
	}
	var args []byte
	var argOffs []int
	for {
		s.skip()
		if s.off >= len(s.src) {
			return syntax.Errorf(s.at(s.off), "unterminated argument list of %s", name)
		}
		argOffs = append(argOffs, s.off)
		args = append(args, s.src[s.off])
		s.off++
		s.skip()
		if s.off < len(s.src) && s.src[s.off] == ',' {
			s.off++
			continue
		}
		if err := s.expect(')'); err != nil {
			return err
		}
		break
	}
	if err := s.expect(')'); err != nil {
		return err
	}
	s.skip()
	if s.off < len(s.src) {
		return syntax.Errorf(s.at(s.off), "unexpected %q after the declaration", s.src[s.off:])
	}
	if len(args) != len(pred.Args) {
		return syntax.Errorf(s.at(nameOff), "%s has %d arguments, the declaration gives %d", name, len(pred.Args), len(args))
	}
	declPos := s.at(kwOff)
	if kw == "modep" {
		if prev := ms.Path[pred.ID]; prev != nil {
			return syntax.Errorf(declPos, "second modep for %s (first at %s)", name, prev.Pos)
		}
		pm := &PathMode{Recall: recall, Places: make([]Place, len(args)), Pos: declPos}
		for j, a := range args {
			switch Place(a) {
			case Ignore, Input, Output:
				pm.Places[j] = Place(a)
			default:
				return syntax.Errorf(s.at(argOffs[j]), "place-maker must be '+', '-' or '.', found %q", a)
			}
		}
		ms.Path[pred.ID] = pm
		return nil
	}
	if ms.Const[pred.ID] != nil {
		return syntax.Errorf(declPos, "second modec for %s (first at %s)", name, constPos[pred.ID])
	}
	keep := make([]bool, len(args))
	for j, a := range args {
		switch a {
		case 'c':
			keep[j] = true
		case 'v':
		default:
			return syntax.Errorf(s.at(argOffs[j]), "modec argument must be 'c' or 'v', found %q", a)
		}
	}
	ms.Const[pred.ID] = keep
	constPos[pred.ID] = declPos
	return nil
}

// String writes the declarations back in the file syntax.
func (ms *Modes) String(m *mln.Model) string {
	var b strings.Builder
	for p, pm := range ms.Path {
		if pm == nil {
			continue
		}
		fmt.Fprintf(&b, "modep(%d, %s(", pm.Recall, m.Preds[p].Name)
		for j, pl := range pm.Places {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteByte(byte(pl))
		}
		b.WriteString("))\n")
	}
	for p, c := range ms.Const {
		if c == nil {
			continue
		}
		fmt.Fprintf(&b, "modec(%s(", m.Preds[p].Name)
		for j, k := range c {
			if j > 0 {
				b.WriteString(", ")
			}
			if k {
				b.WriteByte('c')
			} else {
				b.WriteByte('v')
			}
		}
		b.WriteString("))\n")
	}
	return b.String()
}
