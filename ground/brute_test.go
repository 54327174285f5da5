package ground_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

const numRandom = 250

func close(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TestRandomBrute grounds random MLNs and compares the network with
// brute-force evaluation of the first-order clauses in every world: score,
// hard violations, counts of every parameter, count differences,
// components, and incremental grounding of the last clause.
func TestRandomBrute(t *testing.T) {
	ctx := context.Background()
	worlds, clauses := 0, 0
	for seed := int64(0); seed < numRandom; seed++ {
		c := randmln.Generate(seed)
		m, db, query, ow, err := c.Load()
		if err != nil {
			t.Fatalf("%v\n%v", err, c)
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("%s\n%v\nclauses:\n%s", fmt.Sprintf(format, args...), c, dumpClauses(m))
		}
		opt := ground.Options{Query: query, OpenWorld: ow, Workers: 1 + int(seed%3)}
		net, err := ground.Ground(ctx, m, db, opt)
		if err != nil {
			fail("Ground: %v", err)
		}
		clauses += net.NumClauses()

		checkRegrounding(ctx, fail, c, opt, seed, net, true)

		worlds += checkWorlds(t, fail, seed, m, db, query, ow, nil, net)
	}
	t.Logf("%d random MLNs, %d worlds, %d ground clauses", numRandom, worlds, clauses)
}

// checkWorlds sets random weights and compares the network with brute
// force in every world (the domains of doms's types restricted as in
// ground.Options.Domains). It returns the number of worlds.
func checkWorlds(t *testing.T, fail func(string, ...any), seed int64, m *mln.Model, db *mln.Database, query, ow []mln.PredID, doms map[mln.TypeID][]mln.ConstID, net *ground.Network) int {
	t.Helper()
	worlds := 0
	// Random weights, so that parameters and unallocated bindings
	// weigh differently.
	r := rand.New(rand.NewPCG(uint64(seed), 7))
	for p := range m.Weights {
		m.Weights[p] = r.Float64()*4 - 2
	}
	for _, f := range m.Formulas {
		if !f.Hard {
			f.Weight = r.Float64()*4 - 2
		}
	}
	net.SetWeights()

	open := append(append([]mln.PredID(nil), query...), ow...)
	prob := brute.NewProblemDomains(m, db, open, doms)
	if len(prob.Atoms) > 14 {
		fail("%d unknown atoms", len(prob.Atoms))
	}
	// Network atoms are unknown atoms; every unknown query atom is one.
	toNet := make([]int32, len(prob.Atoms))
	for i := range toNet {
		toNet[i] = -1
	}
	for a := 0; a < net.NumAtoms(); a++ {
		i, ok := prob.Index(net.AtomPred[a], net.AtomArgs[a])
		if !ok {
			fail("network atom %d %s is not unknown", a, brute.Atom{Pred: net.AtomPred[a], Args: net.AtomArgs[a]}.String(m))
		}
		toNet[i] = int32(a)
		if id, ok := net.AtomID(net.AtomPred[a], net.AtomArgs[a]); !ok || id != int32(a) {
			fail("AtomID(%d) = %d, %v", a, id, ok)
		}
	}
	isQuery := make([]bool, len(m.Preds))
	for _, q := range query {
		isQuery[q] = true
	}
	for i, a := range prob.Atoms {
		if isQuery[a.Pred] && toNet[i] < 0 {
			fail("unknown query atom %s is not in the network", a.String(m))
		}
	}
	comps := net.Components()
	subs := make([]*ground.Network, len(comps))
	for i, cp := range comps {
		subs[i] = net.Sub(cp)
	}
	checkComponents(t, net, comps)

	var prevY []bool
	var prevCounts []float64
	for w := 0; w < 1<<len(prob.Atoms); w++ {
		world := make([]bool, len(prob.Atoms))
		y := make([]bool, net.NumAtoms())
		for i := range world {
			world[i] = w&(1<<i) != 0
			if toNet[i] >= 0 {
				y[toNet[i]] = world[i]
			}
		}
		res := prob.Eval(world)
		score, hard := net.Score(y)
		if !close(score, res.Score) || hard != res.HardViolated {
			fail("world %d: network score %v (hard %d), brute %v (hard %d)", w, score, hard, res.Score, res.HardViolated)
		}
		counts := net.Counts(y)
		if len(counts) != len(m.Weights) {
			fail("Counts has %d entries, model %d parameters", len(counts), len(m.Weights))
		}
		for p := range m.Weights {
			key := brute.ParamKey{Formula: m.ParamFormula[p], Binding: mln.BindingKey(m.ParamBinding[p])}
			if want := res.Counts[key]; !close(counts[p], want) {
				fail("world %d: parameter %d (formula %d, binding %v): count %v, brute %v", w, p, key.Formula, m.ParamBinding[p], counts[p], want)
			}
		}
		// Components.
		sum, sh := net.ConstScore, net.HardFalse
		subCounts := append([]float64(nil), net.EvidenceCount...)
		for i, cp := range comps {
			sy := make([]bool, len(cp.Atoms))
			for j, a := range cp.Atoms {
				sy[j] = y[a]
			}
			s, h := subs[i].Score(sy)
			sum += s
			sh += h
			for p, v := range subs[i].Counts(sy) {
				subCounts[p] += v
			}
		}
		if !close(sum, score) || sh != hard {
			fail("world %d: components score %v (hard %d), network %v (hard %d)", w, sum, sh, score, hard)
		}
		for p := range counts {
			if !close(subCounts[p], counts[p]) {
				fail("world %d: components count %d: %v, network %v", w, p, subCounts[p], counts[p])
			}
		}
		// CountDiff against the previous world.
		if prevY != nil {
			var changed []int32
			for a := range y {
				if y[a] != prevY[a] {
					changed = append(changed, int32(a))
				}
			}
			acc := make([]float64, len(counts))
			net.CountDiff(y, prevY, changed, acc)
			for p := range acc {
				if !close(acc[p], counts[p]-prevCounts[p]) {
					fail("world %d: CountDiff[%d] = %v, want %v", w, p, acc[p], counts[p]-prevCounts[p])
				}
			}
		}
		prevY, prevCounts = y, counts
		worlds++
	}
	return worlds
}

// checkComponents checks that every atom and clause is in exactly one
// component and that clauses only link atoms of their component.
func checkComponents(t *testing.T, net *ground.Network, comps []ground.Component) {
	t.Helper()
	atomComp := make([]int, net.NumAtoms())
	for i := range atomComp {
		atomComp[i] = -1
	}
	clauseSeen := make([]bool, net.NumClauses())
	for k, cp := range comps {
		for _, a := range cp.Atoms {
			if atomComp[a] >= 0 {
				t.Fatalf("atom %d in two components", a)
			}
			atomComp[a] = k
		}
	}
	for k, cp := range comps {
		for _, c := range cp.Clauses {
			clauseSeen[c] = true
			for _, l := range net.Clause(int(c)) {
				if atomComp[l.Atom()] != k {
					t.Fatalf("clause %d links components", c)
				}
			}
		}
	}
	for a, k := range atomComp {
		if k < 0 {
			t.Fatalf("atom %d in no component", a)
		}
	}
	for c, ok := range clauseSeen {
		if !ok {
			t.Fatalf("clause %d in no component", c)
		}
	}
}

// diffNetworks describes the first difference between two networks.
func diffNetworks(a, b *ground.Network) string {
	if a.NumAtoms() != b.NumAtoms() {
		return fmt.Sprintf("%d vs %d atoms", a.NumAtoms(), b.NumAtoms())
	}
	for i := range a.AtomPred {
		if a.AtomPred[i] != b.AtomPred[i] || fmt.Sprint(a.AtomArgs[i]) != fmt.Sprint(b.AtomArgs[i]) {
			return fmt.Sprintf("atom %d differs", i)
		}
	}
	if a.NumClauses() != b.NumClauses() {
		return fmt.Sprintf("%d vs %d clauses", a.NumClauses(), b.NumClauses())
	}
	for c := 0; c < a.NumClauses(); c++ {
		if fmt.Sprint(a.Clause(c)) != fmt.Sprint(b.Clause(c)) {
			return fmt.Sprintf("clause %d: %v vs %v", c, a.Clause(c), b.Clause(c))
		}
		if a.Weight(c) != b.Weight(c) || a.Source(c) != b.Source(c) || a.Param(c) != b.Param(c) || a.Coef(c) != b.Coef(c) {
			return fmt.Sprintf("clause %d: weight/source/param/coef differ", c)
		}
	}
	if len(a.EvidenceCount) != len(b.EvidenceCount) {
		return fmt.Sprintf("%d vs %d evidence counts", len(a.EvidenceCount), len(b.EvidenceCount))
	}
	for p := range a.EvidenceCount {
		if !close(a.EvidenceCount[p], b.EvidenceCount[p]) {
			return fmt.Sprintf("EvidenceCount[%d] %v vs %v", p, a.EvidenceCount[p], b.EvidenceCount[p])
		}
	}
	if !close(a.ConstScore, b.ConstScore) || a.HardFalse != b.HardFalse {
		return fmt.Sprintf("ConstScore %v vs %v, HardFalse %d vs %d", a.ConstScore, b.ConstScore, a.HardFalse, b.HardFalse)
	}
	return ""
}

func dumpClauses(m *mln.Model) string {
	s := ""
	for i, c := range m.Clauses {
		s += fmt.Sprintf("%d: %+v\n", i, *c)
	}
	return s
}

// TestMutatedClauses grounds random models whose compiled clauses are
// mutated into shapes Compile does not produce (negated comparisons,
// literals with flipped signs, more existential variables, variables of an
// empty type, constants in comparisons) and compares with brute force.
func TestMutatedClauses(t *testing.T) {
	ctx := context.Background()
	worlds := 0
	for seed := int64(0); seed < 150; seed++ {
		c := randmln.Generate(1000 + seed)
		m, db, query, ow, err := c.Load()
		if err != nil {
			t.Fatalf("%v\n%v", err, c)
		}
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		empty := m.AddType("emptytype", syntaxPos())
		mutate(r, m, empty.ID)
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("%s\n%v\nclauses:\n%s", fmt.Sprintf(format, args...), c, dumpClauses(m))
		}
		net, err := ground.Ground(ctx, m, db, ground.Options{Query: query, OpenWorld: ow, Workers: 2})
		if err != nil {
			fail("Ground: %v", err)
		}
		worlds += checkWorlds(t, fail, seed, m, db, query, ow, nil, net)
	}
	t.Logf("%d worlds", worlds)
}

var flip = map[mln.Builtin]mln.Builtin{mln.Eq: mln.Neq, mln.Neq: mln.Eq, mln.Lt: mln.Ge, mln.Ge: mln.Lt, mln.Gt: mln.Le, mln.Le: mln.Gt}

// mutate rewrites the model's clauses at random.
func mutate(r *rand.Rand, m *mln.Model, empty mln.TypeID) {
	for _, c := range m.Clauses {
		isPlus := map[int]bool{}
		for _, v := range c.Plus {
			isPlus[v] = true
		}
		isExist := map[int]bool{}
		for _, v := range c.Exist {
			isExist[v] = true
		}
		for i := range c.Lits {
			l := &c.Lits[i]
			switch {
			case l.Pred < 0 && r.IntN(2) == 0:
				// Same meaning, negated form.
				l.Builtin, l.Neg = flip[l.Builtin], !l.Neg
			case l.Pred >= 0 && r.IntN(6) == 0:
				l.Neg = !l.Neg
			}
		}
		// A comparison between two variables of one type, or a variable
		// and a constant, possibly negated.
		if r.IntN(3) == 0 && len(c.Vars) > 0 {
			v := r.IntN(len(c.Vars))
			typ := m.Types[c.Vars[v].Type]
			var other mln.Term
			var cands []int
			for w := range c.Vars {
				if c.Vars[w].Type == c.Vars[v].Type {
					cands = append(cands, w)
				}
			}
			if r.IntN(3) == 0 && typ.Size() > 0 {
				other = mln.ConstTerm(typ.Consts[r.IntN(typ.Size())])
			} else {
				other = mln.VarTerm(cands[r.IntN(len(cands))])
			}
			ops := []mln.Builtin{mln.Eq, mln.Neq, mln.Lt, mln.Le}
			l := mln.Literal{Pred: -1, Builtin: ops[r.IntN(len(ops))], Neg: r.IntN(2) == 0, Args: []mln.Term{mln.VarTerm(v), other}}
			c.Lits = append(c.Lits, l)
		}
		// Make a universal variable existential.
		if r.IntN(4) == 0 {
			v := r.IntN(len(c.Vars) + 1)
			if v < len(c.Vars) && !isPlus[v] && !isExist[v] {
				c.Exist = append(c.Exist, v)
			}
		}
		// A variable of the empty type, universal or existential, in a
		// comparison with itself.
		if r.IntN(12) == 0 {
			v := len(c.Vars)
			c.Vars = append(c.Vars, mln.Var{Name: "emp", Type: empty})
			c.Lits = append(c.Lits, mln.Literal{Pred: -1, Builtin: mln.Eq, Neg: true, Args: []mln.Term{mln.VarTerm(v), mln.VarTerm(v)}})
			if r.IntN(2) == 0 {
				c.Exist = append(c.Exist, v)
			}
		}
	}
}

func syntaxPos() syntax.Pos { return syntax.Pos{} }

// checkRegrounding grounds case c again, with another worker count and
// one-clause work units, and again without its last clause followed by
// AddModelClause of it, and fails unless both give net. With twice, adding
// the clause a second time must fail.
func checkRegrounding(ctx context.Context, fail func(string, ...any), c *randmln.Case, opt ground.Options, seed int64, net *ground.Network, twice bool) {
	m2, db2, _, _, _ := c.Load()
	opt2 := opt
	opt2.Workers = 4 - int(seed%3)
	old := ground.SetChunkSize(1) // many work units
	net2, err := ground.Ground(ctx, m2, db2, opt2)
	ground.SetChunkSize(old)
	if err != nil {
		fail("Ground: %v", err)
	}
	if d := diffNetworks(net, net2); d != "" {
		fail("worker counts give different networks: %s", d)
	}

	n := len(m2.Clauses)
	if n == 0 {
		return
	}
	m3, db3, _, _, _ := c.Load()
	last := m3.Clauses[n-1]
	m3.Clauses = m3.Clauses[:n-1]
	net3, err := ground.Ground(ctx, m3, db3, opt)
	if err != nil {
		fail("Ground without the last clause: %v", err)
	}
	m3.Clauses = append(m3.Clauses, last)
	if err := net3.AddModelClause(ctx, n-1); err != nil {
		fail("AddModelClause: %v", err)
	}
	if d := diffNetworks(net, net3); d != "" {
		fail("AddModelClause differs from grounding everything: %s", d)
	}
	if twice {
		if err := net3.AddModelClause(ctx, n-1); err == nil {
			fail("AddModelClause twice: no error")
		}
	}
}
