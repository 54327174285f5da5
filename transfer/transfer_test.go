package transfer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/plantdb"
	"github.com/marple-mln/marple/mln"
)

// bruteClassKey identifies a literal sequence's class by brute force:
// the least encoding over every relabelling of predicate variables (0..2),
// object variables (0..nVars-1) and every order of the literals, labels
// applied as given (no first-appearance renaming).
func bruteClassKey(lits []Literal, nVars int) string {
	var best []byte
	buf := make([]byte, 0, 16)
	order := make([]Literal, len(lits))
	permutations(3, func(pp []int) {
		permutations(nVars, func(vp []int) {
			permutations(len(lits), func(lp []int) {
				for i, j := range lp {
					order[i] = lits[j]
				}
				buf = buf[:0]
				for _, l := range order {
					buf = append(buf, byte(pp[l.Pred]), byte(len(l.Args)))
					for _, v := range l.Args {
						buf = append(buf, byte(vp[v]))
					}
				}
				if best == nil || string(buf) < string(best) {
					best = append(best[:0], buf...)
				}
			})
		})
	})
	return string(best)
}

func TestEnumerateUniqueUpToRenaming(t *testing.T) {
	for _, o := range []EnumOptions{
		{MaxLiterals: 3, MaxVars: 3, Arities: []int{2}},
		{MaxLiterals: 3, MaxVars: 3, Arities: []int{1, 2}},
		{MinLiterals: 2, MaxLiterals: 2, MaxVars: 4, Arities: []int{1, 2}},
	} {
		got := Enumerate(o)
		o = o.withDefaults()
		// Brute force: every sequence of literals over labels 0..2 and
		// 0..MaxVars-1, grouped into classes by bruteClassKey.
		classes := map[string]bool{}
		for n := o.MinLiterals; n <= o.MaxLiterals; n++ {
			var lits []Literal
			var rec func()
			rec = func() {
				if len(lits) == n {
					if validLits(lits) {
						classes[bruteClassKey(lits, o.MaxVars)] = true
					}
					return
				}
				for p := 0; p < 3; p++ {
					for _, a := range o.Arities {
						args := make([]int, a)
						var ar func(i int)
						ar = func(i int) {
							if i == a {
								lits = append(lits, Literal{Pred: p, Args: append([]int(nil), args...)})
								rec()
								lits = lits[:len(lits)-1]
								return
							}
							for v := 0; v < o.MaxVars; v++ {
								args[i] = v
								ar(i + 1)
							}
						}
						ar(0)
					}
				}
			}
			rec()
		}
		seen := map[string]string{}
		for _, tm := range got {
			k := bruteClassKey(tm.Lits, o.MaxVars)
			if prev, ok := seen[k]; ok {
				t.Errorf("%+v: %s and %s are the same template", o, prev, tm)
			}
			seen[k] = tm.String()
			if !classes[k] {
				t.Errorf("%+v: %s is not a valid template", o, tm)
			}
		}
		if len(seen) != len(classes) {
			t.Errorf("%+v: enumerated %d templates, brute force finds %d classes", o, len(seen), len(classes))
		}
		t.Logf("%+v: %d templates", o, len(got))
	}
}

func TestParseTemplateRoundTrip(t *testing.T) {
	for _, tm := range Enumerate(EnumOptions{}) {
		p, err := ParseTemplate(tm.String())
		if err != nil {
			t.Fatal(err)
		}
		if p.Key() != tm.Key() || p.String() != tm.String() {
			t.Errorf("%s read back as %s", tm, p)
		}
	}
	a, _ := ParseTemplate("Location(x,y), Location(z,y), Interacts(x,z)")
	b, _ := ParseTemplate("r(z,y), s(z,x), r(x,y)")
	if a.Key() != b.Key() {
		t.Errorf("%s and %s should be one template", a, b)
	}
	for _, bad := range []string{"", "r(x,y), r(x,y)", "r(x,x)", "r(x,y), s(z,w)", "r(x,y), r(x)", "r(x,"} {
		if _, err := ParseTemplate(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// tinySource builds a source from declarations and atoms.
func tinySource(t testing.TB, decl, atoms string, o SourceOptions) *Source {
	t.Helper()
	m, err := mln.ParseModel("tiny.mln", decl)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "tiny.db", atoms)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSource(m, db, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *Source) pred(name string) *SourcePred {
	for _, p := range s.Preds {
		if p.Pred.Name == name {
			return p
		}
	}
	return nil
}

// TestKLByHand checks counts, decomposition KL and clique scores against
// hand computations.
func TestKLByHand(t *testing.T) {
	// Three people; Friends true for (A,B), (B,A), (A,C); closed world.
	s := tinySource(t, "Friends(p,p)\nSmokes(p)\n", "Friends(A,B)\nFriends(B,A)\nFriends(A,C)\nSmokes(A)\nSmokes(B)\n", SourceOptions{})
	sym, _ := ParseTemplate("r(x,y), r(y,x)")
	fr := s.pred("Friends")
	counts, err := s.Count(sym, []*SourcePred{fr})
	if err != nil {
		t.Fatal(err)
	}
	// Groundings (x,y), x≠y: 6 ordered pairs. Both true: (A,B), (B,A).
	// Only F(x,y): (A,C). Only F(y,x): (C,A). Neither: (B,C), (C,B).
	want := []int64{2, 1, 1, 2}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Fatalf("counts %v, want %v", counts, want)
	}
	// KL to the product of marginals (each literal true in 3 of 6):
	// p = (2,1,1,2)/6, q = 1/4 each: KL = 2·(1/3)ln(4/3) + 2·(1/6)ln(2/3).
	p := Distribution(counts, 0)
	kl := DecompositionKL(p, 2, []int{0, 1}, 2)
	hand := 2*(1.0/3)*math.Log(4.0/3) + 2*(1.0/6)*math.Log(2.0/3)
	if math.Abs(kl-hand) > 1e-12 {
		t.Errorf("KL %v, by hand %v", kl, hand)
	}
	if sc, _ := CliqueScore(p, 2); math.Abs(sc-hand) > 1e-12 {
		t.Errorf("score %v, by hand %v", sc, hand)
	}
	// With a pseudo-count of 1: p = (3,2,2,3)/10, marginals 1/2.
	ps := Distribution(counts, 1)
	hand1 := 2*0.3*math.Log(0.3/0.25) + 2*0.2*math.Log(0.2/0.25)
	if sc, _ := CliqueScore(ps, 2); math.Abs(sc-hand1) > 1e-12 {
		t.Errorf("smoothed score %v, by hand %v", sc, hand1)
	}

	// Three literals: Smokes(x), Friends(x,y), Smokes(y).
	tm, _ := ParseTemplate("r(x), s(x,y), r(y)")
	sm := s.pred("Smokes")
	binding := make([]*SourcePred, 2)
	binding[tm.Lits[0].Pred] = sm
	for _, l := range tm.Lits {
		if len(l.Args) == 2 {
			binding[l.Pred] = fr
		}
	}
	counts, err = s.Count(tm, binding)
	if err != nil {
		t.Fatal(err)
	}
	// Enumerate by hand, in the template's literal order.
	S := map[string]bool{"A": true, "B": true}
	F := map[string]bool{"AB": true, "BA": true, "AC": true}
	hc := make([]int64, 8)
	for _, x := range []string{"A", "B", "C"} {
		for _, y := range []string{"A", "B", "C"} {
			if x == y {
				continue
			}
			val := map[string]bool{}
			a := 0
			for i, l := range tm.Lits {
				var v bool
				switch {
				case len(l.Args) == 2 && l.Args[0] == 0:
					v = F[x+y]
				case len(l.Args) == 2:
					v = F[y+x]
				case l.Args[0] == 0:
					v = S[x]
				default:
					v = S[y]
				}
				val[fmt.Sprint(i)] = v
				if v {
					a |= 1 << uint(i)
				}
			}
			hc[a]++
		}
	}
	if fmt.Sprint(counts) != fmt.Sprint(hc) {
		t.Fatalf("%s: counts %v, by hand %v", tm, counts, hc)
	}
	// Each decomposition's KL from its definition, and the score as the
	// least of them.
	p = Distribution(counts, 0)
	best := math.Inf(1)
	for _, blocks := range [][]int{{0, 0, 1}, {0, 1, 0}, {0, 1, 1}, {0, 1, 2}} {
		nb := 0
		for _, b := range blocks {
			nb = max(nb, b+1)
		}
		handKL := 0.0
		for a := 0; a < 8; a++ {
			if p[a] == 0 {
				continue
			}
			q := 1.0
			for b := 0; b < nb; b++ {
				m := 0.0
				for a2 := 0; a2 < 8; a2++ {
					same := true
					for i := 0; i < 3; i++ {
						if blocks[i] == b && (a>>uint(i))&1 != (a2>>uint(i))&1 {
							same = false
						}
					}
					if same {
						m += p[a2]
					}
				}
				q *= m
			}
			handKL += p[a] * math.Log(p[a]/q)
		}
		kl := DecompositionKL(p, 3, blocks, nb)
		if math.Abs(kl-handKL) > 1e-12 {
			t.Errorf("decomposition %v: KL %v, by hand %v", blocks, kl, handKL)
		}
		best = math.Min(best, handKL)
	}
	if sc, _ := CliqueScore(p, 3); math.Abs(sc-best) > 1e-12 {
		t.Errorf("score %v, least decomposition KL %v", sc, best)
	}
}

// bruteCount counts a clique's groundings one by one.
func bruteCount(s *Source, tm *Template, preds []*SourcePred) []int64 {
	types, sizes, _ := varTypes(tm, preds)
	counts := make([]int64, 1<<uint(len(tm.Lits)))
	bind := make([]int, tm.NumVars)
	var rec func(v int)
	rec = func(v int) {
		if v == tm.NumVars {
			a := 0
			for i, l := range tm.Lits {
				p := preds[l.Pred]
				var val int
				if len(l.Args) == 1 {
					val = p.value(bind[l.Args[0]], 0)
				} else {
					val = p.value(bind[l.Args[0]], bind[l.Args[1]])
				}
				if val < 0 {
					return
				}
				if val == 1 {
					a |= 1 << uint(i)
				}
			}
			counts[a]++
			return
		}
	next:
		for c := 0; c < sizes[v]; c++ {
			for u := 0; u < v; u++ {
				if types[u] == types[v] && bind[u] == c {
					continue next
				}
			}
			bind[v] = c
			rec(v + 1)
		}
	}
	rec(0)
	return counts
}

// randomSource draws a small two-type domain with unknown atoms.
func randomSource(t testing.TB, seed uint64, open bool) *Source {
	rng := rand.New(rand.NewPCG(seed, 1))
	decl := "P(a,a)\nQ(a,b)\nR(a,a)\nU(a)\nV(b)\nW(a)\n"
	preds := map[string][]string{"P": {"a", "a"}, "Q": {"a", "b"}, "R": {"a", "a"}, "U": {"a"}, "V": {"b"}, "W": {"a"}}
	consts := map[string][]string{"a": {"A0", "A1", "A2", "A3", "A4", "A5", "A6"}, "b": {"B0", "B1", "B2", "B3", "B4"}}
	var db strings.Builder
	names := make([]string, 0, len(preds))
	for p := range preds {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		var rec func(args []string)
		rec = func(args []string) {
			if len(args) == len(preds[p]) {
				atom := p + "(" + strings.Join(args, ",") + ")"
				switch r := rng.Float64(); {
				case r < 0.3:
					db.WriteString(atom + "\n")
				case r < 0.45:
					db.WriteString("?" + atom + "\n")
				case open:
					db.WriteString("!" + atom + "\n")
				}
				return
			}
			for _, c := range consts[preds[p][len(args)]] {
				rec(append(args, c))
			}
		}
		rec(nil)
	}
	return tinySource(t, decl, db.String(), SourceOptions{})
}

// TestCountAgainstBruteForce compares the word-parallel count (exact,
// and sampled with a bound above the outer bindings) with a count of the
// groundings one by one, for every clique of every template.
func TestCountAgainstBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		for _, open := range []bool{false, true} {
			s := randomSource(t, seed, open)
			n := 0
			for _, tm := range Enumerate(EnumOptions{MaxVars: 3}) {
				for _, cl := range s.Cliques(tm) {
					preds := make([]*SourcePred, len(cl))
					for i, x := range cl {
						preds[i] = s.Preds[x]
					}
					got, err := s.Count(tm, preds)
					if err != nil {
						t.Fatal(err)
					}
					want := bruteCount(s, tm, preds)
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("seed %d open %v %s %v: counts %v, brute force %v", seed, open, tm, cl, got, want)
					}
					big, sampled, _ := s.CountSampled(tm, preds, 1000, rand.New(rand.NewPCG(1, 2)))
					if sampled || fmt.Sprint(big) != fmt.Sprint(want) {
						t.Fatalf("%s: a bound above the bindings must count exactly", tm)
					}
					n++
				}
			}
			if n < 100 {
				t.Fatalf("only %d cliques checked", n)
			}
		}
	}
}

// TestCliquesDistinct checks that symmetric templates list each clique
// once and asymmetric ones every binding.
func TestCliquesDistinct(t *testing.T) {
	s := tinySource(t, "A(p,p)\nB(p,p)\nC(p,p)\n", "A(X,Y)\nB(X,Y)\nC(X,Y)\n", SourceOptions{})
	for _, c := range []struct {
		tmpl string
		n    int
	}{
		{"r(x,y), s(x,y)", 3},         // r, s interchangeable: 3·2/2
		{"r(x,y), s(y,x)", 3},         // likewise
		{"r(x,y), s(y,z)", 6},         // ordered
		{"r(x,y), s(y,z), t(z,x)", 2}, // cyclic: 3!/3
		{"r(x,y), s(x,y), t(x,y)", 1},
		{"r(x,y), r(y,x)", 3},
	} {
		tm, err := ParseTemplate(c.tmpl)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(s.Cliques(tm)); got != c.n {
			t.Errorf("%s: %d cliques, want %d", c.tmpl, got, c.n)
		}
	}
}

// TestPlantedTemplatesRankFirst: on data with a planted symmetric
// relation and a transitive chain over three relations, symmetry is the
// best two-literal template and transitivity the best three-literal one.
func TestPlantedTemplatesRankFirst(t *testing.T) {
	// One clique carries each regularity, so a template scores its best
	// clique (K = 1).
	decl, atoms := plantdb.Generate(plantdb.Config{N: 30, Density: 0.1, Noise: 0.01, Noise2: 3, Seed: 7})
	s := tinySource(t, decl, atoms, SourceOptions{})
	for _, workers := range []int{1, 2} {
		res, err := Discover(context.Background(), s, Options{K: 1, Workers: workers, Enum: EnumOptions{Arities: []int{2}}})
		if err != nil {
			t.Fatal(err)
		}
		sym, _ := ParseTemplate("r(x,y), r(y,x)")
		trans, _ := ParseTemplate("r(x,y), s(y,z), t(x,z)")
		best := map[int]Scored{}
		for _, sc := range res.Templates {
			if _, ok := best[len(sc.Template.Lits)]; !ok {
				best[len(sc.Template.Lits)] = sc
			}
		}
		if got := best[2]; got.Template.Key() != sym.Key() || got.Top[0].Format(got.Template) != "Sym(x,y), Sym(y,x)" {
			t.Errorf("best two-literal template %s (%s), want %s", got.Template, got.Top[0].Format(got.Template), sym)
		}
		got := best[3]
		if got.Template.Key() != trans.Key() {
			t.Errorf("best three-literal template %s, want %s", got.Template, trans)
		}
		names := got.Top[0].Format(got.Template)
		for _, p := range []string{"Left", "Right", "Comp"} {
			if !strings.Contains(names, p) {
				t.Errorf("best transitive clique %s lacks %s", names, p)
			}
		}
		if workers == 1 {
			for i, sc := range res.Templates[:5] {
				t.Logf("%d. %.4f %s  %s", i+1, sc.Score, sc.Template, sc.Top[0].Format(sc.Template))
			}
		}
	}
}

func TestWriteReadTemplates(t *testing.T) {
	decl, atoms := plantdb.Generate(plantdb.Config{N: 12, Density: 0.1, Noise2: 1, Seed: 1})
	s := tinySource(t, decl, atoms, SourceOptions{})
	res, err := Discover(context.Background(), s, Options{Enum: EnumOptions{MaxLiterals: 2}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Write(&b, res, []string{"test"}); err != nil {
		t.Fatal(err)
	}
	ranked, err := ReadTemplates(strings.NewReader(b.String()), "t.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(ranked) != len(res.Templates) {
		t.Fatalf("read %d templates, wrote %d", len(ranked), len(res.Templates))
	}
	for i, r := range ranked {
		if r.Template.Key() != res.Templates[i].Template.Key() {
			t.Errorf("template %d: read %s, wrote %s", i, r.Template, res.Templates[i].Template)
		}
	}
	if _, err := ReadTemplates(strings.NewReader("template 1 x 3 r(x,y), r(y,x)\n"), "bad.txt"); err == nil || !strings.Contains(err.Error(), "bad.txt:1:1") {
		t.Errorf("bad score: error %v", err)
	}
}

func TestInstantiate(t *testing.T) {
	m, err := mln.ParseModel("t.mln", "Advises(person, person)\nTeaches(person, course)\nTA(person, course)\nStudent(person)\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tmpl string
		n    int
	}{
		{"r(x,y), r(y,x)", 1},         // only Advises is person×person
		{"r(x,y), s(x,y)", 1},         // Teaches, TA (one instance, r and s interchangeable)
		{"r(x,y), s(z,y)", 1},         // Teaches, TA (the only distinct pair sharing a second type)
		{"r(x), s(x,y)", 3},           // Student with each binary whose first argument is a person
		{"r(x,y), s(y,z), t(x,z)", 2}, // Advises, then Teaches/TA in either role
	} {
		tm, err := ParseTemplate(c.tmpl)
		if err != nil {
			t.Fatal(err)
		}
		insts := Instantiate(tm, m, nil)
		for _, in := range insts {
			if len(in.Clauses) != 1<<uint(len(tm.Lits)) {
				t.Errorf("%s: %d clauses, want %d", c.tmpl, len(in.Clauses), 1<<uint(len(tm.Lits)))
			}
		}
		if len(insts) != c.n {
			var names []string
			for _, in := range insts {
				names = append(names, m.ClauseString(in.Clauses[0]))
			}
			t.Errorf("%s: %d instances %v, want %d", c.tmpl, len(insts), names, c.n)
		}
	}
}

func TestDeclareFromData(t *testing.T) {
	srcs := map[string][]byte{"a.db": []byte("Movie(M1,P1)\nMovie(M2,P2)\nDirector(P1)\nActor(P2)\nGenre(P1,Drama)\n")}
	m, err := DeclareFromData(srcs, []string{"a.db"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range m.Preds {
		var ts []string
		for _, a := range p.Args {
			ts = append(ts, m.Types[a].Name)
		}
		got = append(got, p.Name+"("+strings.Join(ts, ",")+")")
	}
	want := "[Movie(t0,t1) Director(t1) Actor(t1) Genre(t1,t2)]"
	if fmt.Sprint(got) != want {
		t.Errorf("declared %v, want %s", got, want)
	}
	if _, err := DeclareFromData(map[string][]byte{"b.db": []byte("P(A)\nP(A,B)\n")}, []string{"b.db"}); err == nil {
		t.Error("two arities: no error")
	}
}
