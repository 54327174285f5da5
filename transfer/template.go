package transfer

import (
	"fmt"
	"sort"
	"strings"
)

// Literal is one literal of a clique template: predicate variable Pred
// applied to object variables Args (indices into the template's object
// variables). Literals of a template are positive; the feature template
// (all sign combinations) is derived from it.
type Literal struct {
	Pred int
	Args []int
}

// Template is a second-order clique template: a conjunction of literals
// over predicate variables 0..NumPreds-1 and object variables
// 0..NumVars-1, in canonical form (see Canonical). PredArity gives each
// predicate variable's arity.
type Template struct {
	Lits      []Literal
	NumPreds  int
	NumVars   int
	PredArity []int
}

// EnumOptions bounds the templates Enumerate lists.
type EnumOptions struct {
	MinLiterals, MaxLiterals int   // literals per template (default 2 and 3)
	MaxVars                  int   // object variables per template (default 3)
	Arities                  []int // predicate arities allowed (default 1 and 2)
}

func (o EnumOptions) withDefaults() EnumOptions {
	if o.MinLiterals == 0 {
		o.MinLiterals = 2
	}
	if o.MaxLiterals == 0 {
		o.MaxLiterals = 3
	}
	if o.MaxVars == 0 {
		o.MaxVars = 3
	}
	if len(o.Arities) == 0 {
		o.Arities = []int{1, 2}
	}
	return o
}

// predNames and varNames name the variables when a template is printed.
var (
	predNames = []string{"r", "s", "t", "u", "v"}
	varNames  = []string{"x", "y", "z", "w", "a", "b", "c", "d"}
)

// String writes the template as its literals, e.g. "r(x,y), r(z,y), s(x,z)".
func (t *Template) String() string {
	return formatLits(t, func(p int) string { return predNames[p] })
}

// Key returns a string identifying the template's equivalence class under
// renaming of variables and reordering of literals (the canonical form's
// encoding).
func (t *Template) Key() string { return canonicalKey(t.Lits) }

// encode writes literals (already renamed) as a comparable string.
func encode(lits []Literal) string {
	var b strings.Builder
	for _, l := range lits {
		fmt.Fprintf(&b, "%d/%d(", l.Pred, len(l.Args))
		for _, a := range l.Args {
			fmt.Fprintf(&b, "%d,", a)
		}
		b.WriteString(")")
	}
	return b.String()
}

// renameFirst renames predicate and object variables in order of first
// appearance along lits.
func renameFirst(lits []Literal) []Literal {
	pm, vm := map[int]int{}, map[int]int{}
	out := make([]Literal, len(lits))
	for i, l := range lits {
		p, ok := pm[l.Pred]
		if !ok {
			p = len(pm)
			pm[l.Pred] = p
		}
		args := make([]int, len(l.Args))
		for j, a := range l.Args {
			v, ok := vm[a]
			if !ok {
				v = len(vm)
				vm[a] = v
			}
			args[j] = v
		}
		out[i] = Literal{Pred: p, Args: args}
	}
	return out
}

// permutations calls fn with every permutation of 0..n-1.
func permutations(n int, fn func(p []int)) {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			fn(p)
			return
		}
		for i := k; i < n; i++ {
			p[k], p[i] = p[i], p[k]
			rec(k + 1)
			p[k], p[i] = p[i], p[k]
		}
	}
	rec(0)
}

// canonical returns the canonical form of a conjunction of literals: over
// every order of the literals, variables renamed by first appearance, the
// order whose encoding is least. Two conjunctions are equal up to renaming
// and reordering exactly when their canonical forms are equal.
func canonical(lits []Literal) ([]Literal, string) {
	var best []Literal
	bestKey := ""
	perm := make([]Literal, len(lits))
	permutations(len(lits), func(p []int) {
		for i, j := range p {
			perm[i] = lits[j]
		}
		r := renameFirst(perm)
		if k := encode(r); best == nil || k < bestKey {
			best, bestKey = r, k
		}
	})
	return best, bestKey
}

func canonicalKey(lits []Literal) string {
	_, k := canonical(lits)
	return k
}

// newTemplate builds a Template from canonical literals.
func newTemplate(lits []Literal) *Template {
	t := &Template{Lits: lits}
	for _, l := range lits {
		if l.Pred >= t.NumPreds {
			t.NumPreds = l.Pred + 1
		}
		for _, a := range l.Args {
			if a >= t.NumVars {
				t.NumVars = a + 1
			}
		}
	}
	t.PredArity = make([]int, t.NumPreds)
	for _, l := range lits {
		t.PredArity[l.Pred] = len(l.Args)
	}
	return t
}

// validLits reports whether lits form a clique template: each predicate
// variable has one arity, no literal repeats a variable or another
// literal, and the literals are connected through shared object variables.
func validLits(lits []Literal) bool {
	ar := map[int]int{}
	seen := map[string]bool{}
	for _, l := range lits {
		if a, ok := ar[l.Pred]; ok && a != len(l.Args) {
			return false
		}
		ar[l.Pred] = len(l.Args)
		for i := range l.Args {
			for j := i + 1; j < len(l.Args); j++ {
				if l.Args[i] == l.Args[j] {
					return false
				}
			}
		}
		k := encode([]Literal{l})
		if seen[k] {
			return false
		}
		seen[k] = true
	}
	// Connectivity: grow from literal 0 through shared variables.
	in := make([]bool, len(lits))
	in[0] = true
	for changed := true; changed; {
		changed = false
		for i, l := range lits {
			if in[i] {
				continue
			}
			for j, m := range lits {
				if in[j] && shareVar(l, m) {
					in[i], changed = true, true
					break
				}
			}
		}
	}
	for _, ok := range in {
		if !ok {
			return false
		}
	}
	return true
}

func shareVar(a, b Literal) bool {
	for _, x := range a.Args {
		for _, y := range b.Args {
			if x == y {
				return true
			}
		}
	}
	return false
}

// Enumerate lists the clique templates within o's bounds, each once up to
// renaming of predicate and object variables and reordering of literals,
// ordered by number of literals and then by canonical encoding.
//
// Literal sequences are built with variables introduced in order of first
// appearance (every class has such a sequence); each is kept when its
// canonical form was not seen before.
func Enumerate(o EnumOptions) []*Template {
	o = o.withDefaults()
	var out []*Template
	seen := map[string]bool{}
	for n := o.MinLiterals; n <= o.MaxLiterals; n++ {
		var batch []*Template
		lits := make([]Literal, 0, n)
		var arity []int
		var rec func(nVars int)
		rec = func(nVars int) {
			if len(lits) == n {
				if !validLits(lits) {
					return
				}
				c, k := canonical(lits)
				if !seen[k] {
					seen[k] = true
					batch = append(batch, newTemplate(c))
				}
				return
			}
			for p := 0; p <= len(arity) && p < len(predNames); p++ {
				var ars []int
				if p < len(arity) {
					ars = []int{arity[p]}
				} else {
					ars = o.Arities
				}
				for _, a := range ars {
					newPred := p == len(arity)
					if newPred {
						arity = append(arity, a)
					}
					args := make([]int, a)
					var argRec func(i, nv int)
					argRec = func(i, nv int) {
						if i == a {
							lits = append(lits, Literal{Pred: p, Args: append([]int(nil), args...)})
							rec(nv)
							lits = lits[:len(lits)-1]
							return
						}
						for v := 0; v <= nv && v < o.MaxVars; v++ {
							args[i] = v
							next := nv
							if v == nv {
								next++
							}
							argRec(i+1, next)
						}
					}
					argRec(0, nVars)
					if newPred {
						arity = arity[:len(arity)-1]
					}
				}
			}
		}
		rec(0)
		sort.Slice(batch, func(i, j int) bool { return batch[i].Key() < batch[j].Key() })
		out = append(out, batch...)
	}
	return out
}

// ParseTemplate reads a template written by String ("r(x,y), s(y,x)"):
// predicate variables and object variables are any identifiers; the
// result is in canonical form.
func ParseTemplate(text string) (*Template, error) {
	pm, vm := map[string]int{}, map[string]int{}
	var lits []Literal
	rest := strings.TrimSpace(text)
	for rest != "" {
		open := strings.IndexByte(rest, '(')
		close := strings.IndexByte(rest, ')')
		if open <= 0 || close < open {
			return nil, fmt.Errorf("bad template %q: expected p(x,...)", text)
		}
		name := strings.TrimSpace(rest[:open])
		p, ok := pm[name]
		if !ok {
			p = len(pm)
			pm[name] = p
		}
		var args []int
		for _, a := range strings.Split(rest[open+1:close], ",") {
			a = strings.TrimSpace(a)
			if a == "" {
				return nil, fmt.Errorf("bad template %q: empty argument", text)
			}
			v, ok := vm[a]
			if !ok {
				v = len(vm)
				vm[a] = v
			}
			args = append(args, v)
		}
		lits = append(lits, Literal{Pred: p, Args: args})
		rest = strings.TrimSpace(rest[close+1:])
		rest = strings.TrimSpace(strings.TrimPrefix(rest, ","))
	}
	if len(lits) == 0 || len(pm) > len(predNames) || len(vm) > len(varNames) {
		return nil, fmt.Errorf("bad template %q", text)
	}
	if !validLits(lits) {
		return nil, fmt.Errorf("bad template %q: a predicate variable with two arities, a repeated literal or variable, or unconnected literals", text)
	}
	c, _ := canonical(lits)
	return newTemplate(c), nil
}

// bindings calls fn with every binding of t's predicate variables to
// distinct items 0..n-1 of the arity arity(item) each needs, once per
// clique: bindings that differ by a symmetry of the template (a
// permutation π of its predicate variables mapping it to itself up to
// renaming, as r and s in r(x,y), s(x,y)) give the same clique, and only
// the least (comparing bind with bind∘π) is passed. fn must not keep
// bind.
func bindings(t *Template, n int, arity func(item int) int, fn func(bind []int)) {
	autos := automorphisms(t)
	bind := make([]int, t.NumPreds)
	used := make([]bool, n)
	var rec func(k int)
	rec = func(k int) {
		if k == t.NumPreds {
			for _, pi := range autos {
				for i := range bind {
					if bind[pi[i]] != bind[i] {
						if bind[pi[i]] < bind[i] {
							return
						}
						break
					}
				}
			}
			fn(bind)
			return
		}
		for i := 0; i < n; i++ {
			if used[i] || arity(i) != t.PredArity[k] {
				continue
			}
			used[i] = true
			bind[k] = i
			rec(k + 1)
			used[i] = false
		}
	}
	rec(0)
}
