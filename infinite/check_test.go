package infinite

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// load parses a model and evidence from strings and compiles the model.
func load(t *testing.T, model, evidence string) (*mln.Model, *mln.Database) {
	t.Helper()
	m, err := mln.ParseModel("m.mln", model)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "e.db", evidence)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	return m, db
}

func queryIDs(t *testing.T, m *mln.Model, names ...string) []mln.PredID {
	t.Helper()
	var ids []mln.PredID
	for _, n := range names {
		p, ok := m.Pred(n)
		if !ok {
			t.Fatalf("no predicate %s", n)
		}
		ids = append(ids, p.ID)
	}
	return ids
}

func sumOf(t *testing.T, r *Report, pred string) float64 {
	t.Helper()
	p, _ := r.Model.Pred(pred)
	for _, ps := range r.Sums {
		if ps.Pred == p.ID {
			return ps.Sum
		}
	}
	t.Fatalf("no sum for %s", pred)
	return 0
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 || (math.IsInf(a, 1) && math.IsInf(b, 1)) }

// ring returns Friends evidence: each of n people is the friend of the
// next k (modulo n).
func ring(n, k int) string {
	var b strings.Builder
	for i := range n {
		for j := 1; j <= k; j++ {
			b.WriteString("Friends(P" + itoa(i) + ", P" + itoa((i+j)%n) + ")\n")
		}
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

const smokersHead = `
Friends(person, person)
Smokes(person)
Cancer(person)
`

// Each case is a model, its evidence and random predicates, with the
// verdicts and sums derived by hand in its comment.
func TestVerdicts(t *testing.T) {
	cases := []struct {
		name          string
		model, ev     string
		query         []string
		locallyFinite bool
		unique        bool
		sums          map[string]float64
		unbounded     int // sites with unboundedly many groundings
	}{
		{
			// Friends is evidence, a ring of out- and in-degree 1.
			// "0.4 Friends(x,y) => (Smokes(x) <=> Smokes(y))" compiles to
			// two clauses of weight 0.2: !F v !S(x) v S(y) and
			// !F v S(x) v !S(y). In each, the atom Smokes(a) occurs as
			// S(x) (y bounded by !Friends(a,y): 1 value) and as S(y) (x
			// bounded by !Friends(x,a): 1 value), each grounding with
			// one other random atom: 4 x 1 x 1 x 0.2 = 0.8. The unit
			// prior contributes nothing (|C|-1 = 0); Smokes => Cancer
			// adds 1 x 1 x 0.5. Smokes: 1.3 < 2, Cancer: 0.5. Locally
			// finite, unique.
			name: "smokers bounded",
			model: smokersHead + `-0.5 Smokes(x)
0.5 Smokes(x) => Cancer(x)
0.4 Friends(x, y) => (Smokes(x) <=> Smokes(y))
`,
			ev: ring(10, 1), query: []string{"Smokes", "Cancer"},
			locallyFinite: true, unique: true,
			sums: map[string]float64{"Smokes": 1.3, "Cancer": 0.5},
		},
		{
			// The same with a ring of degree 2 (each person befriends
			// the next two): y and x take 2 values each, so the Friends
			// formula gives 4 x 2 x 1 x 0.2 = 1.6, plus 0.5: Smokes 2.1
			// >= 2. Locally finite, uniqueness not shown.
			name: "smokers degree 2",
			model: smokersHead + `-0.5 Smokes(x)
0.5 Smokes(x) => Cancer(x)
0.4 Friends(x, y) => (Smokes(x) <=> Smokes(y))
`,
			ev: ring(10, 2), query: []string{"Smokes", "Cancer"},
			locallyFinite: true, unique: false,
			sums: map[string]float64{"Smokes": 2.1, "Cancer": 0.5},
		},
		{
			// The tutorial's weights on the degree-1 ring: clauses of
			// 0.55, so 4 x 0.55 = 2.2, plus 1.5 from Smokes => Cancer:
			// Smokes 3.7, Cancer 1.5. Locally finite, not shown.
			name: "smokers tutorial weights",
			model: smokersHead + `1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))
`,
			ev: ring(10, 1), query: []string{"Smokes", "Cancer"},
			locallyFinite: true, unique: false,
			sums: map[string]float64{"Smokes": 3.7, "Cancer": 1.5},
		},
		{
			// Friends random (no evidence): in both clauses of the
			// Friends formula, Smokes(a) as S(x) leaves y free over the
			// growing person domain, and as S(y) leaves x free: 4
			// unbounded sites. Friends(x,y) itself has no other
			// variable (bounded). Not locally finite.
			name: "smokers unbounded",
			model: smokersHead + `0.5 Smokes(x) => Cancer(x)
0.4 Friends(x, y) => (Smokes(x) <=> Smokes(y))
`,
			ev: "", query: []string{"Smokes", "Cancer", "Friends"},
			locallyFinite: false, unique: false, unbounded: 4,
			sums: map[string]float64{"Cancer": 0.5, "Friends": 0.8, "Smokes": math.Inf(1)},
		},
		{
			// The square-lattice Ising model: Spin(x,y) <=> Spin(x+1,y)
			// compiles to two clauses of weight w/2 in which the
			// integer function v = x+1 determines v from x and x from
			// v. Spin(a,b) occurs at both literals of both clauses of
			// both formulas: 8 sites, each 1 grounding x 1 other x w/2.
			// Sum 4w: 1.6 < 2 for w = 0.4 (unique).
			name: "ising weak",
			model: `Spin(row, col)
0.4 Spin(x, y) <=> Spin(x+1, y)
0.4 Spin(x, y) <=> Spin(x, y+1)
`,
			query: []string{"Spin"}, locallyFinite: true, unique: true,
			sums: map[string]float64{"Spin": 1.6},
		},
		{
			// The same with w = 3: 4w = 12 >= 2, not shown.
			name: "ising strong",
			model: `Spin(row, col)
3 Spin(x, y) <=> Spin(x+1, y)
3 Spin(x, y) <=> Spin(x, y+1)
`,
			query: []string{"Spin"}, locallyFinite: true, unique: false,
			sums: map[string]float64{"Spin": 12},
		},
		{
			// A hard non-unit clause: locally finite (y bounded by the
			// ring's Friends), but its weight is infinite: the sum is
			// +Inf, not shown.
			name: "hard influence",
			model: smokersHead + `Smokes(x) ^ Friends(x, y) => Smokes(y).
`,
			ev: ring(10, 1), query: []string{"Smokes"},
			locallyFinite: true, unique: false,
			sums: map[string]float64{"Smokes": math.Inf(1)},
		},
		{
			// "0.5 Smokes(x) v Knows(x,y)" with Knows evidence: the
			// grounding survives where Knows(a,y) is false, for all but
			// finitely many y, so Smokes(a) lies in unboundedly many
			// (unit) ground clauses, and no evidence can change that
			// (Knows occurs positively). Not locally finite.
			name: "unit groundings unbounded",
			model: `Knows(person, person)
Smokes(person)
0.5 Smokes(x) v Knows(x, y)
`,
			ev: "Knows(A, B)\n", query: []string{"Smokes"},
			locallyFinite: false, unbounded: 1,
			sums: map[string]float64{"Smokes": 0},
		},
		{
			// A listed (fixed) type: c2 ranges over the 3 classes, so
			// each site has 3 groundings (one of them the tautology
			// c2 = c, counted by the bound) x 1 other x 0.3 = 0.9, two
			// sites: Topic 1.8 < 2. page grows but occurs in both
			// literals. Locally finite, unique.
			name: "fixed domain",
			model: `class = {A, B, C}
Topic(page, class)
0.3 Topic(p, c) => Topic(p, c2)
`,
			query: []string{"Topic"}, locallyFinite: true, unique: true,
			sums: map[string]float64{"Topic": 1.8},
		},
		{
			// A "!" argument over a listed type: Compile adds the hard
			// "exactly one" constraint, EXIST c Has(p,c) (one ground
			// clause of 3 atoms: 2 others) and !Has(p,c) v !Has(p,c2)
			// v c = c2 (c2 over the 3 classes). Hard, non-unit: the
			// sum is infinite; locally finite (class is fixed, p is
			// the atom's). The soft formula: q bounded by the chain
			// Linked (1 per p, 1 per q): 0.3 + 0.3.
			name: "mutual exclusion",
			model: `class = {A, B, C}
Has(page, class!)
Linked(page, page)
0.3 Has(p, c) ^ Linked(p, q) => Has(q, c)
`,
			ev: "Linked(P1, P2)\nLinked(P2, P3)\n", query: []string{"Has"}, locallyFinite: true, unique: false,
			sums: map[string]float64{"Has": math.Inf(1)},
		},
		{
			// An existential variable over a growing domain: the
			// ground clause EXIST y Knows(x,y) has a Knows atom for
			// every person. Not locally finite at its one site.
			name: "existential",
			model: `Knows(person, person)
1 EXIST y Knows(x, y)
`,
			query: []string{"Knows"}, locallyFinite: false, unbounded: 1,
			sums: map[string]float64{"Knows": math.Inf(1)},
		},
		{
			// An equality bounds a variable: "Likes(x,y) ^ x = y =>
			// Happy(x)" is !Likes(x,y) v !(x = y) v Happy(x). At
			// Happy(a), y = a is the one value: 1 grounding x 1 other
			// (Likes(a,a)) x 0.7. At Likes(x,y), no other variable: 0.7.
			// Happy 0.7, Likes 0.7: locally finite, unique.
			name: "equality",
			model: `Likes(person, person)
Happy(person)
0.7 Likes(x, y) ^ x = y => Happy(x)
`,
			query: []string{"Likes", "Happy"}, locallyFinite: true, unique: true,
			sums: map[string]float64{"Happy": 0.7, "Likes": 0.7},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, db := load(t, tc.model, tc.ev)
			r := Analyze(m, db, Options{Query: queryIDs(t, m, tc.query...)})
			if r.LocallyFinite != tc.locallyFinite {
				t.Errorf("locally finite %v, want %v", r.LocallyFinite, tc.locallyFinite)
			}
			if r.Unique() != tc.unique {
				t.Errorf("unique %v, want %v (sup %v)", r.Unique(), tc.unique, r.Sup)
			}
			n := 0
			for i := range r.Sites {
				if !r.Sites[i].Bounded() {
					n++
					if r.Sites[i].Remedy == "" {
						t.Errorf("site %s: no remedy", r.Sites[i].Atom)
					}
				}
			}
			if n != tc.unbounded {
				t.Errorf("%d unbounded sites, want %d", n, tc.unbounded)
			}
			for p, want := range tc.sums {
				if got := sumOf(t, r, p); !near(got, want) {
					t.Errorf("sum of %s = %v, want %v", p, got, want)
				}
			}
			var out strings.Builder
			r.Write(&out)
			if !strings.Contains(out.String(), "m.mln:") {
				t.Errorf("report names no position:\n%s", out.String())
			}
		})
	}
}

// The remedy of the unbounded smokers names Friends as the evidence that
// would bound them; that of the unit clause says no evidence can.
func TestRemedy(t *testing.T) {
	m, db := load(t, smokersHead+"0.4 Friends(x, y) => (Smokes(x) <=> Smokes(y))\n", "")
	r := Analyze(m, db, Options{Query: queryIDs(t, m, "Smokes", "Friends")})
	for _, s := range r.Sites {
		if !s.Bounded() && !strings.Contains(s.Remedy, "bounded when Friends is evidence") {
			t.Errorf("remedy %q", s.Remedy)
		}
	}
	m, db = load(t, "Knows(person, person)\nSmokes(person)\n0.5 Smokes(x) v Knows(x, y)\n", "Knows(A, B)\n")
	r = Analyze(m, db, Options{Query: queryIDs(t, m, "Smokes")})
	if s := r.Sites[0]; !strings.HasPrefix(s.Remedy, "no evidence can bound y") {
		t.Errorf("remedy %q", s.Remedy)
	}
}

// The uniqueness sum on a ground network, against the hand count: on the
// degree-1 ring every Smokes atom lies in 4 two-atom Friends clauses of
// 0.2 and one two-atom Smokes => Cancer clause of 0.5: 1.3. It never
// exceeds the first-order bound.
func TestInstanceSum(t *testing.T) {
	m, db := load(t, smokersHead+`-0.5 Smokes(x)
0.5 Smokes(x) => Cancer(x)
0.4 Friends(x, y) => (Smokes(x) <=> Smokes(y))
`, ring(10, 1))
	q := queryIDs(t, m, "Smokes", "Cancer")
	net, err := ground.Ground(t.Context(), m, db, ground.Options{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	r := Analyze(m, db, Options{Query: q})
	r.Evaluate(net)
	if !near(r.Instance.Value, 1.3) || !strings.HasPrefix(r.Instance.Atom, "Smokes(") {
		t.Errorf("instance %+v, want 1.3 at a Smokes atom", r.Instance)
	}
	if r.Instance.Value > r.Sup+1e-9 {
		t.Errorf("instance %v above the bound %v", r.Instance.Value, r.Sup)
	}
}

// randomModel writes a random model over person: P, Q, S random, R and E
// evidence; clauses of two or three literals over x, y, z, some hard.
func randomModel(rng *rand.Rand) string {
	preds := []struct {
		name  string
		arity int
	}{{"P", 1}, {"Q", 1}, {"S", 2}, {"R", 2}, {"E", 1}}
	vars := []string{"x", "y", "z"}
	var b strings.Builder
	b.WriteString("P(person)\nQ(person)\nS(person, person)\nR(person, person)\nE(person)\n")
	for range 1 + rng.IntN(3) {
		n := 2 + rng.IntN(2)
		var lits []string
		for range n {
			p := preds[rng.IntN(len(preds))]
			args := make([]string, p.arity)
			for j := range args {
				args[j] = vars[rng.IntN(len(vars))]
			}
			sign := ""
			if rng.IntN(2) == 0 {
				sign = "!"
			}
			lits = append(lits, sign+p.name+"("+strings.Join(args, ", ")+")")
		}
		if rng.IntN(8) == 0 {
			b.WriteString(strings.Join(lits, " v ") + ".\n")
		} else {
			w := strconv.FormatFloat(float64(rng.IntN(21)-10)/10, 'f', 1, 64)
			b.WriteString(w + " " + strings.Join(lits, " v ") + "\n")
		}
	}
	return b.String()
}

// On random models and evidence, the first-order bound of a locally finite
// model is never below the uniqueness sum of any atom of its ground
// network, counted there clause by clause.
func TestBoundAboveInstanceRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for iter := range 300 {
		model := randomModel(rng)
		var ev strings.Builder
		for i := range 5 {
			ev.WriteString("E(A" + itoa(i) + ")\n")
			for j := range 5 {
				if rng.IntN(3) == 0 {
					ev.WriteString("R(A" + itoa(i) + ", A" + itoa(j) + ")\n")
				}
			}
		}
		m, db := load(t, model, ev.String())
		q := queryIDs(t, m, "P", "Q", "S")
		r := Analyze(m, db, Options{Query: q})
		if !r.LocallyFinite {
			continue
		}
		net, err := ground.Ground(t.Context(), m, db, ground.Options{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		in := InstanceSum(net)
		if in.Value > r.Sup*(1+1e-9)+1e-9 {
			t.Errorf("model %d: ground sum %v at %s above the bound %v\n%s\nevidence:\n%s", iter, in.Value, in.Atom, r.Sup, model, ev.String())
		}
		checked++
	}
	if checked < 30 {
		t.Errorf("only %d locally finite random models checked", checked)
	}
	t.Logf("%d locally finite random models checked", checked)
}

// The local-finiteness verdict against the ground networks: for random
// models judged locally finite, with R a ring of degree 1 on 6 and on 12
// people, the most ground clauses any atom lies in is the same at both
// sizes, and at most the analysis's count (the sum of its sites'
// groundings).
func TestLocallyFiniteGroundCountsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for iter := range 300 {
		model := randomModel(rng)
		var most [2]int
		skip := false
		for k, n := range []int{6, 12} {
			var ev strings.Builder
			for i := range n {
				ev.WriteString("E(A" + itoa(i) + ")\nR(A" + itoa(i) + ", A" + itoa((i+1)%n) + ")\n")
			}
			m, db := load(t, model, ev.String())
			q := queryIDs(t, m, "P", "Q", "S")
			r := Analyze(m, db, Options{Query: q})
			if !r.LocallyFinite {
				skip = true
				break
			}
			per := make(map[mln.PredID]float64)
			for _, s := range r.Sites {
				per[s.Pred] += s.Groundings
			}
			net, err := ground.Ground(t.Context(), m, db, ground.Options{Query: q})
			if err != nil {
				t.Fatal(err)
			}
			for a := range net.NumAtoms() {
				c := len(net.Occurrences(int32(a)))
				most[k] = max(most[k], c)
				if float64(c) > per[net.AtomPred[a]] {
					t.Errorf("model %d, %d people: %s lies in %d ground clauses, above the analysis's %v\n%s",
						iter, n, net.AtomName(int32(a)), c, per[net.AtomPred[a]], model)
				}
			}
		}
		if skip {
			continue
		}
		if most[0] != most[1] {
			t.Errorf("model %d: at most %d ground clauses per atom with 6 people, %d with 12\n%s", iter, most[0], most[1], model)
		}
		checked++
	}
	if checked < 30 {
		t.Errorf("only %d locally finite random models checked", checked)
	}
	t.Logf("%d locally finite random models checked", checked)
}
