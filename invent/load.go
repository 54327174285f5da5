package invent

import (
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// LoadDatabase reads .db files into one database over m, as
// mln.LoadDatabase does, and also reads gzip-compressed ones (a name ending
// in .gz; the UMLS folds are). It is a stopgap until the core reader
// handles .gz itself.
func LoadDatabase(m *mln.Model, paths ...string) (*mln.Database, error) {
	db := mln.NewDatabase(m)
	var errs syntax.ErrorList
	for _, p := range paths {
		src, err := readMaybeGzip(p)
		if err != nil {
			errs = append(errs, &syntax.Error{Msg: err.Error()})
			continue
		}
		if err := db.ReadFrom(p, src); err != nil {
			if el, ok := err.(syntax.ErrorList); ok {
				errs = append(errs, el...)
			} else {
				return db, err
			}
		}
	}
	errs.Sort()
	return db, errs.Err()
}

// readMaybeGzip reads a .db file, decompressed when the name ends in .gz
// (or the file starts with gzip's magic bytes); binary data is refused
// (mln.ReadInput).
func readMaybeGzip(path string) ([]byte, error) {
	return mln.ReadInput(path)
}
