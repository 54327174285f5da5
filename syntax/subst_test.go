package syntax

import "testing"

// Substitute replaces free variables, inside function terms too, leaves
// the variables a quantifier binds, and keeps the input unchanged.
func TestSubstitute(t *testing.T) {
	decl, err := ParseFormula("x", "P(x, f(y)) ^ (EXIST x Q(x, y)) => x = y", nil)
	if err != nil {
		t.Fatal(err)
	}
	before := FormulaString(decl.F)
	got := Substitute(decl.F, map[string]Term{"x": {Kind: ConstTerm, Name: "A"}, "y": {Kind: VarTerm, Name: "z"}})
	if want := "P(A,f(z)) ^ (EXIST x Q(x,z)) => A = z"; FormulaString(got) != want {
		t.Errorf("got %s, want %s", FormulaString(got), want)
	}
	if FormulaString(decl.F) != before {
		t.Errorf("input changed to %s", FormulaString(decl.F))
	}
	a := got.(*Binary).X.(*Binary).X.(*Atom)
	if a.Args[0].TermPos != decl.F.(*Binary).X.(*Binary).X.(*Atom).Args[0].TermPos {
		t.Error("a substituted term does not keep the variable's position")
	}
}
