package mln_test

import (
	"fmt"
	"strings"
	"testing"

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

// TestInternalFunctionsBrute compares, over every world of the query atoms,
// the model with internal functions with the same model written out by
// hand: the same worlds satisfy the hard formulas and the scores differ by
// a constant. The model printed and read back grounds the same.
func TestInternalFunctionsBrute(t *testing.T) {
	mf, nf := groundText(t, arithModel, arithDB, "P", "Q")
	mh, nh := groundText(t, arithByHand(), arithDB, "P", "Q")
	sameScores(t, mf, nf, mh, nh)
	readBack(t, mf, nf, arithDB, "P", "Q")
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
