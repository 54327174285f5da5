package structure

import (
	"slices"
	"strconv"

	"github.com/marple-mln/marple/mln"
)

// Defaults of the clause construction operators: Alchemy's learnstruct
// -maxVars and -maxNumPredicates.
const (
	DefaultMaxVars          = 6
	DefaultMaxNumPredicates = 6
)

// Operators are the clause construction operators of Kok & Domingos (2005):
// add a literal (either sign), remove a literal, flip a literal's sign. A
// new literal is over one of Preds; each of its arguments is either a
// variable of the clause of the argument's type or a new variable (one per
// argument, as Alchemy's ClauseFactory does), and at least one argument is
// a variable already in the clause, so clauses stay connected. Results
// have at most MaxVars variables and MaxNumPredicates literals, never
// repeat an atom (a repeated literal is redundant, its negation makes a
// tautology), and are deduplicated up to variable renaming and literal
// order (CanonicalKey). Operators work on Searchable clauses; others yield
// no candidates.
type Operators struct {
	Model *mln.Model
	// Preds are the predicates new literals may use (nil: all of the
	// model's).
	Preds []mln.PredID
	// MaxVars and MaxNumPredicates bound the clauses made (0: the
	// defaults).
	MaxVars, MaxNumPredicates int
}

func (o *Operators) maxVars() int {
	if o.MaxVars > 0 {
		return o.MaxVars
	}
	return DefaultMaxVars
}

func (o *Operators) maxLits() int {
	if o.MaxNumPredicates > 0 {
		return o.MaxNumPredicates
	}
	return DefaultMaxNumPredicates
}

func (o *Operators) preds() []mln.PredID {
	if o.Preds != nil {
		return o.Preds
	}
	ps := make([]mln.PredID, len(o.Model.Preds))
	for i := range ps {
		ps[i] = mln.PredID(i)
	}
	return ps
}

// Searchable reports whether the operators can work on c: predicate
// literals (constants allowed, as in Alchemy's learnstruct) and equalities
// between their variables (such as the x = z that keeps a transferred
// clause to x != z), no existential or "+" variables, not hard. The
// operators add, remove and flip predicate literals only; an equality
// stays while both its variables do.
func Searchable(c *mln.Clause) bool {
	if len(c.Exist) > 0 || len(c.Plus) > 0 || c.Hard || predLits(c) == 0 {
		return false
	}
	for _, l := range c.Lits {
		if l.Pred < 0 && (l.Builtin != mln.Eq && l.Builtin != mln.Neq || len(l.Args) != 2) {
			return false
		}
	}
	return true
}

// predLits returns the number of c's predicate literals.
func predLits(c *mln.Clause) int {
	n := 0
	for _, l := range c.Lits {
		if l.Pred >= 0 {
			n++
		}
	}
	return n
}

// dropLoose removes the comparisons of c over a variable no predicate
// literal of c has.
func dropLoose(c *mln.Clause) {
	used := make([]bool, len(c.Vars))
	for _, l := range c.Lits {
		if l.Pred >= 0 {
			for _, t := range l.Args {
				if t.IsVar() {
					used[t.Var()] = true
				}
			}
		}
	}
	c.Lits = slices.DeleteFunc(c.Lits, func(l mln.Literal) bool {
		if l.Pred >= 0 {
			return false
		}
		for _, t := range l.Args {
			if t.IsVar() && !used[t.Var()] {
				return true
			}
		}
		return false
	})
}

// UnitClause returns the positive unit clause of predicate p over distinct
// variables, Alchemy's unit clause.
func UnitClause(m *mln.Model, p mln.PredID) *mln.Clause {
	c := &mln.Clause{Coef: 1, Formula: -1}
	lit := mln.Literal{Pred: p}
	for j, t := range m.Preds[p].Args {
		c.Vars = append(c.Vars, mln.Var{Name: varName(j), Type: t})
		lit.Args = append(lit.Args, mln.VarTerm(j))
	}
	c.Lits = []mln.Literal{lit}
	return c
}

func varName(i int) string { return "a" + strconv.Itoa(i+1) }

// AddLiteral returns the clauses made by adding one literal, of either
// sign, to c.
func (o *Operators) AddLiteral(c *mln.Clause) []*mln.Clause {
	if !Searchable(c) || predLits(c) >= o.maxLits() {
		return nil
	}
	var out []*mln.Clause
	seen := map[string]bool{}
	nv := len(c.Vars)
	for _, p := range o.preds() {
		types := o.Model.Preds[p].Args
		// choice[j] is the variable of argument j: an old one (< nv) or
		// the argument's own new one (nv + j).
		choices := make([][]int, len(types))
		for j, t := range types {
			for v := 0; v < nv; v++ {
				if c.Vars[v].Type == t {
					choices[j] = append(choices[j], v)
				}
			}
			choices[j] = append(choices[j], nv+j)
		}
		pick := make([]int, len(types))
		var rec func(j int)
		rec = func(j int) {
			if j < len(types) {
				for _, v := range choices[j] {
					pick[j] = v
					rec(j + 1)
				}
				return
			}
			old, fresh := false, 0
			for _, v := range pick {
				if v < nv {
					old = true
				} else {
					fresh++
				}
			}
			if !old || nv+fresh > o.maxVars() {
				return
			}
			d := &mln.Clause{Coef: 1, Formula: -1, Vars: slices.Clone(c.Vars)}
			lit := mln.Literal{Pred: p}
			for j, v := range pick {
				if v >= nv {
					v = len(d.Vars)
					d.Vars = append(d.Vars, mln.Var{Name: varName(v), Type: types[j]})
				}
				lit.Args = append(lit.Args, mln.VarTerm(v))
			}
			if hasAtom(c, &lit) {
				return
			}
			for _, neg := range []bool{false, true} {
				e := &mln.Clause{Coef: 1, Formula: -1, Vars: d.Vars, Lits: cloneLits(c.Lits)}
				l := lit
				l.Neg = neg
				l.Args = slices.Clone(lit.Args)
				e.Lits = append(e.Lits, l)
				e = normalize(e)
				if k := CanonicalKey(e); !seen[k] {
					seen[k] = true
					out = append(out, e)
				}
			}
		}
		rec(0)
	}
	return out
}

// AddJoin returns the clauses made by adding two negative literals of one
// predicate that share a new variable in one argument and take variables
// of c in all the others: !P(f,x) v !P(f,y) joins x and y through an f
// that both are related to (!movie(f,a) v !movie(f,d) added to
// workedUnder(a,d)). Adding a literal at a time reaches such a clause only
// through a clause in which f is free, which pseudo-likelihood rarely
// ranks high enough to stay in the beam. Results are bounded and
// deduplicated as AddLiteral's. A join concludes on c's predicates, so c
// must have only predicates of Preds (when set): a join that concluded on
// a predicate never queried, such as UW-CSE's samePerson, would predict
// nothing.
func (o *Operators) AddJoin(c *mln.Clause) []*mln.Clause {
	if !Searchable(c) || predLits(c)+2 > o.maxLits() || len(c.Vars)+1 > o.maxVars() {
		return nil
	}
	if o.Preds != nil {
		for _, l := range c.Lits {
			if l.Pred >= 0 && !slices.Contains(o.Preds, l.Pred) {
				return nil
			}
		}
	}
	var out []*mln.Clause
	seen := map[string]bool{}
	nv := len(c.Vars)
	for _, p := range o.preds() {
		types := o.Model.Preds[p].Args
		if len(types) < 2 {
			continue
		}
		for i := range types {
			// tuples lists the variables a literal may take: the new one
			// at argument i, variables of c at every other.
			var tuples [][]int
			pick := make([]int, len(types))
			var rec func(j int)
			rec = func(j int) {
				if j == len(types) {
					tuples = append(tuples, slices.Clone(pick))
					return
				}
				if j == i {
					pick[j] = nv
					rec(j + 1)
					return
				}
				for v := 0; v < nv; v++ {
					if c.Vars[v].Type == types[j] {
						pick[j] = v
						rec(j + 1)
					}
				}
			}
			rec(0)
			for a := range tuples {
				for b := a + 1; b < len(tuples); b++ {
					d := &mln.Clause{Coef: 1, Formula: -1, Vars: slices.Clone(c.Vars), Lits: cloneLits(c.Lits)}
					d.Vars = append(d.Vars, mln.Var{Name: varName(nv), Type: types[i]})
					for _, t := range [][]int{tuples[a], tuples[b]} {
						l := mln.Literal{Pred: p, Neg: true}
						for _, v := range t {
							l.Args = append(l.Args, mln.VarTerm(v))
						}
						if hasAtom(c, &l) {
							d = nil
							break
						}
						d.Lits = append(d.Lits, l)
					}
					if d == nil {
						continue
					}
					d = normalize(d)
					if k := CanonicalKey(d); !seen[k] {
						seen[k] = true
						out = append(out, d)
					}
				}
			}
		}
	}
	return out
}

// RemoveLiteral returns the clauses made by removing one literal from c
// that stay connected and keep at least MinLen literals (Alchemy removes
// literals from clauses of three or more: pass 2; shortest-first search
// passes 1).
func (o *Operators) RemoveLiteral(c *mln.Clause, minLen int) []*mln.Clause {
	if !Searchable(c) || predLits(c)-1 < max(minLen, 1) {
		return nil
	}
	var out []*mln.Clause
	seen := map[string]bool{}
	for i := range c.Lits {
		if c.Lits[i].Pred < 0 {
			continue
		}
		d := &mln.Clause{Coef: 1, Formula: -1, Vars: c.Vars, Lits: cloneLits(slices.Delete(slices.Clone(c.Lits), i, i+1))}
		dropLoose(d)
		d = normalize(d)
		if !connected(d) || len(d.Vars) > o.maxVars() {
			continue
		}
		if k := CanonicalKey(d); !seen[k] {
			seen[k] = true
			out = append(out, d)
		}
	}
	return out
}

// FlipLiteral returns the clauses made by flipping the sign of one literal
// of c.
func (o *Operators) FlipLiteral(c *mln.Clause) []*mln.Clause {
	if !Searchable(c) {
		return nil
	}
	var out []*mln.Clause
	seen := map[string]bool{CanonicalKey(c): true}
	for i := range c.Lits {
		if c.Lits[i].Pred < 0 {
			continue
		}
		d := &mln.Clause{Coef: 1, Formula: -1, Vars: slices.Clone(c.Vars), Lits: cloneLits(c.Lits)}
		d.Lits[i].Neg = !d.Lits[i].Neg
		if k := CanonicalKey(d); !seen[k] {
			seen[k] = true
			out = append(out, d)
		}
	}
	return out
}

func cloneLits(ls []mln.Literal) []mln.Literal {
	out := make([]mln.Literal, len(ls))
	for i, l := range ls {
		out[i] = l
		out[i].Args = slices.Clone(l.Args)
	}
	return out
}

// hasAtom reports whether c has a literal over the same atom as l (either
// sign).
func hasAtom(c *mln.Clause, l *mln.Literal) bool {
	for _, x := range c.Lits {
		if x.Pred == l.Pred && slices.Equal(x.Args, l.Args) {
			return true
		}
	}
	return false
}

// normalize renumbers c's variables in order of first occurrence, dropping
// unused ones, and names them a1, a2, ... (it modifies c's literals).
func normalize(c *mln.Clause) *mln.Clause {
	re := make([]int, len(c.Vars))
	for i := range re {
		re[i] = -1
	}
	var vars []mln.Var
	for i := range c.Lits {
		for j, t := range c.Lits[i].Args {
			if !t.IsVar() {
				continue
			}
			v := t.Var()
			if re[v] < 0 {
				re[v] = len(vars)
				vars = append(vars, mln.Var{Name: varName(len(vars)), Type: c.Vars[v].Type})
			}
			c.Lits[i].Args[j] = mln.VarTerm(re[v])
		}
	}
	c.Vars = vars
	return c
}

// connected reports whether the predicate literals of c are connected by
// shared variables (comparisons do not connect).
func connected(c *mln.Clause) bool {
	n := len(c.Lits)
	if predLits(c) <= 1 {
		return true
	}
	reached := make([]bool, n)
	varSeen := make([]bool, len(c.Vars))
	first := slices.IndexFunc(c.Lits, func(l mln.Literal) bool { return l.Pred >= 0 })
	count := 1
	for k := range c.Lits {
		if c.Lits[k].Pred < 0 {
			reached[k] = true
			count++
		}
	}
	reached[first] = true
	stack := []int{first}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, t := range c.Lits[i].Args {
			if t.IsVar() {
				varSeen[t.Var()] = true
			}
		}
		for k := range c.Lits {
			if reached[k] {
				continue
			}
			for _, t := range c.Lits[k].Args {
				if t.IsVar() && varSeen[t.Var()] {
					reached[k] = true
					count++
					stack = append(stack, k)
					break
				}
			}
		}
	}
	return count == n
}
