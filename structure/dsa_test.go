package structure

import (
	"testing"

	"github.com/marple-mln/marple/mln"
)

func TestFreeVarsNegative(t *testing.T) {
	m, err := mln.ParseModel("f.mln", "Smokes(person)\nCancer(person)\nFriends(person, person)\n"+
		"Smokes(x) v !Cancer(x) v Friends(x, y)\n"+
		"Smokes(x) v Cancer(x) v !Friends(y, x)\n"+
		"!Smokes(x) v !Friends(x, y) v Smokes(y)\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct{ free, negative bool }{{true, false}, {true, true}, {false, true}} {
		c := m.Clauses[i]
		if HasFreeVar(c) != want.free || FreeVarsNegative(c) != want.negative {
			t.Errorf("%s: free %v, negative %v; want %+v", m.ClauseString(c), HasFreeVar(c), FreeVarsNegative(c), want)
		}
	}
}
