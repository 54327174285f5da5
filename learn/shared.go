package learn

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/marple-mln/marple/mln"
)

// SharedClauseGroups returns the groups of parameters whose formulas are the
// same clauses: formulas with one parameter each whose compiled clauses,
// existential variables expanded over their types' constants, are equal
// up to the order of their literals and the names of their variables (in
// UW-CSE, "EXIST y !professor(x) v hasPosition(x,y)" and the clause that
// lists the five positions). Alchemy keeps such a clause once, with one
// weight, and writes each formula's share of it; score.FitOptions.Shared
// learns each group as one weight likewise. Each group lists at least two
// parameters, in increasing order; groups are ordered by their first
// parameter. Hard, fixed and domain-scaled formulas, formulas with "+"
// variables, and clauses whose expansion or canonical form would take
// too long are left out. With ownDomains (each database its own
// constants) clauses with existential variables are left out, since
// their expansions differ between databases.
func SharedClauseGroups(m *mln.Model, ownDomains bool) [][]int {
	byKey := map[string][]int{}
	var keys []string
	for _, fm := range m.Formulas {
		if fm.Hard || fm.Fixed || fm.Synthetic || fm.DomainScaled || len(fm.PlusVars) > 0 || len(fm.Params) != 1 || len(fm.Clauses) == 0 {
			continue
		}
		p, ok := fm.Params[""]
		if !ok {
			continue
		}
		var cks []string
		good := true
		for _, ci := range fm.Clauses {
			c := m.Clauses[ci]
			if c.Hard || c.DomainScaled || len(c.Plus) > 0 || c.Coef == 0 {
				good = false
				break
			}
			k, ok := clauseKey(m, c, ownDomains)
			if !ok {
				good = false
				break
			}
			cks = append(cks, fmt.Sprintf("%g|%s", c.Coef, k))
		}
		if !good {
			continue
		}
		sort.Strings(cks)
		key := strings.Join(cks, "\n")
		if _, seen := byKey[key]; !seen {
			keys = append(keys, key)
		}
		byKey[key] = append(byKey[key], p)
	}
	var groups [][]int
	for _, k := range keys {
		g := byKey[k]
		if len(g) < 2 {
			continue
		}
		slices.Sort(g)
		groups = append(groups, slices.Compact(g))
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i][0] < groups[j][0] })
	return groups
}

// Limits of clauseKey: the literals an existential expansion may produce
// and the literal orders tried for a canonical form.
const (
	maxExpandedLits = 256
	maxOrders       = 5040
)

// keyLit is a literal of clauseKey: args are constants (≥ 0) or universal
// variables (-1 - index).
type keyLit struct {
	neg     bool
	pred    mln.PredID
	builtin mln.Builtin
	args    []mln.Term
}

// sig is the literal with its variables blanked.
func (l keyLit) sig() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%t/%d/%d(", l.neg, l.pred, l.builtin)
	for _, t := range l.args {
		if t.IsVar() {
			b.WriteString("V,")
		} else {
			fmt.Fprintf(&b, "%d,", t)
		}
	}
	b.WriteString(")")
	return b.String()
}

// clauseKey returns a string equal for two clauses exactly when they are
// the same disjunction up to literal order and variable names (false when
// the expansion or the search for the canonical form is too large).
func clauseKey(m *mln.Model, c *mln.Clause, ownDomains bool) (string, bool) {
	exist := map[int]bool{}
	for _, e := range c.Exist {
		exist[e] = true
	}
	if len(exist) > 0 && ownDomains {
		return "", false
	}
	var lits []keyLit
	for _, l := range c.Lits {
		// The existential variables this literal uses.
		var ev []int
		for _, t := range l.Args {
			if t.IsVar() && exist[t.Var()] && !slices.Contains(ev, t.Var()) {
				ev = append(ev, t.Var())
			}
		}
		binding := make(map[int]mln.ConstID, len(ev))
		var expand func(i int) bool
		expand = func(i int) bool {
			if len(lits) > maxExpandedLits {
				return false
			}
			if i == len(ev) {
				args := make([]mln.Term, len(l.Args))
				for j, t := range l.Args {
					if t.IsVar() && exist[t.Var()] {
						t = mln.ConstTerm(binding[t.Var()])
					}
					args[j] = t
				}
				lits = append(lits, keyLit{neg: l.Neg, pred: l.Pred, builtin: l.Builtin, args: args})
				return true
			}
			for _, k := range m.Types[c.Vars[ev[i]].Type].Consts {
				binding[ev[i]] = k
				if !expand(i + 1) {
					return false
				}
			}
			return true
		}
		if !expand(0) {
			return "", false
		}
	}
	// Drop repeated literals (a disjunction).
	seen := map[string]bool{}
	uniq := lits[:0]
	for _, l := range lits {
		k := fmt.Sprintf("%t/%d/%d%v", l.neg, l.pred, l.builtin, l.args)
		if !seen[k] {
			seen[k] = true
			uniq = append(uniq, l)
		}
	}
	lits = uniq
	sort.SliceStable(lits, func(i, j int) bool { return lits[i].sig() < lits[j].sig() })
	// Runs of literals with equal signatures: every order within each run
	// is tried, the smallest string kept.
	var runs [][2]int
	orders := 1
	for i := 0; i < len(lits); {
		j := i + 1
		for j < len(lits) && lits[j].sig() == lits[i].sig() {
			j++
		}
		runs = append(runs, [2]int{i, j})
		for k := 2; k <= j-i; k++ {
			orders *= k
			if orders > maxOrders {
				return "", false
			}
		}
		i = j
	}
	order := make([]int, len(lits))
	for i := range order {
		order[i] = i
	}
	best, found := "", false
	var try func(r int)
	try = func(r int) {
		if r == len(runs) {
			s := render(lits, order)
			if !found || s < best {
				best, found = s, true
			}
			return
		}
		lo, hi := runs[r][0], runs[r][1]
		permute(order[lo:hi], 0, func() { try(r + 1) })
	}
	try(0)
	return best, true
}

// render writes the literals in order, the variables renamed by first
// appearance.
func render(lits []keyLit, order []int) string {
	names := map[mln.Term]int{}
	var b strings.Builder
	for _, i := range order {
		l := lits[i]
		fmt.Fprintf(&b, "%t/%d/%d(", l.neg, l.pred, l.builtin)
		for _, t := range l.args {
			if t.IsVar() {
				n, ok := names[t]
				if !ok {
					n = len(names)
					names[t] = n
				}
				fmt.Fprintf(&b, "v%d,", n)
			} else {
				fmt.Fprintf(&b, "%d,", t)
			}
		}
		b.WriteString(") ")
	}
	return b.String()
}

// permute calls fn for every order of s[k:], leaving s as it was.
func permute(s []int, k int, fn func()) {
	if k >= len(s)-1 {
		fn()
		return
	}
	for i := k; i < len(s); i++ {
		s[k], s[i] = s[i], s[k]
		permute(s, k+1, fn)
		s[k], s[i] = s[i], s[k]
	}
}
