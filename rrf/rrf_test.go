package rrf

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/mln"
)

// randCase is a small random recursive random field with evidence: one type
// of two constants, predicates P(t), Q(t), R(t,t), three or four formulas
// with nested weights (soft conjunctions, disjunctions, quantifiers) over
// hard literals and clauses.
type randCase struct {
	model, db string
}

type rgen struct {
	scale float64 // weights in [-2 scale, 2 scale]
	r     *rand.Rand
	vars  []string
	next  int
}

func (g *rgen) weight() string {
	w := (g.r.Float64()*4 - 2) * g.scale
	if math.Abs(w) < 0.05 {
		w = 0.3
	}
	return fmt.Sprintf("%.2f", w)
}

func (g *rgen) v() string { return g.vars[g.r.IntN(len(g.vars))] }

func (g *rgen) literal() string {
	var a string
	switch g.r.IntN(3) {
	case 0:
		a = "P(" + g.v() + ")"
	case 1:
		a = "Q(" + g.v() + ")"
	default:
		a = "R(" + g.v() + "," + g.v() + ")"
	}
	if g.r.IntN(3) == 0 {
		return "!" + a
	}
	return a
}

func (g *rgen) formula(depth int) string {
	if depth == 0 {
		if g.r.IntN(3) == 0 {
			return "(" + g.literal() + " v " + g.literal() + ")"
		}
		return g.literal()
	}
	switch g.r.IntN(4) {
	case 0, 1:
		op := " ^ "
		if g.r.IntN(2) == 0 {
			op = " v "
		}
		k := 2 + g.r.IntN(2)
		parts := make([]string, k)
		for i := range parts {
			parts[i] = g.weight() + " " + g.formula(depth-1)
		}
		return "(" + strings.Join(parts, op) + ")"
	case 2:
		q := "FORALL"
		if g.r.IntN(2) == 0 {
			q = "EXIST"
		}
		z := fmt.Sprintf("z%d", g.next)
		g.next++
		g.vars = append(g.vars, z)
		body := g.formula(depth - 1)
		g.vars = g.vars[:len(g.vars)-1]
		if !strings.Contains(body, z) {
			body = "(" + g.weight() + " P(" + z + ") ^ " + g.weight() + " " + body + ")"
		}
		return "(" + q + " " + z + " " + g.weight() + " " + body + ")"
	}
	return g.formula(0)
}

func genCase(seed uint64) randCase { return genCaseDomain(seed, "A, B", 1) }

// genCaseDomain is genCase with the constants of t and weights scaled.
func genCaseDomain(seed uint64, consts string, scale float64) randCase {
	g := &rgen{r: rand.New(rand.NewPCG(seed, 7)), vars: []string{"x", "y"}, scale: scale}
	var b strings.Builder
	b.WriteString("t = {" + consts + "}\nP(t)\nQ(t)\nR(t, t)\n")
	nf := 2 + g.r.IntN(2)
	for i := 0; i < nf; i++ {
		g.vars = []string{"x"}
		if g.r.IntN(2) == 0 {
			g.vars = append(g.vars, "y")
		}
		fmt.Fprintf(&b, "%s %s\n", g.weight(), g.formula(1+g.r.IntN(2)))
	}
	var db strings.Builder
	for _, a := range []string{"P(A)", "Q(B)", "R(A,B)"} {
		switch g.r.IntN(3) {
		case 0:
			db.WriteString(a + "\n")
		case 1:
			db.WriteString("!" + a + "\n")
		}
	}
	return randCase{model: b.String(), db: db.String()}
}

// groundCase parses and grounds a case with every predicate a query
// predicate (the atoms the evidence does not give are the variables).
func groundCase(t *testing.T, c randCase, train bool) *Network {
	t.Helper()
	m, err := Parse([]string{"case.mln"}, [][]byte{[]byte(c.model)})
	if err != nil {
		t.Fatalf("%v\n%s", err, c.model)
	}
	db, err := mln.ParseDatabase(m.MLN, "case.db", c.db)
	if err != nil {
		t.Fatal(err)
	}
	q := make([]bool, len(m.MLN.Preds))
	for i := range q {
		q[i] = true
	}
	n, err := Ground(context.Background(), m, db, GroundOptions{Query: q, Train: train})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestGibbsMatchesExact(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		c := genCase(seed)
		n := groundCase(t, c, false)
		w := n.Model.Weights()
		exact, _, _, err := Exact(n, w)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Gibbs(context.Background(), n, w, GibbsOptions{Samples: 2000, Chains: 4, Seed: int64(seed)})
		if err != nil {
			t.Fatal(err)
		}
		for a := range exact {
			ess := max(res.Diag.ESS[a], 1)
			tol := 0.01 + 5*math.Sqrt(0.25/ess)
			if d := math.Abs(res.P[a] - exact[a]); d > tol {
				t.Errorf("seed %d: %s: Gibbs %.4f, exact %.4f (ESS %.0f)\n%s", seed, n.AtomString(a), res.P[a], exact[a], ess, c.model)
			}
		}
		if res.Diag.MaxRhat > 1.05 {
			t.Errorf("seed %d: max R-hat %.3f", seed, res.Diag.MaxRhat)
		}
	}
}

func TestGibbsDeterministic(t *testing.T) {
	n := groundCase(t, genCase(3), false)
	w := n.Model.Weights()
	a, _ := Gibbs(context.Background(), n, w, GibbsOptions{Samples: 200, Chains: 3, Seed: 5})
	b, _ := Gibbs(context.Background(), n, w, GibbsOptions{Samples: 200, Chains: 3, Seed: 5})
	for i := range a.P {
		if a.P[i] != b.P[i] {
			t.Fatalf("atom %d: %v then %v", i, a.P[i], b.P[i])
		}
	}
}

// TestICMAgainstExactMAP compares ICM's state with the exact MAP state on
// random models: ICM always ends in a local optimum, and is the global one
// on most of them (the rate is logged).
func TestICMAgainstExactMAP(t *testing.T) {
	t.Run("two constants", func(t *testing.T) { icmAgainstExact(t, "A, B", 1, 40) })
	t.Run("three constants", func(t *testing.T) { icmAgainstExact(t, "A, B, C", 1, 12) })
	t.Run("three constants, weights x5", func(t *testing.T) { icmAgainstExact(t, "A, B, C", 5, 12) })
}

func icmAgainstExact(t *testing.T, consts string, scale float64, cases uint64) {
	optimal, optimalOne := 0, 0
	for seed := uint64(1); seed <= cases; seed++ {
		n := groundCase(t, genCaseDomain(seed, consts, scale), false)
		w := n.Model.Weights()
		_, mapX, _, err := Exact(n, w)
		if err != nil {
			t.Fatal(err)
		}
		best := n.Score(mapX, w)
		res, err := ICM(context.Background(), n, w, ICMOptions{Seed: int64(seed)})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged {
			t.Errorf("seed %d: ICM did not converge", seed)
		}
		if res.Score > best+1e-9 {
			t.Fatalf("seed %d: ICM score %v above the exact MAP %v", seed, res.Score, best)
		}
		for a := range res.X {
			if d := n.Delta(a, res.X, w); res.X[a] && d < 0 || !res.X[a] && d > 0 {
				t.Errorf("seed %d: ICM state not a local optimum at %s", seed, n.AtomString(a))
			}
		}
		if res.Score >= best-1e-9 {
			optimal++
		}
		one, _ := ICM(context.Background(), n, w, ICMOptions{Restarts: 1})
		if one.Score >= best-1e-9 {
			optimalOne++
		}
	}
	t.Logf("ICM found the exact MAP state on %d of %d random models (%d restarts); %d of %d from the all-false start alone", optimal, cases, DefaultRestarts, optimalOne, cases)
	if uint64(optimal) < cases*3/4 {
		t.Errorf("ICM optimal on only %d of %d models", optimal, cases)
	}
}

// numGrad returns the central finite-difference gradient of f at w.
func numGrad(f func(w []float64) float64, w []float64) []float64 {
	const h = 1e-5
	g := make([]float64, len(w))
	x := append([]float64(nil), w...)
	for j := range w {
		x[j] = w[j] + h
		fp := f(x)
		x[j] = w[j] - h
		fm := f(x)
		x[j] = w[j]
		g[j] = (fp - fm) / (2 * h)
	}
	return g
}

func closeGrad(t *testing.T, what string, seed uint64, got, want []float64) {
	t.Helper()
	for j := range got {
		if math.Abs(got[j]-want[j]) > 1e-5*(1+math.Abs(want[j])) {
			t.Errorf("seed %d: %s gradient of weight %d: back-propagation %.8g, reference %.8g", seed, what, j, got[j], want[j])
		}
	}
}

// TestGradients checks the back-propagated gradients of every weight at
// every level: the pseudo-log-likelihood's and the exact log-likelihood's
// against finite differences, and the exact log-likelihood's (∇Score(x)
// minus its expectation, by enumeration) is itself checked that way.
func TestGradients(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		c := genCase(seed)
		n := groundCase(t, c, true)
		r := rand.New(rand.NewPCG(seed, 1))
		x := make([]bool, len(n.Atoms))
		for a := range x {
			x[a] = r.IntN(2) == 0
		}
		w := n.Model.Weights()
		for j := range w {
			w[j] += r.Float64() - 0.5
		}
		cw := n.atomWeights(false)
		got := make([]float64, len(w))
		n.PseudoLogLikelihood(x, w, cw, got)
		want := numGrad(func(v []float64) float64 { return n.PseudoLogLikelihood(x, v, cw, nil) }, w)
		closeGrad(t, "pseudo-log-likelihood", seed, got, want)

		got = make([]float64, len(w))
		if _, err := n.ExactLogLikelihood(x, w, got); err != nil {
			t.Fatal(err)
		}
		want = numGrad(func(v []float64) float64 {
			ll, _ := n.ExactLogLikelihood(x, v, nil)
			return ll
		}, w)
		closeGrad(t, "log-likelihood", seed, got, want)
	}
}

// TestPseudoLikelihoodExact checks the pseudo-log-likelihood against its
// definition by enumeration: log P(x_a | x_rest) from the scores of the
// two worlds.
func TestPseudoLikelihoodExact(t *testing.T) {
	n := groundCase(t, genCase(4), true)
	w := n.Model.Weights()
	x := append([]bool(nil), n.Init...)
	cw := n.atomWeights(true)
	want := 0.0
	for a := range x {
		y := append([]bool(nil), x...)
		y[a] = !y[a]
		s, s2 := n.Score(x, w), n.Score(y, w)
		want += s - math.Log(math.Exp(s)+math.Exp(s2))
	}
	if got := n.PseudoLogLikelihood(x, w, cw, nil); math.Abs(got-want) > 1e-9 {
		t.Fatalf("pseudo-log-likelihood %v, by enumeration %v", got, want)
	}
}

// mlnCases are Markov logic networks whose formulas are clauses or
// conjunctions, where a formula's feature and Alchemy's clauses give the
// same distribution.
var mlnCases = []struct{ model, db string }{
	{`person = {Anna, Bob, Chris}
Friends(person, person)
Smokes(person)
Cancer(person)
1.5 !Smokes(x) v Cancer(x)
1.1 !Friends(x, y) v !Smokes(x) v Smokes(y)
-0.7 Smokes(x)
0.4 Friends(x, y) ^ Smokes(y)
`, "Friends(Anna, Bob)\nFriends(Bob, Chris)\n!Friends(Chris, Anna)\nSmokes(Anna)\n"},
	{`t = {A, B}
P(t)
Q(t, t)
0.8 P(x) v Q(x, y)
-1.2 !P(x) v !P(y) v Q(y, x)
2 EXIST y Q(x, y)
0.5 P(A) ^ !Q(A, B)
`, "Q(B, A)\n"},
}

// TestMLNSpecialCase runs Markov logic networks as recursive random fields
// (one level: their formulas' weights) and compares their marginals with
// Marple's grounding of the same file, enumerated.
func TestMLNSpecialCase(t *testing.T) {
	for i, c := range mlnCases {
		m, err := Parse([]string{"m.mln"}, [][]byte{[]byte(c.model)})
		if err != nil {
			t.Fatal(err)
		}
		db, err := mln.ParseDatabase(m.MLN, "m.db", c.db)
		if err != nil {
			t.Fatal(err)
		}
		q := make([]bool, len(m.MLN.Preds))
		var query []mln.PredID
		for p := range q {
			q[p] = true
			query = append(query, mln.PredID(p))
		}
		n, err := Ground(context.Background(), m, db, GroundOptions{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		rp, _, _, err := Exact(n, m.Weights())
		if err != nil {
			t.Fatal(err)
		}
		g, err := Gibbs(context.Background(), n, m.Weights(), GibbsOptions{Samples: 3000, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}

		mm, err := mln.ParseModel("m.mln", c.model)
		if err != nil {
			t.Fatal(err)
		}
		if err := mm.Compile(); err != nil {
			t.Fatal(err)
		}
		mdb, err := mln.ParseDatabase(mm, "m.db", c.db)
		if err != nil {
			t.Fatal(err)
		}
		net, err := ground.Ground(context.Background(), mm, mdb, ground.Options{Query: query})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{}
		for a, p := range brute.Marginals(net) {
			want[strings.ReplaceAll(net.AtomName(int32(a)), " ", "")] = p
		}
		if len(want) != len(rp) {
			t.Fatalf("case %d: %d atoms as an RRF, %d as an MLN", i, len(rp), len(want))
		}
		for a, p := range rp {
			name := n.AtomString(a)
			wp, ok := want[name]
			if !ok {
				t.Fatalf("case %d: atom %s not in the MLN's network", i, name)
			}
			if math.Abs(p-wp) > 1e-9 {
				t.Errorf("case %d: %s: RRF %.6f, MLN %.6f", i, name, p, wp)
			}
			if d := math.Abs(g.P[a] - wp); d > 0.01+5*math.Sqrt(0.25/max(g.Diag.ESS[a], 1)) {
				t.Errorf("case %d: %s: Gibbs %.4f, MLN %.6f", i, name, g.P[a], wp)
			}
		}
	}
}

func TestLearnImproves(t *testing.T) {
	n := groundCase(t, genCase(6), true)
	w0 := n.Model.Weights()
	cw := n.atomWeights(false)
	before := n.PseudoLogLikelihood(n.Init, w0, cw, nil)
	res, err := Learn(context.Background(), []*Network{n}, w0, LearnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.PLL < before-1e-9 {
		t.Fatalf("pseudo-log-likelihood fell from %v to %v", before, res.PLL)
	}
	again, err := Learn(context.Background(), []*Network{n}, w0, LearnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for j := range res.Weights {
		if res.Weights[j] != again.Weights[j] {
			t.Fatalf("learning not deterministic at weight %d", j)
		}
	}
}

func TestWriteRoundTrip(t *testing.T) {
	c := genCase(9)
	m, err := Parse([]string{"a.mln"}, [][]byte{[]byte(c.model)})
	if err != nil {
		t.Fatal(err)
	}
	w := m.Weights()
	for j := range w {
		w[j] = float64(j) + 0.125
	}
	m.SetWeights(w)
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	m2, err := Parse([]string{"b.mln"}, [][]byte{b.Bytes()})
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	w2 := m2.Weights()
	if len(w2) != len(w) {
		t.Fatalf("%d weights, then %d", len(w), len(w2))
	}
	for j := range w {
		if w[j] != w2[j] {
			t.Fatalf("weight %d: %v, read back %v", j, w[j], w2[j])
		}
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"P(t)\nQ(t)\n1 (2 P(x) ^ 1 Q(x)) => Q(x)\n", "e.mln:3:21: => joins a sub-formula with nested weights"},
		{"P(t)\nQ(t)\n1 FORALL y (2 P(y) ^ 1 Q(x))\n", "e.mln:3:3: a quantifier over a sub-formula with nested weights needs its own weight"},
		{"P(t)\nQ(t)\n(2 P(x) v 1 Q(x)).\n", "e.mln:3:18: hard formula in a recursive random field"},
		{"P(t)\nQ(t)\n1 (2 P(x) ^ 1 S(x))\n", "e.mln:3:15: unknown predicate S"},
		{"P(t)\nQ(t)\n1 (2 P(x) ^ 1 Q(x, y))\n", "e.mln:3:15: Q takes 1 arguments, not 2"},
		{"P(t)\nQ(t)\n1 (2 P(x) ^ 1 (x != z))\n", "e.mln:3:21: cannot tell the type of variable z"},
		{"P(t)\nQ(t)\n1 (2 P(x) ^ Q(x))\n", "e.mln:3:13: the operands of a ^ chain are all weighted or none is"},
	} {
		_, err := Parse([]string{"e.mln"}, [][]byte{[]byte(c.src)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
}
