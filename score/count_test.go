package score

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/testkit/plant"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// bruteWorld is a closed world as a set of true atoms.
type bruteWorld map[string]bool

func atomKey(p mln.PredID, args []mln.ConstID) string {
	return string(rune(p)) + mln.BindingKey(args)
}

// bruteTrueGroundings counts the true groundings of c in w by enumerating
// every universal binding and, inside, every existential one (only those
// whose "+" variables take the values plus, when not nil).
func bruteTrueGroundings(m *mln.Model, c *mln.Clause, w bruteWorld, plus ...mln.ConstID) int64 {
	isExist := make([]bool, len(c.Vars))
	for _, v := range c.Exist {
		isExist[v] = true
	}
	var univ, exist []int
	for v := range c.Vars {
		if isExist[v] {
			exist = append(exist, v)
		} else {
			univ = append(univ, v)
		}
	}
	vals := make([]mln.ConstID, len(c.Vars))
	var enum func(vs []int, i int, fn func())
	enum = func(vs []int, i int, fn func()) {
		if i == len(vs) {
			fn()
			return
		}
		for _, k := range m.Types[c.Vars[vs[i]].Type].Consts {
			vals[vs[i]] = k
			enum(vs, i+1, fn)
		}
	}
	litTrue := func(l mln.Literal) bool {
		args := make([]mln.ConstID, len(l.Args))
		for i, t := range l.Args {
			if t.IsVar() {
				args[i] = vals[t.Var()]
			} else {
				args[i] = t.Const()
			}
		}
		if l.Pred < 0 {
			return m.EvalLiteral(l.Builtin, args) != l.Neg
		}
		return w[atomKey(l.Pred, args)] != l.Neg
	}
	var n int64
	enum(univ, 0, func() {
		for k, v := range c.Plus {
			if plus != nil && vals[v] != plus[k] {
				return
			}
		}
		sat := false
		enum(exist, 0, func() {
			for _, l := range c.Lits {
				if !sat && litTrue(l) {
					sat = true
				}
			}
		})
		if sat {
			n++
		}
	})
	return n
}

// allAtoms calls fn for every ground atom of every predicate.
func allAtoms(m *mln.Model, fn func(p mln.PredID, args []mln.ConstID)) {
	for p, pr := range m.Preds {
		args := make([]mln.ConstID, len(pr.Args))
		var rec func(j int)
		rec = func(j int) {
			if j == len(args) {
				fn(mln.PredID(p), args)
				return
			}
			for _, c := range m.Types[pr.Args[j]].Consts {
				args[j] = c
				rec(j + 1)
			}
		}
		rec(0)
	}
}

// randomWorld draws a closed world over m's atoms.
func randomWorld(m *mln.Model, r *rand.Rand, pTrue float64) (*mln.Database, bruteWorld) {
	db := mln.NewDatabase(m)
	w := bruteWorld{}
	allAtoms(m, func(p mln.PredID, args []mln.ConstID) {
		if r.Float64() < pTrue {
			db.Set(p, args, mln.True)
			w[atomKey(p, args)] = true
		}
	})
	return db, w
}

// TestCountsMatchBruteForce checks Δ_c(a) of every clause of random MLNs
// (comparisons, existential quantifiers, repeated predicates) at every
// ground atom against flipping the atom and recounting the clause's true
// groundings by enumeration.
func TestCountsMatchBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	checked, refused, plusChecked := 0, 0, 0
	for seed := int64(0); seed < 300; seed++ {
		n, np, nr := checkCountsBrute(t, seed, 0.2+0.6*r.Float64())
		checked, plusChecked, refused = checked+n, plusChecked+np, refused+nr
	}
	if checked < 500 || plusChecked < 50 {
		t.Fatalf("only %d clauses checked (%d with \"+\", %d refused)", checked, plusChecked, refused)
	}
	t.Logf("%d clauses checked (%d with \"+\"), %d refused", checked, plusChecked, refused)
}

// checkCountsBrute compares the counts of every clause of random MLN seed
// in a random closed world of the given density with brute force, and
// returns the number of clauses checked, of those with "+", and refused.
func checkCountsBrute(t *testing.T, seed int64, density float64) (checked, plusChecked, refused int) {
	c := randmln.Generate(seed)
	m, _, _, _, err := c.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(uint64(seed), 99))
	db, w := randomWorld(m, r, density)
	d, err := NewPLLData(m, []*mln.Database{db}, nil, CountOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cl := range m.Clauses {
		cc, err := d.Counts(cl)
		if err != nil {
			if strings.Contains(err.Error(), "not supported") {
				refused++
				continue
			}
			t.Fatalf("seed %d: %v", seed, err)
		}
		forBindings(m, cl, func(plus []mln.ConstID) {
			base := bruteTrueGroundings(m, cl, w, plus...)
			allAtoms(m, func(p mln.PredID, args []mln.ConstID) {
				k := atomKey(p, args)
				w[k] = !w[k]
				flipped := bruteTrueGroundings(m, cl, w, plus...)
				w[k] = !w[k]
				want := base - flipped
				if got := cc.delta(d, 0, p, args, plus); got != want {
					t.Fatalf("seed %d: clause %s, binding %v, atom %s%v: Δ %d, brute force %d\n%s", seed, clauseString(m, cl), plus, m.Preds[p].Name, args, got, want, c)
				}
			})
		})
		if len(cl.Plus) > 0 {
			plusChecked++
		}
		checked++
	}
	return checked, plusChecked, refused
}

// FuzzCountsBrute compares clause counts with brute force on the random
// MLN of any seed, in a world of any density.
func FuzzCountsBrute(f *testing.F) {
	f.Add(int64(1), uint8(128))
	f.Add(int64(77), uint8(30))
	f.Fuzz(func(t *testing.T, seed int64, density uint8) {
		checkCountsBrute(t, seed, float64(density)/255)
	})
}

// forBindings calls fn with every binding of c's "+" variables (once with
// nil when it has none).
func forBindings(m *mln.Model, c *mln.Clause, fn func(plus []mln.ConstID)) {
	if len(c.Plus) == 0 {
		fn(nil)
		return
	}
	b := make([]mln.ConstID, len(c.Plus))
	var rec func(k int)
	rec = func(k int) {
		if k == len(b) {
			fn(b)
			return
		}
		for _, x := range m.Types[c.Vars[c.Plus[k]].Type].Consts {
			b[k] = x
			rec(k + 1)
		}
	}
	rec(0)
}

// TestCountsRepeatedPredicates checks clauses where one predicate occurs
// in several literals (both signs, shared and constant arguments) and
// comparisons, on denser random worlds, accumulating in a dense array or
// in a map.
func TestCountsRepeatedPredicates(t *testing.T) {
	src := `
person = {A, B, C, D}
course = {X, Y}
P(person, person)
Q(person)
T(course, person)
!P(x, y) v !P(y, x)
!P(x, y) v P(y, x) v Q(x)
P(x, y) v P(y, z) v !P(x, z)
!P(x, x) v Q(x)
!T(c, p) v !T(c, q) v p = q v P(p, q)
!Q(x) v P(x, A) v !P(A, x)
EXIST y !Q(x) v P(x, y)
EXIST c,y !Q(x) v T(c, y) v x != A
`
	m, err := mln.ParseModel("rep.mln", src)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	checkModelCountsBrute(t, m, rand.New(rand.NewPCG(7, 8)), 30)
}

// checkModelCountsBrute compares Δ_c(a) of every clause of m at every ground
// atom, in trials random worlds, with flipping the atom and recounting by
// enumeration; odd trials accumulate counts in a map instead of densely.
// It returns the number of clauses counted (the others are not supported).
func checkModelCountsBrute(t *testing.T, m *mln.Model, r *rand.Rand, trials int) (counted int) {
	t.Helper()
	defer func(n int) { countDenseMax = n }(countDenseMax)
	for trial := 0; trial < trials; trial++ {
		countDenseMax = 1 << 22
		if trial%2 == 1 {
			countDenseMax = 0 // accumulate in a map
		}
		db, w := randomWorld(m, r, r.Float64())
		d, err := NewPLLData(m, []*mln.Database{db}, nil, CountOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, cl := range m.Clauses {
			cc, err := d.Counts(cl)
			if err != nil {
				if strings.Contains(err.Error(), "not supported") {
					continue
				}
				t.Fatal(err)
			}
			counted++
			base := bruteTrueGroundings(m, cl, w)
			allAtoms(m, func(p mln.PredID, args []mln.ConstID) {
				k := atomKey(p, args)
				w[k] = !w[k]
				want := base - bruteTrueGroundings(m, cl, w)
				w[k] = !w[k]
				if got := cc.Delta(d, 0, p, args); got != want {
					t.Fatalf("trial %d: clause %s, atom %s%v: Δ %d, brute force %d", trial, clauseString(m, cl), m.Preds[p].Name, args, got, want)
				}
			})
		}
	}
	return counted
}

// TestCountsInternalFunctions checks the counts of clauses with Alchemy's
// internal functions (t+1, succ) against brute force.
func TestCountsInternalFunctions(t *testing.T) {
	src := `
time = {0,...,4}
P(time)
Q(time, time)
P(t) => P(t+1)
P(t - 1) v Q(t, succ(succ(t)))
Q(t, u) => P(t*2 % 5)
P(t) ^ Q(t, t+2) => P(plus(t, 1))
t2 = t + 1 => (P(t) v !P(t2))
`
	m, err := mln.ParseModel("arith.mln", src)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	if n := checkModelCountsBrute(t, m, rand.New(rand.NewPCG(9, 10)), 20); n != 20*len(m.Clauses) {
		t.Fatalf("%d of %d clause counts supported", n, 20*len(m.Clauses))
	}
}

// TestCountsBound checks that MaxGroundings refuses a clause that needs
// more.
func TestCountsBound(t *testing.T) {
	m, err := mln.ParseModel("b.mln", "t = {A, B, C, D, E}\nP(t, t)\nP(x, y) v P(y, z) v P(z, w)\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	d, err := NewPLLData(m, []*mln.Database{mln.NewDatabase(m)}, nil, CountOptions{MaxGroundings: 50})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Counts(m.Clauses[0]); !errors.Is(err, ErrTooManyGroundings) {
		t.Fatalf("error %v, want ErrTooManyGroundings", err)
	}
}

// TestCountsWPLLMatchesGround checks that the WPLL and its gradient built
// from clause counts equal today's from ground clauses (NewWPLL on the
// network ground with the scored predicates as query), on random MLNs and
// random closed worlds, scoring every predicate or a random subset, and
// match finite differences.
func TestCountsWPLLMatchesGround(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 6))
	checked := 0
	for seed := int64(0); seed < 200; seed++ {
		c := randmln.Generate(seed)
		m, _, _, _, err := c.Load()
		if err != nil {
			t.Fatal(err)
		}
		db, _ := randomWorld(m, r, 0.2+0.6*r.Float64())
		var scored []mln.PredID
		if seed%2 == 1 {
			for p := range m.Preds {
				if r.IntN(2) == 0 {
					scored = append(scored, mln.PredID(p))
				}
			}
			if scored == nil {
				scored = []mln.PredID{0}
			}
		}
		opt := PLLOptions{Unweighted: r.IntN(3) == 0, Workers: 1 + r.IntN(2)}
		d, err := NewPLLData(m, []*mln.Database{db}, scored, CountOptions{PLLOptions: opt})
		if err != nil {
			t.Fatal(err)
		}
		ps, err := d.ModelRows(context.Background())
		if err != nil {
			if strings.Contains(err.Error(), "not supported") {
				continue
			}
			t.Fatalf("seed %d: %v", seed, err)
		}
		// Today's path.
		query := scored
		if query == nil {
			for p := range m.Preds {
				query = append(query, mln.PredID(p))
			}
		}
		isQ := make([]bool, len(m.Preds))
		for _, q := range query {
			isQ[q] = true
		}
		ev := mln.NewDatabase(m)
		for p := range m.Preds {
			if !isQ[p] {
				db.Atoms(mln.PredID(p), func(args []mln.ConstID, v mln.Truth) { ev.Set(mln.PredID(p), args, v) })
			}
		}
		net, err := ground.Ground(ctx, m, ev, ground.Options{Query: query, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		truth := net.Assignment(db)
		old, err := NewWPLL(net, truth, nil, opt)
		if err != nil {
			t.Fatal(err)
		}
		np := len(m.Weights)
		for trial := 0; trial < 3; trial++ {
			w := make([]float64, np)
			for i := range w {
				w[i] = 4*r.Float64() - 2
			}
			g0, g1 := make([]float64, np), make([]float64, np)
			v0 := old.Eval(w, g0)
			v1 := ps[0].Eval(w, g1)
			if math.Abs(v0-v1) > 1e-9 {
				t.Fatalf("seed %d: WPLL from counts %.12g, from ground clauses %.12g\n%s", seed, v1, v0, c)
			}
			for i := range g0 {
				if math.Abs(g0[i]-g1[i]) > 1e-9 {
					t.Fatalf("seed %d: gradient[%d] from counts %.12g, from ground clauses %.12g\n%s", seed, i, g1[i], g0[i], c)
				}
			}
			// Finite differences.
			for i := range w {
				const h = 1e-6
				w[i] += h
				up := ps[0].Eval(w, nil)
				w[i] -= 2 * h
				down := ps[0].Eval(w, nil)
				w[i] += h
				if fd := (up - down) / (2 * h); math.Abs(fd-g1[i]) > 1e-5*(1+math.Abs(fd)) {
					t.Fatalf("seed %d: gradient[%d] %.9g, finite difference %.9g", seed, i, g1[i], fd)
				}
			}
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("only %d cases", checked)
	}
}

// TestAtomSampling checks that sampling keeps the asked number of atoms
// per predicate, is deterministic, and that sampled rows are a subset.
func TestAtomSampling(t *testing.T) {
	ctx := context.Background()
	m, dbs, _, err := plant.Planted(ctx, 1, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	opt := CountOptions{FractAtoms: 0.5, MaxAtomSamples: 150, Seed: 3}
	d1, err := NewPLLData(m, dbs, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	d2, _ := NewPLLData(m, dbs, nil, opt)
	full, _ := NewPLLData(m, dbs, nil, CountOptions{})
	for q, pr := range m.Preds {
		want := int64(10)
		if len(pr.Args) == 2 {
			want = 150 // min(0.5·400, 150)
		}
		if got := d1.kept(0, mln.PredID(q)); got != want {
			t.Fatalf("%s: %d atoms kept, want %d", pr.Name, got, want)
		}
	}
	if !slices.Equal(d1.sampled[0], d2.sampled[0]) {
		t.Fatal("sampling is not deterministic")
	}
	for _, c := range m.Clauses {
		a, err := d1.Counts(c)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := full.Counts(c)
		col, fcol := a.cols[0], b.cols[0]
		for k, r := range col.idx {
			i, ok := slices.BinarySearch(fcol.idx, r)
			if !ok || fcol.val[i] != col.val[k] || d1.sampled[0][r>>6]&(1<<(r&63)) == 0 {
				t.Fatalf("sampled row %d not in the full counts or not sampled", r)
			}
		}
	}
}
