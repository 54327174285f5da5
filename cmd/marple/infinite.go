package main

import (
	"github.com/marple-mln/marple/infinite"
	"github.com/marple-mln/marple/mln"
)

// analyzeInfinite runs the infinite-domain analysis of check -infinite.
func analyzeInfinite(m *mln.Model, db *mln.Database, query []mln.PredID, fixed string) (*infinite.Report, error) {
	types, err := typeIDs(m, fixed, "fixed")
	if err != nil {
		return nil, err
	}
	return infinite.Analyze(m, db, infinite.Options{Query: query, Fixed: types}), nil
}

// typeIDs resolves a comma-separated list of type names.
func typeIDs(m *mln.Model, list, flagName string) ([]mln.TypeID, error) {
	var out []mln.TypeID
	for _, name := range splitList(list) {
		t, ok := m.Type(name)
		if !ok {
			return nil, usagef("-%s: unknown type %q", flagName, name)
		}
		out = append(out, t.ID)
	}
	return out, nil
}
