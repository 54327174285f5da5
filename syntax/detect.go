package syntax

import (
	"fmt"
	"slices"
	"strings"
)

// A Marker is a construct that some dialects have and Alchemy's does not:
// a file that contains one does not parse in Alchemy's dialect, and the
// marker's dialects are the candidates for reading it. DetectDialect
// chooses a dialect from the markers of a set of files only when they
// leave exactly one candidate.
//
// The table of markers is Markers; a dialect registers its own there.
type Marker struct {
	// Name says what the construct is, for messages.
	Name string
	// DB is true for a marker of .db files, false for one of .mln files.
	DB bool
	// Dialects are the dialects that have the construct.
	Dialects []Dialect
	// find returns the offset of the marker's first occurrence in code
	// (a file's text with its comments and string literals blanked), or
	// -1.
	find func(code []byte) int
}

// Markers is the table of markers, in the order they are looked for.
var Markers = []*Marker{
	{Name: "a condition in brackets after a literal, \"[a1 != a2]\"", Dialects: []Dialect{Tuffy}, find: findCondition},
	{Name: "\",\" joining literals, \"Friends(a,b), Smokes(a)\"", Dialects: []Dialect{Tuffy}, find: findLiteralComma},
	{Name: "\":-\" (a Datalog rule in Tuffy's dialect, a definite clause in LoMRF's)", Dialects: []Dialect{Tuffy, LoMRF}, find: findDefine},
	{Name: "the successor \"t++\"", Dialects: []Dialect{LoMRF}, find: findIncrement},
	{Name: "a \"?x\" variable", Dialects: []Dialect{Pracmln}, find: findQueryVar},
	{Name: "a \"#fixweight\" or \"#fuzzy\" annotation", Dialects: []Dialect{Pracmln}, find: findPracmlnDirective},
	{Name: "the inequality \"=/=\"", Dialects: []Dialect{Pracmln}, find: findSlashedNotEqual},
	{Name: "a cardinality constraint, \"|y| F <= k\"", Dialects: []Dialect{RockIt}, find: findCardinality},
	{Name: "soft evidence, a probability before a ground atom, \"0.8 Smokes(Carl)\" (a prior in Tuffy's dialect, a fitted conditional probability in pracmln's)", DB: true, Dialects: []Dialect{Tuffy, Pracmln}, find: findSoftEvidence},
}

// A Found is a marker met in a file.
type Found struct {
	Marker *Marker
	Pos    Pos
}

// String returns "file:line:col: the marker's name".
func (f Found) String() string { return f.Pos.String() + ": " + f.Marker.Name }

// FindMarkers returns the first occurrence in a file of each marker of
// Markers for the file's kind (a .db file when db), in order of position.
// Comments and string literals are not looked in.
func FindMarkers(filename string, src []byte, db bool) []Found {
	code := blankComments(src)
	var out []Found
	for _, m := range Markers {
		if m.DB != db || m.find == nil {
			continue
		}
		if off := m.find(code); off >= 0 {
			out = append(out, Found{Marker: m, Pos: posAt(filename, src, off)})
		}
	}
	slices.SortStableFunc(out, func(a, b Found) int {
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line - b.Pos.Line
		}
		return a.Pos.Col - b.Pos.Col
	})
	return out
}

// DetectDialect chooses the dialect of a set of files from the markers
// found in them (FindMarkers): Alchemy's when there is none, else the one
// dialect that every marker names, with the first marker that names only
// it (the evidence for the choice). When the markers leave more than one
// dialect (a marker several dialects share) or none (markers of two
// dialects), it returns an error that names the candidates and the
// markers' positions, so that the user chooses with -dialect.
func DetectDialect(found []Found) (Dialect, *Found, error) {
	if len(found) == 0 {
		return Alchemy, nil, nil
	}
	cand := slices.Clone(found[0].Marker.Dialects)
	for _, f := range found[1:] {
		cand = slices.DeleteFunc(cand, func(d Dialect) bool { return !slices.Contains(f.Marker.Dialects, d) })
	}
	switch len(cand) {
	case 1:
		for i := range found {
			if len(found[i].Marker.Dialects) == 1 {
				return cand[0], &found[i], nil
			}
		}
		return cand[0], &found[0], nil
	case 0:
		var parts []string
		for _, f := range found {
			parts = append(parts, fmt.Sprintf("%s (%s)", f, dialectList(f.Marker.Dialects, "or")))
		}
		return Alchemy, nil, fmt.Errorf("the files use the constructs of different dialects:\n%s\ngive -dialect to choose one", strings.Join(parts, "\n"))
	}
	var parts []string
	for _, f := range found {
		parts = append(parts, f.String())
	}
	flags := make([]string, len(cand))
	for i, d := range cand {
		flags[i] = "-dialect " + d.String()
	}
	return Alchemy, nil, fmt.Errorf("%s\nthese constructs are read differently in the dialects of %s, which Marple does not guess: give %s",
		strings.Join(parts, "\n"), dialectList(cand, "and"), strings.Join(flags, " or "))
}

func dialectList(ds []Dialect, conj string) string {
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.String()
	}
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}

// posAt returns the position of byte offset off of src.
func posAt(filename string, src []byte, off int) Pos {
	line, start := 1, 0
	if len(src) >= len(bom) && string(src[:len(bom)]) == bom {
		start = len(bom)
	}
	for i := start; i < off; i++ {
		if src[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return Pos{File: filename, Line: line, Col: off - start + 1}
}

// blankComments returns a copy of src with its "//" and "/* */" comments
// and the contents of its string literals replaced by spaces (line breaks
// are kept, so offsets are positions in src).
func blankComments(src []byte) []byte {
	code := slices.Clone(src)
	for i := 0; i < len(code); i++ {
		switch {
		case code[i] == '/' && i+1 < len(code) && code[i+1] == '/':
			for ; i < len(code) && code[i] != '\n'; i++ {
				code[i] = ' '
			}
		case code[i] == '/' && i+1 < len(code) && code[i+1] == '*':
			code[i], code[i+1] = ' ', ' '
			for i += 2; i < len(code) && !(code[i] == '*' && i+1 < len(code) && code[i+1] == '/'); i++ {
				if code[i] != '\n' {
					code[i] = ' '
				}
			}
			if i+1 < len(code) {
				code[i], code[i+1] = ' ', ' '
				i++
			}
		case code[i] == '"':
			// As the scanner reads it: a backslash escapes the next
			// character, a newline included.
			for i++; i < len(code) && code[i] != '"' && code[i] != '\n'; i++ {
				if code[i] == '\\' && i+1 < len(code) {
					code[i] = ' '
					i++
				}
				if code[i] != '\n' {
					code[i] = ' '
				}
			}
		}
	}
	return code
}

// findCondition finds a "[" outside parentheses: Tuffy's condition after
// a literal (not a term in brackets inside an atom).
func findCondition(code []byte) int {
	depth := 0
	for i, c := range code {
		switch c {
		case '(':
			depth++
		case ')':
			depth = max(0, depth-1)
		case '\n':
			depth = 0
		case '[':
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// findLiteralComma finds a "," right after an atom's ")" outside
// parentheses and braces: Tuffy's conjunction. The depth carries across
// lines, as an Alchemy atom's arguments may.
func findLiteralComma(code []byte) int {
	depth := 0
	for i, c := range code {
		switch c {
		case '(', '{':
			depth++
		case ')', '}':
			depth = max(0, depth-1)
		case ',':
			if depth > 0 {
				continue
			}
			k := i - 1
			for k >= 0 && (code[k] == ' ' || code[k] == '\t') {
				k--
			}
			if k >= 0 && code[k] == ')' {
				return i
			}
		}
	}
	return -1
}

// findDefine finds ":-" that is not a utility's negative value
// ("w:-1.5").
func findDefine(code []byte) int {
	for i := 0; i+1 < len(code); i++ {
		if code[i] == ':' && code[i+1] == '-' && !(i+2 < len(code) && (isDigit(code[i+2]) || code[i+2] == '.')) {
			return i
		}
	}
	return -1
}

// findIncrement finds "++" right after a name and not before one: LoMRF's
// successor ("t++"). Followed by a name, "a++y" is Alchemy's sum of a and
// the per-constant variable +y.
func findIncrement(code []byte) int {
	for i := 1; i+1 < len(code); i++ {
		if code[i] == '+' && code[i+1] == '+' && isIdentChar(code[i-1]) {
			k := i + 2
			for k < len(code) && (isSpaceOrNewline(code[k])) {
				k++
			}
			if k < len(code) && isIdentChar(code[k]) {
				continue
			}
			return i - 1 - identBack(code, i-1)
		}
	}
	return -1
}

// identBack returns how many name characters precede code[i] (itself a
// name character).
func identBack(code []byte, i int) int {
	n := 0
	for i-n-1 >= 0 && isIdentChar(code[i-n-1]) {
		n++
	}
	return n
}

// findSoftEvidence finds a line of a .db file that starts with a number
// followed by a ground atom: soft evidence.
func findSoftEvidence(code []byte) int {
	for i := 0; i < len(code); {
		j := i
		for j < len(code) && (code[j] == ' ' || code[j] == '\t' || code[j] == '\r') {
			j++
		}
		start := j
		k := j
		for k < len(code) && (isDigit(code[k]) || code[k] == '.') {
			k++
		}
		if k < len(code) && (code[k] == 'e' || code[k] == 'E') && k > start {
			m := k + 1
			if m < len(code) && (code[m] == '+' || code[m] == '-') {
				m++
			}
			if m < len(code) && isDigit(code[m]) {
				for k = m; k < len(code) && isDigit(code[k]); k++ {
				}
			}
		}
		if k > start && hasDigit(code[start:k]) && k < len(code) && (code[k] == ' ' || code[k] == '\t') {
			m := k
			for m < len(code) && (code[m] == ' ' || code[m] == '\t') {
				m++
			}
			if m < len(code) && code[m] == '!' {
				m++
			}
			n := m
			for n < len(code) && isIdentChar(code[n]) {
				n++
			}
			if n > m && isIdentStart(code[m]) && n < len(code) && code[n] == '(' {
				return start
			}
		}
		for i = j; i < len(code) && code[i] != '\n'; i++ {
		}
		i++
	}
	return -1
}

func hasDigit(b []byte) bool {
	for _, c := range b {
		if isDigit(c) {
			return true
		}
	}
	return false
}

// findQueryVar finds "?" before a name, where a name could not end:
// pracmln's variables ("?x").
func findQueryVar(code []byte) int {
	for i := 0; i+1 < len(code); i++ {
		if code[i] == '?' && isIdentStart(code[i+1]) && (i == 0 || !isIdentChar(code[i-1])) {
			return i
		}
	}
	return -1
}

// findPracmlnDirective finds a line that starts with "#fixweight" or
// "#fuzzy".
func findPracmlnDirective(code []byte) int {
	for i := 0; i < len(code); {
		j := i
		for j < len(code) && (code[j] == ' ' || code[j] == '\t') {
			j++
		}
		for _, d := range []string{"#fixweight", "#fuzzy"} {
			if rest := code[j:]; len(rest) >= len(d) && string(rest[:len(d)]) == d && (len(rest) == len(d) || !isIdentChar(rest[len(d)])) {
				return j
			}
		}
		for i = j; i < len(code) && code[i] != '\n'; i++ {
		}
		i++
	}
	return -1
}

// findSlashedNotEqual finds "=/=".
func findSlashedNotEqual(code []byte) int {
	for i := 0; i+2 < len(code); i++ {
		if code[i] == '=' && code[i+1] == '/' && code[i+2] == '=' {
			return i
		}
	}
	return -1
}

// findCardinality finds a line that starts with "|name|": RockIt's
// cardinality constraint.
func findCardinality(code []byte) int {
	for i := 0; i < len(code); {
		j := i
		for j < len(code) && (code[j] == ' ' || code[j] == '\t') {
			j++
		}
		if j < len(code) && code[j] == '|' {
			k := j + 1
			for k < len(code) && (isIdentChar(code[k]) || code[k] == ',' || code[k] == ' ') {
				k++
			}
			if k > j+1 && k < len(code) && code[k] == '|' {
				return j
			}
		}
		for i = j; i < len(code) && code[i] != '\n'; i++ {
		}
		i++
	}
	return -1
}

// isSpaceOrNewline reports whether c is white space to the scanner.
func isSpaceOrNewline(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\n'
}
