package ground

import (
	"sync"

	"github.com/marple-mln/marple/mln"
)

// SharedEvidence is evidence that many groundings of one model share, such
// as the atoms without an argument of the example type when each training
// example is ground on its own (Options.Domains): the atoms of some
// predicates, which a grounding given it through Options.Shared reads from
// here instead of from its own database. The indexed evidence of each
// predicate is built by the first grounding that needs it and reused by
// the later ones while the predicate's world assumption and the domains of
// its argument types stay the same (a predicate with an argument whose
// type Options.Domains overrides is indexed anew each time). It is safe for
// concurrent use.
type SharedEvidence struct {
	db    *mln.Database
	preds []bool
	mu    sync.Mutex
	cache map[sharedKey]*predTable
}

type sharedKey struct {
	p           mln.PredID
	open, query bool
}

// NewSharedEvidence returns the shared evidence made of the atoms of preds
// in db. db must not change afterwards.
func NewSharedEvidence(db *mln.Database, preds []mln.PredID) *SharedEvidence {
	s := &SharedEvidence{db: db, cache: make(map[sharedKey]*predTable)}
	for _, p := range preds {
		if p < 0 {
			continue
		}
		for int(p) >= len(s.preds) {
			s.preds = append(s.preds, false)
		}
		s.preds[p] = true
	}
	return s
}

// has reports whether the shared evidence holds predicate p.
func (s *SharedEvidence) has(p mln.PredID) bool {
	return int(p) < len(s.preds) && s.preds[p]
}

// table returns the table of predicate p for grounder g (whose domains of
// p's argument types are the model's), from the cache when it is still
// valid.
func (s *SharedEvidence) table(g *grounder, p mln.PredID) (*predTable, error) {
	if s.db == nil || s.db.Model != g.m {
		return g.buildPredTable(p, s.db)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := sharedKey{p: p, open: g.open[p], query: g.query[p]}
	if pt, ok := s.cache[key]; ok && len(pt.types) == len(g.m.Preds[p].Args) {
		valid := true
		for j, t := range pt.types {
			if t != g.m.Preds[p].Args[j] || pt.sizes[j] != int64(g.size(t)) {
				valid = false
			}
		}
		if valid {
			return pt, nil
		}
	}
	pt, err := g.buildPredTable(p, s.db)
	if err != nil {
		return nil, err
	}
	s.cache[key] = pt
	return pt, nil
}
