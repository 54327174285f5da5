package mln

import (
	"context"
	"fmt"
	"strings"

	"github.com/marple-mln/marple/internal/suggest"
)

// Load reads the model files and the evidence files (none is fine) and
// compiles the model: what every command does before grounding, in one
// call. The evidence adds its constants to the model's domains before the
// formulas are compiled (existential quantifiers expand over the final
// domains).
func Load(ctx context.Context, modelFiles, evidenceFiles []string) (*Model, *Database, error) {
	if len(modelFiles) == 0 {
		return nil, nil, fmt.Errorf("mln: no model file")
	}
	m, err := LoadModel(modelFiles...)
	if err != nil {
		return nil, nil, err
	}
	db, err := LoadDatabase(m, evidenceFiles...)
	if err != nil {
		return nil, nil, err
	}
	if err := m.CompileContext(ctx); err != nil {
		return nil, nil, err
	}
	return m, db, nil
}

// LoadEvidence reads other evidence for a model already loaded (and
// perhaps learned) on some: the test databases after the training ones.
// The database's model (db.Model) is m.WithoutEvidence() with the new
// evidence's constants, compiled; m itself is left as it is. This is what
// writing the learned model with WriteModel and loading it again with the
// new evidence would give, without the round trip: the new domains hold
// the model's own constants and the new evidence's, none of the training
// constants.
func LoadEvidence(ctx context.Context, m *Model, evidenceFiles ...string) (*Database, error) {
	t := m.WithoutEvidence()
	db, err := LoadDatabase(t, evidenceFiles...)
	if err != nil {
		return nil, err
	}
	if err := t.CompileContext(ctx); err != nil {
		return nil, err
	}
	return db, nil
}

// LoadMultiple is Load with one database per evidence file instead of one
// for all (Alchemy's -multipleDatabases): each file is its own world, as
// structure learning (package structure) and learning with
// learn.ExampleOptions.MultipleDatabases take them. The model is compiled
// after every file was read, so its domains hold the constants of all.
func LoadMultiple(ctx context.Context, modelFiles, evidenceFiles []string) (*Model, []*Database, error) {
	if len(modelFiles) == 0 {
		return nil, nil, fmt.Errorf("mln: no model file")
	}
	m, err := LoadModel(modelFiles...)
	if err != nil {
		return nil, nil, err
	}
	dbs := make([]*Database, 0, len(evidenceFiles))
	for _, f := range evidenceFiles {
		db, err := LoadDatabase(m, f)
		if err != nil {
			return nil, nil, err
		}
		dbs = append(dbs, db)
	}
	if err := m.CompileContext(ctx); err != nil {
		return nil, nil, err
	}
	return m, dbs, nil
}

// AtomString returns the ground atom p(args) as a .db file or a result
// file writes it: Smokes(Anna), Friends(Anna,Bob).
func (m *Model) AtomString(p PredID, args []ConstID) string { return m.atomString(p, args) }

// PredIDs resolves predicate names, in order; an unknown name is an error
// naming it. Names may also be given comma-separated in one string, as on
// the command line ("Smokes,Cancer").
func (m *Model) PredIDs(names ...string) ([]PredID, error) {
	var ids []PredID
	for _, list := range names {
		for _, name := range strings.Split(list, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			p, ok := m.Pred(name)
			if !ok {
				return nil, fmt.Errorf("unknown predicate %q%s", name, m.PredHint(name))
			}
			ids = append(ids, p.ID)
		}
	}
	return ids, nil
}

// PredHint returns " (did you mean P?)" for the declared predicate P whose
// name is closest to name, or "" when none is close: for error messages
// about an unknown predicate.
func (m *Model) PredHint(name string) string {
	names := make([]string, len(m.Preds))
	for i, p := range m.Preds {
		names[i] = p.Name
	}
	return suggest.Hint(name, names)
}
