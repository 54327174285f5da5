package lifted

import (
	"context"
	"fmt"
	"math"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/wmc"
	"github.com/marple-mln/marple/mln"
)

// exactGround counts the ground network (package wmc) when the lifted
// computation could not; nl says why.
func exactGround(ctx context.Context, m *mln.Model, db *mln.Database, opt Options, nl *NotLiftableError) (*Result, error) {
	if db == nil {
		db = mln.NewDatabase(m)
	}
	net, err := ground.Ground(ctx, m, db, ground.Options{Query: opt.Query, OpenWorld: opt.OpenWorld})
	if err != nil {
		return nil, fmt.Errorf("lifted inference does not apply (%s), and grounding failed: %w", nl.Reason, err)
	}
	wo := opt.Ground
	wo.NoMarginals = opt.NoMarginals
	res, err := wmc.Solve(ctx, net, wo)
	if err != nil {
		return nil, fmt.Errorf("lifted inference does not apply (%s), and ground model counting failed: %w", nl.Reason, err)
	}
	// The network leaves out the unknown atoms that no clause grounding
	// keeps (they are free): each doubles Z.
	free := unknownAtoms(m, db, opt) - float64(net.NumAtoms())
	r := &Result{
		LogZ:   res.LogZ + free*math.Ln2,
		Method: MethodGround,
		Reason: nl.Reason,
		Warnings: []string{fmt.Sprintf("lifted inference does not apply (%s): counted the ground network instead (%d atoms, %d clauses)",
			nl.Reason, net.NumAtoms(), net.NumClauses())},
		model: m,
		atoms: map[string]int{},
		query: make([]bool, len(m.Preds)),
	}
	for _, q := range opt.Query {
		r.query[q] = true
	}
	if !opt.NoMarginals {
		for a := range net.NumAtoms() {
			p := net.AtomPred[a]
			if !r.query[p] {
				continue
			}
			args := net.AtomArgs[a]
			r.atoms[groundKey(p, args)] = len(r.Classes)
			r.Classes = append(r.Classes, AtomClass{Pred: p, Args: args, Count: 1, Prob: res.Marginals[a]})
		}
	}
	return r, nil
}

// unknownAtoms counts the unknown ground atoms of m under db: those of
// the open-world predicates not listed true or false, and those listed
// "?" of the others.
func unknownAtoms(m *mln.Model, db *mln.Database, opt Options) float64 {
	open := make([]bool, len(m.Preds))
	for _, q := range opt.Query {
		open[q] = true
	}
	for _, q := range opt.OpenWorld {
		open[q] = true
	}
	n := 0.0
	for _, p := range m.Preds {
		if open[p.ID] {
			tuples := 1.0
			for _, t := range p.Args {
				tuples *= float64(m.Types[t].Size())
			}
			n += tuples
		}
		db.Atoms(p.ID, func(_ []mln.ConstID, v mln.Truth) {
			switch {
			case open[p.ID] && v != mln.Unknown:
				n--
			case !open[p.ID] && v == mln.Unknown:
				n++
			}
		})
	}
	return n
}
