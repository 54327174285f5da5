package decision_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/decision"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// errInfeasible is the error of exactEngine when no world satisfies the
// hard clauses with the clamped atoms.
var errInfeasible = errors.New("no feasible world")

// exactEngine computes exact marginals by enumerating the assignments of
// the atoms that the linear terms do not clamp (|bias| >= decision.Clamp),
// over the worlds that satisfy every hard clause.
type exactEngine struct{}

func (exactEngine) Name() string { return "enumeration" }

func (exactEngine) Marginals(_ context.Context, net *ground.Network, opt infer.Options) ([]float64, error) {
	n := net.NumAtoms()
	y := make([]bool, n)
	var free []int
	for a := range n {
		switch b := opt.Bias[a]; {
		case b >= decision.Clamp:
			y[a] = true
		case b <= -decision.Clamp:
		default:
			free = append(free, a)
		}
	}
	if len(free) > 20 {
		return nil, fmt.Errorf("%d free atoms", len(free))
	}
	var ls []float64
	var ws [][]bool
	for w := 0; w < 1<<len(free); w++ {
		for i, a := range free {
			y[a] = w&(1<<i) != 0
		}
		s, hard := net.Score(y)
		if hard > 0 {
			continue
		}
		for a, b := range opt.Bias {
			if y[a] && math.Abs(b) < decision.Clamp {
				s += b
			}
		}
		ls = append(ls, s)
		ws = append(ws, append([]bool(nil), y...))
	}
	if len(ls) == 0 {
		return nil, errInfeasible
	}
	mx := math.Inf(-1)
	for _, l := range ls {
		mx = math.Max(mx, l)
	}
	z := 0.0
	for _, l := range ls {
		z += math.Exp(l - mx)
	}
	p := make([]float64, n)
	for i, w := range ws {
		q := math.Exp(ls[i]-mx) / z
		for a, v := range w {
			if v {
				p[a] += q
			}
		}
	}
	return p, nil
}

// withUtilities adds random utilities to a random MLN: to some of its soft
// formulas ("w:u formula") and as unit formulas over some predicates
// (":u P(v1,...)" or ":u !P(...)").
func withUtilities(r *rand.Rand, src string) string {
	weighted := regexp.MustCompile(`^(-?[0-9]+\.[0-9]+) `)
	decl := regexp.MustCompile(`^(P[0-9]+)\(([a-z, ]+)\)$`)
	var b strings.Builder
	var units []string
	util := func() string { return fmt.Sprintf("%.2f", 4*r.Float64()-2) }
	for _, line := range strings.Split(strings.TrimRight(src, "\n"), "\n") {
		if m := weighted.FindStringSubmatch(line); m != nil && r.IntN(2) == 0 {
			line = m[1] + ":" + util() + " " + line[len(m[0]):]
		}
		if m := decl.FindStringSubmatch(line); m != nil && r.IntN(3) > 0 {
			n := len(strings.Split(m[2], ","))
			var vs []string
			for i := range n {
				vs = append(vs, fmt.Sprintf("v%d", i+1))
			}
			neg := ""
			if r.IntN(3) == 0 {
				neg = "!"
			}
			units = append(units, ":"+util()+" "+neg+m[1]+"("+strings.Join(vs, ",")+")")
		}
		b.WriteString(line + "\n")
	}
	for _, u := range units {
		b.WriteString(u + "\n")
	}
	return b.String()
}

// oracle is the brute-force expected utility of every assignment of the
// action atoms: all worlds of the unknown atoms are enumerated, scored by
// the model's first-order clauses (package brute) and valued by the
// utility formulas evaluated on their syntax trees.
type oracle struct {
	bp      *brute.Problem
	actions []int               // indices into bp.Atoms of the action atoms
	eu      map[string]float64  // by action assignment; missing: infeasible
	key     func([]bool) string // assignment -> map key
	atomOf  map[string]int      // action atom name -> index into actions
	m       *mln.Model
	util    []*mln.Formula
	types   map[string]mln.TypeID
	bindBuf map[string]mln.ConstID
}

func newOracle(m *mln.Model, db *mln.Database, open []mln.PredID, action mln.PredID) *oracle {
	return newOracleFunc(m, db, open, func(a brute.Atom) bool { return a.Pred == action })
}

// newOracleFunc is newOracle with the action atoms those of the unknown
// atoms for which isAction holds.
func newOracleFunc(m *mln.Model, db *mln.Database, open []mln.PredID, isAction func(brute.Atom) bool) *oracle {
	o := &oracle{bp: brute.NewProblem(m, db, open), m: m, atomOf: map[string]int{}}
	for i, a := range o.bp.Atoms {
		if isAction(a) {
			o.atomOf[a.String(m)] = len(o.actions)
			o.actions = append(o.actions, i)
		}
	}
	for _, f := range m.Formulas {
		if f.HasUtility {
			o.util = append(o.util, f)
		}
	}
	o.key = func(a []bool) string { return fmt.Sprint(a) }
	return o
}

func (o *oracle) run() {
	num := map[string]float64{}
	den := map[string]float64{}
	var logs []float64
	type world struct {
		key string
		s   float64
		u   float64
	}
	var worlds []world
	brute.Worlds(len(o.bp.Atoms), func(y []bool) {
		r := o.bp.Eval(y)
		if r.HardViolated > 0 {
			return
		}
		a := make([]bool, len(o.actions))
		for i, k := range o.actions {
			a[i] = y[k]
		}
		worlds = append(worlds, world{o.key(a), r.Score, o.utility(y)})
		logs = append(logs, r.Score)
	})
	mx := math.Inf(-1)
	for _, l := range logs {
		mx = math.Max(mx, l)
	}
	for _, w := range worlds {
		q := math.Exp(w.s - mx)
		num[w.key] += q * w.u
		den[w.key] += q
	}
	o.eu = map[string]float64{}
	for k, d := range den {
		o.eu[k] = num[k] / d
	}
}

// utility returns the utility of world y: Σ_f u_f · #true groundings of f.
func (o *oracle) utility(y []bool) float64 {
	total := 0.0
	for _, f := range o.util {
		types := map[string]mln.TypeID{}
		syntax.Walk(f.AST, func(g syntax.Formula) bool {
			if a, ok := g.(*syntax.Atom); ok {
				p, _ := o.m.Pred(a.Pred)
				for i, t := range a.Args {
					if t.Kind == syntax.VarTerm {
						types[t.Name] = p.Args[i]
					}
				}
			}
			return true
		})
		for changed := true; changed; {
			changed = false
			syntax.Walk(f.AST, func(g syntax.Formula) bool {
				if c, ok := g.(*syntax.Compare); ok && c.X.Kind == syntax.VarTerm && c.Y.Kind == syntax.VarTerm {
					tx, okx := types[c.X.Name]
					ty, oky := types[c.Y.Name]
					if okx && !oky {
						types[c.Y.Name], changed = tx, true
					} else if oky && !okx {
						types[c.X.Name], changed = ty, true
					}
				}
				return true
			})
		}
		free := freeVarNames(f.AST)
		env := map[string]mln.ConstID{}
		var rec func(i int)
		rec = func(i int) {
			if i == len(free) {
				if o.eval(f.AST, env, types, y) {
					total += f.Utility
				}
				return
			}
			for _, c := range o.m.Types[types[free[i]]].Consts {
				env[free[i]] = c
				rec(i + 1)
			}
		}
		rec(0)
	}
	return total
}

func freeVarNames(f syntax.Formula) []string {
	var out []string
	seen := map[string]bool{}
	bound := map[string]int{}
	var walk func(f syntax.Formula)
	use := func(t syntax.Term) {
		if t.Kind == syntax.VarTerm && bound[t.Name] == 0 && !seen[t.Name] {
			seen[t.Name] = true
			out = append(out, t.Name)
		}
	}
	walk = func(f syntax.Formula) {
		switch f := f.(type) {
		case *syntax.Atom:
			for _, t := range f.Args {
				use(t)
			}
		case *syntax.Compare:
			use(f.X)
			use(f.Y)
		case *syntax.Not:
			walk(f.X)
		case *syntax.Binary:
			walk(f.X)
			walk(f.Y)
		case *syntax.Quant:
			for _, v := range f.Vars {
				bound[v.Name]++
			}
			walk(f.Body)
			for _, v := range f.Vars {
				bound[v.Name]--
			}
		}
	}
	walk(f)
	return out
}

func (o *oracle) term(t syntax.Term, env map[string]mln.ConstID) mln.ConstID {
	if t.Kind == syntax.VarTerm {
		return env[t.Name]
	}
	c, ok := o.m.Const(t.Name)
	if !ok {
		panic("unknown constant " + t.Name)
	}
	return c
}

// eval evaluates formula f in world y under the binding env.
func (o *oracle) eval(f syntax.Formula, env map[string]mln.ConstID, types map[string]mln.TypeID, y []bool) bool {
	switch f := f.(type) {
	case *syntax.Atom:
		p, _ := o.m.Pred(f.Pred)
		args := make([]mln.ConstID, len(f.Args))
		for i, t := range f.Args {
			args[i] = o.term(t, env)
		}
		return o.bp.Truth(p.ID, args, y)
	case *syntax.Compare:
		b := [...]mln.Builtin{mln.Eq, mln.Neq, mln.Lt, mln.Le, mln.Gt, mln.Ge}[f.Op]
		return o.m.EvalBuiltin(b, o.term(f.X, env), o.term(f.Y, env))
	case *syntax.Not:
		return !o.eval(f.X, env, types, y)
	case *syntax.Binary:
		x := o.eval(f.X, env, types, y)
		z := o.eval(f.Y, env, types, y)
		switch f.Op {
		case syntax.OpAnd:
			return x && z
		case syntax.OpOr:
			return x || z
		case syntax.OpImplies:
			return !x || z
		default:
			return x == z
		}
	case *syntax.Quant:
		saved := map[string]mln.ConstID{}
		for _, v := range f.Vars {
			saved[v.Name] = env[v.Name]
		}
		defer func() {
			for k, v := range saved {
				env[k] = v
			}
		}()
		var rec func(i int) bool
		rec = func(i int) bool {
			if i == len(f.Vars) {
				return o.eval(f.Body, env, types, y)
			}
			for _, c := range o.m.Types[types[f.Vars[i].Name]].Consts {
				env[f.Vars[i].Name] = c
				if rec(i+1) == f.Exist {
					return f.Exist
				}
			}
			return !f.Exist
		}
		return rec(0)
	}
	panic(fmt.Sprintf("unexpected formula %T", f))
}

func loadCase(t *testing.T, c *randmln.Case, mlnText string) (*mln.Model, *mln.Database) {
	t.Helper()
	m, err := mln.ParseModel("rand.mln", mlnText)
	if err != nil {
		t.Fatalf("%v\n%s", err, mlnText)
	}
	db, err := mln.ParseDatabase(m, "rand.db", c.DB)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	return m, db
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a)+math.Abs(b)) }

// TestAgainstBruteForce checks, on random small decision networks (random
// MLNs with random utilities on their formulas and on unit formulas, the
// first query predicate as the action), that the expected utility of
// every action assignment, computed from exact marginals of the ground
// network with its auxiliary atoms, equals the brute-force expectation
// over all worlds of the first-order model; that Solve's exact search
// returns the maximum; and that the greedy search returns an assignment
// whose expected utility it reports correctly.
func TestAgainstBruteForce(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 27))
	checked, solved, aux, indirect, none, sampled := 0, 0, 0, 0, 0, 0
	worstMCSAT := 0.0
	for seed := int64(0); seed < 400 && checked < 60; seed++ {
		c := randmln.GenerateConfig(seed, randmln.Config{MaxUnknown: 8})
		text := withUtilities(r, c.MLN)
		if !strings.Contains(text, ":") {
			continue
		}
		mo, dbo := loadCase(t, c, text)
		md, dbd := loadCase(t, c, text)
		action, _ := md.Pred(c.Query[0])
		var query, ow []mln.PredID
		for _, q := range c.Query[1:] {
			p, _ := md.Pred(q)
			query = append(query, p.ID)
		}
		for _, q := range c.OpenWorld {
			p, _ := md.Pred(q)
			ow = append(ow, p.ID)
		}
		prob, err := decision.NewProblem(ctx, md, dbd, []mln.PredID{action.ID}, decision.Options{Ground: ground.Options{Query: query, OpenWorld: ow, Workers: 1}})
		if err != nil {
			if strings.Contains(err.Error(), "nothing to decide") || strings.Contains(err.Error(), "no formula has a utility") ||
				strings.Contains(err.Error(), "without free variables") {
				continue
			}
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		if prob.Net.NumAtoms() > 18 {
			continue
		}
		// The oracle's open-world predicates: as NewProblem's rule.
		open := []mln.PredID{action.ID}
		open = append(open, query...)
		open = append(open, ow...)
		for p := range mo.Preds {
			if dbo.Count(mln.PredID(p)) == 0 {
				open = append(open, mln.PredID(p))
			}
		}
		o := newOracle(mo, dbo, open, action.ID)
		if len(o.bp.Atoms) > 14 {
			continue
		}
		o.run()
		if len(md.Preds) > len(mo.Preds) {
			aux++
		}
		// Map the problem's action atoms to the oracle's.
		perm := make([]int, len(prob.Actions))
		for i, a := range prob.Actions {
			name := md.AtomString(prob.Net.AtomPred[a], prob.Net.AtomArgs[a])
			k, ok := o.atomOf[name]
			if !ok {
				t.Fatalf("seed %d: action atom %s unknown to the oracle", seed, name)
			}
			perm[i] = k
		}
		if len(perm) != len(o.actions) {
			t.Fatalf("seed %d: %d action atoms, the oracle has %d", seed, len(perm), len(o.actions))
		}
		n := len(perm)
		best := math.Inf(-1)
		for w := 0; w < 1<<n; w++ {
			a := make([]bool, n)
			oa := make([]bool, n)
			for i := range a {
				a[i] = w&(1<<i) != 0
				oa[perm[i]] = a[i]
			}
			want, feasible := o.eu[o.key(oa)]
			got, err := prob.ExpectedUtility(ctx, exactEngine{}, a, 1)
			switch {
			case errors.Is(err, errInfeasible):
				t.Fatalf("seed %d: the engine was asked about infeasible assignment %v\n%s", seed, a, text)
			case err == nil && math.IsInf(got, -1):
				if feasible {
					t.Fatalf("seed %d: assignment %v infeasible, the oracle says EU %v\n%s", seed, a, want, text)
				}
				if !infeasibleDirectly(prob, a) {
					indirect++ // through atoms that are not actions
				}
				continue
			case err != nil:
				t.Fatalf("seed %d: %v", seed, err)
			case !feasible:
				t.Fatalf("seed %d: assignment %v has EU %v, the oracle finds no world satisfying the hard clauses\n%s", seed, a, got, text)
			}
			if !near(got, want) {
				t.Fatalf("seed %d: EU%v = %v, brute force %v\n%s\n%s", seed, a, got, want, text, c.DB)
			}
			best = math.Max(best, want)
		}
		checked++
		if hasHard(prob) && !math.IsInf(best, -1) && sampled < 6 {
			// The engine AutoEngine picks (MC-SAT, as there are hard
			// clauses) on the feasible assignments: within sampling
			// tolerance of the exact expected utility.
			s := engines.DefaultSettings()
			s.Workers, s.Samples = 1, 1000
			eng, err := prob.AutoEngine(s)
			if err != nil {
				t.Fatal(err)
			}
			if eng.Name() != "mcsat" {
				t.Fatalf("seed %d: AutoEngine picks %s on a network with hard clauses", seed, eng.Name())
			}
			for w := 0; w < 1<<n; w++ {
				a := make([]bool, n)
				oa := make([]bool, n)
				for i := range a {
					a[i] = w&(1<<i) != 0
					oa[perm[i]] = a[i]
				}
				want, feasible := o.eu[o.key(oa)]
				got, err := prob.ExpectedUtility(ctx, eng, a, 1)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if !feasible {
					if !math.IsInf(got, -1) {
						t.Fatalf("seed %d: MC-SAT gives infeasible %v EU %v", seed, a, got)
					}
					continue
				}
				// Tolerance: 0.02 of probability on every coefficient.
				tol := 0.0
				for _, c := range prob.Coef {
					tol += 0.02 * math.Abs(c)
				}
				worstMCSAT = math.Max(worstMCSAT, math.Abs(got-want)/math.Max(tol, 1e-9))
				if math.Abs(got-want) > tol+1e-9 {
					t.Errorf("seed %d: MC-SAT EU%v = %v, exact %v ± %v\n%s", seed, a, got, want, tol, text)
				}
			}
			sampled++
		}
		res, err := prob.Solve(ctx, decision.SolveOptions{Engine: exactEngine{}, Seed: 1})
		if math.IsInf(best, -1) {
			if !errors.Is(err, decision.ErrInfeasible) {
				t.Fatalf("seed %d: every assignment is infeasible, Solve returns %v, %v", seed, res, err)
			}
			none++
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !res.Exact || !near(res.Utility, best) {
			t.Fatalf("seed %d: Solve found %v (exact %v), the maximum is %v", seed, res.Utility, res.Exact, best)
		}
		// The same by enumeration on every part.
		if res, err := prob.Solve(ctx, decision.SolveOptions{Engine: exactEngine{}, Seed: 1, ExactWidth: -1}); err != nil || !res.Exact || !near(res.Utility, best) || !slices.Equal(res.Methods, []string{"exact enumeration"}) {
			t.Fatalf("seed %d: Solve by enumeration found %v (%v), the maximum is %v", seed, res, err, best)
		}
		// The same by variable elimination on every part.
		if res, err := prob.Solve(ctx, decision.SolveOptions{Engine: exactEngine{}, Seed: 1, ExactAtoms: -1}); err != nil || !res.Exact || !near(res.Utility, best) || !slices.Equal(res.Methods, []string{"variable elimination"}) {
			t.Fatalf("seed %d: Solve by variable elimination found %v (%v), the maximum is %v", seed, res, err, best)
		}
		// The same with the engine asked on every part instead of the
		// parts' own enumeration.
		if res, err := prob.Solve(ctx, decision.SolveOptions{Engine: exactEngine{}, Seed: 1, ExactAtoms: -1, ExactWidth: -1}); err != nil || !res.Exact || !near(res.Utility, best) || slices.Contains(res.Methods, "exact enumeration") {
			t.Fatalf("seed %d: Solve on the engine found %v (%v), the maximum is %v", seed, res, err, best)
		}
		g, err := prob.Solve(ctx, decision.SolveOptions{Engine: exactEngine{}, MaxExact: -1, Restarts: 2, Seed: 1})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		eu, err := prob.ExpectedUtility(ctx, exactEngine{}, g.Actions, 1)
		if err != nil || g.Exact || !(near(eu, g.Utility) || eu == g.Utility) || g.Utility > best+1e-9 {
			t.Fatalf("seed %d: greedy search: utility %v (exact %v) %v, its actions' EU %v (%v), maximum %v (%v)\n%s", seed, g.Utility, g.Exact, g.Actions, eu, err, best, res.Actions, text)
		}
		solved++
	}
	if checked < 60 || solved < 35 || aux < 30 || indirect < 5 {
		t.Fatalf("only %d cases checked, %d solved, %d with auxiliary atoms, %d assignments infeasible through other atoms", checked, solved, aux, indirect)
	}
	t.Logf("%d cases checked, %d solved, %d with auxiliary atoms, %d assignments infeasible through other atoms, %d cases with no feasible assignment; MC-SAT on %d cases, largest error %.2f of the tolerance",
		checked, solved, aux, indirect, none, sampled, worstMCSAT)
}

func hasHard(p *decision.Problem) bool {
	for c := range p.Net.NumClauses() {
		if p.Net.IsHard(c) {
			return true
		}
	}
	return false
}

// infeasibleDirectly reports whether some hard clause of the network is
// over action atoms alone and false under actions.
func infeasibleDirectly(p *decision.Problem, actions []bool) bool {
	idx := map[int32]int{}
	for i, a := range p.Actions {
		idx[a] = i
	}
	for c := range p.Net.NumClauses() {
		if !p.Net.IsHard(c) {
			continue
		}
		all, sat := true, false
		for _, l := range p.Net.Clause(c) {
			i, ok := idx[l.Atom()]
			if !ok {
				all = false
				break
			}
			sat = sat || actions[i] != l.Neg()
		}
		if all && !sat {
			return true
		}
	}
	return false
}
