package syntax

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// RawAtom is a ground atom as read by ScanDB. Its byte slices point into
// the source (or into buffers reused between calls): they are valid only
// during the callback.
type RawAtom struct {
	Pos     Pos // position of the atom (its "!" or "?" if any)
	Value   Value
	Pred    []byte
	PredCol int      // column of the predicate name
	Args    [][]byte // constants; quoted strings keep their quotes
	// Func marks a function value, "Value = f(A1, ..., An)" (Alchemy's
	// syntax): Pred is the function and Args[0] the value.
	Func   bool
	argPos []Pos
	// Real is the value written after the atom ("Dist(A, B) 3.2"), for a
	// real-valued predicate of a hybrid model; HasReal tells whether there
	// was one and RealCol gives its column.
	Real    float64
	HasReal bool
	RealCol int
	// Prior is the probability written before the atom in Tuffy's
	// dialect ("0.8 Smokes(Carl)", soft evidence; "0.8 !Smokes(Carl)" is
	// the prior 0.2 of Smokes(Carl)), when HasPrior. A probability of 0
	// or 1 is read as evidence (Value false or true), as Tuffy reads it.
	Prior    float64
	HasPrior bool
	// Domain marks a domain declaration in pracmln's dialect
	// ("person = {Anna, Bob}"): Pred is the type and Args its constants.
	Domain bool
}

// ArgPos returns the position of argument i.
func (a *RawAtom) ArgPos(i int) Pos { return a.argPos[i] }

// PredPos returns the position of the predicate name.
func (a *RawAtom) PredPos() Pos {
	return Pos{File: a.Pos.File, Line: a.Pos.Line, Col: a.PredCol}
}

// maxDBErrors bounds the syntax errors reported for one .db file.
const maxDBErrors = 100

// ScanDB reads a .db evidence file (one ground atom per line, optionally
// prefixed by "!" for false or "?" for unknown; // and /* */ comments) and
// calls fn for each atom, in order. It does no allocation per atom. It
// returns the syntax errors (an ErrorList) or nil; atoms on bad lines are
// skipped.
func ScanDB(filename string, src []byte, fn func(a *RawAtom)) error {
	d := dbScanner{file: filename, src: src, line: 1}
	if len(src) >= len(bom) && string(src[:len(bom)]) == bom {
		d.i, d.lineStart = len(bom), len(bom)
	}
	d.atom.Args = make([][]byte, 0, 8)
	d.atom.argPos = make([]Pos, 0, 8)
	d.run(fn)
	d.errs.Sort()
	return d.errs.Err()
}

// ScanDBPart scans part of a .db file as ScanDB does, so that a large
// file can be read in parts in parallel. It starts at offset start (0 or
// the start of a line), numbering that line 1, and stops when the scan
// reaches, between atoms (outside comments and parentheses), the start of
// a line whose offset is in stops (sorted, after start); it returns that
// offset, or len(src) at the end of the file. Scanning from 0 and then
// from each returned offset gives fn the atoms ScanDB gives it, in the
// same order, each part's lines shifted by the lines before its start. At
// the first syntax error ScanDBPart stops and reports false (ScanDB then
// gives the errors).
func ScanDBPart(filename string, src []byte, start int, stops []int, fn func(a *RawAtom)) (stop int, ok bool) {
	d := dbScanner{file: filename, src: src, line: 1, i: start, lineStart: start, stops: stops, failFast: true}
	if start == 0 && len(src) >= len(bom) && string(src[:len(bom)]) == bom {
		d.i, d.lineStart = len(bom), len(bom)
	}
	d.atom.Args = make([][]byte, 0, 8)
	d.atom.argPos = make([]Pos, 0, 8)
	d.run(fn)
	if !d.stopped {
		return len(src), len(d.errs) == 0
	}
	return d.i, len(d.errs) == 0
}

// ParseDB parses a .db evidence file into an AST.
func ParseDB(filename string, src []byte) (*DBFile, error) {
	f := &DBFile{Name: filename}
	err := ScanDB(filename, src, func(a *RawAtom) {
		g := &GroundAtom{AtomPos: a.Pos, Value: a.Value,
			Pred: Ident{NamePos: a.PredPos(), Name: string(a.Pred)}}
		g.Args = make([]Ident, len(a.Args))
		for i, b := range a.Args {
			g.Args[i] = Ident{NamePos: a.ArgPos(i), Name: string(b)}
		}
		g.Real, g.HasReal = a.Real, a.HasReal
		f.Atoms = append(f.Atoms, g)
	})
	return f, err
}

type dbScanner struct {
	file      string
	src       []byte
	i         int
	line      int
	lineStart int
	errs      ErrorList
	atom      RawAtom

	// For ScanDBPart: the offsets where the scan may stop, whether it
	// stopped at one, whether it is between atoms, and whether it stops
	// at the first error.
	stops    []int
	stopped  bool
	between  bool
	failFast bool

	dialect Dialect
}

func (d *dbScanner) errorf(off int, format string, args ...any) {
	d.errs.Add(Pos{File: d.file, Line: d.line, Col: off - d.lineStart + 1}, format, args...)
}

func (d *dbScanner) describe(off int) string {
	if off >= len(d.src) {
		return "end of file"
	}
	c := d.src[off]
	switch {
	case c == '\n':
		return "end of line"
	case c >= 0x20 && c < 0x7f:
		return "'" + string(c) + "'"
	}
	return "a non-ASCII byte"
}

// skipSpace skips blanks and comments; with newlines set it also skips line
// ends (inside parentheses). It reports false for an unterminated comment.
func (d *dbScanner) skipSpace(newlines bool) {
	src := d.src
	for d.i < len(src) {
		c := src[d.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			d.i++
		case c == '\n' && newlines:
			d.i++
			d.line++
			d.lineStart = d.i
			if d.between && len(d.stops) > 0 && d.atStop() {
				return
			}
		case c == '/' && d.i+1 < len(src) && src[d.i+1] == '/':
			for d.i < len(src) && src[d.i] != '\n' {
				d.i++
			}
		case c == '/' && d.i+1 < len(src) && src[d.i+1] == '*':
			start, line, ls := d.i, d.line, d.lineStart
			d.i += 2
			for {
				if d.i+1 >= len(src) {
					d.i = len(src)
					d.errs.Add(Pos{File: d.file, Line: line, Col: start - ls + 1}, "comment not terminated")
					return
				}
				if src[d.i] == '*' && src[d.i+1] == '/' {
					d.i += 2
					break
				}
				if src[d.i] == '\n' {
					d.line++
					d.lineStart = d.i + 1
				}
				d.i++
			}
		default:
			return
		}
	}
}

// atStop reports whether the scan, at the start of a line between atoms,
// is at one of its stops, and then records it.
func (d *dbScanner) atStop() bool {
	for len(d.stops) > 0 && d.stops[0] < d.i {
		d.stops = d.stops[1:]
	}
	if len(d.stops) > 0 && d.stops[0] == d.i {
		d.stopped = true
		return true
	}
	return false
}

func (d *dbScanner) run(fn func(a *RawAtom)) {
	for len(d.errs) < maxDBErrors && !(d.failFast && len(d.errs) > 0) {
		d.between = true
		d.skipSpace(true)
		d.between = false
		if d.stopped || d.i >= len(d.src) {
			return
		}
		if !d.parseAtom() {
			// Skip the rest of the line.
			for d.i < len(d.src) && d.src[d.i] != '\n' {
				d.i++
			}
			continue
		}
		if d.atom.HasPrior && !d.settlePrior() {
			continue
		}
		if d.dialect == RockIt {
			d.rockitAtom()
		}
		fn(&d.atom)
	}
}

// name scans a predicate name or constant at d.i and returns its bytes.
func (d *dbScanner) name() []byte {
	src := d.src
	start := d.i
	if d.i >= len(src) {
		return nil
	}
	c := src[d.i]
	if c == '"' {
		d.i++
		for d.i < len(src) {
			switch src[d.i] {
			case '\\':
				d.i += 2
				continue
			case '"':
				d.i++
				return src[start:d.i]
			case '\n':
				d.errorf(start, "string not terminated")
				return nil
			}
			d.i++
		}
		d.i = len(src)
		d.errorf(start, "string not terminated")
		return nil
	}
	if !isIdentStart(c) && !isDigit(c) && c != '-' {
		return nil
	}
	d.i++
	for d.i < len(src) && (isIdentChar(src[d.i]) || src[d.i] == '.' && d.i+1 < len(src) && isDigit(src[d.i+1])) {
		d.i++
	}
	return src[start:d.i]
}

// funcValue scans "Value =" of a function value line into the atom's first
// argument and reports whether it found one; otherwise it leaves d.i.
func (d *dbScanner) funcValue() bool {
	start, col := d.i, d.i-d.lineStart+1
	if d.i >= len(d.src) || !(isIdentStart(d.src[d.i]) || isDigit(d.src[d.i]) || d.src[d.i] == '-') {
		return false
	}
	val := d.name()
	if val == nil {
		d.i = start
		return false
	}
	d.skipSpace(false)
	if d.i >= len(d.src) || d.src[d.i] != '=' {
		d.i = start
		return false
	}
	d.i++
	d.skipSpace(false)
	if val[0] >= 'a' && val[0] <= 'z' && d.dialect != Pracmln {
		d.errorf(start, "%s is a variable (lower case): evidence atoms must be ground", val)
		return false
	}
	d.atom.Args = append(d.atom.Args, val)
	d.atom.argPos = append(d.atom.argPos, Pos{File: d.file, Line: d.line, Col: col})
	return true
}

func (d *dbScanner) parseAtom() bool {
	a := &d.atom
	src := d.src
	a.Pos = Pos{File: d.file, Line: d.line, Col: d.i - d.lineStart + 1}
	a.Value = ValTrue
	a.Args = a.Args[:0]
	a.argPos = a.argPos[:0]
	a.HasPrior = false
	if d.dialect == Tuffy && !d.prior() {
		return false
	}
	if d.dialect == Pracmln {
		if ok, done := d.pracDBLine(); done || !ok {
			return ok
		}
	}
	switch src[d.i] {
	case '!':
		a.Value = ValFalse
		d.i++
		d.skipSpace(false)
	case '?':
		a.Value = ValUnknown
		d.i++
		d.skipSpace(false)
	}
	a.Func = false
	if nerr := len(d.errs); a.Value == ValTrue && d.funcValue() {
		a.Func = true
	} else if len(d.errs) > nerr {
		return false
	}
	a.PredCol = d.i - d.lineStart + 1
	if d.i >= len(src) || !isIdentStart(src[d.i]) {
		d.errorf(d.i, "expected a ground atom, found %s", d.describe(d.i))
		return false
	}
	a.Pred = d.name()
	d.skipSpace(false)
	if d.i >= len(src) || src[d.i] == '\n' {
		d.errorf(a.PredCol-1+d.lineStart, "%s", zeroArity(string(a.Pred)))
		return false
	}
	if src[d.i] != '(' {
		d.errorf(d.i, "expected '(' after predicate %s, found %s", a.Pred, d.describe(d.i))
		return false
	}
	d.i++
	d.skipSpace(true)
	if d.i < len(src) && src[d.i] == ')' {
		d.errorf(a.PredCol-1+d.lineStart, "%s", zeroArity(string(a.Pred)))
		return false
	}
	for {
		d.skipSpace(true)
		col := d.i - d.lineStart + 1
		arg := d.name()
		if arg == nil {
			if len(d.errs) == 0 || d.errs[len(d.errs)-1].Pos.Line != d.line {
				d.errorf(d.i, "expected a constant, found %s", d.describe(d.i))
			}
			return false
		}
		if len(arg) > 0 && arg[0] >= 'a' && arg[0] <= 'z' && d.dialect != RockIt && d.dialect != Pracmln {
			d.errorf(col-1+d.lineStart, "%s is a variable (lower case): evidence atoms must be ground", arg)
			return false
		}
		if d.dialect == Tuffy {
			arg = []byte(TuffyConst(string(arg)))
		}
		a.Args = append(a.Args, arg)
		a.argPos = append(a.argPos, Pos{File: d.file, Line: d.line, Col: col})
		d.skipSpace(false)
		if d.i >= len(src) || src[d.i] == '\n' {
			d.errorf(d.i, "expected ',' or ')', found %s", d.describe(d.i))
			return false
		}
		if src[d.i] == ',' {
			d.i++
			continue
		}
		if src[d.i] == ')' {
			d.i++
			break
		}
		d.errorf(d.i, "expected ',' or ')', found %s", d.describe(d.i))
		return false
	}
	d.skipSpace(false)
	a.HasReal = false
	if d.i < len(src) && src[d.i] != '\n' {
		return d.realValue()
	}
	return true
}

// realValue scans a real value after an atom ("Dist(A, B) 3.2") up to
// the end of the line; it reports an error and false if there is
// something else there.
func (d *dbScanner) realValue() bool {
	start := d.i
	num, ok := d.number()
	if !ok {
		d.errorf(start, "unexpected %s after ground atom", d.describe(start))
		return false
	}
	v, err := strconv.ParseFloat(string(num), 64)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange) && !math.IsInf(v, 0):
		// Underflow: a magnitude below the smallest float, read as 0
		// by ParseFloat with an error; it is a representable value.
	case err != nil && errors.Is(err, strconv.ErrRange):
		d.errorf(start, "number %s is out of range", num)
		return false
	case err != nil:
		d.errorf(start, "malformed number %s", num)
		return false
	case math.IsInf(v, 0) || math.IsNaN(v):
		d.errorf(start, "number %s is not finite", num)
		return false
	}
	d.skipSpace(false)
	if at := d.i; at < len(d.src) && d.src[at] != '\n' {
		if next, ok := d.number(); ok {
			d.errorf(at, "a second value %s after %s: a ground atom takes at most one value", next, num)
		} else {
			d.errorf(at, "unexpected %s after the value %s", d.describe(at), num)
		}
		return false
	}
	d.atom.Real, d.atom.HasReal, d.atom.RealCol = v, true, start-d.lineStart+1
	return true
}

// number scans what looks like a number at d.i (a digit, sign or '.' and
// the letters, digits, signs and dots after it) and reports whether
// there was one.
func (d *dbScanner) number() ([]byte, bool) {
	src := d.src
	start := d.i
	if d.i >= len(src) || !(isDigit(src[d.i]) || strings.IndexByte("+-.", src[d.i]) >= 0) {
		return nil, false
	}
	for d.i < len(src) && (isIdentChar(src[d.i]) || strings.IndexByte("+-.", src[d.i]) >= 0) {
		d.i++
	}
	return src[start:d.i], true
}
