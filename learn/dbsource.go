package learn

import (
	"context"
	"fmt"
	"slices"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// DatabaseSource is an ExampleSource over training databases, one example
// per database, ground on demand (nothing is kept between calls). For
// example i it builds the evidence: DBs[i] without the atoms of the Query
// predicates; grounds it; and reads the truth of each atom of the network
// from DBs[i] (Network.Assignment: an unlisted atom is false). The loss
// counts the atoms of the Query predicates only.
//
// Unless Ground is set, example i is ground by ground.Ground with Options
// (its Query replaced by Query) and, as Alchemy's -multipleDatabases does,
// every type's domain restricted to the constants DBs[i] mentions (its
// query atoms included) plus the model's own constants of the type
// (Type.Declared); SharedDomains keeps the model's domains (every
// database's constants) instead.
//
// With ListedQuery (Alchemy's -queryEvidence) only the atoms of the Query
// predicates that DBs[i] lists, true or false, are query atoms of example
// i; their unlisted atoms are false evidence and stay out of the network
// (for candidate pairs pre-selected by a blocking step, such as the
// canopies of entity resolution).
type DatabaseSource struct {
	Model *mln.Model
	DBs   []*mln.Database
	Query []mln.PredID
	// Options are the grounding options when Ground is nil.
	Options       ground.Options
	SharedDomains bool
	ListedQuery   bool
	// Ground, when set, grounds an example's evidence instead; it must
	// leave the query atoms unknown (e.g. ground.Ground with Options.Query
	// = Query) and fill Network.AtomPred/AtomArgs.
	Ground func(ctx context.Context, evidence *mln.Database) (*ground.Network, error)
	// Names optionally names the examples (for errors), one per database.
	Names []string
}

// Len returns the number of databases.
func (s *DatabaseSource) Len() int { return len(s.DBs) }

// Example grounds database i.
func (s *DatabaseSource) Example(ctx context.Context, i int) (*Example, error) {
	db := s.DBs[i]
	ev := db.Without(s.Query...)
	if s.ListedQuery {
		ev = listedUnknown(db, s.Query)
	}
	var net *ground.Network
	var err error
	if s.Ground != nil {
		net, err = s.Ground(ctx, ev)
	} else {
		opt := s.Options
		opt.Query = s.Query
		if s.ListedQuery {
			opt.Query = nil // closed world: the unlisted atoms are false
		}
		if !s.SharedDomains {
			restrict := make([]bool, len(s.Model.Types))
			for t := range restrict {
				_, given := s.Options.Domains[mln.TypeID(t)]
				restrict[t] = !given
			}
			d := newExampleDomains(s.Model, restrict)
			for p := range s.Model.Preds {
				db.Atoms(mln.PredID(p), func(args []mln.ConstID, _ mln.Truth) { d.atom(mln.PredID(p), args) })
			}
			opt.Domains = d.domains(s.Options.Domains)
		}
		net, err = ground.Ground(ctx, s.Model, ev, opt)
	}
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
		ex.Query[a] = p >= 0 && slices.Contains(s.Query, p)
	}
	return ex, nil
}

// listedUnknown returns a copy of db in which the listed atoms of the
// predicates query are unknown.
func listedUnknown(db *mln.Database, query []mln.PredID) *mln.Database {
	ev := db.Without()
	for _, q := range query {
		var listed [][]mln.ConstID
		db.Atoms(q, func(args []mln.ConstID, _ mln.Truth) {
			listed = append(listed, slices.Clone(args))
		})
		for _, args := range listed {
			ev.Set(q, args, mln.Unknown)
		}
	}
	return ev
}
