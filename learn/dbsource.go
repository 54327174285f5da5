package learn

import (
	"context"
	"fmt"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// DatabaseSource is an ExampleSource over training databases, one example
// per database, ground on demand (nothing is kept between calls). For
// example i it builds the evidence: DBs[i] without the atoms of the Query
// predicates; grounds it with Ground (which must leave the query atoms
// unknown, e.g. ground.Ground with Options.Query = Query, and fill
// Network.AtomPred/AtomArgs); and reads the truth of each atom of the
// network from DBs[i] (Network.Assignment: an unlisted atom is false). The loss counts the
// atoms of the Query predicates only.
type DatabaseSource struct {
	Model  *mln.Model
	DBs    []*mln.Database
	Query  []mln.PredID
	Ground func(ctx context.Context, evidence *mln.Database) (*ground.Network, error)
	// Names optionally names the examples (for errors), one per database.
	Names []string
}

// Len returns the number of databases.
func (s *DatabaseSource) Len() int { return len(s.DBs) }

// Example grounds database i.
func (s *DatabaseSource) Example(ctx context.Context, i int) (*Example, error) {
	db := s.DBs[i]
	isQuery := make([]bool, len(s.Model.Preds))
	for _, p := range s.Query {
		isQuery[p] = true
	}
	ev := mln.NewDatabase(s.Model)
	for p := range s.Model.Preds {
		if isQuery[p] {
			continue
		}
		db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) { ev.Set(mln.PredID(p), args, v) })
	}
	net, err := s.Ground(ctx, ev)
	if err != nil {
		return nil, err
	}
	n := net.NumAtoms()
	if len(net.AtomPred) < n || len(net.AtomArgs) < n {
		return nil, fmt.Errorf("learn: ground network of example %d does not describe its atoms", i)
	}
	ex := &Example{Net: net, Truth: net.Assignment(db), Query: make([]bool, n)}
	if i < len(s.Names) {
		ex.Name = s.Names[i]
	}
	for a := 0; a < n; a++ {
		p := net.AtomPred[a]
		ex.Query[a] = p >= 0 && int(p) < len(isQuery) && isQuery[p]
	}
	return ex, nil
}
