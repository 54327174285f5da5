package ground

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/marple-mln/marple/mln"
)

// A plan says how to enumerate the groundings of one first-order clause
// that the evidence does not satisfy: a sequence of binding steps, each
// followed by checks of the literals it completes, like a query plan.
type plan struct {
	ci      int // index into Model.Clauses
	clause  *mln.Clause
	formula int
	hard    bool
	coef    float64
	nvars   int
	lits    []litInfo
	ground  []int // literals without variables, checked once
	steps   []step
	exist   []int   // existential variables
	existSz []int32 // their domain sizes
	exLits  []int   // literals with existential variables
	plus    []int   // "+" variables, in parameter binding order
	pstride []uint64
	psize   []int64
	// perBinding is the number of groundings of the universally quantified
	// non-"+" variables, numBindings the number of "+" bindings.
	perBinding  float64
	numBindings float64
	estimate    float64 // expected number of groundings that survive
	// materialised bounds the surviving groundings that become ground
	// clauses: those with at least one literal over an unknown atom (the
	// others are decided by the evidence and only counted).
	materialised float64
	allFalse     bool    // an existential variable has an empty domain
	estLits      float64 // expected literals per surviving grounding
}

// litInfo is a literal prepared for evaluation.
type litInfo struct {
	pred    *predTable // nil for a builtin
	builtin mln.Builtin
	neg     bool
	terms   []mln.Term
	local   []int32 // per argument: local index of a constant term, or -1
	exist   bool    // mentions an existential variable
	vars    []int   // distinct variables
}

const (
	stepDomain = iota // enumerate a variable over its type's domain
	stepGen           // enumerate the rows of a negative closed-world literal
	stepEq            // bind a variable to the value an equality requires
)

type posVar struct{ pos, v int }

type step struct {
	kind int
	v    int   // stepDomain, stepEq: the variable bound
	size int32 // stepDomain: domain size
	// stepEq: the variable to copy, or -1 for a constant whose local index
	// in v's type is eqConst (-1 when it is not in the domain); eqMap when
	// the source variable's type differs from v's type.
	eqFrom  int
	eqConst int32
	eqMap   bool
	// stepEq: 1 + the literal "!(v = f(args))" of an internal function
	// whose value v takes (0: an equality).
	arith int
	// stepGen
	lit      int
	mask     uint32 // bound argument positions
	ix       *genIndex
	keyVars  []posVar // bound variable positions (packed with the row strides)
	keyConst uint64   // packed constant positions
	binds    []posVar // positions binding new variables
	same     []posVar // positions repeating a variable bound in this row
	checks   []int    // literals fully bound after this step
	est      float64  // expected fan-out
}

// clauseString renders clause c of m for messages.
func clauseString(m *mln.Model, c *mln.Clause) string {
	var b strings.Builder
	term := func(t mln.Term) string {
		if t.IsVar() {
			v := t.Var()
			if v < len(c.Vars) && c.Vars[v].Name != "" {
				return c.Vars[v].Name
			}
			return "v" + strconv.Itoa(v)
		}
		return m.ConstName(t.Const())
	}
	for i, l := range c.Lits {
		if i > 0 {
			b.WriteString(" v ")
		}
		if l.Pred < 0 {
			op := map[mln.Builtin]string{mln.Eq: "=", mln.Neq: "!=", mln.Lt: "<", mln.Le: "<=", mln.Gt: ">", mln.Ge: ">="}[l.Builtin]
			if l.Neg {
				b.WriteString("!(")
			}
			if len(l.Args) == 2 {
				b.WriteString(term(l.Args[0]) + " " + op + " " + term(l.Args[1]))
			}
			if l.Neg {
				b.WriteString(")")
			}
			continue
		}
		if l.Neg {
			b.WriteByte('!')
		}
		b.WriteString(m.Preds[l.Pred].Name)
		b.WriteByte('(')
		for j, t := range l.Args {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(term(t))
		}
		b.WriteByte(')')
	}
	if len(c.Lits) == 0 {
		b.WriteString("(empty clause)")
	}
	return b.String()
}

// clauseName names clause ci for messages: its position and text.
func (g *grounder) clauseName(ci int) string {
	c := g.m.Clauses[ci]
	s := fmt.Sprintf("clause %d", ci)
	if c.Formula >= 0 && c.Formula < len(g.m.Formulas) {
		if p := g.m.Formulas[c.Formula].Pos; p.IsValid() {
			s += " (" + p.String() + ")"
		}
	}
	return s + " `" + clauseString(g.m, c) + "`"
}

// makePlan validates clause ci and plans its enumeration.
func (g *grounder) makePlan(ci int) (*plan, error) {
	m := g.m
	c := m.Clauses[ci]
	pl := &plan{ci: ci, clause: c, formula: c.Formula, hard: c.Hard, coef: c.Coef / mln.DomainScale(c, g.size), nvars: len(c.Vars)}
	if c.Formula < 0 || c.Formula >= len(m.Formulas) {
		return nil, fmt.Errorf("ground: %s: formula index %d out of range", g.clauseName(ci), c.Formula)
	}
	isExist := make([]bool, len(c.Vars))
	for _, v := range c.Exist {
		if v < 0 || v >= len(c.Vars) {
			return nil, fmt.Errorf("ground: %s: existential variable %d out of range", g.clauseName(ci), v)
		}
		if !isExist[v] {
			isExist[v] = true
			pl.exist = append(pl.exist, v)
			pl.existSz = append(pl.existSz, int32(g.size(c.Vars[v].Type)))
		}
	}
	for _, v := range c.Vars {
		if v.Type < 0 || int(v.Type) >= len(m.Types) {
			return nil, fmt.Errorf("ground: %s: variable %s has no type", g.clauseName(ci), v.Name)
		}
	}
	// "+" variables, in the formula's PlusVars order (Clause.Plus).
	pl.plus = append([]int(nil), c.Plus...)
	isPlus := make([]bool, len(c.Vars))
	for _, v := range pl.plus {
		if v < 0 || v >= len(c.Vars) {
			return nil, fmt.Errorf("ground: %s: \"+\" variable %d out of range", g.clauseName(ci), v)
		}
		if isExist[v] {
			return nil, fmt.Errorf("ground: %s: \"+\" variable %s is existentially quantified", g.clauseName(ci), c.Vars[v].Name)
		}
		isPlus[v] = true
	}
	pl.pstride = make([]uint64, len(pl.plus))
	pl.psize = make([]int64, len(pl.plus))
	st := uint64(1)
	for k := len(pl.plus) - 1; k >= 0; k-- {
		n := int64(g.size(c.Vars[pl.plus[k]].Type))
		pl.psize[k] = n
		pl.pstride[k] = st
		if n > 0 {
			st *= uint64(n)
		}
	}
	pl.perBinding, pl.numBindings = 1, 1
	for v, cv := range c.Vars {
		n := float64(g.size(cv.Type))
		switch {
		case isExist[v]:
		case isPlus[v]:
			pl.numBindings *= n
		default:
			pl.perBinding *= n
		}
	}

	// Literals.
	for li, l := range c.Lits {
		info := litInfo{neg: l.Neg, terms: l.Args}
		seen := make(map[int]bool)
		for _, t := range l.Args {
			if t.IsVar() {
				v := t.Var()
				if v >= len(c.Vars) {
					return nil, fmt.Errorf("ground: %s: literal %d uses undeclared variable %d", g.clauseName(ci), li, v)
				}
				if !seen[v] {
					seen[v] = true
					info.vars = append(info.vars, v)
				}
				if isExist[v] {
					info.exist = true
				}
			} else if int(t.Const()) >= m.NumConsts() {
				return nil, fmt.Errorf("ground: %s: literal %d uses unknown constant %d", g.clauseName(ci), li, t.Const())
			}
		}
		if l.Pred < 0 {
			if l.Builtin == mln.NoBuiltin || l.Builtin > mln.Mod || len(l.Args) != l.Builtin.Arity() {
				return nil, fmt.Errorf("ground: %s: malformed comparison literal", g.clauseName(ci))
			}
			info.builtin = l.Builtin
			if l.Builtin >= mln.Lt && l.Builtin <= mln.Ge {
				g.needInts()
			}
		} else {
			if int(l.Pred) >= len(m.Preds) {
				return nil, fmt.Errorf("ground: %s: unknown predicate %d", g.clauseName(ci), l.Pred)
			}
			pt, err := g.table(l.Pred)
			if err != nil {
				return nil, err
			}
			if len(l.Args) != pt.arity() {
				return nil, fmt.Errorf("ground: %s: %s takes %d arguments, not %d", g.clauseName(ci), pt.name, pt.arity(), len(l.Args))
			}
			info.pred = pt
			info.local = make([]int32, len(l.Args))
			for j, t := range l.Args {
				want := pt.types[j]
				if t.IsVar() {
					info.local[j] = -1
					if vt := c.Vars[t.Var()].Type; vt != want {
						return nil, fmt.Errorf("ground: %s: variable %s has type %s but %s expects %s", g.clauseName(ci),
							c.Vars[t.Var()].Name, m.Types[vt].Name, pt.name, m.Types[want].Name)
					}
				} else {
					i, ok := g.index(want, t.Const())
					if !ok {
						what := ""
						if g.override(want) != nil {
							what = " given in Options.Domains"
						}
						return nil, fmt.Errorf("ground: %s: constant %s is not in the domain%s of type %s", g.clauseName(ci),
							m.ConstName(t.Const()), what, m.Types[want].Name)
					}
					info.local[j] = i
				}
			}
		}
		pl.lits = append(pl.lits, info)
	}

	// An existential variable over an empty domain makes every grounding
	// an empty disjunction: false. Enumerate them all, checking nothing.
	for _, sz := range pl.existSz {
		if sz == 0 {
			pl.allFalse = true
		}
	}
	if pl.allFalse {
		pl.estimate = 1
		for v := range c.Vars {
			if !isExist[v] {
				n := g.size(c.Vars[v].Type)
				pl.steps = append(pl.steps, step{kind: stepDomain, v: v, size: int32(n), est: float64(n)})
				pl.estimate *= float64(n)
			}
		}
		pl.materialised = 0 // every grounding is false: counted, never stored
		return pl, nil
	}

	// Greedy ordering of the binding steps.
	bound := make([]bool, len(c.Vars))
	checked := make([]bool, len(pl.lits))
	for li := range pl.lits {
		l := &pl.lits[li]
		if l.exist {
			pl.exLits = append(pl.exLits, li)
			checked[li] = true
		} else if len(l.vars) == 0 {
			pl.ground = append(pl.ground, li)
			checked[li] = true
		}
	}
	remaining := 0
	for v := range c.Vars {
		if !isExist[v] {
			remaining++
		}
	}
	est := 1.0
	for remaining > 0 {
		best := step{est: math.Inf(1)}
		rank := 3 // 0 eq, 1 gen, 2 domain
		consider := func(s step, r int) {
			if s.est < best.est || (s.est == best.est && r < rank) {
				best, rank = s, r
			}
		}
		for li := range pl.lits {
			l := &pl.lits[li]
			if l.exist {
				continue
			}
			unb := 0
			for _, v := range l.vars {
				if !bound[v] {
					unb++
				}
			}
			if unb == 0 {
				continue
			}
			if l.pred == nil && l.builtin.IsArith() && l.neg {
				// "!(v = f(args))": v takes f's value once args are bound.
				dst := l.terms[0]
				ready := dst.IsVar() && !bound[dst.Var()]
				for _, t := range l.terms[1:] {
					ready = ready && (!t.IsVar() || bound[t.Var()])
				}
				if ready {
					consider(step{kind: stepEq, v: dst.Var(), arith: li + 1, est: 1}, 0)
				}
				continue
			}
			if l.pred == nil {
				// An equality required for the grounding to survive.
				if (l.builtin == mln.Eq && l.neg) || (l.builtin == mln.Neq && !l.neg) {
					a, b := l.terms[0], l.terms[1]
					for _, pair := range [2][2]mln.Term{{a, b}, {b, a}} {
						dst, src := pair[0], pair[1]
						if !dst.IsVar() || bound[dst.Var()] || (src.IsVar() && !bound[src.Var()]) {
							continue
						}
						s := step{kind: stepEq, v: dst.Var(), eqFrom: -1, est: 1}
						if src.IsVar() {
							s.eqFrom = src.Var()
							s.eqMap = c.Vars[src.Var()].Type != c.Vars[dst.Var()].Type
						} else {
							s.eqConst = -1
							if i, ok := g.index(c.Vars[dst.Var()].Type, src.Const()); ok {
								s.eqConst = i
							}
						}
						consider(s, 0)
					}
				}
				continue
			}
			if l.pred.open || !l.neg {
				continue
			}
			pt := l.pred
			s := step{kind: stepGen, lit: li}
			var mask uint32
			bvars := 1.0
			newv := make(map[int]bool)
			for j, t := range l.terms {
				if !t.IsVar() {
					mask |= 1 << uint(j)
					s.keyConst += uint64(l.local[j]) * pt.strides[j]
					continue
				}
				v := t.Var()
				switch {
				case bound[v]:
					mask |= 1 << uint(j)
					s.keyVars = append(s.keyVars, posVar{j, v})
					if d := pt.distinct[j]; d > 0 {
						bvars *= float64(d)
					}
				case newv[v]:
					s.same = append(s.same, posVar{j, v})
				default:
					newv[v] = true
					s.binds = append(s.binds, posVar{j, v})
				}
			}
			// Constant positions are estimated exactly from the index;
			// bound variables divide by the number of distinct values.
			s.est = float64(len(pt.index(mask&constMask(l)).lookup(s.keyConst))) / bvars
			s.mask = mask
			consider(s, 1)
		}
		for v := range c.Vars {
			if isExist[v] || bound[v] {
				continue
			}
			n := g.size(c.Vars[v].Type)
			consider(step{kind: stepDomain, v: v, size: int32(n), est: float64(n)}, 2)
		}
		// Bind.
		switch best.kind {
		case stepDomain, stepEq:
			bound[best.v] = true
			remaining--
		case stepGen:
			for _, pv := range best.binds {
				bound[pv.v] = true
				remaining--
			}
			checked[best.lit] = true
			best.ix = pl.lits[best.lit].pred.index(best.mask)
		}
		est *= best.est
		// Literals now fully bound are checked after this step.
		for li := range pl.lits {
			if checked[li] {
				continue
			}
			all := true
			for _, v := range pl.lits[li].vars {
				if !bound[v] {
					all = false
					break
				}
			}
			if all {
				checked[li] = true
				best.checks = append(best.checks, li)
				est *= g.passRate(&pl.lits[li])
			}
		}
		pl.steps = append(pl.steps, best)
	}
	for _, li := range pl.ground {
		est *= g.passRate(&pl.lits[li])
	}
	pl.estimate = est
	pl.materialised = math.Min(est, g.undecidedBound(pl, isExist))
	pl.estLits = 0
	for li := range pl.lits {
		if pl.lits[li].pred != nil {
			n := 1.0
			if pl.lits[li].exist {
				for _, v := range pl.lits[li].vars {
					if isExist[v] {
						n *= float64(g.size(c.Vars[v].Type))
					}
				}
			}
			pl.estLits += n
		}
	}
	return pl, nil
}

// undecidedBound returns an upper bound on the groundings of pl that keep
// a literal over an unknown atom, and so become ground clauses: for each
// literal, its predicate's unknown atoms times the groundings of the
// clause's universally quantified variables the literal does not mention.
// A clause over evidence predicates alone (such as the weight-0 unit
// clauses Alchemy's learnwts writes for every predicate) materialises
// nothing, whatever its domains.
func (g *grounder) undecidedBound(pl *plan, isExist []bool) float64 {
	c := pl.clause
	bound := 0.0
	for li := range pl.lits {
		l := &pl.lits[li]
		if l.pred == nil {
			continue
		}
		u := l.pred.unknowns()
		if u == 0 {
			continue
		}
		in := make(map[int]bool, len(l.vars))
		for _, v := range l.vars {
			in[v] = true
		}
		for v := range c.Vars {
			if !isExist[v] && !in[v] {
				u *= float64(g.size(c.Vars[v].Type))
			}
		}
		bound += u
	}
	return bound
}

// passRate estimates the fraction of bindings a fully bound literal does
// not prune (the evidence does not make it true).
func (g *grounder) passRate(l *litInfo) float64 {
	if l.pred == nil {
		switch l.builtin {
		case mln.Eq, mln.Neq:
			return 1
		}
		return 0.5
	}
	pt := l.pred
	if pt.total == 0 || pt.open {
		return 1 // pruned only by listed atoms; assume few
	}
	frac := float64(len(pt.rowKey)) / float64(pt.total)
	if l.neg {
		return math.Min(1, frac) // survives only when listed true or unknown
	}
	return math.Max(0, 1-frac) // pruned when listed true
}

// constMask returns the argument positions of l holding constants.
func constMask(l *litInfo) uint32 {
	var mask uint32
	for j, t := range l.terms {
		if !t.IsVar() {
			mask |= 1 << uint(j)
		}
	}
	return mask
}
