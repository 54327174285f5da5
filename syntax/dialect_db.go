package syntax

import (
	"math"
	"strconv"
)

// ScanDBDialect is ScanDB for a .db file of dialect dl. In Tuffy's
// dialect a line may start with a probability, soft evidence
// ("0.8 Smokes(Carl)"): RawAtom.Prior.
func ScanDBDialect(dl Dialect, filename string, src []byte, fn func(a *RawAtom)) error {
	d := dbScanner{file: filename, src: src, line: 1, dialect: dl}
	if len(src) >= len(bom) && string(src[:len(bom)]) == bom {
		d.i, d.lineStart = len(bom), len(bom)
	}
	d.atom.Args = make([][]byte, 0, 8)
	d.atom.argPos = make([]Pos, 0, 8)
	d.run(fn)
	d.errs.Sort()
	return d.errs.Err()
}

// prior reads Tuffy's probability before an atom, if any; it reports
// false after an error.
func (d *dbScanner) prior() bool {
	src := d.src
	c := src[d.i]
	if !isDigit(c) && c != '.' && c != '-' && c != '+' {
		return true
	}
	start := d.i
	num, _ := d.number()
	v, err := strconv.ParseFloat(string(num), 64)
	if err != nil || math.IsNaN(v) {
		d.errorf(start, "malformed probability %s before a ground atom", num)
		return false
	}
	if v < 0 || v > 1 {
		d.errorf(start, "probability %s of soft evidence is not in [0,1]", num)
		return false
	}
	d.skipSpace(false)
	if d.i >= len(src) || src[d.i] == '\n' {
		d.errorf(d.i, "expected a ground atom after the probability %s", num)
		return false
	}
	if src[d.i] == '?' {
		d.errorf(d.i, "'?' after a probability: soft evidence gives the atom a prior")
		return false
	}
	d.atom.Prior, d.atom.HasPrior = v, true
	return true
}

// settlePrior finishes an atom read with a probability: "p !A" is the
// prior 1-p of A, and a prior of 0 or 1 is evidence, as Tuffy reads it.
// It reports false after an error.
func (d *dbScanner) settlePrior() bool {
	a := &d.atom
	if a.HasReal || a.Func {
		d.errs.Add(a.Pos, "soft evidence is a probability before a Boolean atom")
		return false
	}
	if a.Value == ValFalse {
		a.Prior = 1 - a.Prior
		a.Value = ValTrue
	}
	switch a.Prior {
	case 0:
		a.Value, a.HasPrior = ValFalse, false
	case 1:
		a.Value, a.HasPrior = ValTrue, false
	}
	return true
}
