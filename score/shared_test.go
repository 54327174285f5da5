package score

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// TestSharedCountsEqual checks that PLLData sharing a CountCache, built
// over overlapping subsets of the same databases, exact and with atoms
// sampled, give every clause of random MLNs the counts (and the refusals
// under a bound on groundings) that each gives alone, and that each
// database's counts are computed once.
func TestSharedCountsEqual(t *testing.T) {
	for seed := int64(0); seed < 60; seed++ {
		c := randmln.Generate(seed)
		m, _, _, _, err := c.Load()
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		var dbs []*mln.Database
		for range 3 {
			db, _ := randomWorld(m, r, 0.2+0.6*r.Float64())
			dbs = append(dbs, db)
		}
		sh := NewCountCache()
		maxG := int64(0)
		if seed%3 == 0 {
			maxG = 40
		}
		for _, set := range [][]*mln.Database{{dbs[1], dbs[2]}, {dbs[0], dbs[2]}, {dbs[0], dbs[1]}, dbs} {
			for _, opt := range []CountOptions{{MaxGroundings: maxG}, {MaxGroundings: maxG, FractAtoms: 0.6, Seed: uint64(seed)}, {MaxGroundings: maxG, OwnDomains: true}} {
				alone, err := NewPLLData(m, set, nil, opt)
				if err != nil {
					t.Fatal(err)
				}
				opt.Shared = sh
				shared, err := NewPLLData(m, set, nil, opt)
				if err != nil {
					t.Fatal(err)
				}
				for _, cl := range m.Clauses {
					want, werr := alone.Counts(cl)
					got, gerr := shared.Counts(cl)
					if werr != nil || gerr != nil {
						if werr == nil || gerr == nil || errors.Is(werr, ErrTooManyGroundings) != errors.Is(gerr, ErrTooManyGroundings) ||
							!errors.Is(werr, ErrTooManyGroundings) && !strings.Contains(werr.Error(), "not supported") {
							t.Fatalf("seed %d: clause %s: error %v alone, %v shared", seed, clauseString(m, cl), werr, gerr)
						}
						continue
					}
					if len(cl.Plus) == 0 && got.examined != want.examined {
						t.Fatalf("seed %d: clause %s: %d groundings examined shared, %d alone", seed, clauseString(m, cl), got.examined, want.examined)
					}
					for db := range want.cols {
						w, g := want.cols[db], got.cols[db]
						if len(w.idx) == 0 && len(g.idx) == 0 {
							continue
						}
						if !reflect.DeepEqual(w.idx, g.idx) || !reflect.DeepEqual(w.val, g.val) {
							t.Fatalf("seed %d: clause %s, database %d: shared counts differ", seed, clauseString(m, cl), db)
						}
					}
				}
			}
		}
		if n, most := sh.Len(), 3*2*len(m.Clauses); n > most {
			t.Fatalf("seed %d: %d counts shared, at most %d expected (each clause once per database and domains)", seed, n, most)
		}
	}
}
