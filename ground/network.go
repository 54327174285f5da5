// Package ground turns a compiled MLN and its evidence into a ground
// network: the unknown ground atoms, with dense integer IDs, and the ground
// clauses over them that the evidence leaves undecided.
package ground

import (
	"math"

	"github.com/marple-mln/marple/mln"
)

// Lit is a ground literal: an atom ID times two, plus one when negated.
type Lit int32

// MakeLit returns the literal of atom a, negated when neg is set.
func MakeLit(a int32, neg bool) Lit {
	l := Lit(a << 1)
	if neg {
		l |= 1
	}
	return l
}

// Atom returns the literal's atom.
func (l Lit) Atom() int32 { return int32(l >> 1) }

// Neg reports whether the literal is negated.
func (l Lit) Neg() bool { return l&1 == 1 }

// Not returns the complementary literal.
func (l Lit) Not() Lit { return l ^ 1 }

// True reports whether the literal holds under assignment y.
func (l Lit) True(y []bool) bool { return y[l>>1] != (l&1 == 1) }

// Network is a ground Markov network in clausal form. Its variables are the
// unknown ground atoms 0..NumAtoms()-1; its factors are ground clauses, each
// a disjunction of literals over those atoms with a weight.
//
// The clauses are stored in compressed rows: clause c has the literals
// Lits[Start[c]:Start[c+1]]. A network built by the grounder also records
// where each clause comes from (Source, Param, Coef) so that learners can
// map clause counts to model parameters; a network built by hand with
// AddClause may leave those at -1.
type Network struct {
	// Model is the model the network was ground from (nil for a network
	// built by hand).
	Model *mln.Model

	// AtomPred and AtomArgs describe each atom: predicate and arguments.
	// Empty for a network built by hand.
	AtomPred []mln.PredID
	AtomArgs [][]mln.ConstID

	Lits  []Lit
	Start []int32 // len NumClauses()+1
	// Weight is the weight of each ground clause (the parameter's weight
	// times Coef); +Inf for a hard clause. A negative weight rewards the
	// clause being false.
	Weight []float64
	// Source is the index of the first-order clause (Model.Clauses) each
	// ground clause comes from, Param the model parameter (Model.Weights)
	// whose weight it carries (-1 for hard clauses) and Coef the multiplier.
	Source []int32
	Param  []int32
	Coef   []float64

	// EvidenceCount[p] is the part of parameter p's count that the
	// evidence decides: Coef times the number of groundings satisfied by the
	// evidence alone. It does not depend on the unknown atoms.
	EvidenceCount []float64
	// ConstScore is the weighted sum of every grounding satisfied by the
	// evidence alone (including groundings whose "+" binding never produced
	// an undecided clause, and so has no parameter). Score adds it.
	ConstScore float64
	// HardFalse counts hard groundings the evidence alone falsifies.
	HardFalse int

	// Global maps each atom of a network made by Sub to its atom in the
	// parent network, and GlobalClause each clause to its parent clause
	// (both nil for other networks).
	Global       []int32
	GlobalClause []int32

	unalloc []float64 // per formula: Coef × evidence-satisfied groundings of bindings without a parameter
	g       *grounder // grounding state, for AddModelClause

	occStart []int32 // atom -> clauses, compressed rows, built by Occurrences
	occ      []int32
	occN     int // number of clauses when occ was built
	numAtoms int
}

// NewNetwork returns an empty network over n atoms, for building by hand.
func NewNetwork(n int) *Network {
	return &Network{numAtoms: n, Start: []int32{0}}
}

// NumAtoms returns the number of unknown ground atoms.
func (n *Network) NumAtoms() int { return n.numAtoms }

// NumClauses returns the number of ground clauses.
func (n *Network) NumClauses() int { return len(n.Start) - 1 }

// Clause returns the literals of clause c. The slice must not be modified.
func (n *Network) Clause(c int) []Lit { return n.Lits[n.Start[c]:n.Start[c+1]] }

// IsHard reports whether clause c is hard.
func (n *Network) IsHard(c int) bool { return math.IsInf(n.Weight[c], 1) }

// AddAtom appends a new atom (with optional description) and returns its ID.
func (n *Network) AddAtom(p mln.PredID, args []mln.ConstID) int32 {
	a := int32(n.numAtoms)
	n.numAtoms++
	if n.Model != nil || len(n.AtomPred) > 0 || args != nil {
		for len(n.AtomPred) < int(a) {
			n.AtomPred = append(n.AtomPred, -1)
			n.AtomArgs = append(n.AtomArgs, nil)
		}
		n.AtomPred = append(n.AtomPred, p)
		n.AtomArgs = append(n.AtomArgs, args)
	}
	return a
}

// AddClause appends a ground clause with the given weight (+Inf for hard),
// source clause, parameter and coefficient, and returns its index. The
// literals are copied.
func (n *Network) AddClause(lits []Lit, weight float64, source, param int32, coef float64) int {
	c := n.NumClauses()
	n.Lits = append(n.Lits, lits...)
	n.Start = append(n.Start, int32(len(n.Lits)))
	n.Weight = append(n.Weight, weight)
	n.Source = append(n.Source, source)
	n.Param = append(n.Param, param)
	n.Coef = append(n.Coef, coef)
	return c
}

// Occurrences returns the clauses in which atom a occurs (with either
// sign). The index is built on first use and rebuilt after clauses are
// added.
func (n *Network) Occurrences(a int32) []int32 {
	if n.occStart == nil || n.occN != n.NumClauses() || len(n.occStart) != n.numAtoms+1 {
		n.buildOcc()
	}
	return n.occ[n.occStart[a]:n.occStart[a+1]]
}

func (n *Network) buildOcc() {
	cnt := make([]int32, n.numAtoms+1)
	for _, l := range n.Lits {
		cnt[l.Atom()+1]++
	}
	for i := 1; i <= n.numAtoms; i++ {
		cnt[i] += cnt[i-1]
	}
	occ := make([]int32, len(n.Lits))
	fill := append([]int32(nil), cnt[:n.numAtoms]...)
	for c := 0; c < n.NumClauses(); c++ {
		for _, l := range n.Clause(c) {
			a := l.Atom()
			occ[fill[a]] = int32(c)
			fill[a]++
		}
	}
	n.occStart, n.occ, n.occN = cnt, occ, n.NumClauses()
}

// Satisfied reports whether clause c holds under assignment y.
func (n *Network) Satisfied(c int, y []bool) bool {
	for _, l := range n.Clause(c) {
		if l.True(y) {
			return true
		}
	}
	return false
}

// Score returns the log-potential of assignment y: the sum of the weights
// of the satisfied soft clauses plus ConstScore, and the number of violated
// hard clauses (including HardFalse).
func (n *Network) Score(y []bool) (score float64, hardViolated int) {
	score = n.ConstScore
	hardViolated = n.HardFalse
	for c := 0; c < n.NumClauses(); c++ {
		sat := n.Satisfied(c, y)
		w := n.Weight[c]
		if math.IsInf(w, 1) {
			if !sat {
				hardViolated++
			}
			continue
		}
		if sat {
			score += w
		}
	}
	return score, hardViolated
}

// Cost returns the MaxWalkSAT cost of assignment y: the weight of the
// unsatisfied positive-weight clauses plus the absolute weight of the
// satisfied negative-weight clauses, and the number of violated hard
// clauses (not including HardFalse, which no assignment can change).
func (n *Network) Cost(y []bool) (cost float64, hardViolated int) {
	for c := 0; c < n.NumClauses(); c++ {
		sat := n.Satisfied(c, y)
		w := n.Weight[c]
		switch {
		case math.IsInf(w, 1):
			if !sat {
				hardViolated++
			}
		case w > 0 && !sat:
			cost += w
		case w < 0 && sat:
			cost -= w
		}
	}
	return cost, hardViolated
}
