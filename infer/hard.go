package infer

import (
	"context"
	"errors"
	"fmt"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/unionfind"
)

// ErrInfeasible is wrapped by the errors of the marginal engines (and of
// CheckHard) when no world satisfies the hard clauses of the network:
// their distribution is then empty, and no marginal means anything.
var ErrInfeasible = errors.New("the hard clauses cannot all hold")

// HardCheck is what CheckHard found about a network's hard clauses.
type HardCheck struct {
	// Clauses is the number of hard ground clauses of the network (the
	// evidence leaves some atom of each unknown).
	Clauses int
	// Components is the number of connected components of the hard
	// clauses, each decided on its own.
	Components int
	// HardFalse is the number of hard groundings the evidence alone
	// falsifies (ground.Network.HardFalse): they are not in the network,
	// and every world violates them.
	HardFalse int
	// World is a world of the network satisfying every hard clause (the
	// atoms in none are false).
	World []bool
}

// CheckHard decides exactly, by DPLL on each connected component of the
// hard clauses (SAT), whether some world satisfies every hard clause of
// net. It returns an error wrapping ErrInfeasible when none does (naming
// how many hard clauses the component that cannot hold has), one
// wrapping ErrSATBudget when a component needs more than MaxSATNodes
// branchings, and otherwise what it found, a satisfying world included.
// Hard groundings the evidence alone falsifies are not in the network:
// they are counted in HardCheck.HardFalse, for the caller to warn about,
// and do not make the check fail.
func CheckHard(ctx context.Context, net *ground.Network) (*HardCheck, error) {
	n := net.NumAtoms()
	hc := &HardCheck{HardFalse: net.HardFalse, World: make([]bool, n)}
	parent := unionfind.New[int32](n)
	find := parent.Find
	var hard []int32
	for c := range net.NumClauses() {
		if !net.IsHard(c) {
			continue
		}
		hard = append(hard, int32(c))
		lits := net.Clause(c)
		if len(lits) == 0 {
			return nil, fmt.Errorf("%w: a hard clause has no literal", ErrInfeasible)
		}
		for _, l := range lits[1:] {
			if ra, rb := find(lits[0].Atom()), find(l.Atom()); ra != rb {
				parent[ra] = rb
			}
		}
	}
	hc.Clauses = len(hard)
	byRoot := map[int32]int{}
	var parts [][][]ground.Lit
	for _, c := range hard {
		lits := net.Clause(int(c))
		r := find(lits[0].Atom())
		k, ok := byRoot[r]
		if !ok {
			k = len(parts)
			byRoot[r] = k
			parts = append(parts, nil)
		}
		parts[k] = append(parts[k], lits)
	}
	hc.Components = len(parts)
	for _, cls := range parts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s := NewSAT(cls)
		s.Phase = hc.World // false first: the atoms in no clause are false
		ok, err := s.Solve()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%w: no world satisfies %d hard ground clauses over %d atoms", ErrInfeasible, len(cls), len(s.atoms))
		}
		s.Fill(hc.World)
	}
	return hc, nil
}
