package mln

import (
	"os"
	"path/filepath"
	"regexp"

	"github.com/marple-mln/marple/syntax"
)

// DetectDialect chooses the dialect of model files (and the files they
// #include) and evidence files from their own markers
// (syntax.DetectDialect): Alchemy's when no file has a construct that
// Alchemy's dialect lacks, else the one dialect whose constructs they
// use, with the marker that shows it; an error when the markers leave
// two dialects or none. It is for a program that was not told the
// dialect: a file that parses in Alchemy's dialect has no marker, so the
// choice never changes the meaning of such a file.
//
// Only regular files are looked at (a named pipe is read once, by the
// loader); a file that cannot be read is skipped, and the loader reports
// it.
func DetectDialect(modelFiles, evidenceFiles []string) (syntax.Dialect, *syntax.Found, error) {
	var found []syntax.Found
	seen := map[string]bool{}
	var model func(path string)
	model = func(path string) {
		abs := absPath(path)
		if seen[abs] {
			return
		}
		seen[abs] = true
		src := readRegular(path, MaxModelBytes)
		if src == nil {
			return
		}
		found = append(found, syntax.FindMarkers(path, src, false)...)
		for _, m := range includeRE.FindAllSubmatch(src, -1) {
			p := string(m[1])
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(path), p)
			}
			model(p)
		}
	}
	for _, p := range modelFiles {
		model(p)
	}
	for _, p := range evidenceFiles {
		if src := readRegular(p, MaxInputBytes); src != nil {
			found = append(found, syntax.FindMarkers(p, src, true)...)
		}
	}
	return syntax.DetectDialect(found)
}

var includeRE = regexp.MustCompile(`(?m)^[ \t]*#include[ \t]+"([^"\n]+)"`)

// readRegular reads path if it is a regular file that can be read, and
// returns nil otherwise.
func readRegular(path string, max int64) []byte {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	b, err := readInput(path, max)
	if err != nil {
		return nil
	}
	return b
}
