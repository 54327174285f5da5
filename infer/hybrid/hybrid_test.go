package hybrid

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

func problem(t *testing.T, model, evidence string, query ...string) *Problem {
	t.Helper()
	m, err := mln.ParseModel("t.mln", model)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mln.ParseDatabase(m, "t.db", evidence)
	if err != nil {
		t.Fatal(err)
	}
	q, err := m.PredIDs(query...)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Ground(context.Background(), m, db, Options{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func realVar(t *testing.T, p *Problem, pred, c string) int {
	t.Helper()
	pr, _ := p.Model.Pred(pred)
	cid, _ := p.Model.Const(c)
	i, ok := p.RealIndex(pr.ID, []mln.ConstID{cid})
	if !ok {
		t.Fatalf("%s(%s) is not a continuous variable", pred, c)
	}
	return i
}

// A Gaussian -w (X - m)^2: the MAP is m; the sampler's mean and variance
// are m and 1/(2w) (tolerances: 5 standard errors of 4000 samples).
func TestGaussian(t *testing.T) {
	const w, mean = 2.0, 3.0
	for _, model := range []string{
		"o = {A}\nX(o)\n2 X(x) = 3\n",
		"o = {A}\nX(o)\n2 * -(X(A) - 3)^2\n",
		"o = {A}\nX(o)\n2 * (6 * X(A) - X(A)^2)\n", // the same up to a constant
	} {
		p := problem(t, model, "")
		s, _, err := p.MAP(context.Background(), MAPOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		i := realVar(t, p, "X", "A")
		if math.Abs(s.Reals[i]-mean) > 1e-6 {
			t.Errorf("%q: MAP X = %v, want %v", model, s.Reals[i], mean)
		}
		const n = 4000
		res, err := p.Sample(context.Background(), SampleOptions{Seed: 7, Samples: n})
		if err != nil {
			t.Fatal(err)
		}
		v := 1 / (2 * w)
		if se := math.Sqrt(v / n); math.Abs(res.Mean[i]-mean) > 5*se {
			t.Errorf("%q: mean %v, want %v ± %v", model, res.Mean[i], mean, 5*se)
		}
		if se := v * math.Sqrt(2.0/n); math.Abs(res.Variance[i]-v) > 5*se {
			t.Errorf("%q: variance %v, want %v ± %v", model, res.Variance[i], v, 5*se)
		}
	}
}

// A linear-Gaussian chain X -> Y: X ~ N(1, 1/2), Y | X ~ N(X, 1/4).
const chain = `o = {A}
X(o)
Y(o)
1 X(x) = 1
2 * -(Y(A) - X(A))^2
`

// Given Y = 3, X | Y is Gaussian with precision 2(1 + 2) and mean
// (1 + 2*3)/3: the MAP is exact, the samples within tolerance.
func TestChainConditional(t *testing.T) {
	p := problem(t, chain, "Y(A) 3\n")
	i := realVar(t, p, "X", "A")
	s, _, err := p.MAP(context.Background(), MAPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := 7.0 / 3; math.Abs(s.Reals[i]-want) > 1e-6 {
		t.Fatalf("MAP X = %v, want %v", s.Reals[i], want)
	}
	const n = 4000
	res, err := p.Sample(context.Background(), SampleOptions{Seed: 3, Samples: n})
	if err != nil {
		t.Fatal(err)
	}
	mean, v := 7.0/3, 1.0/6
	if se := math.Sqrt(v / n); math.Abs(res.Mean[i]-mean) > 5*se {
		t.Errorf("mean %v, want %v ± %v", res.Mean[i], mean, 5*se)
	}
	if se := v * math.Sqrt(2.0/n); math.Abs(res.Variance[i]-v) > 5*se {
		t.Errorf("variance %v, want %v ± %v", res.Variance[i], v, 5*se)
	}
}

// Without evidence, Y's marginal is N(1, 1/2 + 1/4).
func TestChainMarginal(t *testing.T) {
	p := problem(t, chain, "")
	y := realVar(t, p, "Y", "A")
	const n = 8000
	res, err := p.Sample(context.Background(), SampleOptions{Seed: 5, Samples: n})
	if err != nil {
		t.Fatal(err)
	}
	// The chain's samples are correlated: allow 10 standard errors.
	mean, v := 1.0, 0.75
	if se := math.Sqrt(v / n); math.Abs(res.Mean[y]-mean) > 10*se {
		t.Errorf("mean %v, want %v ± %v", res.Mean[y], mean, 10*se)
	}
	if math.Abs(res.Variance[y]-v) > 0.1 {
		t.Errorf("variance %v, want %v ± 0.1", res.Variance[y], v)
	}
}

// A Boolean class C chooses the mean of a reading R: weight 0.5 on C,
// R | C ~ N(1.5, 1/4), R | !C ~ N(0, 1/2).
const mixed = `o = {A}
C(o)
R(o)
0.5 C(x)
2 C(x) * R(x) = 1.5
1 !C(x) * R(x) = 0
`

// grid integrates the mixed model's density on a grid: P(C), E[R], Var[R].
func grid(r0 float64, fixed bool) (pc, er, vr float64) {
	dens := func(c bool, r float64) float64 {
		if c {
			return math.Exp(0.5 - 2*(r-1.5)*(r-1.5))
		}
		return math.Exp(-(r * r))
	}
	if fixed {
		a, b := dens(true, r0), dens(false, r0)
		return a / (a + b), r0, 0
	}
	var z, zc, s1, s2 float64
	const h = 1e-3
	for r := -10.0; r <= 14; r += h {
		a, b := dens(true, r)*h, dens(false, r)*h
		z += a + b
		zc += a
		s1 += r * (a + b)
		s2 += r * r * (a + b)
	}
	er = s1 / z
	return zc / z, er, s2/z - er*er
}

func TestMixed(t *testing.T) {
	p := problem(t, mixed, "", "C")
	s, _, err := p.MAP(context.Background(), MAPOptions{Seed: 2, Tries: 4})
	if err != nil {
		t.Fatal(err)
	}
	r := realVar(t, p, "R", "A")
	if !s.Bools[0] || math.Abs(s.Reals[r]-1.5) > 1e-6 {
		t.Fatalf("MAP C=%v R=%v, want C true, R 1.5", s.Bools[0], s.Reals[r])
	}
	pc, er, vr := grid(0, false)
	res, err := p.Sample(context.Background(), SampleOptions{Seed: 11, Samples: 20000})
	if err != nil {
		t.Fatal(err)
	}
	// Tolerances: the chain moves between the modes through the slices,
	// so its samples are correlated; these are about 5 effective
	// standard errors.
	t.Logf("P(C) %.4f grid %.4f, E[R] %.4f grid %.4f, Var[R] %.4f grid %.4f", res.True[0], pc, res.Mean[r], er, res.Variance[r], vr)
	if math.Abs(res.True[0]-pc) > 0.03 {
		t.Errorf("P(C) = %v, grid %v", res.True[0], pc)
	}
	if math.Abs(res.Mean[r]-er) > 0.1 {
		t.Errorf("E[R] = %v, grid %v", res.Mean[r], er)
	}
	if math.Abs(res.Variance[r]-vr) > 0.15 {
		t.Errorf("Var[R] = %v, grid %v", res.Variance[r], vr)
	}
	// Given the reading, P(C | R = 2.5) is exact by the grid's formula.
	p = problem(t, mixed, "R(A) 2.5\n", "C")
	pc, _, _ = grid(2.5, true)
	res, err = p.Sample(context.Background(), SampleOptions{Seed: 13, Samples: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if se := math.Sqrt(pc * (1 - pc) / 10000); math.Abs(res.True[0]-pc) > 8*se {
		t.Errorf("P(C | R=2.5) = %v, want %v ± %v", res.True[0], pc, 8*se)
	}
}

// MAP on small random Boolean models finds the maximum that enumerating
// every state finds.
func TestMAPBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		w := func() float64 { return math.Round((rng.Float64()*6-3)*100) / 100 }
		model := fmt.Sprintf("o = {A, B}\nP(o)\nQ(o)\nR(o, o)\n%g P(x)\n%g P(x) ^ R(x, y) => Q(y)\n%g Q(x) v !P(x)\n%g R(x, y) ^ R(y, x)\n%g !Q(x) ^ P(x)\n",
			w(), w(), w(), w(), w())
		p := problem(t, model, "", "P", "Q", "R")
		n := len(p.Bools)
		best := math.Inf(-1)
		b := make([]bool, n)
		for s := 0; s < 1<<n; s++ {
			for i := range b {
				b[i] = s>>i&1 == 1
			}
			best = max(best, p.LogWeight(b, nil))
		}
		_, got, err := p.MAP(context.Background(), MAPOptions{Seed: uint64(trial), Tries: 3})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-best) > 1e-9 {
			t.Errorf("trial %d: MAP log-weight %v, brute force %v\n%s", trial, got, best, model)
		}
	}
}

// A log-weight without maximum in a continuous variable is an error.
func TestMAPUnbounded(t *testing.T) {
	for _, model := range []string{"o = {A}\nX(o)\n1 * X(A)^2\n", "o = {A}\nX(o)\n1 * (X(A))\n"} {
		p := problem(t, model, "")
		if _, _, err := p.MAP(context.Background(), MAPOptions{}); err == nil || !strings.Contains(err.Error(), "no maximum") {
			t.Errorf("%q: got %v", model, err)
		}
	}
}
