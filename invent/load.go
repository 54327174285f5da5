package invent

import (
	"compress/gzip"
	"io"
	"os"
	"strings"

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

func readMaybeGzip(path string) ([]byte, error) {
	if !strings.HasSuffix(path, ".gz") {
		return os.ReadFile(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, &os.PathError{Op: "gunzip", Path: path, Err: err}
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, &os.PathError{Op: "gunzip", Path: path, Err: err}
	}
	return b, nil
}
