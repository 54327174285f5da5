package mln

import (
	"fmt"
	"math"
	"strings"

	"github.com/marple-mln/marple/syntax"
)

// MaxCNFLiterals bounds the literals of the clauses one formula may
// compile to (summed over its clauses).
var MaxCNFLiterals = 10_000_000

// cnfSize is an upper bound on the size of a CNF: its clauses and its
// literals (summed over the clauses), saturating at satMax.
type cnfSize struct{ clauses, lits int64 }

const satMax = int64(1) << 53

func satAdd(a, b int64) int64 {
	if a+b > satMax {
		return satMax
	}
	return a + b
}

func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > satMax/b {
		return satMax
	}
	return a * b
}

// and is the size of the conjunction of two CNFs.
func (x cnfSize) and(y cnfSize) cnfSize {
	return cnfSize{satAdd(x.clauses, y.clauses), satAdd(x.lits, y.lits)}
}

// or is the size of the disjunction of two CNFs multiplied out: every
// clause of x joined with every clause of y.
func (x cnfSize) or(y cnfSize) cnfSize {
	return cnfSize{satMul(x.clauses, y.clauses), satAdd(satMul(x.lits, y.clauses), satMul(x.clauses, y.lits))}
}

// sizer bounds the CNF of a formula before it is built, and finds the
// node that makes it too large.
type sizer struct {
	c     *compiler
	cause *node // the innermost node whose CNF exceeds the limits
	dom   string
}

func (s *sizer) tooBig(x cnfSize) bool {
	return x.clauses > int64(MaxCNFClauses) || x.lits > int64(MaxCNFLiterals)
}

// note records n as the cause when its size is too big but none of its
// operands' was.
func (s *sizer) note(n *node, x cnfSize) cnfSize {
	if s.cause == nil && s.tooBig(x) {
		s.cause = n
	}
	return x
}

// polar holds what the sizer knows of a formula and of its negation:
// the size of their CNFs, and whether they have a universally quantified
// variable once in negation normal form.
type polar struct {
	size [2]cnfSize // [0]: the formula, [1]: its negation
	univ [2]bool
}

// size bounds the CNF of n and of its negation, as cnf(nnf(n, neg))
// builds them, in one pass over n (each node is visited once).
func (s *sizer) size(n *node) polar {
	switch n.kind {
	case nLit:
		return polar{size: [2]cnfSize{{1, 1}, {1, 1}}}
	case nNot:
		x := s.size(n.kids[0])
		return polar{size: [2]cnfSize{x.size[1], x.size[0]}, univ: [2]bool{x.univ[1], x.univ[0]}}
	case nAnd, nOr, nImp:
		kids := n.kids
		var out polar
		for neg := range 2 {
			conj := (n.kind == nAnd) != (neg == 1)
			out.size[neg] = cnfSize{0, 0}
			if !conj {
				out.size[neg] = cnfSize{1, 0}
			}
		}
		trueDisj := [2]bool{}
		for i, k := range kids {
			x := s.size(k)
			if n.kind == nImp && i == 0 {
				// a => b is !a v b.
				x = polar{size: [2]cnfSize{x.size[1], x.size[0]}, univ: [2]bool{x.univ[1], x.univ[0]}}
			}
			for neg := range 2 {
				kind := n.kind
				if kind == nImp {
					kind = nOr
				}
				out.univ[neg] = out.univ[neg] || x.univ[neg]
				if (kind == nAnd) != (neg == 1) {
					out.size[neg] = out.size[neg].and(x.size[neg])
				} else if x.size[neg].clauses == 0 {
					trueDisj[neg] = true
				} else {
					out.size[neg] = out.size[neg].or(x.size[neg])
				}
			}
		}
		for neg := range 2 {
			if trueDisj[neg] {
				out.size[neg] = cnfSize{}
			}
			s.note(n, out.size[neg])
		}
		return out
	case nIff:
		// The chain so far, plain and negated.
		x := s.size(n.kids[0])
		p, q := x.size[0], x.size[1]
		univ := x.univ[0] || x.univ[1]
		for _, k := range n.kids[1:] {
			y := s.size(k)
			kp, kq := y.size[0], y.size[1]
			univ = univ || y.univ[0] || y.univ[1]
			// x <=> k: (!x v k) ^ (x v !k); its negation (x ^ !k) v (!x ^ k).
			p, q = q.or(kp).and(p.or(kq)), p.and(kq).or(q.and(kp))
			if s.cause == nil && (s.tooBig(p) || s.tooBig(q)) {
				s.cause = n
			}
		}
		return polar{size: [2]cnfSize{p, q}, univ: [2]bool{univ, univ}}
	case nExist, nForall:
		body := s.size(n.kids[0])
		var out polar
		for neg := range 2 {
			b := body.size[neg]
			exist := (n.kind == nExist) != (neg == 1)
			out.univ[neg] = body.univ[neg] || !exist && len(n.vars) > 0
			if !exist || len(n.vars) == 0 || b.clauses == 0 || b.clauses == 1 && !body.univ[neg] {
				out.size[neg] = b // universal, or staying in one clause
				continue
			}
			// Expanded over the domains of its variables: a disjunction
			// of one copy of the body per binding.
			acc := cnfSize{1, 0}
			for _, v := range n.vars {
				t := s.c.m.Types[s.c.vars[v].typ]
				for range t.Consts {
					acc = acc.or(b)
					if acc.clauses >= satMax || acc.lits >= satMax {
						break
					}
				}
				if s.cause == nil && s.tooBig(acc) {
					s.cause = n
					s.dom = fmt.Sprintf("%s (%d constants)", t.Name, len(t.Consts))
				}
			}
			out.size[neg] = acc
		}
		return out
	}
	return polar{size: [2]cnfSize{{1, 1}, {1, 1}}}
}

// checkSize refuses formula f (with internal tree root) when its CNF
// would exceed MaxCNFClauses clauses or MaxCNFLiterals literals, before
// building it, naming the formula and the node that multiplies it out.
func (c *compiler) checkSize(f *Formula, root *node) error {
	s := &sizer{c: c}
	x := s.size(root).size[0]
	if !s.tooBig(x) {
		return nil
	}
	what := fmt.Sprintf("more than %d clauses", MaxCNFClauses)
	if x.clauses <= int64(MaxCNFClauses) {
		what = fmt.Sprintf("more than %d literals", MaxCNFLiterals)
	}
	why := ""
	if n := s.cause; n != nil {
		at := ""
		if n.pos.IsValid() {
			at = " at " + n.pos.String()
		}
		switch n.kind {
		case nIff:
			why = fmt.Sprintf("the chain of %d formulas joined by <=>%s doubles the clauses at each <=>", len(n.kids), at)
		case nExist, nForall:
			why = "the quantifier" + at + " is expanded over the domain of " + s.dom + ", a disjunction of one copy of its body per constant"
		case nAnd, nOr, nImp:
			why = "the disjunction" + at + " of conjunctions multiplies out (one clause per choice of a clause from each side)"
		}
	}
	msg := fmt.Sprintf("formula %s would have %s in CNF", shortFormula(f.AST), what)
	if why != "" {
		msg += ": " + why
	}
	return syntax.Errorf(f.Pos, "%s", msg)
}

// shortFormula returns a formula's text, shortened to about 80 bytes.
func shortFormula(f syntax.Formula) string {
	const max = 80
	s := syntax.FormulaString(f)
	if len(s) > max {
		cut := strings.LastIndexByte(s[:max], ' ')
		if cut < max/2 {
			cut = max
		}
		s = s[:cut] + " ..."
	}
	return s
}

// MaxWeightSum bounds the sum of the absolute weights of the soft
// formulas: inference adds up weights times groundings, and a larger sum
// would overflow to infinity and give a meaningless answer.
var MaxWeightSum = 1e200

// checkWeightSum refuses a model whose soft weights are too large to add
// up, at the formula of the largest weight.
func (m *Model) checkWeightSum() error {
	sum, big := 0.0, -1
	for i, f := range m.Formulas {
		if f.Hard || f.Synthetic {
			continue
		}
		a := math.Abs(f.Weight)
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return syntax.Errorf(f.Pos, "weight %v is not a finite number", f.Weight)
		}
		sum += a
		if big < 0 || a > math.Abs(m.Formulas[big].Weight) {
			big = i
		}
	}
	if sum > MaxWeightSum {
		f := m.Formulas[big]
		return syntax.Errorf(f.Pos, "weights too large: the soft formulas' weights add up to %g in absolute value (more than %g, where inference's sums overflow); this one is %g (a hard formula is written with a trailing '.', no weight)",
			sum, MaxWeightSum, f.Weight)
	}
	return nil
}
