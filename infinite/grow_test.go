package infinite

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/mln"
)

const boundedSmokers = smokersHead + `-0.5 Smokes(x)
0.5 Smokes(x) => Cancer(x)
0.4 Friends(x, y) => (Smokes(x) <=> Smokes(y))
`

func loader(src string) func() (*mln.Model, error) {
	return func() (*mln.Model, error) { return mln.ParseModel("m.mln", src) }
}

func engine(t *testing.T, name string, samples int) infer.Marginal {
	t.Helper()
	s := engines.DefaultSettings()
	s.Samples = samples
	s.Workers = 1
	e, err := engines.NewMarginal(name, s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestExtrapolate(t *testing.T) {
	// L + c/n at doubling sizes: changes shrink by half, and Aitken's
	// extrapolation is exact.
	var seq []float64
	for _, n := range []float64{10, 20, 40, 80} {
		seq = append(seq, 0.3+0.5/n)
	}
	e := Extrapolate(seq, 0.01)
	if e.Method != "aitken" || math.Abs(e.Value-0.3) > 1e-12 || !e.Converged {
		t.Errorf("c/n: %+v, want 0.3 by aitken, converged", e)
	}
	// A geometric sequence: exact too.
	e = Extrapolate([]float64{0.5, 0.6, 0.65, 0.675}, 0.05)
	if math.Abs(e.Value-0.7) > 1e-12 || !e.Converged {
		t.Errorf("geometric: %+v, want 0.7, converged", e)
	}
	// Changes that do not shrink: the last value, not converged.
	e = Extrapolate([]float64{0.2, 0.4, 0.1}, 0.01)
	if e.Method != "last" || e.Value != 0.1 || e.Converged {
		t.Errorf("oscillating: %+v", e)
	}
	// One value: not converged.
	if e := Extrapolate([]float64{0.4}, 0.01); e.Converged || e.Value != 0.4 {
		t.Errorf("one value: %+v", e)
	}
}

// ringLimit is the exact marginal of Smokes and Cancer in the infinite
// friendship ring of boundedSmokers, by the transfer matrix: with Cancer
// summed out, site weights phi(s) = exp(-0.5 s) (2 e^0.5 for s = 0,
// 1 + e^0.5 for s = 1), bond weights e^0.4 for equal neighbours and e^0.2
// for different ones; P(s) is the square of the leading eigenvector of the
// symmetric matrix sqrt(phi(s)) psi(s,s') sqrt(phi(s')).
func ringLimit() (smokes, cancer float64) {
	e := math.Exp
	phi := [2]float64{2 * e(0.5), e(-0.5) * (1 + e(0.5))}
	psi := [2][2]float64{{e(0.4), e(0.2)}, {e(0.2), e(0.4)}}
	var T [2][2]float64
	for i := range 2 {
		for j := range 2 {
			T[i][j] = math.Sqrt(phi[i]) * psi[i][j] * math.Sqrt(phi[j])
		}
	}
	v := [2]float64{1, 1}
	for range 200 { // power iteration
		w := [2]float64{T[0][0]*v[0] + T[0][1]*v[1], T[1][0]*v[0] + T[1][1]*v[1]}
		n := math.Hypot(w[0], w[1])
		v = [2]float64{w[0] / n, w[1] / n}
	}
	smokes = v[1] * v[1]
	cancer = (1-smokes)*0.5 + smokes*e(0.5)/(1+e(0.5))
	return smokes, cancer
}

// enumerate returns the exact mean marginal of pred's atoms of net by
// enumerating every world.
func enumerate(net *ground.Network, pred mln.PredID) float64 {
	n := net.NumAtoms()
	var z float64
	p := make([]float64, n)
	y := make([]bool, n)
	for w := 0; w < 1<<n; w++ {
		for a := range n {
			y[a] = w>>a&1 == 1
		}
		s, hard := net.Score(y)
		if hard > 0 {
			continue
		}
		wt := math.Exp(s)
		z += wt
		for a := range n {
			if y[a] {
				p[a] += wt
			}
		}
	}
	sum, cnt := 0.0, 0
	for a := range n {
		if net.AtomPred[a] == pred {
			sum += p[a] / z
			cnt++
		}
	}
	return sum / float64(cnt)
}

// Friends and smokers on a friendship ring of degree 1 (locally finite,
// uniqueness holds: see TestVerdicts) has a limit: Grow reports it, and
// it agrees with the transfer matrix's exact limit. The smallest
// instance's marginals agree with enumeration.
func TestGrowBoundedSmokers(t *testing.T) {
	opt := GrowOptions{
		Load:   loader(boundedSmokers),
		Graphs: []Graph{{Pred: "Friends", Kind: "ring", K: 1}},
		Sizes:  []int{5, 10, 20, 40},
		Engine: engine(t, "mcsat", 2000),
		Seed:   1,
	}
	res, err := Grow(t.Context(), opt)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	res.Write(&out)
	t.Log("\n" + out.String())
	if res.Verdict != VerdictLimit || len(res.Boundaries) != 1 || res.Boundaries[0] != BoundaryFree {
		t.Fatalf("verdict %q, boundaries %v", res.Verdict, res.Boundaries)
	}
	if !strings.Contains(out.String(), "limit: P(Smokes) = ") {
		t.Errorf("no limit printed:\n%s", out.String())
	}
	s, c := ringLimit()
	t.Logf("transfer matrix: P(Smokes) = %.4f, P(Cancer) = %.4f", s, c)
	if math.Abs(res.Limit[0]-s) > 0.02 || math.Abs(res.Limit[1]-c) > 0.02 {
		t.Errorf("limit %v, exact %v %v", res.Limit, s, c)
	}
	// Size 5: 10 atoms, marginals enumerated by the engine; check them.
	in, err := build(&opt, 5, 1, BoundaryFree)
	if err != nil {
		t.Fatal(err)
	}
	net, err := ground.Ground(t.Context(), in.m, in.db, ground.Options{Query: in.query})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range in.query {
		if want := enumerate(net, p); math.Abs(res.Points[0][0].Mean[i]-want) > 1e-9 {
			t.Errorf("size 5, %s: %v, enumeration %v", res.Preds[i], res.Points[0][0].Mean[i], want)
		}
	}
}

// With the exact engine first, every size of the bounded ring is counted
// exactly, and the limit is the transfer matrix's to 1e-9.
func TestGrowExact(t *testing.T) {
	res, err := Grow(t.Context(), GrowOptions{
		Load:   loader(boundedSmokers),
		Graphs: []Graph{{Pred: "Friends", Kind: "ring", K: 1}},
		Sizes:  []int{10, 20, 40},
		Engine: engine(t, "mcsat", 100),
		Exact:  engine(t, "wmc", 0),
	})
	if err != nil {
		t.Fatal(err)
	}
	sm, c := ringLimit()
	if res.Verdict != VerdictLimit || math.Abs(res.Limit[0]-sm) > 1e-9 || math.Abs(res.Limit[1]-c) > 1e-9 {
		t.Errorf("verdict %q, limit %v, exact %v %v", res.Verdict, res.Limit, sm, c)
	}
	for _, pt := range res.Points[0] {
		if !pt.Exact || pt.Method != "wmc" {
			t.Errorf("size %d: exact %v, method %q", pt.Size, pt.Exact, pt.Method)
		}
	}
}

// An exact engine out of reach hands the instance to the sampler, says so,
// and is not tried again at larger sizes.
func TestGrowExactFallback(t *testing.T) {
	s := engines.DefaultSettings()
	s.WMCMaxNodes, s.WMCMaxWork = 20, 100 // out of reach for search and for variable elimination
	ex, err := engines.NewMarginal("wmc", s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Grow(t.Context(), GrowOptions{
		Load:   loader("Spin(row, col)\n3 Spin(x, y) <=> Spin(x+1, y)\n3 Spin(x, y) <=> Spin(x, y+1)\n"),
		Sizes:  []int{4, 6, 8},
		Engine: engine(t, "gibbs", 200),
		Exact:  ex,
	})
	if err != nil {
		t.Fatal(err)
	}
	fell := 0
	for _, pts := range res.Points {
		for _, pt := range pts {
			if pt.Exact {
				continue
			}
			if strings.HasSuffix(pt.Method, "after wmc out of reach") {
				fell++
				if !strings.Contains(pt.Engine, "out of reach") {
					t.Errorf("size %d: the run's line does not say so: %q", pt.Size, pt.Engine)
				}
			} else if pt.Method != "gibbs" {
				t.Errorf("size %d: method %q", pt.Size, pt.Method)
			}
		}
	}
	if fell != 1 {
		t.Errorf("%d runs fell back, want 1 (the first out of reach; the later ones go to gibbs directly)", fell)
	}
}

// Lazy MC-SAT reaches the same limit (one chain, a looser tolerance).
func TestGrowLazy(t *testing.T) {
	s := engines.DefaultSettings()
	s.Samples = 2000
	lz, err := engines.NewLazy("lazy-mcsat", s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Grow(t.Context(), GrowOptions{
		Load:      loader(boundedSmokers),
		Graphs:    []Graph{{Pred: "Friends", Kind: "ring", K: 1}},
		Sizes:     []int{10, 20, 40, 80},
		Lazy:      lz,
		Seed:      1,
		Tolerance: 0.02,
	})
	if err != nil {
		t.Fatal(err)
	}
	sm, c := ringLimit()
	if res.Verdict != VerdictLimit || math.Abs(res.Limit[0]-sm) > 0.03 || math.Abs(res.Limit[1]-c) > 0.03 {
		t.Errorf("verdict %q, limit %v, exact %v %v", res.Verdict, res.Limit, sm, c)
	}
}

// Grow refuses the model with random friendship, naming the formula.
func TestGrowRefusesUnbounded(t *testing.T) {
	_, err := Grow(t.Context(), GrowOptions{
		Load:   loader(smokersHead + "0.5 Smokes(x) => Cancer(x)\n0.4 Friends(x, y) => (Smokes(x) <=> Smokes(y))\n"),
		Sizes:  []int{4, 8},
		Engine: engine(t, "mcsat", 100),
	})
	var ref *RefusedError
	if !errors.As(err, &ref) {
		t.Fatalf("err %v, want a refusal", err)
	}
	for _, want := range []string{"not locally finite", "m.mln:6:1", "Smokes(x)", "bounded when Friends is evidence"} {
		if !strings.Contains(ref.Reason, want) {
			t.Errorf("reason lacks %q:\n%s", want, ref.Reason)
		}
	}
}

// The strongly coupled square-lattice Ising model fails the uniqueness
// condition (TestVerdicts); with all-true and all-false boundaries the
// lattice orders into opposite phases, and Grow reports a phase
// transition. At the coupling J = 0.75 the exact spontaneous
// magnetisation is m = (1 - sinh(2J)^-4)^(1/8) = 0.9938, P(Spin) =
// (1 +- m)/2 = 0.9969 or 0.0031.
func TestGrowPhaseTransition(t *testing.T) {
	res, err := Grow(t.Context(), GrowOptions{
		Load:   loader("Spin(row, col)\n3 Spin(x, y) <=> Spin(x+1, y)\n3 Spin(x, y) <=> Spin(x, y+1)\n"),
		Sizes:  []int{4, 6, 8},
		Engine: engine(t, "gibbs", 500),
		Seed:   1,
	})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	res.Write(&out)
	t.Log("\n" + out.String())
	if res.Verdict != VerdictPhaseTransition {
		t.Fatalf("verdict %q, want a phase transition", res.Verdict)
	}
	m := math.Pow(1-math.Pow(math.Sinh(1.5), -4), 0.125)
	if math.Abs(res.Limits[0][0].Value-(1+m)/2) > 0.02 || math.Abs(res.Limits[1][0].Value-(1-m)/2) > 0.02 {
		t.Errorf("limits %v %v, want about %v %v", res.Limits[0][0].Value, res.Limits[1][0].Value, (1+m)/2, (1-m)/2)
	}
}

// Bad growth settings are errors, not verdicts.
func TestGrowErrors(t *testing.T) {
	base := GrowOptions{Load: loader(boundedSmokers), Graphs: []Graph{{Pred: "Friends", Kind: "ring", K: 1}}, Sizes: []int{4, 8}, Engine: engine(t, "mcsat", 10)}
	for _, tc := range []struct {
		name string
		edit func(*GrowOptions)
		want string
	}{
		{"decreasing sizes", func(o *GrowOptions) { o.Sizes = []int{8, 4} }, "increasing"},
		{"graph random", func(o *GrowOptions) { o.Query = []string{"Friends", "Smokes"} }, "cannot be random"},
		{"unknown graph predicate", func(o *GrowOptions) { o.Graphs = []Graph{{Pred: "Knows", Kind: "ring", K: 1}} }, `unknown predicate "Knows"`},
		{"unary graph predicate", func(o *GrowOptions) { o.Graphs = []Graph{{Pred: "Smokes", Kind: "ring", K: 1}} }, "two arguments"},
		{"unknown boundary", func(o *GrowOptions) { o.Boundary = "up" }, "unknown boundary"},
		{"named constant", func(o *GrowOptions) { o.Load = loader(boundedSmokers + "1 Smokes(Anna)\n") }, "type person has constants in the model"},
		{"no engine", func(o *GrowOptions) { o.Engine = nil }, "give one of Engine and Lazy"},
	} {
		o := base
		tc.edit(&o)
		if _, err := Grow(t.Context(), o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestParseGraphs(t *testing.T) {
	gs, err := ParseGraphs("Friends=ring:2, Knows=chain:1:sym")
	if err != nil || len(gs) != 2 || gs[0].String() != "Friends=ring:2" || gs[1].String() != "Knows=chain:1:sym" {
		t.Errorf("%v %v", gs, err)
	}
	for _, bad := range []string{"Friends", "Friends=ring", "Friends=grid:1", "Friends=ring:0", "Friends=ring:1:x"} {
		if _, err := ParseGraphs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
