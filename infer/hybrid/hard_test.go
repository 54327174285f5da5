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

// A mixed model with a hard formula tying two Boolean atoms: C and D are
// equal in every possible world, so the soft formula C ^ !D (weight 25)
// never holds; with the hard formula as a weight of 20 instead, the world
// C, !D would take nearly all the mass.
const hardMixed = `o = {A}
C(o)
D(o)
R(o)
0.5 C(x)
-0.3 D(x)
C(x) <=> D(x).
25 C(x) ^ !D(x)
2 C(x) * R(x) = 1.5
1 !C(x) * R(x) = 0
0.8 D(x) * R(x) = 0.5
`

// hardMixedLogDensity is the log-density of hardMixed's world (c, d, r)
// with the hard formula as a constraint (hard < 0) or as weight hard.
func hardMixedLogDensity(c, d bool, r, hard float64) float64 {
	s := 0.0
	if c != d {
		if hard < 0 {
			return math.Inf(-1)
		}
	} else if hard > 0 {
		s += hard
	}
	if c {
		s += 0.5 - 2*(r-1.5)*(r-1.5)
		if !d {
			s += 25
		}
	} else {
		s -= r * r
	}
	if d {
		s += -0.3 - 0.8*(r-0.5)*(r-0.5)
	}
	return s
}

// hardMixedGrid integrates hardMixed over R on a grid for each of the four
// Boolean worlds: P(C), P(C ^ !D), E[R], Var[R].
func hardMixedGrid(hard float64) (pc, pcd, er, vr float64) {
	var z, zc, zcd, s1, s2 float64
	const h = 1e-3
	for _, c := range []bool{false, true} {
		for _, d := range []bool{false, true} {
			for r := -10.0; r <= 12; r += h {
				lw := hardMixedLogDensity(c, d, r, hard)
				if math.IsInf(lw, -1) {
					continue
				}
				a := math.Exp(lw-25) * h // scaled to avoid overflow
				z += a
				if c {
					zc += a
					if !d {
						zcd += a
					}
				}
				s1 += r * a
				s2 += r * r * a
			}
		}
	}
	er = s1 / z
	return zc / z, zcd / z, er, s2/z - er*er
}

func TestHardMixed(t *testing.T) {
	p := problem(t, hardMixed, "", "C", "D")
	if p.NumHard() != 1 {
		t.Fatalf("%d ground hard formulas, want 1", p.NumHard())
	}
	c, d, r := 0, 1, realVar(t, p, "R", "A")
	if p.Model.Preds[p.Bools[0].Pred].Name != "C" {
		c, d = 1, 0
	}

	// MAP: for each world satisfying the hard formula, the best R is the
	// precision-weighted mean of its Gaussians (closed form).
	wantW, wantC, wantR := math.Inf(-1), false, 0.0
	for _, cv := range []bool{false, true} {
		rstar := 0.0
		if cv {
			rstar = (2*1.5 + 0.8*0.5) / (2 + 0.8)
		}
		if w := hardMixedLogDensity(cv, cv, rstar, -1); w > wantW {
			wantW, wantC, wantR = w, cv, rstar
		}
	}
	for seed := range uint64(4) {
		s, w, err := p.MAP(context.Background(), MAPOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if s.Bools[c] != wantC || s.Bools[d] != wantC || math.Abs(s.Reals[r]-wantR) > 1e-6 || math.Abs(w-wantW) > 1e-9 {
			t.Fatalf("seed %d: MAP C=%v D=%v R=%v log-weight %v, want C=D=%v R=%v log-weight %v",
				seed, s.Bools[c], s.Bools[d], s.Reals[r], w, wantC, wantR, wantW)
		}
	}

	pc, pcd, er, vr := hardMixedGrid(-1)
	pc20, pcd20, _, _ := hardMixedGrid(HardWeight)
	t.Logf("constraint: P(C) %.4f P(C ^ !D) %.4f E[R] %.4f Var[R] %.4f; as weight %g: P(C) %.4f P(C ^ !D) %.4f", pc, pcd, er, vr, HardWeight, pc20, pcd20)
	if pcd20 < 0.9 {
		t.Fatalf("the weight-%g approximation gives P(C ^ !D) %.4f: the case does not tell it from the constraint", HardWeight, pcd20)
	}
	const n = 20000
	res, err := p.Sample(context.Background(), SampleOptions{Seed: 5, Samples: n, Each: func(s *State) {
		if s.Bools[c] != s.Bools[d] {
			t.Fatalf("a sample violates C <=> D: C=%v D=%v", s.Bools[c], s.Bools[d])
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sampled: P(C) %.4f P(D) %.4f E[R] %.4f Var[R] %.4f", res.True[c], res.True[d], res.Mean[r], res.Variance[r])
	// Tolerances as in TestMixed: about 5 effective standard errors of a
	// chain that moves between the two modes through the slices.
	if math.Abs(res.True[c]-pc) > 0.03 || res.True[c] != res.True[d] {
		t.Errorf("P(C) = %v, P(D) = %v, grid %v", res.True[c], res.True[d], pc)
	}
	if math.Abs(res.Mean[r]-er) > 0.1 {
		t.Errorf("E[R] = %v, grid %v", res.Mean[r], er)
	}
	if math.Abs(res.Variance[r]-vr) > 0.15 {
		t.Errorf("Var[R] = %v, grid %v", res.Variance[r], vr)
	}
}

// Random Boolean models with hard formulas: MAP finds the best state that
// satisfies them (brute force over every state), and the sampler's
// marginals match the exact ones.
func TestHardBruteForce(t *testing.T) {
	hards := []string{
		"P(x) <=> Q(x).",
		"R(x, y) => R(y, x).",
		"!P(x) v !Q(y) v R(x, y).",
		"EXIST y R(x, y).",
		"P(x) ^ Q(x) => !R(x, x).",
		"P(A) v P(B).",
	}
	rng := rand.New(rand.NewPCG(3, 4))
	worst := 0.0
	for trial := range 8 {
		w := func() float64 { return math.Round((rng.Float64()*6-3)*100) / 100 }
		model := fmt.Sprintf("o = {A, B}\nP(o)\nQ(o)\nR(o, o)\n%g P(x)\n%g P(x) ^ R(x, y) => Q(y)\n%g Q(x) v !P(x)\n%g R(x, y) ^ R(y, x)\n%g !Q(x) ^ P(x)\n",
			w(), w(), w(), w(), w())
		for _, k := range rng.Perm(len(hards))[:2] {
			model += hards[k] + "\n"
		}
		p := problem(t, model, "", "P", "Q", "R")
		n := len(p.Bools)
		best := math.Inf(-1)
		b := make([]bool, n)
		probs := make([]float64, n)
		z := 0.0
		for s := 0; s < 1<<n; s++ {
			for i := range b {
				b[i] = s>>i&1 == 1
			}
			lw := p.LogWeight(b, nil)
			best = max(best, lw)
			if math.IsInf(lw, -1) {
				continue
			}
			e := math.Exp(lw)
			z += e
			for i, v := range b {
				if v {
					probs[i] += e
				}
			}
		}
		if z == 0 {
			t.Fatalf("trial %d: no state satisfies the hard formulas\n%s", trial, model)
		}
		_, got, err := p.MAP(context.Background(), MAPOptions{Seed: uint64(trial), Tries: 3})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-best) > 1e-9 {
			t.Errorf("trial %d: MAP log-weight %v, brute force %v\n%s", trial, got, best, model)
		}
		const samples = 5000
		res, err := p.Sample(context.Background(), SampleOptions{Seed: uint64(trial), Samples: samples, Each: func(s *State) {
			if h := p.HardViolated(s.Bools); h > 0 {
				t.Fatalf("trial %d: a sample violates %d hard formulas", trial, h)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range probs {
			want := probs[i] / z
			// 5 standard errors of independent samples, doubled for the
			// chain's correlation.
			tol := 10 * math.Sqrt(max(want*(1-want), 0.01)/samples)
			worst = max(worst, math.Abs(res.True[i]-want)/tol)
			if math.Abs(res.True[i]-want) > tol {
				t.Errorf("trial %d: P(%s) = %.4f, exact %.4f ± %.4f\n%s", trial,
					p.Model.AtomString(p.Bools[i].Pred, p.Bools[i].Args), res.True[i], want, tol, model)
			}
		}
	}
	t.Logf("largest error: %.2f of the tolerance", worst)
}

// Hard formulas that no state satisfies: MAP returns its best state with
// ErrHard, Sample fails with ErrHard; the evidence falsifying a hard
// grounding is counted in HardFalse.
func TestHardUnsatisfiable(t *testing.T) {
	p := problem(t, "o = {A}\nP(o)\nQ(o)\nX(o)\nP(x).\n!P(x) v Q(x).\n!Q(x).\n1 P(x) * X(x) = 2\n", "", "P", "Q")
	s, _, err := p.MAP(context.Background(), MAPOptions{Seed: 1})
	if !errors.Is(err, ErrHard) || p.HardViolated(s.Bools) != 1 {
		t.Fatalf("MAP: %v, %d hard formulas violated; want ErrHard and 1", err, p.HardViolated(s.Bools))
	}
	if _, err := p.Sample(context.Background(), SampleOptions{Samples: 10}); !errors.Is(err, ErrHard) {
		t.Fatalf("Sample: %v, want ErrHard", err)
	}
	p = problem(t, "o = {A, B}\nP(o)\nQ(o)\nP(x) => Q(x).\n1 Q(x)\n", "P(A)\n!Q(A)\n", "Q")
	if p.HardFalse != 1 || p.NumHard() != 0 {
		t.Fatalf("HardFalse %d, NumHard %d; want 1 and 0", p.HardFalse, p.NumHard())
	}
}

// Learning with a hard formula: C and D are tied, so the worlds of a
// constant are C ^ D (weight e^w) and !C ^ !D (weight 1); with C true for
// 90 of 120 constants the likelihood is maximal at w = ln 3 (the prior,
// σ = 100, moves it by less than 1e-3). The hard formula keeps HardWeight. Tolerance: the last step's sampling
// noise (about 0.05 on w) three times over.
func TestLearnHard(t *testing.T) {
	var db strings.Builder
	for i := range 120 {
		if i%4 != 0 {
			fmt.Fprintf(&db, "C(O%d)\nD(O%d)\n", i, i)
		} else {
			fmt.Fprintf(&db, "!C(O%d)\n!D(O%d)\n", i, i)
		}
	}
	m, err := mln.ParseModel("h.mln", "C(obj)\nD(obj)\n0 C(o)\nC(o) <=> D(o).\n")
	if err != nil {
		t.Fatal(err)
	}
	train, err := mln.ParseDatabase(m, "h.db", db.String())
	if err != nil {
		t.Fatal(err)
	}
	q, _ := m.PredIDs("C", "D")
	w, err := Learn(context.Background(), m, []*mln.Database{train}, LearnOptions{Query: q, Iterations: 40, Samples: 50, Sigma: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("learned weights %v", w)
	if want := math.Log(3); math.Abs(w[0]-want) > 0.15*want || w[1] != HardWeight {
		t.Errorf("learned weights %v, want [%.4f %v] (±15%%)", w, want, HardWeight)
	}
}

// Training data that violates a hard formula has probability 0 under the
// model: both learners refuse it, naming the database.
func TestLearnHardViolated(t *testing.T) {
	m, err := mln.ParseModel("h.mln", "C(obj)\nD(obj)\n0 C(o)\nC(o) <=> D(o).\n")
	if err != nil {
		t.Fatal(err)
	}
	train, err := mln.ParseDatabase(m, "h.db", "C(A)\nD(A)\nC(B)\n!D(B)\n")
	if err != nil {
		t.Fatal(err)
	}
	q, _ := m.PredIDs("C", "D")
	dbs := []*mln.Database{train}
	if _, err := Learn(context.Background(), m, dbs, LearnOptions{Query: q, Iterations: 2}); err == nil || !strings.Contains(err.Error(), "database 1 violates 1 ground hard formula") {
		t.Errorf("Learn: %v, want the violated hard formula named", err)
	}
	if _, err := LearnMaxMargin(context.Background(), m, dbs, MaxMarginOptions{Query: q, MaxIter: 2}); err == nil || !strings.Contains(err.Error(), "database 1 violates 1 ground hard formula") {
		t.Errorf("LearnMaxMargin: %v, want the violated hard formula named", err)
	}
}

// A predicate argument declared with "!" is a pair of hard constraints
// (exactly one label per segment): the label distribution given the
// length is exact by the formula, and with the length unknown each label's
// mass is its weight's exponential times the Gaussian integral sqrt(π/w).
const labels = `seg = {S}
lab = {W, D, O}
Label(seg, lab!)
Len(seg)
0.3 Label(s, W)
2 Label(s, W) * Len(s) = 3
1 Label(s, D) * Len(s) = 1
0.5 Label(s, O) * Len(s) = 0
`

func TestUniqueArgument(t *testing.T) {
	type label struct {
		name      string
		c, w, mu  float64
		i         int
		pGiven, p float64
	}
	ls := []*label{{name: "W", c: 0.3, w: 2, mu: 3}, {name: "D", w: 1, mu: 1}, {name: "O", w: 0.5}}
	const r0 = 2.2
	var z0, z float64
	for _, l := range ls {
		l.pGiven = math.Exp(l.c - l.w*(r0-l.mu)*(r0-l.mu))
		l.p = math.Exp(l.c) * math.Sqrt(math.Pi/l.w)
		z0 += l.pGiven
		z += l.p
	}
	for _, evidence := range []string{"Len(S) 2.2\n", ""} {
		p := problem(t, labels, evidence, "Label")
		if p.NumHard() == 0 {
			t.Fatal("no ground hard formula")
		}
		for _, l := range ls {
			l.i = -1
			for i, a := range p.Bools {
				if p.Model.AtomString(a.Pred, a.Args) == "Label(S,"+l.name+")" {
					l.i = i
				}
			}
			if l.i < 0 {
				t.Fatalf("no variable Label(S,%s)", l.name)
			}
		}
		s, _, err := p.MAP(context.Background(), MAPOptions{Seed: 1, Tries: 2})
		if err != nil {
			t.Fatal(err)
		}
		if !s.Bools[ls[0].i] || s.Bools[ls[1].i] || s.Bools[ls[2].i] {
			t.Errorf("%q: MAP %v, want Label(S,W) alone", evidence, s.Bools)
		}
		// Tolerance: the estimates of P(Label(S,W)) over 8 seeds have a
		// standard deviation of 0.005 (given the length) and 0.012 (not
		// given) at 50,000 samples; 0.04 is about 3 of them at 40,000.
		const n = 40000
		res, err := p.Sample(context.Background(), SampleOptions{Seed: 9, Samples: n, Each: func(s *State) {
			k := 0
			for _, l := range ls {
				if s.Bools[l.i] {
					k++
				}
			}
			if k != 1 {
				t.Fatalf("a sample has %d labels", k)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ls {
			want := l.pGiven / z0
			if evidence == "" {
				want = l.p / z
			}
			t.Logf("%q: P(Label(S,%s)) %.4f, exact %.4f", evidence, l.name, res.True[l.i], want)
			if math.Abs(res.True[l.i]-want) > 0.04 {
				t.Errorf("%q: P(Label(S,%s)) = %.4f, exact %.4f ± 0.04", evidence, l.name, res.True[l.i], want)
			}
		}
	}
}
