package mln

import (
	"strings"
	"testing"
)

func TestUtilities(t *testing.T) {
	m, err := ParseModel("u.mln", "P(t)\nQ(t)\n2:-1 P(x) => Q(x)\n:3 Q(x)\n:-0.5 *P(x)\n1 Q(x)\n")
	if err != nil {
		t.Fatal(err)
	}
	if !m.HasUtilities() {
		t.Fatal("HasUtilities is false")
	}
	type fu struct {
		u    float64
		hasU bool
	}
	want := []fu{{-1, true}, {3, true}, {-0.5, true}, {-0.5, true}, {0, false}}
	if len(m.Formulas) != len(want) {
		t.Fatalf("%d formulas", len(m.Formulas))
	}
	for i, w := range want {
		if f := m.Formulas[i]; f.Utility != w.u || f.HasUtility != w.hasU {
			t.Errorf("formula %d: utility %v %v, want %v", i, f.Utility, f.HasUtility, w)
		}
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteModel(&b, m); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"2 :-1 P(x) => Q(x)", ":3 Q(x)", ":-0.5 !P(x)"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("written model lacks %q:\n%s", s, b.String())
		}
	}
	again, err := ParseModel("again.mln", b.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	for i, f := range again.Formulas {
		if f.Utility != m.Formulas[i].Utility || f.HasUtility != m.Formulas[i].HasUtility {
			t.Errorf("formula %d read back with utility %v %v", i, f.Utility, f.HasUtility)
		}
	}
}

func TestUtilityErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"P(t)\n:2 P(x).\n", "u.mln:2:1: utility on a hard formula"},
		{"P(t)\n:2 P(x) => P(A).\n", "u.mln:2:1: utility on a hard formula"},
		{"P(t)\n1:inf P(x)\n", "u.mln:2:3: utility inf is not a finite number"},
	} {
		_, err := ParseModel("u.mln", tc.src)
		if got := firstError(err); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}
