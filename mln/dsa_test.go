package mln

import (
	"bytes"
	"strings"
	"testing"
)

func TestDomainScaled(t *testing.T) {
	src := `film = {F1, F2, F3}
person = {A, B}
genre = {G1, G2, G3, G4}
Actor(person)
Movie(film, person)
Genre(person, genre)
WorkedUnder(person, person)
@1.5 Actor(p) v Movie(f, p)
@!Genre(p, g) v !WorkedUnder(q, p)
@2 Actor(p) v !Movie(f, p) v Genre(p, g)
@0.5 Actor(p)
1 Actor(p) v Movie(f, p)
`
	m, err := ParseModel("dsa.mln", src)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		scaled bool
		free   int
		scale  float64
	}{
		{true, 1, 3},  // f: |film| for the Actor literal
		{true, 2, 4},  // g and q: max(|person|, |genre|)
		{true, 2, 12}, // f and g: |film|·|genre| for the Actor literal
		{true, 0, 1},  // a unit clause has no free variable
		{false, 1, 1}, // not domain-size aware
	} {
		c := m.Clauses[i]
		if c.DomainScaled != want.scaled || len(FreeVars(c)) != want.free || m.DomainScale(c) != want.scale {
			t.Errorf("clause %d %s: DomainScaled %v, free %v, scale %v; want %+v", i, m.ClauseString(c), c.DomainScaled, FreeVars(c), m.DomainScale(c), want)
		}
	}
	// Two genres in a database's world: the scale follows the domains.
	c := m.Clauses[2]
	if s := DomainScale(c, func(t TypeID) int { return map[string]int{"genre": 2, "film": 3}[m.Types[t].Name] }); s != 6 {
		t.Errorf("scale over 3 films and 2 genres %v, want 6", s)
	}
	var b bytes.Buffer
	if err := WriteModel(&b, m); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, line := range []string{"@1.5 Actor(p) v Movie(f,p)", "@0 !Genre(p,g) v !WorkedUnder(q,p)", "@0.5 Actor(p)"} {
		if !strings.Contains(out, line) {
			t.Errorf("written model lacks %q:\n%s", line, out)
		}
	}
	m2, err := ParseModel("again.mln", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for i, f := range m2.Formulas {
		if f.DomainScaled != m.Formulas[i].DomainScaled {
			t.Errorf("formula %d read back: DomainScaled %v", i, f.DomainScaled)
		}
	}
	if _, err := ParseModel("hard.mln", "P(t)\n@P(x).\n"); err == nil || !strings.Contains(err.Error(), "hard.mln:2:1: '@' on a hard formula") {
		t.Errorf("'@' on a hard formula: error %v", err)
	}
}
