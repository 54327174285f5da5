package query

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// TestSGIHashtableOrder checks the replayed bucket structure against the
// iteration order of libstdc++'s __gnu_cxx::hash_set<unsigned long long>
// (g++ 12, backward/hashtable.h) with the identity hash, as Alchemy's
// database indexes its true atoms: testdata/sgi-hashset.txt is the output
// of a C++ program that inserts 7, 200, 393, 5, 586, 12, 0, 193, then, in a
// second table, (i·7919) mod 1000 for i < 400 (two rehashes, to 389 and
// 769 buckets), and prints each table in iteration order, then the second
// one's bucket count.
func TestSGIHashtableOrder(t *testing.T) {
	b, err := os.ReadFile("testdata/sgi-hashset.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	run := func(keys []uint64) string {
		h := newSGIHashtable()
		for i, k := range keys {
			h.insert(k, i)
		}
		var s strings.Builder
		for _, i := range h.order() {
			fmt.Fprintf(&s, "%d,", keys[i])
		}
		return s.String()
	}
	if got := run([]uint64{7, 200, 393, 5, 586, 12, 0, 193}); got != lines[0] {
		t.Errorf("got %s, libstdc++ %s", got, lines[0])
	}
	var keys []uint64
	seen := map[uint64]bool{}
	for i := uint64(0); i < 400; i++ {
		if k := i * 7919 % 1000; !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	if got := run(keys); got != lines[1] {
		t.Errorf("got %s\nlibstdc++ %s", got, lines[1])
	}
	h := newSGIHashtable()
	for i, k := range keys {
		h.insert(k, i)
	}
	if got := fmt.Sprint(len(h.buckets)); got != lines[2] {
		t.Errorf("%s buckets, libstdc++ %s", got, lines[2])
	}
}

// TestAlchemyHash checks Alchemy's Hash::hash (a 32-bit int sign-extended
// to size_t) on the clauses of examples/smokers' factor graph: the bucket
// of each among 193 decides the order of its groundings' factors.
func TestAlchemyHash(t *testing.T) {
	for _, c := range []struct {
		rep    []int32
		bucket uint64
	}{
		{[]int32{1, 3, -1}, 157},           // Cancer(x)
		{[]int32{0, 2, -1, 1, 3, -1}, 180}, // !Smokes(x) v Cancer(x): after the unit clause
		{[]int32{1, 2, -1, 0, 2, -2}, 69},  // Smokes(x) v !Smokes(y)
		{[]int32{1, 2, -1}, 126},           // Smokes(x): after it
	} {
		if got := alchemyHash(c.rep) % 193; got != c.bucket {
			t.Errorf("%v: bucket %d, want %d", c.rep, got, c.bucket)
		}
	}
	// 31·(31 + 2^30) wraps in 32 bits to 961 - 2^30, sign-extended.
	if got := alchemyHash([]int32{1 << 30, 0}); got != 1<<64-1<<30+961 {
		t.Errorf("overflow: %d", got)
	}
}

func loadAlchemy(t *testing.T, model, evidence string) (*mln.Model, *mln.Database) {
	t.Helper()
	m, err := mln.ParseModel("m.mln", model)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "e.db", evidence)
	if err != nil {
		t.Fatal(err)
	}
	return m, db
}

// alchemyClauseString writes a canonical clause as Alchemy prints it
// (Clause::print: the equality literals last).
func alchemyClauseString(m *mln.Model, c alchemyClause) string {
	var s, eq []string
	term := func(x int) string {
		if x < 0 {
			return fmt.Sprint(x)
		}
		return m.ConstName(mln.ConstID(x))
	}
	for _, l := range c.lits {
		var ts []string
		for _, x := range l.terms {
			ts = append(ts, term(x))
		}
		if l.mpred < 0 {
			e := ts[0] + " = " + ts[1]
			if !l.sense {
				e = "!(" + e + ")"
			}
			eq = append(eq, e)
			continue
		}
		x := m.Preds[l.mpred].Name + "(" + strings.Join(ts, ",") + ")"
		if !l.sense {
			x = "!" + x
		}
		s = append(s, x)
	}
	return strings.Join(append(s, eq...), " v ")
}

const multiModel = `Teaches(prof, course)
Takes(stud, course)
Likes(stud, prof)
Hard(course)
Good(prof)
1.2 Teaches(p, c) ^ Takes(s, c) => Likes(s, p)
0.8 Hard(c) ^ Takes(s, c) => !Likes(s, p) v Teaches(p, c)
0.5 Good(p) <=> EXIST c Teaches(p, c)
-0.7 Likes(s, p) ^ Likes(s, q) ^ p != q
1.5 Takes(s, Logic) => Hard(Logic)
0.9 Likes(s, p) v Likes(s, q) v Good(p)
0.3 Good(p) ^ Teaches(p, c) => Hard(c)
`

const multiEvidence = `Takes(Sue, Logic)
Teaches(Bob, Algebra)
Takes(Tom, Algebra)
Teaches(Ann, Logic)
Takes(Uma, Logic)
Hard(Algebra)
Takes(Sue, Algebra)
Teaches(Cid, Art)
Takes(Vic, Art)
Takes(Tom, Art)
Teaches(Bob, Art)
Takes(Wes, Music)
`

// TestAlchemyClauses checks the clauses, in Alchemy's canonical form and
// order, against those Alchemy 2.0's infer prints ("Came to process the
// clause") for the model of cmd/marple/testdata/alchemy/multi.mln.
func TestAlchemyClauses(t *testing.T) {
	m, db := loadAlchemy(t, multiModel, multiEvidence)
	query := []mln.PredID{}
	for _, n := range []string{"Likes", "Good", "Hard"} {
		p, _ := m.Pred(n)
		query = append(query, p.ID)
	}
	g := &alchemyGrounder{m: m, db: db, closed: AlchemyClosedWorld(db, query, nil, nil)}
	g.predIDs()
	g.constIDs()
	cl, err := g.mlnClauses()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cl {
		got = append(got, alchemyClauseString(m, c))
	}
	want := []string{
		"!Teaches(-1,-2) v !Takes(-3,-2) v Likes(-3,-1)",
		"Teaches(-1,-2) v !Takes(-3,-2) v !Likes(-3,-1) v !Hard(-2)",
		"!Teaches(-1,-2) v Good(-1)",
		"Teaches(-1,Logic) v Teaches(-1,Algebra) v Teaches(-1,Art) v Teaches(-1,Music) v !Good(-1)",
		"!Likes(-3,-1) v !Likes(-3,-2) v -1 = -2",
		"!Takes(-1,Logic) v Hard(Logic)",
		"Likes(-1,-2) v Likes(-1,-3) v Good(-2)",
		"!Teaches(-1,-2) v Hard(-2) v !Good(-1)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("clauses\n%s\nAlchemy's\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Alchemy numbers the constants type by type (prof, course, stud).
	names := func(ids []int) string {
		byID := make([]string, len(ids))
		for c, id := range ids {
			byID[id] = m.ConstName(mln.ConstID(c))
		}
		return strings.Join(byID, " ")
	}
	if got, want := names(AlchemyConstIDs(m)), "Bob Ann Cid Logic Algebra Art Music Sue Tom Uma Vic Wes"; got != want {
		t.Errorf("constants %s, Alchemy's %s", got, want)
	}
}

// TestAlchemyFactorGraphSmokers checks the factors of examples/smokers
// against Alchemy 2.0's infer -outputNetwork (each factor's atoms as
// their constants' numbers, in Alchemy's order).
func TestAlchemyFactorGraphSmokers(t *testing.T) {
	m, db := loadAlchemy(t, `Friends(person, person)
Smokes(person)
Cancer(person)
1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))
`, `Friends(Ivan, John)
Friends(John, Ivan)
Friends(Katherine, Lars)
Friends(Lars, Katherine)
Friends(Michael, Nick)
Friends(Nick, Michael)
Friends(Ivan, Michael)
Friends(Michael, Ivan)
Smokes(Ivan)
Smokes(Nick)
`)
	var query []mln.PredID
	for _, n := range []string{"Smokes", "Cancer"} {
		p, _ := m.Pred(n)
		query = append(query, p.ID)
	}
	fs, err := AlchemyFactorGraph(m, db, AlchemyClosedWorld(db, query, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	cid := AlchemyConstIDs(m)
	var got []string
	for _, f := range fs {
		var parts []string
		for i := range f.Preds {
			var b strings.Builder
			for _, c := range f.Args[i] {
				fmt.Fprintf(&b, "%d ", cid[c])
			}
			parts = append(parts, b.String())
		}
		got = append(got, strings.Join(parts, "/ ")+fmt.Sprintf("x%d", f.Count))
	}
	want := []string{"0 x1", "5 x1", "1 / 1 x1", "2 / 2 x1", "3 / 3 x1", "4 / 4 x1",
		"2 / 3 x1", "3 / 2 x1", "1 x1", "4 x2", "3 / 2 x1", "2 / 3 x1", "1 x1", "4 x2"}
	if !slices.Equal(got, want) {
		t.Errorf("factors %q\nAlchemy's %q", got, want)
	}
}

// TestAlchemyFactorGraphGrounds checks on random evidence for a few models
// that Alchemy's factor graph as rebuilt holds the ground clauses Marple's
// grounder makes: the same sets of literals, as many times (a factor
// stands for as many as its count), so that its order covers every atom
// and clause of the network.
func TestAlchemyFactorGraphGrounds(t *testing.T) {
	models := []string{
		"Friends(person, person)\nSmokes(person)\nCancer(person)\n1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))\n",
		multiModel,
		"R(t, t)\nP(t)\nQ(t, u)\n0.5 R(x, y) ^ R(y, z) => R(x, z)\n-1 P(x) ^ Q(x, B) ^ x != y ^ R(x, y)\n0.7 EXIST v Q(x, v) v P(x)\n0.3 R(x, x) v !P(x)\n1 P(A) v R(A, x)\n",
	}
	queries := [][]string{{"Smokes", "Cancer"}, {"Likes", "Good", "Hard"}, {"R", "P"}}
	rng := uint64(1)
	next := func(n int) int {
		rng = rng*6364136223846793005 + 1442695040888963407
		return int(rng>>33) % n
	}
	for mi, model := range models {
		for trial := 0; trial < 20; trial++ {
			m, err := mln.ParseModel("m.mln", model)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Compile(); err != nil {
				t.Fatal(err)
			}
			// Random evidence over four constants per type, every
			// predicate with at least one atom.
			var ev strings.Builder
			seen := map[string]bool{}
			for _, p := range m.Preds {
				for k := 0; k < 1+next(6); k++ {
					var args []string
					for _, ty := range p.Args {
						args = append(args, fmt.Sprintf("%s%d", strings.ToUpper(m.Types[ty].Name[:1]), next(4)))
					}
					atom := fmt.Sprintf("%s(%s)", p.Name, strings.Join(args, ", "))
					if seen[atom] {
						continue
					}
					seen[atom] = true
					if next(4) == 0 {
						atom = "!" + atom
					}
					ev.WriteString(atom + "\n")
				}
			}
			db, err := mln.ParseDatabase(m, "e.db", ev.String())
			if err != nil {
				t.Fatal(err)
			}
			var q []mln.PredID
			for _, n := range queries[mi] {
				p, _ := m.Pred(n)
				q = append(q, p.ID)
			}
			net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: q})
			if err != nil {
				t.Fatal(err)
			}
			fs, err := AlchemyFactorGraph(m, db, AlchemyClosedWorld(db, q, nil, nil))
			if err != nil {
				t.Fatal(err)
			}
			key := func(lits []string) string {
				slices.Sort(lits)
				return strings.Join(slices.Compact(lits), " ")
			}
			marple := map[string]int{}
			for c := 0; c < net.NumClauses(); c++ {
				var lits []string
				for _, l := range net.Clause(c) {
					a := l.Atom()
					s := m.AtomString(net.AtomPred[a], net.AtomArgs[a])
					if l.Neg() {
						s = "!" + s
					}
					lits = append(lits, s)
				}
				marple[key(lits)]++
			}
			alchemy := map[string]int{}
			for _, f := range fs {
				var lits []string
				for i := range f.Preds {
					s := m.AtomString(f.Preds[i], f.Args[i])
					if f.Neg[i] {
						s = "!" + s
					}
					lits = append(lits, s)
				}
				alchemy[key(lits)] += f.Count
			}
			for k, n := range marple {
				if alchemy[k] != n {
					t.Errorf("model %d, evidence\n%s: Marple's ground clause %s ×%d, Alchemy's graph ×%d", mi, ev.String(), k, n, alchemy[k])
				}
			}
			for k := range alchemy {
				if marple[k] == 0 && !tautology(k) {
					t.Errorf("model %d, evidence\n%s: Alchemy's factor %s is no ground clause of Marple's", mi, ev.String(), k)
				}
			}
		}
	}
}

// tautology reports whether a clause key holds an atom and its negation.
func tautology(k string) bool {
	lits := strings.Split(k, " ")
	for _, l := range lits {
		if slices.Contains(lits, "!"+l) {
			return true
		}
	}
	return false
}
