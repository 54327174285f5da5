package structure

import (
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// TestFindPaths follows the paper's example (§3.1): from a mispredicted
// InField atom, paths through the token, Next and the neighbour's atoms,
// and the two clauses of each path.
func TestFindPaths(t *testing.T) {
	m := seqModel(t)
	db, err := mln.ParseDatabase(m, "ex.db", `
Token(Ta, P1, S1)
Token(Tb, P2, S1)
Token(Tc, P3, S1)
Next(P2, P1)
Next(P3, P2)
InField(S1, A, P1)
InField(S1, A, P2)
InField(S1, B, P3)
`)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	ms, err := ParseModes(m, "seq.modes", []byte(seqModesSrc))
	if err != nil {
		t.Fatal(err)
	}
	w := NewWorld(m)
	if err := w.AddTrue(db); err != nil {
		t.Fatal(err)
	}
	in, _ := m.Pred("InField")
	s1, _ := m.Const("S1")
	a, _ := m.Const("A")
	p1, _ := m.Const("P1")
	start, err := w.Add(in.ID, []mln.ConstID{s1, a, p1})
	if err != nil {
		t.Fatal(err)
	}
	h := NewHypergraph(w, ms)
	seen := map[string]bool{}
	var clauses []string
	h.FindPaths(start, 4, func(p Path) {
		if p[0] != start || len(p) < 2 || len(p) > 4 {
			t.Fatalf("path %v", p)
		}
		key := slices.Clone(p[1:])
		slices.Sort(key)
		k := ""
		for _, x := range key {
			k += "," + string(rune('0'+x))
		}
		if seen[k] {
			t.Fatalf("path %v twice", p)
		}
		seen[k] = true
		count := map[mln.PredID]int{}
		for _, x := range p {
			count[w.AtomPred[x]]++
		}
		for pid, n := range count {
			if n > ms.Path[pid].Recall {
				t.Fatalf("path %v breaks the recall of %s", p, m.Preds[pid].Name)
			}
		}
		neg, horn := Clauses(m, w, ms, p)
		clauses = append(clauses, m.ClauseString(neg), m.ClauseString(horn))
	})
	for _, want := range []string{
		"!InField(a1,A,a2) v !Token(Ta,a2,a1) v !Next(a3,a2) v !Token(Tb,a3,a1)",
		"InField(a1,A,a2) v !Token(Ta,a2,a1) v !Next(a3,a2) v !Token(Tb,a3,a1)",
		"InField(a1,A,a2) v !Next(a3,a2) v !InField(a1,A,a3)",
	} {
		if !slices.Contains(clauses, want) {
			t.Errorf("missing clause %s; have:\n%s", want, strings.Join(clauses, "\n"))
		}
	}
	for _, c := range clauses {
		// Next has recall 1; P3 is two steps away, so Tc and B never appear.
		if strings.Count(c, "Next") > 1 || strings.Contains(c, "Tc") || strings.Contains(c, ",B,") {
			t.Errorf("clause %s breaks the modes", c)
		}
	}
}

// TestCanonicalKey: equal up to literal order and variable names.
func TestCanonicalKey(t *testing.T) {
	m := seqModel(t)
	parse := func(s string) *mln.Clause {
		f, err := m.ParseFormula(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.AddFormula(f); err != nil {
			t.Fatal(err)
		}
		return m.Clauses[f.Clauses[0]]
	}
	a := parse("InField(s, A, p) v !Token(Ta, p, s) v !Next(q, p)")
	b := parse("!Next(y, x) v InField(z, A, x) v !Token(Ta, x, z)")
	c := parse("!InField(s, A, p) v !Token(Ta, p, s) v !Next(q, p)")
	d := parse("InField(s, A, p) v !Token(Ta, p, s) v !Next(p, q)")
	if CanonicalKey(a) != CanonicalKey(b) {
		t.Error("a and b differ")
	}
	if CanonicalKey(a) == CanonicalKey(c) || CanonicalKey(a) == CanonicalKey(d) {
		t.Error("a equals c or d")
	}
}
