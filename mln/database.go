package mln

import (
	"slices"

	"github.com/marple-mln/marple/syntax"
)

// Truth is the value of a ground atom in a database.
type Truth uint8

// Truth values. False is the zero value: under the closed-world assumption
// an unlisted atom is false.
const (
	False Truth = iota
	True
	Unknown
)

// String returns "false", "true" or "unknown".
func (t Truth) String() string {
	switch t {
	case False:
		return "false"
	case True:
		return "true"
	}
	return "unknown"
}

// Database holds ground atoms with their truth values (an Alchemy .db file,
// or several merged). Only listed atoms are stored; whether an unlisted atom
// is false or unknown is decided by the predicate's world assumption when
// grounding.
type Database struct {
	Model *Model
	preds []dbPred
	files []string // the files read, for positions of atoms

	// Workers bounds the goroutines that read a large file (1 MiB or
	// more) in parts; 0 means GOMAXPROCS. The result does not depend on
	// it.
	Workers int

	// Warnings are the evidence's suspicious but accepted lines, such as
	// a constant the model declares with one type used as an argument of
	// another type (the loaders add it to that type too).
	Warnings syntax.ErrorList

	reals map[PredID]*realAtoms // values of real-valued atoms (hybrid.go)
}

type dbPred struct {
	index map[string]int32 // BindingKey(args) -> position in atoms
	atoms [][]ConstID
	truth []Truth
	where []atomPos // where each atom was read (zero: set by Set)
}

// atomPos is a compact source position: an index into Database.files
// plus one, a line and a column.
type atomPos struct{ file, line, col int32 }

// NewDatabase returns an empty database over m's predicates.
func NewDatabase(m *Model) *Database {
	return &Database{Model: m}
}

func (db *Database) pred(p PredID) *dbPred {
	for int(p) >= len(db.preds) {
		db.preds = append(db.preds, dbPred{})
	}
	return &db.preds[p]
}

// Set records atom p(args) with value v, replacing any earlier value.
func (db *Database) Set(p PredID, args []ConstID, v Truth) {
	db.setAt(p, args, v, atomPos{})
}

// setAt records atom p(args) with value v read at pos, unless the atom
// is listed already as true where v is false or the reverse: it then
// returns false and the earlier atom's value and position.
func (db *Database) setAt(p PredID, args []ConstID, v Truth, pos atomPos) (ok bool, old Truth, oldPos syntax.Pos) {
	d := db.pred(p)
	if d.index == nil {
		d.index = make(map[string]int32)
	}
	key := BindingKey(args)
	if i, found := d.index[key]; found {
		if o, w := d.truth[i], d.where[i]; pos.file > 0 && w.file > 0 && (o == True && v == False || o == False && v == True) {
			return false, o, syntax.Pos{File: db.files[w.file-1], Line: int(w.line), Col: int(w.col)}
		}
		d.truth[i] = v
		d.where[i] = pos
		return true, v, oldPos
	}
	d.index[key] = int32(len(d.atoms))
	d.atoms = append(d.atoms, append([]ConstID(nil), args...))
	d.truth = append(d.truth, v)
	d.where = append(d.where, pos)
	return true, v, oldPos
}

// Get returns the value of p(args) and whether the atom is listed.
func (db *Database) Get(p PredID, args []ConstID) (Truth, bool) {
	if int(p) >= len(db.preds) {
		return False, false
	}
	d := &db.preds[p]
	i, ok := d.index[BindingKey(args)]
	if !ok {
		return False, false
	}
	return d.truth[i], true
}

// Atoms calls fn for every listed atom of predicate p, in insertion order.
// fn must not keep or modify args.
func (db *Database) Atoms(p PredID, fn func(args []ConstID, v Truth)) {
	if int(p) >= len(db.preds) {
		return
	}
	d := &db.preds[p]
	for i, a := range d.atoms {
		fn(a, d.truth[i])
	}
}

// Count returns the number of listed atoms of predicate p.
func (db *Database) Count(p PredID) int {
	if int(p) >= len(db.preds) {
		return 0
	}
	return len(db.preds[p].atoms)
}

// Merge copies every atom of other into db (later values win). Both must
// share the same model.
func (db *Database) Merge(other *Database) {
	for p := range other.preds {
		d := &other.preds[p]
		for i, a := range d.atoms {
			db.Set(PredID(p), a, d.truth[i])
		}
	}
	db.copyReals(other, nil)
}

// Without returns a new database with db's atoms except those of the
// predicates drop: the evidence for inferring those predicates from a
// database that also lists their truth.
func (db *Database) Without(drop ...PredID) *Database {
	out := NewDatabase(db.Model)
	for p := range db.preds {
		if slices.Contains(drop, PredID(p)) {
			continue
		}
		d := &db.preds[p]
		for i, a := range d.atoms {
			out.Set(PredID(p), a, d.truth[i])
		}
	}
	out.copyReals(db, drop)
	return out
}
