package mln

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/marple-mln/marple/syntax"
)

// world assigns truth values to the ground atoms of a small model with one
// type: bit atomIndex(p, args) of w.
type cnfWorld struct {
	m      *Model
	dom    []ConstID       // the domain of the only type
	pos    map[ConstID]int // constant -> index in dom
	offset []int           // first atom index of each predicate
	bits   uint64
}

func newCNFWorld(m *Model) *cnfWorld {
	t := m.Types[0]
	w := &cnfWorld{m: m, dom: t.Consts, pos: map[ConstID]int{}}
	for i, c := range t.Consts {
		w.pos[c] = i
	}
	n := 0
	for _, p := range m.Preds {
		w.offset = append(w.offset, n)
		k := 1
		for range p.Args {
			k *= len(w.dom)
		}
		n += k
	}
	w.offset = append(w.offset, n)
	return w
}

func (w *cnfWorld) numAtoms() int { return w.offset[len(w.offset)-1] }

func (w *cnfWorld) atom(p PredID, args []int) bool {
	idx := 0
	for _, a := range args {
		idx = idx*len(w.dom) + a
	}
	return w.bits>>(w.offset[p]+idx)&1 == 1
}

// evalAST evaluates a formula directly, quantifiers ranging over the
// domain; env maps variable names to domain indices.
func (w *cnfWorld) evalAST(f syntax.Formula, env map[string]int) bool {
	term := func(t syntax.Term) int {
		if t.Kind == syntax.VarTerm {
			return env[t.Name]
		}
		c, _ := w.m.Const(t.Name)
		return w.pos[c]
	}
	switch f := f.(type) {
	case *syntax.Atom:
		p, _ := w.m.Pred(f.Pred)
		args := make([]int, len(f.Args))
		for i, t := range f.Args {
			args[i] = term(t)
		}
		return w.atom(p.ID, args)
	case *syntax.Compare:
		x, y := term(f.X), term(f.Y)
		return w.m.EvalBuiltin(Builtin(f.Op)+Eq, w.dom[x], w.dom[y])
	case *syntax.Not:
		return !w.evalAST(f.X, env)
	case *syntax.Binary:
		a := w.evalAST(f.X, env)
		b := w.evalAST(f.Y, env)
		switch f.Op {
		case syntax.OpAnd:
			return a && b
		case syntax.OpOr:
			return a || b
		case syntax.OpImplies:
			return !a || b
		}
		return a == b
	case *syntax.Quant:
		return w.evalQuant(f, 0, env)
	}
	panic("bad node")
}

func (w *cnfWorld) evalQuant(q *syntax.Quant, i int, env map[string]int) bool {
	if i == len(q.Vars) {
		return w.evalAST(q.Body, env)
	}
	name := q.Vars[i].Name
	old, had := env[name]
	defer func() {
		if had {
			env[name] = old
		} else {
			delete(env, name)
		}
	}()
	for d := range w.dom {
		env[name] = d
		v := w.evalQuant(q, i+1, env)
		if q.Exist && v {
			return true
		}
		if !q.Exist && !v {
			return false
		}
	}
	return !q.Exist
}

// satisfiable reports whether the closure of f holds in some world.
func (w *cnfWorld) satisfiable(f syntax.Formula) bool {
	for bits := uint64(0); bits < 1<<w.numAtoms(); bits++ {
		w.bits = bits
		if w.evalClosed(f) {
			return true
		}
	}
	return false
}

// evalClosed evaluates the universal closure of a formula.
func (w *cnfWorld) evalClosed(f syntax.Formula) bool {
	free := syntax.FreeVars(f)
	env := map[string]int{}
	var rec func(i int) bool
	rec = func(i int) bool {
		if i == len(free) {
			return w.evalAST(f, env)
		}
		for d := range w.dom {
			env[free[i]] = d
			if !rec(i + 1) {
				return false
			}
		}
		return true
	}
	return rec(0)
}

// evalClause evaluates a first-order clause: for every binding of its
// universal variables, some binding of its existential ones satisfies a
// literal.
func (w *cnfWorld) evalClause(c *Clause) bool {
	isExist := make([]bool, len(c.Vars))
	for _, v := range c.Exist {
		isExist[v] = true
	}
	vals := make([]int, len(c.Vars))
	litTrue := func(l *Literal) bool {
		args := make([]int, len(l.Args))
		ids := make([]ConstID, len(l.Args))
		for i, t := range l.Args {
			if t.IsVar() {
				args[i] = vals[t.Var()]
				ids[i] = w.dom[args[i]]
			} else {
				ids[i] = t.Const()
				args[i] = w.pos[t.Const()]
			}
		}
		if l.Pred < 0 {
			return w.m.EvalBuiltin(l.Builtin, ids[0], ids[1])
		}
		return w.atom(l.Pred, args) != l.Neg
	}
	var exist func(i int) bool
	exist = func(i int) bool {
		if i == len(c.Vars) {
			for k := range c.Lits {
				if litTrue(&c.Lits[k]) {
					return true
				}
			}
			return false
		}
		if !isExist[i] {
			return exist(i + 1)
		}
		for d := range w.dom {
			vals[i] = d
			if exist(i + 1) {
				return true
			}
		}
		return false
	}
	var univ func(i int) bool
	univ = func(i int) bool {
		if i == len(c.Vars) {
			return exist(0)
		}
		if isExist[i] {
			return univ(i + 1)
		}
		for d := range w.dom {
			vals[i] = d
			if !univ(i + 1) {
				return false
			}
		}
		return true
	}
	return univ(0)
}

// randFormula builds a random formula over P(d), Q(d,d), R(d).
type formulaGen struct {
	r     *rand.Rand
	preds []*Predicate
	names []string
}

func (g *formulaGen) term(scope []string) syntax.Term {
	if g.r.IntN(8) == 0 {
		return syntax.Term{Kind: syntax.ConstTerm, Name: []string{"A", "B"}[g.r.IntN(2)]}
	}
	if len(scope) > 0 && g.r.IntN(2) == 0 {
		return syntax.Term{Kind: syntax.VarTerm, Name: scope[g.r.IntN(len(scope))]}
	}
	return syntax.Term{Kind: syntax.VarTerm, Name: []string{"x", "y"}[g.r.IntN(2)]}
}

func (g *formulaGen) gen(depth int, scope []string) syntax.Formula {
	if depth == 0 || g.r.IntN(4) == 0 {
		if g.r.IntN(8) == 0 {
			return &syntax.Compare{Op: syntax.CmpOp(g.r.IntN(2)), X: g.term(scope), Y: g.term(scope)}
		}
		p := g.preds[g.r.IntN(len(g.preds))]
		a := &syntax.Atom{Pred: p.Name}
		for range p.Args {
			a.Args = append(a.Args, g.term(scope))
		}
		return a
	}
	switch k := g.r.IntN(9); {
	case k == 0:
		return &syntax.Not{X: g.gen(depth-1, scope)}
	case k <= 5:
		return &syntax.Binary{Op: syntax.BinOp(g.r.IntN(4)), X: g.gen(depth-1, scope), Y: g.gen(depth-1, scope)}
	default:
		q := &syntax.Quant{Exist: g.r.IntN(2) == 0}
		n := 1 + g.r.IntN(2)
		for range n {
			name := g.names[g.r.IntN(len(g.names))]
			q.Vars = append(q.Vars, syntax.Ident{Name: name})
			scope = append(scope[:len(scope):len(scope)], name)
		}
		q.Body = g.gen(depth-1, scope)
		return q
	}
}

// TestCNFRandom checks on random formulas (quantifiers, <=>, =>,
// negations, comparisons) that, in every world, the universal closure of
// the formula (evaluated directly) equals the conjunction of its compiled
// clauses (existential variables as disjunctions over the domain). Hard
// formulas are compiled as is; soft ones may be a weighted conjunction
// (one clause, Coef -1), checked grounding by grounding when the formula
// is quantifier-free.
func TestCNFRandom(t *testing.T) {
	m, err := ParseModel("r.mln", "d = {A, B}\nP(d)\nQ(d,d)\nR(d)\n")
	if err != nil {
		t.Fatal(err)
	}
	w := newCNFWorld(m)
	g := &formulaGen{r: rand.New(rand.NewPCG(1, 2)), preds: m.Preds, names: []string{"u", "z", "x", "y"}}
	checked, skipped, conj, exist := 0, 0, 0, 0
	for trial := 0; trial < cnfTrials; trial++ {
		ast := g.gen(1+g.r.IntN(4), nil)
		hard := trial%2 == 0
		text := syntax.FormulaString(ast)
		if hard {
			text += "."
		} else {
			text = "1.5 " + text
		}
		f, err := m.ParseFormula(text)
		if err != nil {
			if strings.Contains(err.Error(), "cannot infer the type") {
				skipped++
				continue
			}
			t.Fatalf("%s: %v", text, err)
		}
		cls, err := m.AddFormula(f)
		if err != nil {
			if strings.Contains(err.Error(), "unsatisfiable") || strings.Contains(err.Error(), "clauses in CNF") {
				skipped++
				continue
			}
			t.Fatalf("%s: %v", text, err)
		}
		for _, ci := range cls {
			if len(m.Clauses[ci].Exist) > 0 {
				exist++
				break
			}
		}
		if len(cls) == 1 && m.Clauses[cls[0]].Coef == -1 {
			conj++
			checkConjunction(t, w, f, m.Clauses[cls[0]], text)
			continue
		}
		if !hard && !w.satisfiable(f.AST) {
			// An unsatisfiable soft formula may lose clauses that are
			// never satisfied (a constant score).
			skipped++
			continue
		}
		for bits := uint64(0); bits < 1<<w.numAtoms(); bits++ {
			w.bits = bits
			want := w.evalClosed(f.AST)
			got := true
			for _, ci := range cls {
				if !w.evalClause(m.Clauses[ci]) {
					got = false
					break
				}
			}
			if got != want {
				var cs []string
				for _, ci := range cls {
					cs = append(cs, m.ClauseString(m.Clauses[ci]))
				}
				t.Fatalf("%s\nworld %08b: formula %v, clauses %v\nclauses:\n  %s", text, bits, want, got, strings.Join(cs, "\n  "))
			}
		}
		checked++
	}
	t.Logf("%d formulas checked, %d with existential clauses, %d weighted conjunctions, %d skipped", checked, exist, conj, skipped)
	if checked < 1000 || exist < 50 || conj < 10 {
		t.Errorf("too few cases: %d checked, %d existential, %d conjunctions", checked, exist, conj)
	}
}

// checkConjunction checks a weighted conjunction kept as one clause with
// Coef -1: for a quantifier-free formula, every grounding of the clause is
// false exactly when the formula holds for that binding.
func checkConjunction(t *testing.T, w *cnfWorld, f *Formula, c *Clause, text string) {
	t.Helper()
	quantified := false
	syntax.Walk(f.AST, func(x syntax.Formula) bool {
		if _, ok := x.(*syntax.Quant); ok {
			quantified = true
		}
		return true
	})
	if quantified || len(c.Exist) > 0 {
		return
	}
	env := map[string]int{}
	for bits := uint64(0); bits < 1<<w.numAtoms(); bits++ {
		w.bits = bits
		n := len(c.Vars)
		total := 1
		for range n {
			total *= len(w.dom)
		}
		for b := 0; b < total; b++ {
			x := b
			ground := &Clause{Lits: make([]Literal, len(c.Lits))}
			for _, v := range c.Vars {
				env[v.Name] = x % len(w.dom)
				x /= len(w.dom)
			}
			for i, l := range c.Lits {
				l.Args = append([]Term(nil), l.Args...)
				for k, a := range l.Args {
					if a.IsVar() {
						l.Args[k] = ConstTerm(w.dom[env[c.Vars[a.Var()].Name]])
					}
				}
				ground.Lits[i] = l
			}
			if w.evalAST(f.AST, env) == w.evalClause(ground) {
				t.Fatalf("%s: weighted conjunction clause %s disagrees in world %b", text, w.m.ClauseString(c), bits)
			}
		}
	}
}

// cnfTrials is the number of random formulas TestCNFRandom checks.
var cnfTrials = 1500
