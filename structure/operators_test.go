package structure

import (
	"slices"
	"sort"
	"testing"

	"github.com/marple-mln/marple/mln"
)

const opsModel = `
P(person)
Q(person, course)
R(person, person)
`

func parseClause(t *testing.T, m *mln.Model, text string) *mln.Clause {
	t.Helper()
	f, err := m.ParseFormula(text)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.AddFormula(f); err != nil {
		t.Fatal(err)
	}
	c := m.Clauses[len(m.Clauses)-1]
	return normalize(&mln.Clause{Coef: 1, Formula: -1, Vars: slices.Clone(c.Vars), Lits: cloneLits(c.Lits)})
}

func keys(cs []*mln.Clause) []string {
	var out []string
	for _, c := range cs {
		out = append(out, CanonicalKey(c))
	}
	sort.Strings(out)
	return out
}

// bruteAdd enumerates every clause of len(c)+1 literals over at most
// maxVars variables that is c plus one literal sharing a variable with c,
// whose other variables occur once, over an atom c does not have: the
// oracle of AddLiteral, by generate and test.
func bruteAdd(m *mln.Model, c *mln.Clause, maxVars int) []string {
	set := map[string]bool{}
	base := CanonicalKey(c)
	// Every literal over variables 0..maxVars-1 (types fixed by use).
	for p := range m.Preds {
		types := m.Preds[p].Args
		args := make([]int, len(types))
		var rec func(j int)
		rec = func(j int) {
			if j < len(types) {
				for v := 0; v < maxVars; v++ {
					args[j] = v
					rec(j + 1)
				}
				return
			}
			for _, neg := range []bool{false, true} {
				d := &mln.Clause{Vars: slices.Clone(c.Vars), Lits: cloneLits(c.Lits)}
				l := mln.Literal{Pred: mln.PredID(p), Neg: neg}
				ok, shared := true, false
				count := map[int]int{}
				for _, v := range args {
					count[v]++
				}
				for j, v := range args {
					if v < len(c.Vars) {
						if c.Vars[v].Type != types[j] {
							ok = false
						}
						shared = true
					} else {
						// a new variable: must occur once, numbered densely
						if count[v] > 1 {
							ok = false
						}
						for len(d.Vars) <= v {
							d.Vars = append(d.Vars, mln.Var{Type: -1})
						}
						d.Vars[v].Type = types[j]
					}
					l.Args = append(l.Args, mln.VarTerm(v))
				}
				for _, x := range d.Vars {
					if x.Type < 0 {
						ok = false // a gap in the numbering: another enumeration has it
					}
				}
				if !ok || !shared || hasAtom(c, &l) || len(d.Vars) > maxVars {
					continue
				}
				d.Lits = append(d.Lits, l)
				d = normalize(d)
				if k := CanonicalKey(d); k != base {
					set[k] = true
				}
			}
		}
		rec(0)
	}
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestAddLiteralBrute(t *testing.T) {
	m, err := mln.ParseModel("ops.mln", opsModel)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		clause  string
		maxVars int
	}{
		{"P(x)", 3},
		{"!R(x,y)", 3},
		{"R(x,y)", 4},
		{"!P(x) v Q(x,y)", 3},
		{"!R(x,y) v P(y)", 4},
		{"!R(x,y) v !R(y,z)", 3},
		{"Q(x,c) v !Q(y,c)", 4},
		{"!Q(x,Cs101) v P(x)", 3},
	} {
		c := parseClause(t, m, tc.clause)
		o := &Operators{Model: m, MaxVars: tc.maxVars, MaxNumPredicates: 6}
		got := keys(o.AddLiteral(c))
		want := bruteAdd(m, c, tc.maxVars)
		if !slices.Equal(got, want) {
			t.Errorf("AddLiteral(%s), maxVars %d: %d clauses, want %d\ngot  %v\nwant %v", tc.clause, tc.maxVars, len(got), len(want), got, want)
		}
		if len(got) != len(o.AddLiteral(c)) {
			t.Errorf("AddLiteral(%s) has duplicates up to renaming", tc.clause)
		}
	}
	// The literal limit.
	c := parseClause(t, m, "!P(x) v Q(x,y)")
	if got := (&Operators{Model: m, MaxNumPredicates: 2}).AddLiteral(c); len(got) != 0 {
		t.Errorf("AddLiteral beyond -maxNumPredicates: %d clauses", len(got))
	}
}

func TestRemoveFlipLiteral(t *testing.T) {
	m, err := mln.ParseModel("ops.mln", opsModel)
	if err != nil {
		t.Fatal(err)
	}
	o := &Operators{Model: m}
	c := parseClause(t, m, "!R(x,y) v !Q(y,z) v P(x)")
	// Removing R disconnects Q(y,z) from P(x).
	got := keys(o.RemoveLiteral(c, 2))
	want := keys([]*mln.Clause{parseClause(t, m, "!Q(y,z) v !R(x,y)"), parseClause(t, m, "!R(x,y) v P(x)")})
	if !slices.Equal(got, want) {
		t.Errorf("RemoveLiteral: %v, want %v", got, want)
	}
	if r := o.RemoveLiteral(parseClause(t, m, "!R(x,y) v P(x)"), 2); len(r) != 0 {
		t.Errorf("RemoveLiteral below the minimum length: %d", len(r))
	}
	got = keys(o.FlipLiteral(c))
	want = keys([]*mln.Clause{parseClause(t, m, "R(x,y) v !Q(y,z) v P(x)"), parseClause(t, m, "!R(x,y) v Q(y,z) v P(x)"),
		parseClause(t, m, "!R(x,y) v !Q(y,z) v !P(x)")})
	if !slices.Equal(got, want) {
		t.Errorf("FlipLiteral: %v, want %v", got, want)
	}
	// Symmetric literals flip to one clause up to renaming.
	if f := o.FlipLiteral(parseClause(t, m, "R(x,y) v R(y,x)")); len(f) != 1 {
		t.Errorf("FlipLiteral(R(x,y) v R(y,x)): %d clauses, want 1", len(f))
	}
}

// TestOperatorsKeepEqualities checks clauses with equalities between their
// variables (transferred clauses restricted to distinct objects): the
// operators change predicate literals only, an equality goes with the last
// literal of one of its variables, and keys ignore its argument order.
func TestOperatorsKeepEqualities(t *testing.T) {
	m, err := mln.ParseModel("ops.mln", opsModel)
	if err != nil {
		t.Fatal(err)
	}
	o := &Operators{Model: m, MaxNumPredicates: 4}
	c := parseClause(t, m, "!R(x,y) v R(y,z) v P(x) v x = z")
	if !Searchable(c) {
		t.Fatal("a clause with x = z is not searchable")
	}
	if a, b := CanonicalKey(c), CanonicalKey(parseClause(t, m, "z = x v P(x) v R(y,z) v !R(x,y)")); a != b {
		t.Errorf("keys differ by the order of literals and of x = z's arguments:\n%s\n%s", a, b)
	}
	got := keys(o.RemoveLiteral(c, 2))
	want := keys([]*mln.Clause{parseClause(t, m, "!R(x,y) v R(y,z) v x = z"), parseClause(t, m, "!R(x,y) v P(x)")})
	if !slices.Equal(got, want) {
		t.Errorf("RemoveLiteral: %v, want %v", got, want)
	}
	got = keys(o.FlipLiteral(c))
	want = keys([]*mln.Clause{parseClause(t, m, "R(x,y) v R(y,z) v P(x) v x = z"), parseClause(t, m, "!R(x,y) v !R(y,z) v P(x) v x = z"),
		parseClause(t, m, "!R(x,y) v R(y,z) v !P(x) v x = z")})
	if !slices.Equal(got, want) {
		t.Errorf("FlipLiteral: %v, want %v", got, want)
	}
	for _, d := range o.AddLiteral(c) {
		if predLits(d) != 4 || len(d.Lits) != 5 {
			t.Fatalf("AddLiteral: %s", m.ClauseString(d))
		}
	}
	if len(o.AddLiteral(c)) == 0 {
		t.Error("AddLiteral: nothing")
	}
}

func TestHasFreeVar(t *testing.T) {
	m, err := mln.ParseModel("f.mln", `P(t)
Q(t,t)
1 P(x)
1 Q(x,y)
1 P(x) v Q(x,y)
1 P(x) v Q(x,y) v !P(y)
1 Q(x,x) v P(y)
1 Q(x,y) v Q(y,z) v Q(x,z)
1 Q(x,y) v Q(y,x)
`)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	want := []bool{false, false, true, false, true, false, false}
	single := []bool{false, false, false, false, false, true, true}
	repeats := []bool{false, false, false, true, false, true, true}
	for i, c := range m.Clauses {
		if got := HasFreeVar(c); got != want[i] {
			t.Errorf("%s: HasFreeVar %v", m.ClauseString(c), got)
		}
		if got := SinglePredicate(c); got != single[i] {
			t.Errorf("%s: SinglePredicate %v", m.ClauseString(c), got)
		}
		if got := RepeatsPredicate(c); got != repeats[i] {
			t.Errorf("%s: RepeatsPredicate %v", m.ClauseString(c), got)
		}
	}
}

func TestJoin(t *testing.T) {
	m, err := mln.ParseModel("j.mln", `P(t)
Q(t,t)
R(t,t)
1 !Q(x,y) v !Q(y,z) v R(x,z)
1 !Q(x,y) v !Q(x,z) v !P(z) v R(y,z)
1 !Q(x,y) v !Q(y,z)
1 !Q(x,y) v !Q(y,z) v Q(x,z)
1 !R(x,y) v !Q(z,x) v Q(z,y)
1 !Q(x,y) v !Q(y,z) v R(x,z) v R(z,x)
1 !Q(x,y) v R(x,y)
1 !Q(x,y) v !Q(y,z) v !R(x,z)
1 !Q(x,y) v !Q(x,z) v R(x,x)
`)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	want := []bool{true, true, false, false, false, false, false, false, false}
	for i, c := range m.Clauses {
		if got := Join(c); got != want[i] {
			t.Errorf("%s: Join %v, want %v", m.ClauseString(c), got, want[i])
		}
	}
}

func TestAddJoin(t *testing.T) {
	m, err := mln.ParseModel("j.mln", "P(t)\nQ(t,t)\nR(t,t)\n1 R(x,y)\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	o := &Operators{Model: m}
	got := map[string]bool{}
	for _, d := range o.AddJoin(m.Clauses[0]) {
		// Q joins R; R joined through R repeats the conclusion's
		// predicate (a candidate, not a Join).
		if Join(d) != (d.Lits[1].Pred != d.Lits[0].Pred || d.Lits[2].Pred != d.Lits[0].Pred) || predLits(d) != 3 {
			t.Errorf("AddJoin made %s (Join %v)", m.ClauseString(d), Join(d))
		}
		got[CanonicalKey(d)] = true
	}
	want := parseClause(t, m, "R(x,y) v !Q(z,x) v !Q(z,y)")
	if !got[CanonicalKey(want)] || len(got) != 4 {
		t.Errorf("AddJoin: %d clauses, %s among them: %v", len(got), m.ClauseString(want), got[CanonicalKey(want)])
	}
	o.MaxNumPredicates = 2
	if d := o.AddJoin(m.Clauses[0]); d != nil {
		t.Errorf("AddJoin past MaxNumPredicates: %d clauses", len(d))
	}
}
