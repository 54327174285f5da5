package syntax

// scanner splits a source file into tokens. It is hand-written (no regular
// expressions) and never panics on malformed input: bad characters are
// reported and skipped.
type scanner struct {
	file      string
	src       []byte
	off       int
	line      int
	lineStart int
	errs      *ErrorList
	dialect   Dialect
	brack     int  // Tuffy: depth of [ ] conditions
	prac      bool // pracmln's PRACGrammar (dialect_pracmln.go)
}

func newScanner(file string, src []byte, errs *ErrorList) *scanner {
	return &scanner{file: file, src: src, line: 1, errs: errs}
}

// bom is the UTF-8 byte-order mark some Windows editors write at the
// start of a text file.
const bom = "\xef\xbb\xbf"

// skipBOM skips a byte-order mark at the start of the source (columns
// count from after it).
func (s *scanner) skipBOM() {
	if s.off == 0 && len(s.src) >= len(bom) && string(s.src[:len(bom)]) == bom {
		s.off, s.lineStart = len(bom), len(bom)
	}
}

func (s *scanner) pos(off int) Pos {
	return Pos{File: s.file, Line: s.line, Col: off - s.lineStart + 1}
}

// maxScanErrors bounds the lexical errors reported for one file.
const maxScanErrors = 50

func (s *scanner) errorf(off int, format string, args ...any) {
	if len(*s.errs) < maxScanErrors {
		s.errs.Add(s.pos(off), format, args...)
	}
}

// scanAll returns every token of the source, ending with tEOF.
func (s *scanner) scanAll() []token {
	toks := make([]token, 0, len(s.src)/4+1)
	for {
		t := s.next()
		toks = append(toks, t)
		if t.kind == tEOF {
			return toks
		}
	}
}

func (s *scanner) tok(kind tokKind, off int, text string) token {
	return token{kind: kind, line: int32(s.line), col: int32(off - s.lineStart + 1), text: text}
}

// next returns the next token.
func (s *scanner) next() token {
	src := s.src
	for s.off < len(src) {
		c := src[s.off]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			s.off++
		case c == '\n':
			t := s.tok(tNewline, s.off, "")
			s.off++
			s.line++
			s.lineStart = s.off
			return t
		case c == '/' && s.off+1 < len(src) && src[s.off+1] == '/':
			for s.off < len(src) && src[s.off] != '\n' {
				s.off++
			}
		case c == '/' && s.off+1 < len(src) && src[s.off+1] == '*':
			start := s.off
			startPos := s.pos(start)
			t := s.tok(tNewline, start, "")
			s.off += 2
			sawNL := false
			closed := false
			for s.off < len(src) {
				if src[s.off] == '*' && s.off+1 < len(src) && src[s.off+1] == '/' {
					s.off += 2
					closed = true
					break
				}
				if src[s.off] == '\n' {
					sawNL = true
					s.line++
					s.lineStart = s.off + 1
				}
				s.off++
			}
			if !closed {
				s.errs.Add(startPos, "comment not terminated")
			}
			if sawNL {
				return t
			}
		default:
			if t, ok := s.scanToken(); ok {
				return t
			}
		}
	}
	return s.tok(tEOF, s.off, "")
}

// scanToken scans the token at s.off; it reports false after skipping a
// bad character.
func (s *scanner) scanToken() (token, bool) {
	src := s.src
	start := s.off
	c := src[start]
	if s.dialect != Alchemy {
		if t, ok := s.dialectToken(); ok {
			return t, true
		}
	}
	if isIdentStart(c) {
		s.off++
		for s.off < len(src) && isIdentChar(src[s.off]) {
			s.off++
		}
		return s.tok(tIdent, start, string(src[start:s.off])), true
	}
	if c == '-' {
		// A negative non-finite "weight" (-inf, -nan): one identifier, so
		// that the parser can say what is wrong with it.
		k := s.off + 1
		for k < len(src) && isIdentChar(src[k]) {
			k++
		}
		if k > s.off+1 && isNonFinite(string(src[s.off+1:k])) {
			s.off = k
			return s.tok(tIdent, start, string(src[start:k])), true
		}
	}
	if isDigit(c) || (c == '-' || c == '.') && s.off+1 < len(src) && isDigit(src[s.off+1]) ||
		c == '-' && s.off+2 < len(src) && src[s.off+1] == '.' && isDigit(src[s.off+2]) {
		return s.scanNumber(), true
	}
	s.off++
	two := func(next byte, yes, no tokKind) (token, bool) {
		if s.off < len(src) && src[s.off] == next {
			s.off++
			return s.tok(yes, start, ""), true
		}
		return s.tok(no, start, ""), true
	}
	switch c {
	case '(':
		return s.tok(tLparen, start, ""), true
	case ')':
		return s.tok(tRparen, start, ""), true
	case '{':
		return s.tok(tLbrace, start, ""), true
	case '}':
		return s.tok(tRbrace, start, ""), true
	case ',':
		return s.tok(tComma, start, ""), true
	case '.':
		if s.off+1 < len(src) && src[s.off] == '.' && src[s.off+1] == '.' {
			s.off += 2
			return s.tok(tEllipsis, start, ""), true
		}
		return s.tok(tDot, start, ""), true
	case '!':
		return two('=', tNeq, tNot)
	case '^':
		return s.tok(tAnd, start, ""), true
	case '|':
		return s.tok(tOr, start, ""), true
	case '=':
		return two('>', tImplies, tEq)
	case '<':
		if s.off+1 < len(src) && src[s.off] == '=' && src[s.off+1] == '>' {
			s.off += 2
			return s.tok(tIff, start, ""), true
		}
		return two('=', tLe, tLt)
	case '>':
		return two('=', tGe, tGt)
	case '+':
		return s.tok(tPlus, start, ""), true
	case '*':
		return s.tok(tStar, start, ""), true
	case '?':
		return s.tok(tQuestion, start, ""), true
	case ':':
		return s.tok(tColon, start, ""), true
	case '-':
		return s.tok(tMinus, start, ""), true
	case '/':
		return s.tok(tSlash, start, ""), true
	case '%':
		return s.tok(tPercent, start, ""), true
	case '@':
		return s.tok(tAt, start, ""), true
	case '"':
		return s.scanString(start), true
	case '#':
		const kw = "include"
		if len(src)-s.off >= len(kw) && string(src[s.off:s.off+len(kw)]) == kw {
			s.off += len(kw)
			return s.tok(tInclude, start, ""), true
		}
		s.errorf(start, "unexpected '#' (only #include is supported)")
		return token{}, false
	}
	if c >= 0x20 && c < 0x7f {
		s.errorf(start, "unexpected character '%c'", c)
	} else {
		s.errorf(start, "unexpected character %#02x", c)
	}
	return token{}, false
}

// scanNumber scans an integer or floating-point literal. A number directly
// followed by letters ("5th") is an identifier (a constant).
func (s *scanner) scanNumber() token {
	src := s.src
	start := s.off
	if src[s.off] == '-' {
		s.off++
	}
	digits := func() {
		for s.off < len(src) && isDigit(src[s.off]) {
			s.off++
		}
	}
	digits()
	kind := tInt
	if s.off+1 < len(src) && src[s.off] == '.' && isDigit(src[s.off+1]) {
		s.off++
		digits()
		kind = tFloat
	}
	if s.off < len(src) && (src[s.off] == 'e' || src[s.off] == 'E') {
		k := s.off + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			s.off = k
			digits()
			kind = tFloat
		}
	}
	if s.off < len(src) && isIdentChar(src[s.off]) && src[start] != '-' && kind == tInt {
		for s.off < len(src) && isIdentChar(src[s.off]) {
			s.off++
		}
		return s.tok(tIdent, start, string(src[start:s.off]))
	}
	return s.tok(kind, start, string(src[start:s.off]))
}

// scanString scans a double-quoted string; the token text keeps the quotes
// (a quoted constant's name includes them, as in Alchemy).
func (s *scanner) scanString(start int) token {
	src := s.src
	for s.off < len(src) {
		switch src[s.off] {
		case '\\':
			s.off += 2
			continue
		case '"':
			s.off++
			return s.tok(tString, start, string(src[start:s.off]))
		case '\n':
			s.errorf(start, "string not terminated")
			return s.tok(tString, start, string(src[start:s.off])+"\"")
		}
		s.off++
	}
	if s.off > len(src) {
		s.off = len(src)
	}
	s.errorf(start, "string not terminated")
	return s.tok(tString, start, string(src[start:s.off])+"\"")
}
