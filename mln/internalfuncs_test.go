package mln_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/mln"
)

// arithModel uses Alchemy's internal functions, infix and by name, nested,
// in a comparison, in equivalences and in a hard formula, over a domain
// where some values fall outside it.
const arithModel = `
time = {0,...,3}
P(time)
Q(time, time)
1.2 P(t) => P(t+1)
-0.7 P(t - 1) v Q(t, succ(succ(t)))
0.9 Q(t, u) => P(t*2 % 5)
0.5 P(t) <=> Q(t, t / 2)
0.3 P(t) <=> P(t + 1)
P(t) ^ Q(t, t+2) => P(plus(t, 3)).
0.4 t2 = t + 1 => (P(t) v !P(t2))
`

const arithDB = "P(0)\nQ(1, 3)\n"

// arithByHand is arithModel written out per t, with the values substituted;
// an instance with a value (an intermediate one too: t*2 % 5 needs t*2)
// outside {0..3} is left out (Alchemy drops such
// groundings).
func arithByHand() string {
	var b strings.Builder
	b.WriteString("time = {0,...,3}\nP(time)\nQ(time, time)\n")
	in := func(vs ...int) bool {
		for _, v := range vs {
			if v < 0 || v > 3 {
				return false
			}
		}
		return true
	}
	for t := 0; t <= 3; t++ {
		w := func(ok bool, format string, args ...any) {
			if ok {
				fmt.Fprintf(&b, format+"\n", args...)
			}
		}
		w(in(t+1), "1.2 P(%d) => P(%d)", t, t+1)
		w(in(t-1, t+2), "-0.7 P(%d) v Q(%d, %d)", t-1, t, t+2)
		w(in(t*2, t*2%5), "0.9 Q(%d, u) => P(%d)", t, t*2%5)
		w(in(t/2), "0.5 P(%d) <=> Q(%d, %d)", t, t, t/2)
		w(in(t+1), "0.3 P(%d) <=> P(%d)", t, t+1)
		w(in(t+2, t+3), "P(%d) ^ Q(%d, %d) => P(%d).", t, t, t+2, t+3)
		w(in(t+1), "0.4 P(%d) v !P(%d)", t, t+1)
	}
	return b.String()
}

func groundArith(t *testing.T, model, db string) (*mln.Model, *ground.Network) {
	t.Helper()
	m, err := mln.ParseModel("f.mln", model)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := mln.ParseDatabase(m, "f.db", db)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	var q []mln.PredID
	for _, name := range []string{"P", "Q"} {
		p, _ := m.Pred(name)
		q = append(q, p.ID)
	}
	net, err := ground.Ground(context.Background(), m, ev, ground.Options{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	net.SetWeights()
	return m, net
}

// TestInternalFunctionsBrute compares, over every world of the query atoms,
// the model with internal functions with the same model written out by
// hand: the same worlds satisfy the hard formulas and the scores differ by
// a constant. The model printed and read back grounds the same.
func TestInternalFunctionsBrute(t *testing.T) {
	mf, nf := groundArith(t, arithModel, arithDB)
	mh, nh := groundArith(t, arithByHand(), arithDB)
	names := func(m *mln.Model, net *ground.Network) map[string]int32 {
		out := map[string]int32{}
		for a := 0; a < net.NumAtoms(); a++ {
			var args []string
			for _, c := range net.AtomArgs[a] {
				args = append(args, m.ConstName(c))
			}
			out[m.Preds[net.AtomPred[a]].Name+"("+strings.Join(args, ",")+")"] = int32(a)
		}
		return out
	}
	af, ah := names(mf, nf), names(mh, nh)
	var keys []string
	for k := range af {
		if _, ok := ah[k]; !ok {
			t.Fatalf("atom %s only in the model with functions", k)
		}
		keys = append(keys, k)
	}
	if len(keys) != len(ah) || len(keys) > 20 {
		t.Fatalf("%d and %d query atoms", len(af), len(ah))
	}
	offset, feasible := math.NaN(), 0
	yf, yh := make([]bool, nf.NumAtoms()), make([]bool, nh.NumAtoms())
	for w := 0; w < 1<<len(keys); w++ {
		for i, k := range keys {
			yf[af[k]], yh[ah[k]] = w>>i&1 == 1, w>>i&1 == 1
		}
		sf, hf := nf.Score(yf)
		sh, hh := nh.Score(yh)
		if (hf == 0) != (hh == 0) {
			t.Fatalf("world %b: %d hard clauses violated with functions, %d by hand", w, hf, hh)
		}
		if hf > 0 {
			continue
		}
		feasible++
		if math.IsNaN(offset) {
			offset = sf - sh
		} else if math.Abs(sf-sh-offset) > 1e-9 {
			t.Fatalf("world %b: score %g with functions, %g by hand", w, sf, sh)
		}
	}
	if feasible == 0 || feasible == 1<<len(keys) {
		t.Fatalf("%d feasible worlds: the hard formula shows nothing", feasible)
	}

	var buf bytes.Buffer
	if err := mln.WriteModel(&buf, mf); err != nil {
		t.Fatal(err)
	}
	_, nr := groundArith(t, buf.String(), arithDB)
	if nr.NumAtoms() != nf.NumAtoms() || nr.NumClauses() != nf.NumClauses() {
		t.Fatalf("written and read back: %d atoms, %d clauses; was %d, %d\n%s", nr.NumAtoms(), nr.NumClauses(), nf.NumAtoms(), nf.NumClauses(), buf.String())
	}
}

// TestInternalFunctionErrors checks the messages of misused internal
// functions.
func TestInternalFunctionErrors(t *testing.T) {
	for model, want := range map[string]string{
		"time = {0,...,3}\nP(time)\n1 P(succ(t, t))\n": "f.mln:3:5: internal function succ has 1 argument(s), found 2",
		"time = {0,...,3}\nP(time)\n1 P(plus(t))\n":    "f.mln:3:5: internal function plus has 2 argument(s), found 1",
		"time = {0,...,3}\nP(time)\n1 P(t + d)\n":      "",
	} {
		m, err := mln.ParseModel("f.mln", model)
		if err == nil {
			err = m.Compile()
		}
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", model, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", model, err, want)
		}
	}
}
