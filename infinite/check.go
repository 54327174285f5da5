// Package infinite analyses a Markov logic network as its domains grow
// without bound (Singla & Domingos, "Markov Logic in Infinite Domains",
// UAI 2007) and infers marginals in that limit.
//
// Over an infinite domain an MLN defines no single distribution by
// normalising exp(Σ w n(x)), since the sums diverge. It defines instead a
// Gibbsian specification: the conditional distribution of every finite set
// of atoms given all the others. A probability measure consistent with
// those conditionals is a Gibbs measure. The paper shows that one exists
// when the MLN is locally finite (every ground atom has finitely many
// neighbours: atoms sharing a ground clause with it), and that it is
// unique when, for every ground atom X,
//
//	Σ_{ground clauses C containing X} (|C| − 1) |w_C|  <  2
//
// where |C| is the number of ground atoms of C and w_C its weight (the
// paper's uniqueness theorem, from Dobrushin's condition). Unit clauses
// contribute nothing, so only the weights of non-unit clauses matter. When
// the measure is not unique, several limits coexist, as the phases of a
// physical system do below a phase transition.
//
// Analyze decides both conditions on a model and its evidence, clause by
// clause, as the domains grow: which formulas give an atom unboundedly
// many ground clauses, which evidence bounds them (a closed-world
// predicate that, negated in the clause, leaves finitely many values of a
// variable per binding of the others), and the sum above with the number
// it is tested against. Grow infers marginals on instances of increasing
// size and estimates their limit.
package infinite

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// Bound is the uniqueness theorem's threshold: the measure is unique when
// the sum over an atom's ground clauses of (|C|−1)|w_C| is below Bound for
// every atom.
const Bound = 2.0

// Options configure Analyze.
type Options struct {
	// Query lists the predicates whose atoms are random (open world). The
	// others are evidence: closed world, their unlisted atoms false.
	Query []mln.PredID
	// Fixed lists types whose domains do not grow. Types the model lists
	// ("t = {A, B}" or a range) are fixed as well; every other type grows.
	Fixed []mln.TypeID
}

// VarBound says how many values a variable of a clause takes, per atom at
// the site, in the groundings the evidence leaves undecided.
type VarBound struct {
	Var  string
	Type string
	// Count is the number of values (for variables bounded together, the
	// number of their tuples, given on the first of them); -1 when
	// unbounded.
	Count int
	// By describes what bounds the variable ("" when nothing does).
	By string
}

// Site is one literal of a random predicate in one clause: the groundings
// of the clause in which an atom occurs at that literal.
type Site struct {
	Clause  int // index into Model.Clauses
	Formula int // index into Model.Formulas
	Lit     int // index into the clause's literals
	Pred    mln.PredID
	Pos     syntax.Pos // the formula's position
	Text    string     // the clause
	Atom    string     // the literal's atom, e.g. Smokes(x)
	// Vars are the clause's variables that do not occur in the literal.
	Vars []VarBound
	// Unbounded names those that range over a growing domain with no
	// evidence to bound them.
	Unbounded []string
	// Groundings is the number of undecided groundings containing one atom
	// at this site, at most (+Inf when unbounded).
	Groundings float64
	// Others is the number of other random atoms in such a grounding, at
	// most: |C| − 1.
	Others float64
	// Weight is the clause's |weight| (+Inf for a hard clause).
	Weight float64
	// Contribution is Groundings × Others × Weight (0 when Others or
	// Weight is 0).
	Contribution float64
	// Remedy says which evidence would bound the unbounded variables, or
	// that none can.
	Remedy string
}

// Bounded reports whether the site gives an atom finitely many ground
// clauses.
func (s *Site) Bounded() bool { return len(s.Unbounded) == 0 }

// PredSum is the uniqueness sum of one random predicate: the sum of its
// sites' contributions.
type PredSum struct {
	Pred mln.PredID
	Sum  float64
}

// Instance is the uniqueness sum evaluated on a ground network: its
// largest value over the atoms, and the atom that attains it.
type Instance struct {
	Value float64
	Atom  string
	Atoms int
}

// Report is the analysis of a model and its evidence.
type Report struct {
	Model *mln.Model
	Query []mln.PredID
	// Growing lists the types whose domains grow.
	Growing []mln.TypeID
	Sites   []Site
	// LocallyFinite is set when every site is bounded: every atom lies in
	// finitely many ground clauses however large the domains grow.
	LocallyFinite bool
	// Sums holds, per random predicate, the sum of its sites'
	// contributions: a bound, valid at every domain size, on the
	// uniqueness sum of each of its atoms.
	Sums []PredSum
	// Sup is the largest of Sums (+Inf when not locally finite), and
	// SupPred the predicate that attains it (-1 when there is none).
	Sup     float64
	SupPred mln.PredID
	// Instance is the sum on the given evidence's ground network, when
	// Evaluate was called.
	Instance *Instance
}

// Unique reports whether the uniqueness condition is shown: the model is
// locally finite and Sup is below Bound.
func (r *Report) Unique() bool { return r.LocallyFinite && r.Sup < Bound }

// Analyze examines the compiled model m with evidence db.
func Analyze(m *mln.Model, db *mln.Database, opt Options) *Report {
	isQuery := make(map[mln.PredID]bool)
	for _, p := range opt.Query {
		isQuery[p] = true
	}
	fixed := make(map[mln.TypeID]bool)
	for _, t := range opt.Fixed {
		fixed[t] = true
	}
	r := &Report{Model: m, Query: slices.Clone(opt.Query), LocallyFinite: true, Sup: 0, SupPred: -1}
	for _, t := range m.Types {
		if t.Listed.IsValid() {
			fixed[t.ID] = true
		}
		if !fixed[t.ID] {
			r.Growing = append(r.Growing, t.ID)
		}
	}
	a := &analyzer{m: m, db: db, isQuery: isQuery, fixed: fixed, degrees: make(map[string]int)}
	for ci, c := range m.Clauses {
		for li, l := range c.Lits {
			if l.Pred < 0 || !isQuery[l.Pred] {
				continue
			}
			s := a.site(ci, c, li)
			r.Sites = append(r.Sites, s)
			if !s.Bounded() {
				r.LocallyFinite = false
			}
		}
	}
	sums := make(map[mln.PredID]float64)
	for _, s := range r.Sites {
		if !s.Bounded() && s.Others > 0 && s.Weight > 0 {
			sums[s.Pred] = math.Inf(1)
		}
		sums[s.Pred] += s.Contribution
	}
	for _, p := range opt.Query {
		if _, ok := sums[p]; !ok {
			sums[p] = 0
		}
	}
	for p, v := range sums {
		r.Sums = append(r.Sums, PredSum{p, v})
	}
	sort.Slice(r.Sums, func(i, j int) bool { return r.Sums[i].Pred < r.Sums[j].Pred })
	for _, ps := range r.Sums {
		if r.SupPred < 0 || ps.Sum > r.Sup {
			r.Sup, r.SupPred = ps.Sum, ps.Pred
		}
	}
	if !r.LocallyFinite {
		r.Sup = math.Inf(1)
	}
	return r
}

// Evaluate computes the uniqueness sum on the ground network net (ground
// from the report's model and evidence) and records it in r.Instance.
func (r *Report) Evaluate(net *ground.Network) {
	r.Instance = InstanceSum(net)
}

// InstanceSum returns the largest, over the atoms of net, of the sum over
// the ground clauses containing the atom of (|C|−1)|w_C|, |C| the number
// of distinct atoms of clause C (hard clauses weigh +Inf).
func InstanceSum(net *ground.Network) *Instance {
	n := net.NumAtoms()
	sum := make([]float64, n)
	var atoms []int32
	for c := 0; c < net.NumClauses(); c++ {
		atoms = atoms[:0]
		for _, l := range net.Clause(c) {
			atoms = append(atoms, l.Atom())
		}
		slices.Sort(atoms)
		atoms = slices.Compact(atoms)
		if len(atoms) < 2 {
			continue
		}
		w := math.Abs(net.Weight(c))
		if net.IsHard(c) {
			w = math.Inf(1)
		}
		if w == 0 {
			continue
		}
		for _, a := range atoms {
			sum[a] += float64(len(atoms)-1) * w
		}
	}
	in := &Instance{Atoms: n}
	best := -1
	for a, v := range sum {
		if best < 0 || v > in.Value {
			best, in.Value = a, v
		}
	}
	if best >= 0 && net.Model != nil {
		in.Atom = net.AtomName(int32(best))
	}
	return in
}

type analyzer struct {
	m       *mln.Model
	db      *mln.Database
	isQuery map[mln.PredID]bool
	fixed   map[mln.TypeID]bool
	degrees map[string]int
}

// site analyses the groundings of clause c that contain an atom at literal
// li.
func (a *analyzer) site(ci int, c *mln.Clause, li int) Site {
	m := a.m
	l := c.Lits[li]
	f := m.Formulas[c.Formula]
	s := Site{Clause: ci, Formula: c.Formula, Lit: li, Pred: l.Pred, Pos: f.Pos,
		Text: m.ClauseString(c), Atom: litString(m, c, l, false)}
	if !s.Pos.IsValid() {
		// a formula Compile adds (a "!" argument's constraint): the
		// predicate's declaration
		s.Pos = m.Preds[l.Pred].Pos
	}
	nv := len(c.Vars)
	exist := make([]bool, nv)
	for _, v := range c.Exist {
		exist[v] = true
	}
	// The literal's universal variables are bound by the atom; an
	// existential one ranges over its domain inside the ground clause.
	known := make([]bool, nv)
	for _, t := range l.Args {
		if t.IsVar() && !exist[t.Var()] {
			known[t.Var()] = true
		}
	}
	// Bound the other variables through the evidence literals and the
	// comparisons that hold only for few values.
	bound := make([]VarBound, nv)
	for v := range bound {
		bound[v] = VarBound{Var: c.Vars[v].Name, Type: m.Types[c.Vars[v].Type].Name, Count: -1}
	}
	startKnown := slices.Clone(known)
	a.propagate(c, known, bound, func(p mln.PredID) bool { return !a.isQuery[p] }, true)
	// Variables over fixed domains take at most the domain's size.
	for v := range nv {
		if known[v] {
			continue
		}
		if t := c.Vars[v].Type; a.fixed[t] {
			known[v] = true
			bound[v].Count = m.Types[t].Size()
			bound[v].By = fmt.Sprintf("the fixed domain of %s", m.Types[t].Name)
		}
	}
	groundings, perClause := 1.0, 1.0
	for v := range nv {
		if startKnown[v] {
			continue
		}
		b := bound[v]
		s.Vars = append(s.Vars, b)
		if !known[v] {
			s.Unbounded = append(s.Unbounded, b.Var)
			if exist[v] {
				perClause = math.Inf(1) // the ground clause itself is infinite
			}
			continue
		}
		if b.Count >= 0 {
			if exist[v] {
				perClause *= float64(b.Count)
			} else {
				groundings *= float64(b.Count)
			}
		}
	}
	others := -1.0
	for _, ol := range c.Lits {
		if ol.Pred >= 0 && a.isQuery[ol.Pred] {
			others++
		}
	}
	s.Others = math.Max(0, others) * perClause
	if perClause > 1 {
		// an existential variable repeats the literal's own predicate
		// too when it occurs in it; count it as another atom.
		s.Others = math.Max(s.Others, perClause-1)
	}
	s.Weight = a.weight(c)
	if !s.Bounded() {
		s.Groundings = math.Inf(1)
		s.Remedy = a.remedy(c, l, startKnown, s.Unbounded)
	} else {
		s.Groundings = groundings
	}
	if s.Others > 0 && s.Weight > 0 && s.Groundings > 0 {
		s.Contribution = s.Groundings * s.Others * s.Weight
	}
	return s
}

// propagate marks known the variables that the literals of c allowed by
// usable bound, given the known ones: a negated literal of a usable
// predicate (the grounding survives only where its atom is true) bounds
// its unknown variables by the predicate's degree in the evidence
// (measure) or symbolically; a comparison that holds for one value (x = y
// negated, an integer function's value) determines a variable. It returns
// the predicates used.
func (a *analyzer) propagate(c *mln.Clause, known []bool, bound []VarBound, usable func(mln.PredID) bool, measure bool) []mln.PredID {
	var used []mln.PredID
	for changed := true; changed; {
		changed = false
		for _, l := range c.Lits {
			var unknown []int
			nKnown := 0
			for _, t := range l.Args {
				if !t.IsVar() || known[t.Var()] {
					nKnown++
				} else if !slices.Contains(unknown, t.Var()) {
					unknown = append(unknown, t.Var())
				}
			}
			if len(unknown) == 0 {
				continue
			}
			count, by := -1, ""
			switch {
			case l.Pred >= 0:
				if !l.Neg || !usable(l.Pred) || nKnown == 0 {
					continue
				}
				if measure {
					count = a.degree(l, known)
					by = fmt.Sprintf("evidence %s: at most %d true per %s", litString(a.m, c, l, true), count, knownList(c, l, known))
				} else {
					count = 0
				}
				used = append(used, l.Pred)
			case l.Builtin == mln.Eq && l.Neg, l.Builtin == mln.Neq && !l.Neg:
				if nKnown == 0 {
					continue
				}
				count, by = 1, fmt.Sprintf("equality %s", litString(a.m, c, l, true))
			case l.Builtin.IsArith() && l.Neg:
				determined := false
				switch l.Builtin {
				case mln.Succ, mln.Plus, mln.Minus:
					determined = len(unknown) == 1 && nKnown >= len(l.Args)-1
				default: // the value is a function of the arguments
					determined = len(unknown) == 1 && (!l.Args[0].IsVar() || l.Args[0].Var() == unknown[0])
					for _, t := range l.Args[1:] {
						if t.IsVar() && !known[t.Var()] {
							determined = false
						}
					}
				}
				if !determined {
					continue
				}
				count, by = 1, fmt.Sprintf("integer function %s", litString(a.m, c, l, true))
			default:
				continue
			}
			for i, v := range unknown {
				known[v] = true
				if i == 0 {
					bound[v].Count = count
				} else {
					bound[v].Count = 1 // counted with the first
				}
				bound[v].By = by
			}
			changed = true
		}
	}
	return used
}

// remedy says which evidence would bound the variables unbounded at a site
// of literal l, by propagating as if every other predicate were evidence.
func (a *analyzer) remedy(c *mln.Clause, l mln.Literal, startKnown []bool, unbounded []string) string {
	known := slices.Clone(startKnown)
	bound := make([]VarBound, len(c.Vars))
	used := a.propagate(c, known, bound, func(p mln.PredID) bool { return p != l.Pred }, false)
	var still []string
	for v := range known {
		if !known[v] && slices.Contains(unbounded, c.Vars[v].Name) {
			still = append(still, c.Vars[v].Name)
		}
	}
	if len(still) > 0 {
		var ts []string
		for v := range known {
			if !known[v] && slices.Contains(unbounded, c.Vars[v].Name) {
				ts = append(ts, a.m.Types[c.Vars[v].Type].Name)
			}
		}
		slices.Sort(ts)
		ts = slices.Compact(ts)
		return fmt.Sprintf("no evidence can bound %s: no literal of the clause restricts it (only a fixed domain of %s would)",
			strings.Join(still, ", "), strings.Join(ts, ", "))
	}
	slices.Sort(used)
	used = slices.Compact(used)
	var names []string
	for _, p := range used {
		names = append(names, a.m.Preds[p].Name)
	}
	return fmt.Sprintf("bounded when %s %s evidence (closed world) with finitely many true atoms per binding of the known arguments, as a bounded degree",
		strings.Join(names, " and "), map[bool]string{true: "are", false: "is"}[len(names) > 1])
}

// degree returns, for a literal of an evidence predicate whose variables
// known marks as bound, the largest number of its true (or unknown) atoms
// in the evidence that agree on the known arguments.
func (a *analyzer) degree(l mln.Literal, known []bool) int {
	var key strings.Builder
	fmt.Fprintf(&key, "%d", l.Pred)
	for j, t := range l.Args {
		switch {
		case !t.IsVar():
			fmt.Fprintf(&key, ",c%d@%d", t.Const(), j)
		case known[t.Var()]:
			fmt.Fprintf(&key, ",k%d", j)
		}
	}
	if d, ok := a.degrees[key.String()]; ok {
		return d
	}
	counts := make(map[string]int)
	best := 0
	buf := make([]mln.ConstID, 0, len(l.Args))
	a.db.Atoms(l.Pred, func(args []mln.ConstID, v mln.Truth) {
		if v == mln.False {
			return
		}
		buf = buf[:0]
		for j, t := range l.Args {
			if !t.IsVar() {
				if args[j] != t.Const() {
					return
				}
				continue
			}
			if known[t.Var()] {
				buf = append(buf, args[j])
			}
		}
		k := mln.BindingKey(buf)
		counts[k]++
		best = max(best, counts[k])
	})
	a.degrees[key.String()] = best
	return best
}

// weight returns the absolute weight of a grounding of clause c (+Inf
// when hard): the largest over the formula's parameters.
func (a *analyzer) weight(c *mln.Clause) float64 {
	if c.Hard {
		return math.Inf(1)
	}
	w := 0.0
	f := a.m.Formulas[c.Formula]
	for _, p := range f.Params {
		w = math.Max(w, math.Abs(a.m.Weights[p]))
	}
	if len(f.Params) == 0 {
		w = math.Abs(f.Weight)
	}
	w *= math.Abs(c.Coef)
	if c.DomainScaled {
		w /= a.m.DomainScale(c)
	}
	return w
}

// knownList names the known variables of l.
func knownList(c *mln.Clause, l mln.Literal, known []bool) string {
	var vs []string
	for _, t := range l.Args {
		if t.IsVar() && known[t.Var()] {
			n := c.Vars[t.Var()].Name
			if !slices.Contains(vs, n) {
				vs = append(vs, n)
			}
		}
	}
	return strings.Join(vs, ",")
}

// litString writes literal l of clause c, with its sign when signed.
func litString(m *mln.Model, c *mln.Clause, l mln.Literal, signed bool) string {
	var args []string
	for _, t := range l.Args {
		if t.IsVar() {
			args = append(args, c.Vars[t.Var()].Name)
		} else {
			args = append(args, m.ConstName(t.Const()))
		}
	}
	neg := ""
	if signed && l.Neg {
		neg = "!"
	}
	if l.Pred >= 0 {
		return neg + m.Preds[l.Pred].Name + "(" + strings.Join(args, ",") + ")"
	}
	names := map[mln.Builtin]string{mln.Eq: "=", mln.Neq: "!=", mln.Lt: "<", mln.Le: "<=", mln.Gt: ">", mln.Ge: ">="}
	if op, ok := names[l.Builtin]; ok && len(args) == 2 {
		return neg + "(" + args[0] + " " + op + " " + args[1] + ")"
	}
	fn := map[mln.Builtin]string{mln.Succ: "succ", mln.Plus: "plus", mln.Minus: "minus", mln.Times: "times", mln.Div: "dividedBy", mln.Mod: "mod"}[l.Builtin]
	return neg + "(" + args[0] + " = " + fn + "(" + strings.Join(args[1:], ",") + "))"
}
