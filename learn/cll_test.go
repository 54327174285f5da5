package learn

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// exactSampler enumerates every world of fewest hard violations with its
// probability under the network's current weights.
type exactSampler struct{ net *ground.Network }

func (s exactSampler) Sample(_ context.Context, fn func(y []bool, p float64)) error {
	minHard, mx := math.MaxInt, math.Inf(-1)
	brute.Worlds(s.net.NumAtoms(), func(y []bool) {
		sc, h := s.net.Score(y)
		if h < minHard {
			minHard, mx = h, sc
		} else if h == minHard {
			mx = max(mx, sc)
		}
	})
	brute.Worlds(s.net.NumAtoms(), func(y []bool) {
		if sc, h := s.net.Score(y); h == minHard {
			fn(y, math.Exp(sc-mx))
		}
	})
	return nil
}

func exactSamplers(_ int, net *ground.Network) (WorldSampler, error) { return exactSampler{net}, nil }

// exactObjective returns −Σ_e log P_w(y_e | x_e) + prec·Σ w²/2 by
// enumeration.
func exactObjective(m *mln.Model, exs Examples, w []float64, prec float64) float64 {
	copy(m.Weights, w)
	f := 0.0
	for _, ex := range exs {
		ex.Net.SetWeights()
		s, _ := ex.Net.Score(ex.Truth)
		f -= s - brute.LogZ(ex.Net)
	}
	for _, x := range w {
		f += prec * x * x / 2
	}
	return f
}

// cllCase grounds random MLN seed and draws a gold world among those of
// fewest hard violations.
func cllCase(t *testing.T, r *rand.Rand, seed int64, cfg randmln.Config) (*mln.Model, *Example, bool) {
	t.Helper()
	c := randmln.GenerateConfig(seed, cfg)
	m, db, query, ow, err := c.Load()
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: query, OpenWorld: ow, Workers: 1})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	n := net.NumAtoms()
	if n == 0 || len(m.Weights) == 0 {
		return nil, nil, false
	}
	minHard := math.MaxInt
	var feasible [][]bool
	brute.Worlds(n, func(y []bool) {
		_, h := net.Score(y)
		if h < minHard {
			minHard, feasible = h, feasible[:0]
		}
		if h == minHard {
			feasible = append(feasible, slices.Clone(y))
		}
	})
	return m, &Example{Net: net, Truth: feasible[r.IntN(len(feasible))]}, true
}

// TestCLLGradientMatchesFiniteDifferences checks, on 60 random MLNs with
// exact expectations, the gradient of −CLL + prior against central finite
// differences of the exact conditional log-likelihood, and the Hessian
// products against finite differences of the gradient.
func TestCLLGradientMatchesFiniteDifferences(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(21, 22))
	checked := 0
	for seed := int64(0); checked < 60; seed++ {
		if seed > 300 {
			t.Fatalf("only %d cases", checked)
		}
		m, ex, ok := cllCase(t, r, seed, randmln.Config{MaxUnknown: 10})
		if !ok {
			continue
		}
		exs := Examples{ex}
		prec := 0.0
		if seed%2 == 0 {
			prec = 1 / 4.0
		}
		pb, err := newCLLProblem(ctx, m, exs, exactSamplers, 1, prec)
		if err != nil {
			t.Fatal(err)
		}
		np := pb.np
		w := make([]float64, np)
		for i := range w {
			w[i] = 3*r.Float64() - 1.5
		}
		if err := pb.sample(ctx, w, false); err != nil {
			t.Fatal(err)
		}
		g, v := make([]float64, np), make([]float64, np)
		pb.gradient(w, g, v)
		const h = 1e-5
		wp := slices.Clone(w)
		for i := range w {
			wp[i] = w[i] + h
			fp := exactObjective(m, exs, wp, prec)
			wp[i] = w[i] - h
			fm := exactObjective(m, exs, wp, prec)
			wp[i] = w[i]
			fd := (fp - fm) / (2 * h)
			if math.Abs(fd-g[i]) > 1e-6*(1+math.Abs(fd)) {
				t.Fatalf("seed %d: gradient[%d] %.10g, finite differences %.10g", seed, i, g[i], fd)
			}
		}
		// Hessian times a random direction.
		d := make([]float64, np)
		for i := range d {
			d[i] = r.NormFloat64()
		}
		hd := make([]float64, np)
		pb.hessVec(d, hd, true)
		// The diagonal is the variance.
		for i := range d {
			e := make([]float64, np)
			e[i] = 1
			he := make([]float64, np)
			pb.hessVec(e, he, true)
			if math.Abs(he[i]-v[i]) > 1e-9*(1+v[i]) {
				t.Fatalf("seed %d: H[%d,%d] %v, variance %v", seed, i, i, he[i], v[i])
			}
		}
		gp, gm := make([]float64, np), make([]float64, np)
		for k, out := range [][]float64{gp, gm} {
			sgn := 1.0 - 2*float64(k)
			for i := range wp {
				wp[i] = w[i] + sgn*h*d[i]
			}
			if err := pb.sample(ctx, wp, false); err != nil {
				t.Fatal(err)
			}
			pb.gradient(wp, out, nil)
		}
		for i := range hd {
			fd := (gp[i] - gm[i]) / (2 * h)
			if math.Abs(fd-hd[i]) > 1e-5*(1+math.Abs(fd)) {
				t.Fatalf("seed %d: (Hd)[%d] %.10g, finite differences %.10g", seed, i, hd[i], fd)
			}
		}
		checked++
	}
}

// exactGradNorm returns the largest entry of the exact gradient of
// −CLL + prior at the model's weights.
func exactGradNorm(t *testing.T, m *mln.Model, exs Examples, prec float64) float64 {
	pb, err := newCLLProblem(context.Background(), m, exs, exactSamplers, 1, prec)
	if err != nil {
		t.Fatal(err)
	}
	w := slices.Clone(m.Weights)
	if err := pb.sample(context.Background(), w, false); err != nil {
		t.Fatal(err)
	}
	g := make([]float64, pb.np)
	pb.gradient(w, g, nil)
	n := 0.0
	for _, x := range g {
		n = max(n, math.Abs(x))
	}
	return n
}

// TestDiscriminativeExactOptimum runs PSCG and diagonal Newton with exact
// expectations on random MLNs and checks that they reach a point where the
// exact gradient vanishes.
func TestDiscriminativeExactOptimum(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(31, 32))
	done := 0
	for seed := int64(400); done < 12; seed++ {
		if seed > 800 {
			t.Fatalf("only %d cases", done)
		}
		m, ex, ok := cllCase(t, r, seed, randmln.Config{MaxUnknown: 8})
		if !ok {
			continue
		}
		clear(m.Weights)
		if exactGradNorm(t, m, Examples{ex}, 1/4.0) == 0 {
			continue // already optimal at w = 0
		}
		// PSCG, diagonal Newton, and PSCG with Alchemy's Hessian of the
		// data term alone: the same optimum.
		for _, cf := range []struct{ newton, data bool }{{false, false}, {true, false}, {false, true}} {
			clear(m.Weights)
			st, err := Discriminative(ctx, m, Examples{ex}, DiscriminativeSettings{
				Sampler: exactSamplers, Newton: cf.newton, DataHessian: cf.data, MaxIter: 500, MinLLChange: 1e-13, Workers: 1, ZeroStart: true})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if st.Iterations == 0 {
				t.Fatalf("seed %d (%s): no step taken", seed, st.Method)
			}
			if gn := exactGradNorm(t, m, Examples{ex}, 1/4.0); gn > 1e-5 {
				t.Fatalf("seed %d (%s, data Hessian %v): exact gradient %g after %d iterations, %d backtracks, converged %v",
					seed, st.Method, cf.data, gn, st.Iterations, st.Backtracks, st.Converged)
			}
		}
		done++
	}
}

const smokersMLN = `
Friends(person, person)
Smokes(person)
Cancer(person)
Smokes(x) => Cancer(x)
Friends(x, y) => (Smokes(x) <=> Smokes(y))
Cancer(x)
`

// smokersExample grounds the smokers model against evidence (the Friends
// atoms) and returns the example with the truth of Smokes and Cancer.
func smokersExample(t *testing.T, m *mln.Model, evidence, truth string) *Example {
	t.Helper()
	ev, err := mln.ParseDatabase(m, "ev.db", evidence)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := mln.ParseDatabase(m, "truth.db", truth)
	if err != nil {
		t.Fatal(err)
	}
	sm, _ := m.Pred("Smokes")
	ca, _ := m.Pred("Cancer")
	net, err := ground.Ground(context.Background(), m, ev, ground.Options{Query: []mln.PredID{sm.ID, ca.ID}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return &Example{Net: net, Truth: net.Assignment(tr)}
}

// TestDiscriminativeMCSAT learns the smokers model from two small
// databases with MC-SAT and checks that the weights come near the exact
// optimum of the conditional log-likelihood (found with exact
// expectations), and that they do not depend on the number of workers.
func TestDiscriminativeMCSAT(t *testing.T) {
	ctx := context.Background()
	m, err := mln.ParseModel("smokers.mln", smokersMLN)
	if err != nil {
		t.Fatal(err)
	}
	evA := "Friends(A,B)\nFriends(B,A)\nFriends(B,C)\nFriends(C,B)\n"
	trA := "Smokes(A)\nSmokes(B)\nCancer(A)\nCancer(C)\n"
	evB := "Friends(D,E)\nFriends(E,D)\nFriends(E,F)\n"
	trB := "Smokes(D)\nSmokes(E)\nCancer(E)\n"
	// Load the constants first, then compile.
	for _, s := range []string{evA, trA, evB, trB} {
		if _, err := mln.ParseDatabase(m, "x.db", s); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	exs := Examples{smokersExample(t, m, evA, trA), smokersExample(t, m, evB, trB)}
	if got := CLLSamples(m); got != CLLSampleBudget/6 {
		t.Errorf("CLLSamples %d, want %d", got, CLLSampleBudget/6)
	}

	_, err = Discriminative(ctx, m, exs, DiscriminativeSettings{Sampler: exactSamplers, MaxIter: 500, MinLLChange: 1e-13})
	if err != nil {
		t.Fatal(err)
	}
	exact := slices.Clone(m.Weights)
	if gn := exactGradNorm(t, m, exs, 1/4.0); gn > 1e-6 {
		t.Fatalf("exact optimum: gradient %g", gn)
	}
	// Without and with star moves (each Smokes atom a hub, its friends'
	// Smokes atoms its leaves), and with the automatic rule, which finds
	// no hub heavy enough here and so learns what no star moves learn.
	var plain []float64
	for _, mode := range []string{"none", "all", "auto"} {
		stars, auto := mode == "all", mode == "auto"
		var got [][]float64
		for _, workers := range []int{1, 2} {
			clear(m.Weights)
			st, err := Discriminative(ctx, m, exs, DiscriminativeSettings{Samples: 500, Seed: 7, Workers: workers, Stars: stars, AutoStars: auto})
			if err != nil {
				t.Fatal(err)
			}
			if st.Samples != 500 || st.Iterations == 0 {
				t.Fatalf("stats %+v", st)
			}
			got = append(got, slices.Clone(m.Weights))
		}
		if !slices.Equal(got[0], got[1]) {
			t.Fatalf("stars %s: weights depend on workers: %v, %v", mode, got[0], got[1])
		}
		for i, x := range got[0] {
			if math.Abs(x-exact[i]) > 0.2+0.1*math.Abs(exact[i]) {
				t.Errorf("stars %s: weight %d: MC-SAT %.3f, exact optimum %.3f (all: %v vs %v)", mode, i, x, exact[i], got[0], exact)
			}
		}
		t.Logf("stars %v: MC-SAT %v, exact %v", mode, got[0], exact)
		switch mode {
		case "none":
			plain = got[0]
		case "auto":
			if !slices.Equal(got[0], plain) {
				t.Errorf("automatic star moves: %v, without star moves %v", got[0], plain)
			}
		}
	}
}

// TestDiscriminativeAdaptiveConverges learns the smokers model with
// MC-SAT and the adaptive schedule, by PSCG and by diagonal Newton: each
// must stop converged (the gradient within the noise of the largest
// sample) well before MaxIter, near the exact optimum; with exact
// expectations the schedule has nothing to grow and stops at a vanishing
// gradient.
func TestDiscriminativeAdaptiveConverges(t *testing.T) {
	ctx := context.Background()
	m, err := mln.ParseModel("smokers.mln", smokersMLN)
	if err != nil {
		t.Fatal(err)
	}
	evA := "Friends(A,B)\nFriends(B,A)\nFriends(B,C)\nFriends(C,B)\n"
	trA := "Smokes(A)\nSmokes(B)\nCancer(A)\nCancer(C)\n"
	evB := "Friends(D,E)\nFriends(E,D)\nFriends(E,F)\n"
	trB := "Smokes(D)\nSmokes(E)\nCancer(E)\n"
	for _, s := range []string{evA, trA, evB, trB} {
		if _, err := mln.ParseDatabase(m, "x.db", s); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	exs := Examples{smokersExample(t, m, evA, trA), smokersExample(t, m, evB, trB)}
	st, err := Discriminative(ctx, m, exs, DiscriminativeSettings{Sampler: exactSamplers, Adaptive: true, MaxIter: 500, MinLLChange: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Converged || st.GradNorm > adaptiveGradTol {
		t.Fatalf("exact expectations: %+v", st)
	}
	exact := slices.Clone(m.Weights)
	for _, newton := range []bool{false, true} {
		clear(m.Weights)
		st, err := Discriminative(ctx, m, exs, DiscriminativeSettings{
			Adaptive: true, Samples: 50, MaxSamples: 1600, MaxIter: 200, MinLLChange: -1, Newton: newton, Seed: 3, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !st.Converged || st.Samples != 1600 || st.Noise > math.Sqrt(2*math.Log(6))+1 {
			t.Fatalf("%s: not converged: %+v", st.Method, st)
		}
		for i, x := range m.Weights {
			if math.Abs(x-exact[i]) > 0.2+0.1*math.Abs(exact[i]) {
				t.Errorf("%s: weight %d: %.3f, exact optimum %.3f", st.Method, i, x, exact[i])
			}
		}
		t.Logf("%s: %d iterations, %d rounds, %d backtracks, noise %.2f: %v (exact %v)", st.Method, st.Iterations, st.Rounds, st.Backtracks, st.Noise, m.Weights, exact)
	}
}

// TestAggregateWithinNoise checks the aggregate noise test of the
// adaptive schedule: gradient entries that are pure noise (each a Student
// t variable, its standard error from 9 degrees of freedom) pass in
// nearly every draw, entries of 1.5 standard errors of true gradient do
// not, and too few entries or degrees of freedom never pass.
func TestAggregateWithinNoise(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const nu, P, draws = 9, 300, 400
	tdraw := func() float64 { // Student t with nu degrees of freedom
		chi := 0.0
		for range nu {
			x := r.NormFloat64()
			chi += x * x
		}
		return r.NormFloat64() / math.Sqrt(chi/nu)
	}
	noisePass, signalPass := 0, 0
	for range draws {
		var noise, signal float64
		for range P {
			x := tdraw()
			noise += x * x
			y := x + 1.5
			signal += y * y
		}
		if aggregateWithinNoise(noise, P, nu) {
			noisePass++
		}
		if aggregateWithinNoise(signal, P, nu) {
			signalPass++
		}
	}
	if noisePass < draws*95/100 || signalPass > 0 {
		t.Errorf("noise passed %d of %d draws, signal %d", noisePass, draws, signalPass)
	}
	if aggregateWithinNoise(0, aggregateMinEntries-1, nu) || aggregateWithinNoise(0, P, 4) {
		t.Error("passed with too few entries or degrees of freedom")
	}
}
