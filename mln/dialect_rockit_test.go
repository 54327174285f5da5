package mln_test

import (
	"math"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/syntax"
)

// RockIt's weights taken from the evidence, its quoted and unquoted
// constants, variables of any case and dropped formulas mean the Alchemy
// model written by hand in rockit_conf_alchemy.mln: the brute-force
// marginals of the two networks agree.
func TestRockItEvidenceWeights(t *testing.T) {
	m, net := loadDialect(t, syntax.RockIt, "rockit_conf.mln", "rockit_conf.db", "match", "likes")
	ps := brute.Marginals(net)
	_, net2 := loadDialect(t, syntax.Alchemy, "rockit_conf_alchemy.mln", "rockit_conf_alchemy.db", "match", "likes")
	ps2 := brute.Marginals(net2)
	if net.NumAtoms() != net2.NumAtoms() {
		t.Errorf("%d atoms in RockIt's dialect, %d by hand", net.NumAtoms(), net2.NumAtoms())
	}
	for a := 0; a < net2.NumAtoms(); a++ {
		name := net2.AtomName(int32(a))
		got, want := marginal(t, m, net, ps, name), ps2[a]
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("P(%s) = %v in RockIt's dialect, %v by hand", name, got, want)
		}
	}
	// The evidence weights are fixed; the formula without a hidden literal
	// is dropped (3 formulas of the model, 4 from the evidence).
	fixed := 0
	for _, f := range m.Formulas {
		if f.Fixed {
			fixed++
		}
	}
	if len(m.Formulas) != 7 || fixed != 4 {
		t.Errorf("%d formulas, %d fixed; want 7 and 4", len(m.Formulas), fixed)
	}
}

// RockIt's cardinality constraints: the brute-force marginals and MAP
// state of the network Marple grounds are those of the enumeration of the
// matchings by RockIt's definition (each left item at most one right
// item, each right item at most two left items, the weight of a matching
// the sum of the values of its pairs).
func TestRockItCardinality(t *testing.T) {
	m, net := loadDialect(t, syntax.RockIt, "rockit_card.mln", "rockit_card.db")
	ls, rs := []string{"L1", "L2", "L3"}, []string{"R1", "R2"}
	w := map[string]float64{"L1R1": 1.5, "L1R2": 1.0, "L2R1": 2.0, "L2R2": -0.5, "L3R1": 0.8, "L3R2": 0.4}
	var pairs []string
	for _, l := range ls {
		for _, r := range rs {
			pairs = append(pairs, l+","+r)
		}
	}
	if net.NumAtoms() != len(pairs) {
		t.Fatalf("%d atoms, want %d", net.NumAtoms(), len(pairs))
	}
	var z float64
	p := make([]float64, len(pairs))
	best, bestW := -1, math.Inf(-1)
	for world := 0; world < 1<<len(pairs); world++ {
		on := func(i int) bool { return world&(1<<i) != 0 }
		ok := true
		perL, perR := map[string]int{}, map[string]int{}
		lw := 0.0
		for i, pr := range pairs {
			if on(i) {
				l, r, _ := strings.Cut(pr, ",")
				perL[l]++
				perR[r]++
				lw += w[l+r]
			}
		}
		for _, n := range perL {
			ok = ok && n <= 1
		}
		for _, n := range perR {
			ok = ok && n <= 2
		}
		if !ok {
			continue
		}
		e := math.Exp(lw)
		z += e
		for i := range pairs {
			if on(i) {
				p[i] += e
			}
		}
		if lw > bestW {
			best, bestW = world, lw
		}
	}
	ps := brute.Marginals(net)
	y, _, hard := brute.MAP(net)
	if hard != 0 {
		t.Errorf("the MAP state violates %d hard clauses", hard)
	}
	for i, pr := range pairs {
		atom := "match(" + pr + ")"
		if got := marginal(t, m, net, ps, atom); math.Abs(got-p[i]/z) > 1e-12 {
			t.Errorf("P(%s) = %v, want %v", atom, got, p[i]/z)
		}
		name, rest, _ := strings.Cut(strings.TrimSuffix(atom, ")"), "(")
		pred, _ := m.Pred(name)
		var args []mln.ConstID
		for _, a := range strings.Split(rest, ",") {
			c, _ := m.Const(a)
			args = append(args, c)
		}
		id, _ := net.AtomID(pred.ID, args)
		if want := best&(1<<i) != 0; y[id] != want {
			t.Errorf("MAP: %s is %v, want %v", atom, y[id], want)
		}
	}
}

// The value of a float_ argument in RockIt's .db files must be a number.
func TestRockItBadValue(t *testing.T) {
	m, err := mln.LoadModelConfig(&mln.LoadConfig{Dialect: syntax.RockIt}, "testdata/dialects/rockit_card.mln")
	if err != nil {
		t.Fatal(err)
	}
	_, err = mln.ParseDatabase(m, "e.db", "left(L1)\ncand(L1, R1, High)\n")
	if err == nil || !strings.Contains(err.Error(), "e.db:2:14: the last argument of cand is its float_ value") {
		t.Errorf("got %v", err)
	}
}
