package infer

import (
	"math"

	"github.com/marple-mln/marple/ground"
)

// WorldScore is what a world (an assignment of a ground network's atoms)
// is worth under the model: what MaxWalkSAT minimises and what the
// distribution weighs.
type WorldScore struct {
	// Cost is the MaxWalkSAT cost: the weights of the violated soft
	// clauses of positive weight plus the absolute weights of the
	// satisfied ones of negative weight (Network.Cost).
	Cost float64
	// LogWeight is Σ_i w_i n_i(x) over the soft clauses: the weights of
	// the satisfied soft ground clauses, those the evidence decides
	// included (Network.Score): log P(x) + log Z.
	LogWeight float64
	// HardViolated counts the hard ground clauses the world violates,
	// HardFalse of them falsified by the evidence alone.
	HardViolated, HardFalse int
	// Formulas holds, per formula of the model (Model.Formulas), what its
	// ground clauses contribute to the cost.
	Formulas []FormulaScore
}

// FormulaScore is what the ground clauses of one formula contribute to a
// world's cost.
type FormulaScore struct {
	// Violated counts the ground clauses that add to the cost (violated,
	// or satisfied with a negative weight); hard ones count in Hard.
	Violated, Hard int
	// Cost is their weight.
	Cost float64
}

// ScoreWorld scores assignment y of net's atoms. A network built by hand
// (no Model) has no per-formula scores.
func ScoreWorld(net *ground.Network, y []bool) *WorldScore {
	s := &WorldScore{HardFalse: net.HardFalse}
	s.Cost, s.HardViolated = net.Cost(y)
	s.LogWeight, _ = net.Score(y)
	s.HardViolated += net.HardFalse
	m := net.Model
	if m != nil {
		s.Formulas = make([]FormulaScore, len(m.Formulas))
	}
	for c := 0; c < net.NumClauses(); c++ {
		sat := net.Satisfied(c, y)
		w := net.Weight(c)
		var f *FormulaScore
		if src := net.Source(c); m != nil && src >= 0 && int(src) < len(m.Clauses) {
			f = &s.Formulas[m.Clauses[src].Formula]
		}
		if f == nil {
			continue
		}
		switch {
		case math.IsInf(w, 1):
			if !sat {
				f.Hard++
			}
		case w > 0 && !sat:
			f.Violated++
			f.Cost += w
		case w < 0 && sat:
			f.Violated++
			f.Cost -= w
		}
	}
	return s
}
