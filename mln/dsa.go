package mln

// FreeVars returns the free variables of a clause of two or more predicate
// literals: its universally quantified variables (not existential, not
// "+") that occur in at most one of its predicate literals (a comparison
// such as x != y does not tie a variable down). A unit clause has none.
func FreeVars(c *Clause) []int {
	npred := 0
	for _, l := range c.Lits {
		if l.Pred >= 0 {
			npred++
		}
	}
	if npred < 2 {
		return nil
	}
	skip := make([]bool, len(c.Vars))
	for _, v := range c.Exist {
		if v >= 0 && v < len(skip) {
			skip[v] = true
		}
	}
	for _, v := range c.Plus {
		if v >= 0 && v < len(skip) {
			skip[v] = true
		}
	}
	occ := make([]int, len(c.Vars))
	mark := make([]int, len(c.Vars))
	for i := range mark {
		mark[i] = -1
	}
	for li, l := range c.Lits {
		if l.Pred < 0 {
			continue
		}
		for _, t := range l.Args {
			if t.IsVar() && t.Var() < len(c.Vars) && mark[t.Var()] != li {
				mark[t.Var()] = li
				occ[t.Var()]++
			}
		}
	}
	var free []int
	for v := range c.Vars {
		if !skip[v] && occ[v] <= 1 {
			free = append(free, v)
		}
	}
	return free
}

// DomainScale returns the divisor of a domain-size-aware clause's weight in
// a world whose type t has size(t) constants: the largest number of
// groundings of the clause's free variables (FreeVars) not in one of its
// predicate literals, that is, the most ground clauses through which one
// ground atom is tied to the groundings of free variables (Mittal,
// Bhardwaj & Singla 2019 scale a formula by its atoms' largest number of
// connections; here only free variables count, since the groundings of a
// variable shared by two literals are bound by the data). It is 1 for a
// clause that is not DomainScaled or has no free variable, and at least 1.
//
// With it, an atom's log-odds through the clause stay within the weight
// whatever the domain sizes: for director(p) v !gender(p,g) v
// gender(p,h) (g, h free) each ground clause weighs w/|gender|².
func DomainScale(c *Clause, size func(TypeID) int) float64 {
	if !c.DomainScaled {
		return 1
	}
	free := FreeVars(c)
	if len(free) == 0 {
		return 1
	}
	best := 1.0
	for _, l := range c.Lits {
		if l.Pred < 0 {
			continue
		}
		n := 1.0
		for _, v := range free {
			in := false
			for _, t := range l.Args {
				if t.IsVar() && t.Var() == v {
					in = true
					break
				}
			}
			if !in {
				n *= float64(max(size(c.Vars[v].Type), 1))
			}
		}
		best = max(best, n)
	}
	return best
}

// DomainScale returns the divisor of clause c's weight over the model's
// domains (DomainScale with the model's type sizes).
func (m *Model) DomainScale(c *Clause) float64 {
	return DomainScale(c, func(t TypeID) int { return m.Types[t].Size() })
}
