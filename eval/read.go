package eval

import (
	"fmt"
	"io"
	"strconv"

	"github.com/marple-mln/marple/mln"
)

// ParseError is a syntax error in an atom file.
type ParseError struct {
	File      string
	Line, Col int // 1-based; Col counts bytes
	Msg       string
}

// Error returns "file:line:col: message".
func (e *ParseError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// LoadAtoms reads and merges atom files (later files win), as ReadAtoms;
// a file that gives one atom two values is refused (ParseAtoms).
// The result is Complete if every file is.
func LoadAtoms(paths ...string) (*AtomSet, error) {
	s := NewAtomSet()
	s.Complete = len(paths) > 0
	for _, path := range paths {
		src, err := mln.ReadInput(path)
		if err != nil {
			return nil, err
		}
		complete := s.Complete
		if err := parseInto(s, path, src); err != nil {
			return nil, err
		}
		s.Complete = complete && s.Complete
	}
	return s, nil
}

// ReadAtoms reads an atom file from r; name is used in error positions.
func ReadAtoms(r io.Reader, name string) (*AtomSet, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return ParseAtoms(name, src)
}

// ParseAtoms parses an atom file: an Alchemy result file (MAP or marginal)
// or a .db evidence/truth file. Each non-blank line holds one entry:
//
//	[p] [!|?]Pred(c1, ..., cn) [p]
//
// where p is a number in [0,1] (before or after the atom, not both), "!"
// marks a false atom (value 0) and "?" an unknown one (value Unknown); an
// entry without a number or mark has value 1. Constants are bare words (any
// bytes but blanks, parentheses, commas and double quotes; identifiers and
// integers) or double-quoted strings with backslash escapes, which may hold
// commas, parentheses and "//". The predicate is a bare word that does not
// start with a digit, '.', '+', '-', '!' or '?'. A zero-arity atom is
// written Pred or Pred().
// Blanks may appear between the tokens of an atom. Comments run from "//"
// to the end of the line or between "/*" and "*/"; CRLF line ends and a
// leading UTF-8 byte-order mark are accepted. The set is marked Complete
// when it has at least one entry and every entry carried a number.
//
// An atom may be listed again with the same value, not with another one
// (true and false, two probabilities): that is an error naming both lines.
//
// The first error is returned as a *ParseError with its file:line:col.
func ParseAtoms(name string, src []byte) (*AtomSet, error) {
	s := NewAtomSet()
	if err := parseInto(s, name, src); err != nil {
		return nil, err
	}
	return s, nil
}

// ParseAtom parses a single atom written as text (no value or mark) and
// returns it in canonical form.
func ParseAtom(text string) (Atom, error) {
	p := parser{src: []byte(text), line: 1}
	if err := p.atomOnly(); err != nil {
		return Atom{}, err
	}
	s := NewAtomSet()
	s.add(&p, 1)
	return s.atoms[0], nil
}

func parseInto(s *AtomSet, name string, src []byte) error {
	p := parser{src: src, name: name, line: 1}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		p.pos = 3
		p.lineStart = 3
	}
	entries, valued := 0, 0
	// The line of each atom's entry in this file, to refuse an atom given
	// two values here (a later file may change an earlier file's values).
	first := int32(len(s.atoms))
	lines := []int32(nil)          // atoms first read in this file, from index first
	lineOf := map[int32]int32(nil) // atoms of earlier files met in this file
	for {
		if err := p.skipBlank(); err != nil {
			return err
		}
		if p.pos >= len(p.src) {
			break
		}
		if p.src[p.pos] == '\n' {
			p.newline()
			continue
		}
		line, col := p.line, p.pos-p.lineStart+1
		v, hasNum, err := p.entry()
		if err != nil {
			return err
		}
		if err := p.endOfLine(); err != nil {
			return err
		}
		i, existed, old := s.add(&p, v)
		prev := int32(0)
		switch {
		case i >= first && !existed:
			lines = append(lines, int32(line))
		case i >= first:
			prev = lines[i-first]
		default:
			if prev = lineOf[i]; prev == 0 {
				if lineOf == nil {
					lineOf = make(map[int32]int32)
				}
				lineOf[i] = int32(line)
			}
		}
		if prev != 0 && old != v {
			return &ParseError{File: name, Line: line, Col: col,
				Msg: fmt.Sprintf("contradictory entries: %s is %s here but %s at %s:%d", s.atoms[i].Key, valueText(v), valueText(old), name, prev)}
		}
		entries++
		if hasNum {
			valued++
		}
	}
	s.Complete = entries > 0 && valued == entries
	return nil
}

// valueText describes an atom's value for an error message.
func valueText(v float64) string {
	switch v {
	case 1:
		return "true"
	case 0:
		return "false"
	case Unknown:
		return "unknown"
	}
	return "given probability " + strconv.FormatFloat(v, 'g', -1, 64)
}

// parser scans one atom file. After entry or atomOnly, buf holds the
// canonical key of the atom, predEnd the end of the predicate name in buf
// and spans the [start,end) offsets of the arguments in buf.
type parser struct {
	src       []byte
	name      string
	pos       int
	line      int
	lineStart int

	buf     []byte
	predEnd int
	spans   [][2]int
}

func (p *parser) errAt(pos int, format string, args ...any) error {
	return &ParseError{File: p.name, Line: p.line, Col: pos - p.lineStart + 1, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) newline() {
	p.pos++
	p.line++
	p.lineStart = p.pos
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// isBare reports whether c may appear in a bare word.
func isBare(c byte) bool {
	return c > ' ' && c != '(' && c != ')' && c != ',' && c != '"' && c != 0x7f
}

func isNumStart(c byte) bool { return c >= '0' && c <= '9' || c == '.' || c == '+' || c == '-' }

// atComment reports whether a comment starts at the current position.
func (p *parser) atComment() bool {
	return p.pos+1 < len(p.src) && p.src[p.pos] == '/' && (p.src[p.pos+1] == '/' || p.src[p.pos+1] == '*')
}

// skipBlank skips blanks and comments, but not a newline (except inside a
// block comment).
func (p *parser) skipBlank() error {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case isSpace(c):
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			start, line, ls := p.pos, p.line, p.lineStart
			p.pos += 2
			for {
				if p.pos+1 >= len(p.src) {
					p.line, p.lineStart = line, ls
					return p.errAt(start, "unterminated comment")
				}
				if p.src[p.pos] == '*' && p.src[p.pos+1] == '/' {
					p.pos += 2
					break
				}
				if p.src[p.pos] == '\n' {
					p.newline()
				} else {
					p.pos++
				}
			}
		default:
			return nil
		}
	}
	return nil
}

// atEnd reports whether the rest of the line is blank (after skipBlank).
func (p *parser) atEnd() bool {
	return p.pos >= len(p.src) || p.src[p.pos] == '\n'
}

// endOfLine checks that nothing but blanks and comments follows an entry.
func (p *parser) endOfLine() error {
	if err := p.skipBlank(); err != nil {
		return err
	}
	if !p.atEnd() {
		return p.errAt(p.pos, "unexpected %s after atom", p.describe())
	}
	return nil
}

// describe quotes the token at the current position for an error message.
func (p *parser) describe() string {
	end := p.pos
	for end < len(p.src) && end-p.pos < 20 && p.src[end] != '\n' && !isSpace(p.src[end]) {
		end++
	}
	if end == p.pos {
		if end == len(p.src) || p.src[end] == '\n' {
			return "end of line"
		}
		end++
	}
	return strconv.Quote(string(p.src[p.pos:end]))
}

// word scans a bare word and returns its end.
func (p *parser) word() int {
	end := p.pos
	for end < len(p.src) && isBare(p.src[end]) {
		if p.src[end] == '/' && end+1 < len(p.src) && (p.src[end+1] == '/' || p.src[end+1] == '*') {
			break
		}
		if p.src[end] == 0xEF && end+2 < len(p.src) && p.src[end+1] == 0xBB && p.src[end+2] == 0xBF {
			break // a byte-order mark is only allowed at the start of the file
		}
		end++
	}
	return end
}

// number scans a probability at the current position.
func (p *parser) number() (float64, error) {
	start := p.pos
	end := p.word()
	v, err := strconv.ParseFloat(string(p.src[start:end]), 64)
	if err != nil {
		return 0, p.errAt(start, "invalid number %q", p.src[start:end])
	}
	if !(v >= 0 && v <= 1) {
		return 0, p.errAt(start, "probability %s out of range [0,1]", p.src[start:end])
	}
	p.pos = end
	return v, nil
}

// entry parses "[p] [!|?]atom [p]" and returns the value and whether a
// number was given.
func (p *parser) entry() (v float64, hasNum bool, err error) {
	v = 1
	if isNumStart(p.src[p.pos]) {
		if v, err = p.number(); err != nil {
			return 0, false, err
		}
		hasNum = true
		if err = p.skipBlank(); err != nil {
			return 0, false, err
		}
		if p.atEnd() {
			return 0, false, p.errAt(p.pos, "number without atom")
		}
	}
	mark := byte(0)
	if c := p.src[p.pos]; c == '!' || c == '?' {
		if hasNum {
			return 0, false, p.errAt(p.pos, "%q after a number", c)
		}
		mark = c
		p.pos++
		if err = p.skipBlank(); err != nil {
			return 0, false, err
		}
	}
	if err = p.atom(); err != nil {
		return 0, false, err
	}
	switch mark {
	case '!':
		v = 0
	case '?':
		v = Unknown
	}
	if err = p.skipBlank(); err != nil {
		return 0, false, err
	}
	if !p.atEnd() && isNumStart(p.src[p.pos]) {
		if hasNum || mark != 0 {
			return 0, false, p.errAt(p.pos, "unexpected number")
		}
		if v, err = p.number(); err != nil {
			return 0, false, err
		}
		hasNum = true
	}
	return v, hasNum, nil
}

// atomOnly parses text holding exactly one atom.
func (p *parser) atomOnly() error {
	if err := p.skipBlank(); err != nil {
		return err
	}
	if p.atEnd() {
		return p.errAt(p.pos, "expected atom")
	}
	if err := p.atom(); err != nil {
		return err
	}
	if err := p.skipBlank(); err != nil {
		return err
	}
	if p.pos < len(p.src) {
		return p.errAt(p.pos, "unexpected %s after atom", p.describe())
	}
	return nil
}

// atom parses Pred or Pred(c1,...,cn) into buf, predEnd and spans.
func (p *parser) atom() error {
	p.buf = p.buf[:0]
	p.spans = p.spans[:0]
	if p.atEnd() {
		return p.errAt(p.pos, "expected predicate name, found end of line")
	}
	end := p.word()
	if c := p.src[p.pos]; end == p.pos || isNumStart(c) || c == '!' || c == '?' {
		return p.errAt(p.pos, "expected predicate name, found %s", p.describe())
	}
	p.buf = append(p.buf, p.src[p.pos:end]...)
	p.predEnd = len(p.buf)
	p.pos = end
	if err := p.skipBlank(); err != nil {
		return err
	}
	if p.pos >= len(p.src) || p.src[p.pos] != '(' {
		return nil // zero-arity atom
	}
	open := p.pos
	p.pos++
	if err := p.skipBlank(); err != nil {
		return err
	}
	if p.pos < len(p.src) && p.src[p.pos] == ')' {
		p.pos++
		return nil // Pred()
	}
	p.buf = append(p.buf, '(')
	for {
		if err := p.skipBlank(); err != nil {
			return err
		}
		if p.atEnd() {
			return p.errAt(open, "unclosed '('")
		}
		start := p.pos
		if p.src[p.pos] == '"' {
			if err := p.quoted(); err != nil {
				return err
			}
		} else {
			end := p.word()
			if end == p.pos {
				return p.errAt(p.pos, "expected constant, found %s", p.describe())
			}
			p.pos = end
		}
		b := len(p.buf)
		p.buf = append(p.buf, p.src[start:p.pos]...)
		p.spans = append(p.spans, [2]int{b, len(p.buf)})
		if err := p.skipBlank(); err != nil {
			return err
		}
		if p.atEnd() {
			return p.errAt(open, "unclosed '('")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.buf = append(p.buf, ',')
		case ')':
			p.pos++
			p.buf = append(p.buf, ')')
			return nil
		default:
			return p.errAt(p.pos, "expected ',' or ')', found %s", p.describe())
		}
	}
}

// quoted scans a double-quoted string on one line.
func (p *parser) quoted() error {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '"':
			p.pos++
			return nil
		case '\\':
			p.pos++
			if p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case '\n':
			return p.errAt(start, "unterminated string")
		default:
			p.pos++
		}
	}
	return p.errAt(start, "unterminated string")
}
