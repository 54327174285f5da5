package hybrid

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// randomQuadratic returns a random small hybrid model whose continuous
// part is quadratic and bounded (each X(o) has a Gaussian term with a
// positive weight; the other numeric terms are linear in X), its evidence
// (real R(o), Boolean Link), and a random labelling of the query atoms
// C, D (Boolean) and X (real) as a database.
func randomQuadratic(rng *rand.Rand, objs int) (model, evidence, labels string) {
	var mb, eb, lb strings.Builder
	mb.WriteString("o = {")
	for i := range objs {
		if i > 0 {
			mb.WriteString(", ")
		}
		fmt.Fprintf(&mb, "O%d", i)
	}
	mb.WriteString("}\nC(o)\nD(o)\nLink(o, o)\nX(o)\nR(o)\n")
	w := func() float64 { return math.Round(rng.Float64()*40-20) / 10 }
	fmt.Fprintf(&mb, "%g C(o)\n", w())
	fmt.Fprintf(&mb, "%g D(o)\n", w())
	fmt.Fprintf(&mb, "%g C(o) ^ D(o)\n", w())
	fmt.Fprintf(&mb, "%g Link(a, b) ^ C(a) => D(b)\n", w())
	fmt.Fprintf(&mb, "%g X(o) = %g\n", 0.2+rng.Float64()*2, math.Round(rng.Float64()*40-20)/10)
	fmt.Fprintf(&mb, "%g C(o) * X(o)\n", w())
	fmt.Fprintf(&mb, "%g D(o) * X(o) * R(o)\n", w())
	fmt.Fprintf(&mb, "%g C(o) * R(o)^2\n", w())
	for i := range objs {
		fmt.Fprintf(&eb, "R(O%d) %.2f\n", i, rng.Float64()*4-2)
		for j := range objs {
			if rng.IntN(3) == 0 {
				fmt.Fprintf(&eb, "Link(O%d, O%d)\n", i, j)
			}
		}
		for _, q := range []string{"C", "D"} {
			if rng.IntN(2) == 0 {
				fmt.Fprintf(&lb, "%s(O%d)\n", q, i)
			}
		}
		fmt.Fprintf(&lb, "X(O%d) %.2f\n", i, rng.Float64()*4-2)
	}
	return mb.String(), eb.String(), lb.String()
}

// The loss-augmented inference of LearnMaxMargin (hybrid MaxWalkSAT with
// the Hamming loss of the Boolean query atoms added) returns, on small
// random quadratic hybrid models, the maximum of score + loss that
// enumerating every assignment of the Boolean query atoms finds, with the
// continuous query atoms at their optimum given the Booleans (a concave
// quadratic: L-BFGS finds it exactly).
func TestLossAugmentedMAPOracle(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(27, 1))
	for trial := range 20 {
		model, ev, lab := randomQuadratic(rng, 2+trial%2)
		m, err := mln.ParseModel("t.mln", model)
		if err != nil {
			t.Fatal(err)
		}
		db, err := mln.ParseDatabase(m, "t.db", ev+lab)
		if err != nil {
			t.Fatal(err)
		}
		q, _ := m.PredIDs("C", "D", "X")
		exs, err := groundExamples(context.Background(), m, []*mln.Database{db}, q)
		if err != nil {
			t.Fatal(err)
		}
		ex := exs[0]
		p := ex.p
		if len(p.Bools) != 2*(2+trial%2) || len(p.Reals) != 2+trial%2 {
			t.Fatalf("trial %d: %d Boolean and %d continuous variables", trial, len(p.Bools), len(p.Reals))
		}
		w := append([]float64(nil), p.Weights...)
		aug := p.lossAugmented(ex.truth.Bools)
		s, loss, err := aug.lossAugmentedMAP(ctx, w, ex.truth, 0, MAPOptions{Seed: uint64(trial)})
		if err != nil {
			t.Fatal(err)
		}
		got := p.logWeight(s.Bools, s.Reals) + loss
		// Brute force.
		best := p.logWeight(ex.truth.Bools, ex.truth.Reals)
		b := make([]bool, len(p.Bools))
		x := make([]float64, len(p.Reals))
		for mask := 0; mask < 1<<len(b); mask++ {
			l := 0.0
			for v := range b {
				b[v] = mask>>v&1 == 1
				if b[v] != ex.truth.Bools[v] {
					l++
				}
			}
			clear(x)
			if err := p.optimizeReals(b, x); err != nil {
				t.Fatal(err)
			}
			best = max(best, p.logWeight(b, x)+l)
		}
		if math.Abs(got-best) > 1e-6*(1+math.Abs(best)) {
			t.Fatalf("trial %d: loss-augmented MAP scores %.9g, enumeration %.9g\n%s", trial, got, best, model)
		}
		if want := hamming(s.Bools, ex.truth.Bools); loss != want {
			t.Fatalf("trial %d: loss %v, the state differs from the truth in %v atoms", trial, loss, want)
		}
	}
}

func hamming(a, b []bool) float64 {
	n := 0.0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// planted is a model whose Boolean class atoms C, D depend on a real
// reading R of their object.
const planted = `C(o)
D(o)
R(o)
0 C(o)
0 C(o) * R(o)
0 D(o)
0 D(o) * R(o)^2
0 C(o) ^ D(o)
`

// plantedData draws n objects from the planted model with weights
// C: -0.5, C*R: 2, D: 1, D*R^2: -1.5, C^D: 0 — the objects are
// independent, and given R(o) the four states of C(o), D(o) have
// probabilities proportional to exp of their summed features.
func plantedData(rng *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		r := math.Round((rng.Float64()*4-2)*100) / 100
		fmt.Fprintf(&b, "R(O%d) %g\n", i, r)
		var ps [4]float64
		z := 0.0
		for s := range 4 {
			c, d := s&1 == 1, s&2 == 2
			e := 0.0
			if c {
				e += -0.5 + 2*r
			}
			if d {
				e += 1 - 1.5*r*r
			}
			ps[s] = math.Exp(e)
			z += ps[s]
		}
		u, s := rng.Float64()*z, 0
		for s < 3 && u > ps[s] {
			u -= ps[s]
			s++
		}
		if s&1 == 1 {
			fmt.Fprintf(&b, "C(O%d)\n", i)
		}
		if s&2 == 2 {
			fmt.Fprintf(&b, "D(O%d)\n", i)
		}
	}
	return b.String()
}

// On a separable planted case (labels that are the MAP state of the
// planted weights, which no object is near the boundary of), the learned
// weights satisfy every margin constraint: for every labelling y' of the
// Boolean query atoms, score(y) − score(y') ≥ Δ(y, y') − ξ − ε, checked by
// enumeration.
func TestMaxMarginSeparable(t *testing.T) {
	ctx := context.Background()
	m, err := mln.ParseModel("p.mln", planted)
	if err != nil {
		t.Fatal(err)
	}
	// Labels: C(o) iff 2 R - 0.5 > 0, D(o) iff 1 - 1.5 R² > 0, for
	// readings away from both boundaries.
	var db strings.Builder
	for i, r := range []float64{-1.5, -0.3, 0.6, 1.2, -1.1, 1.7} {
		fmt.Fprintf(&db, "R(O%d) %g\n", i, r)
		if 2*r-0.5 > 0 {
			fmt.Fprintf(&db, "C(O%d)\n", i)
		}
		if 1-1.5*r*r > 0 {
			fmt.Fprintf(&db, "D(O%d)\n", i)
		}
	}
	train, err := mln.ParseDatabase(m, "p.db", db.String())
	if err != nil {
		t.Fatal(err)
	}
	q, _ := m.PredIDs("C", "D")
	const eps = 0.01
	res, err := LearnMaxMargin(ctx, m, []*mln.Database{train}, MaxMarginOptions{Query: q, C: 1000, Epsilon: eps, MAP: MAPOptions{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("weights (C, C*R, D, D*R^2, C^D) %.4g, slack %.4g, %d rounds, %d planes", byLine(t, m, res.Weights, 4, 5, 6, 7, 8), res.Slack, res.Iterations, res.Planes)
	if !res.Converged {
		t.Fatalf("did not converge in %d rounds", res.Iterations)
	}
	exs, err := groundExamples(context.Background(), m, []*mln.Database{train}, q)
	if err != nil {
		t.Fatal(err)
	}
	p := exs[0].p
	copy(p.Weights, res.Weights)
	truth := exs[0].truth
	sy := p.logWeight(truth.Bools, truth.Reals)
	b := make([]bool, len(p.Bools))
	worst := math.Inf(-1)
	for mask := 0; mask < 1<<len(b); mask++ {
		for v := range b {
			b[v] = mask>>v&1 == 1
		}
		viol := hamming(b, truth.Bools) - (sy - p.logWeight(b, nil))
		worst = max(worst, viol)
		if viol > res.Slack+eps+1e-9 {
			t.Fatalf("labelling %v: loss minus margin %.6g exceeds slack %.6g + ε", b, viol, res.Slack)
		}
	}
	t.Logf("largest loss minus margin over %d labellings: %.4g", 1<<len(b), worst)
	if res.Slack > 1e-6 {
		t.Fatalf("slack %g on a separable case with C = 1000", res.Slack)
	}
}

// Learning on data drawn from the planted model recovers the signs of its
// weights and the order of the numeric ones (C*R: 2 > 0 > D*R²: -1.5).
func TestMaxMarginRecoversPlanted(t *testing.T) {
	ctx := context.Background()
	m, err := mln.ParseModel("p.mln", planted)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(27, 2))
	var dbs []*mln.Database
	for i := range 2 {
		db, err := mln.ParseDatabase(m, fmt.Sprintf("p%d.db", i), plantedData(rng, 100))
		if err != nil {
			t.Fatal(err)
		}
		dbs = append(dbs, db)
	}
	q, _ := m.PredIDs("C", "D")
	res, err := LearnMaxMargin(ctx, m, dbs, MaxMarginOptions{Query: q, C: 10, MAP: MAPOptions{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	w := byLine(t, m, res.Weights, 4, 5, 6, 7, 8)
	t.Logf("weights C %.3g, C*R %.3g, D %.3g, D*R^2 %.3g, C^D %.3g; slack %.4g, %d rounds, converged %v",
		w[0], w[1], w[2], w[3], w[4], res.Slack, res.Iterations, res.Converged)
	if !res.Converged {
		t.Fatalf("did not converge in %d rounds", res.Iterations)
	}
	if !(w[0] < 0 && w[1] > 0 && w[2] > 0 && w[3] < 0) {
		t.Fatalf("signs of C, C*R, D, D*R^2: %.3g %.3g %.3g %.3g, want - + + -", w[0], w[1], w[2], w[3])
	}
	if !(w[1] > -w[3]) {
		t.Fatalf("C*R %.3g is not larger in magnitude than D*R^2 %.3g", w[1], w[3])
	}
}

// byLine returns the weights (Problem.Features order) of the features on
// the given lines of the model, in that order.
func byLine(t *testing.T, m *mln.Model, w []float64, lines ...int) []float64 {
	t.Helper()
	fs, err := m.Features()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(lines))
	for k, l := range lines {
		found := false
		for i, f := range fs {
			if f.Pos.Line == l {
				out[k], found = w[i], true
			}
		}
		if !found {
			t.Fatalf("no feature on line %d", l)
		}
	}
	return out
}

// Real-valued query atoms add no loss. A term over them alone learns
// weight 0 (the data never scores above the term's maximum, so no plane
// asks for more), and when the Boolean constraints give a numeric term a
// weight that leaves the continuous part unbounded, loss-augmented
// inference returns a far state, whose plane brings the weights back: the
// learner converges to weights with a bounded MAP.
func TestMaxMarginRealQuery(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		model string
		query []string
	}{
		{"X(obj)\n0 X(o) = 3\n", []string{"X"}},
		{"C(obj)\nX(obj)\n0 C(o)\n0 C(o) * -(X(o) - 3)^2\n0 !C(o) * -(X(o) - 1)^2\n", []string{"C", "X"}},
	} {
		m, err := mln.ParseModel("r.mln", tc.model)
		if err != nil {
			t.Fatal(err)
		}
		var db strings.Builder
		for i := range 6 {
			fmt.Fprintf(&db, "X(O%d) %g\n", i, 3+0.5*float64(1-2*(i%2)))
			if len(tc.query) == 2 && i%3 == 0 {
				fmt.Fprintf(&db, "C(O%d)\n", i)
			}
		}
		train, err := mln.ParseDatabase(m, "r.db", db.String())
		if err != nil {
			t.Fatal(err)
		}
		q, _ := m.PredIDs(tc.query...)
		res, err := LearnMaxMargin(ctx, m, []*mln.Database{train}, MaxMarginOptions{Query: q, MAP: MAPOptions{Seed: 1, MaxFlips: 100}})
		if err != nil {
			t.Fatalf("%q: %v", tc.model, err)
		}
		t.Logf("weights %.4g, slack %.4g, %d rounds", res.Weights, res.Slack, res.Iterations)
		if !res.Converged {
			t.Fatalf("%q: did not converge", tc.model)
		}
		if len(tc.query) == 1 && res.Weights[0] != 0 {
			t.Fatalf("weight %v of a term over query atoms alone, want 0", res.Weights[0])
		}
		exs, err := groundExamples(context.Background(), m, []*mln.Database{train}, q)
		if err != nil {
			t.Fatal(err)
		}
		copy(exs[0].p.Weights, res.Weights)
		_, _, err = exs[0].p.MAP(ctx, MAPOptions{Seed: 1})
		if len(tc.query) == 1 {
			// Weight 0: X's density is flat, which MAP refuses.
			if !errors.Is(err, ErrImproper) {
				t.Fatalf("%q: MAP with weight 0: %v, want ErrImproper", tc.model, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: MAP with the learned weights: %v", tc.model, err)
		}
	}
}
