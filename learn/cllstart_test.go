package learn

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// TestIndependentStartExact checks the independent start on random MLNs
// against enumeration: the parameters of formulas that link two unknown
// atoms start at 0, and the exact gradient of −CLL + prior (with those
// held at 0) vanishes in every other parameter. When no formula links
// atoms, the start is the exact optimum, and Discriminative with exact
// expectations takes no step away from it.
func TestIndependentStartExact(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(41, 42))
	checked, independent := 0, 0
	for seed := int64(1000); checked < 25; seed++ {
		if seed > 1600 {
			t.Fatalf("only %d cases", checked)
		}
		m, ex, ok := cllCase(t, r, seed, randmln.Config{MaxUnknown: 8})
		if !ok {
			continue
		}
		const prec = 1 / 4.0
		pb, err := newCLLProblem(ctx, m, Examples{ex}, exactSamplers, 1, prec)
		if err != nil {
			t.Fatal(err)
		}
		w := make([]float64, pb.np)
		info, err := pb.independentStart(ctx, w)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if info.Atoms != ex.Net.NumAtoms() {
			continue // hard clauses: atoms left out, the start is approximate
		}
		// The joint parameters: a ground clause with two or more atoms.
		joint := make([]bool, pb.np)
		for c := 0; c < ex.Net.NumClauses(); c++ {
			p := ex.Net.Param(c)
			atoms := map[int32]bool{}
			for _, l := range ex.Net.Clause(c) {
				atoms[l.Atom()] = true
			}
			if p >= 0 && len(atoms) > 1 {
				joint[p] = true
			}
		}
		nj := 0
		for p, j := range joint {
			if j {
				nj++
				if w[p] != 0 {
					t.Fatalf("seed %d: joint parameter %d starts at %g", seed, p, w[p])
				}
			}
		}
		if nj != info.Joint {
			t.Fatalf("seed %d: %d joint parameters, start reports %d", seed, nj, info.Joint)
		}
		if err := pb.sample(ctx, w, false); err != nil {
			t.Fatal(err)
		}
		g := make([]float64, pb.np)
		pb.gradient(w, g, nil)
		for p, x := range g {
			if !joint[p] && math.Abs(x) > 1e-5 {
				t.Fatalf("seed %d: exact gradient[%d] = %g at the start %v (joint %v)", seed, p, x, w, joint)
			}
		}
		// Its CLL is the exact one.
		if want := -exactObjective(m, Examples{ex}, w, 0); math.Abs(info.CLL-want) > 1e-6*(1+math.Abs(want)) && nj == 0 {
			t.Fatalf("seed %d: start CLL %g, exact %g", seed, info.CLL, want)
		}
		if nj == 0 {
			independent++
			clear(m.Weights)
			st, err := Discriminative(ctx, m, Examples{ex}, DiscriminativeSettings{Sampler: exactSamplers, MaxIter: 50, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !st.Converged || st.Start == nil {
				t.Fatalf("seed %d: from the exact optimum: %+v", seed, st)
			}
			for p := range w {
				if math.Abs(m.Weights[p]-w[p]) > 1e-4 {
					t.Fatalf("seed %d: moved from the optimum: %v, start %v", seed, m.Weights, w)
				}
			}
		}
		checked++
	}
	if independent == 0 {
		t.Fatal("no case without joint formulas")
	}
	t.Logf("%d cases, %d without joint formulas", checked, independent)
}

// TestStartWorldsFollowStart checks that the chains start from worlds
// drawn from the independent start: over many draws each atom is true
// about as often as its start probability says.
func TestStartWorldsFollowStart(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(43, 44))
	for seed := int64(1000); ; seed++ {
		if seed > 1300 {
			t.Fatal("no case with an uncertain atom")
		}
		m, ex, ok := cllCase(t, r, seed, randmln.Config{MaxUnknown: 8})
		if !ok {
			continue
		}
		pb, err := newCLLProblem(ctx, m, Examples{ex}, MCSATSamplers(1, mcsat.Options{}), 1, 1/4.0)
		if err != nil {
			continue // no world satisfies the hard clauses
		}
		w := make([]float64, pb.np)
		if _, err := pb.independentStart(ctx, w); err != nil {
			t.Fatal(err)
		}
		e := pb.exs[0]
		if e.startP == nil || !slices.ContainsFunc(e.startP, func(p float64) bool { return p > 0.05 && p < 0.95 }) {
			continue
		}
		const n = 4000
		freq := make([]float64, len(e.startP))
		for k := 0; k < n; k++ {
			pb.startWorlds(int64(k))
			y := e.sampler.(*chainSampler).ch.World()
			for a, v := range y {
				if v {
					freq[a]++
				}
			}
		}
		for a, p := range e.startP {
			if p < 0 {
				continue
			}
			if f := freq[a] / n; math.Abs(f-p) > 4*math.Sqrt(p*(1-p)/n)+1e-9 {
				t.Fatalf("seed %d: atom %d true in %.3f of the start worlds, start probability %.3f", seed, a, f, p)
			}
		}
		return
	}
}

// TestTunePriorHeldOut checks the prior chosen by TunePrior against
// enumeration: on two databases of a model without joint formulas, each
// σ's held-out conditional log-likelihood is computed by fitting one
// database exactly (Discriminative with exact expectations from zero) and
// scoring the other by enumeration; the start must choose the best σ and
// report its held-out CLL.
func TestTunePriorHeldOut(t *testing.T) {
	ctx := context.Background()
	const src = `
Smokes(person)
Cancer(person)
Smokes(x) => Cancer(x)
Cancer(+x)
Cancer(x)
`
	m, err := mln.ParseModel("sc.mln", src)
	if err != nil {
		t.Fatal(err)
	}
	evA := "Smokes(A)\nSmokes(B)\n"
	trA := "Cancer(A)\nCancer(B)\n"
	evB := "Smokes(A)\nSmokes(C)\nSmokes(D)\n"
	trB := "Cancer(A)\nCancer(C)\nCancer(D)\n"
	for _, s := range []string{evA, trA, evB, trB, "Smokes(D)\n"} {
		if _, err := mln.ParseDatabase(m, "x.db", s); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	ca, _ := m.Pred("Cancer")
	example := func(ev, tr string) *Example {
		e, err := mln.ParseDatabase(m, "ev.db", ev)
		if err != nil {
			t.Fatal(err)
		}
		d, err := mln.ParseDatabase(m, "tr.db", tr)
		if err != nil {
			t.Fatal(err)
		}
		net, err := ground.Ground(ctx, m, e, ground.Options{Query: []mln.PredID{ca.ID}, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		return &Example{Net: net, Truth: net.Assignment(d)}
	}
	exs := Examples{example(evA, trA), example(evB, trB)}
	bestSD, best := 0.0, math.Inf(-1)
	for _, sd := range TunedPriorStdDevs {
		held := 0.0
		for k := range exs {
			clear(m.Weights)
			if _, err := Discriminative(ctx, m, Examples{exs[1-k]}, DiscriminativeSettings{
				Sampler: exactSamplers, PriorStdDev: sd, ZeroStart: true, MaxIter: 1000, MinLLChange: 1e-14, Workers: 1}); err != nil {
				t.Fatal(err)
			}
			held -= exactObjective(m, Examples{exs[k]}, slices.Clone(m.Weights), 0)
		}
		t.Logf("σ %g: held-out CLL %.6f", sd, held)
		if held > best {
			bestSD, best = sd, held
		}
	}
	clear(m.Weights)
	st, err := Discriminative(ctx, m, exs, DiscriminativeSettings{Sampler: exactSamplers, TunePrior: true, MaxIter: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if bestSD == TunedPriorStdDevs[0] || bestSD == TunedPriorStdDevs[len(TunedPriorStdDevs)-1] {
		t.Fatalf("the best σ %g is at an end of the grid: the case does not test the choice", bestSD)
	}
	if st.Start == nil || st.Start.PriorStdDev != bestSD || math.Abs(st.Start.HeldOutCLL-best) > 1e-5*(1+math.Abs(best)) {
		t.Fatalf("start %+v, want σ %g with held-out CLL %.6f", st.Start, bestSD, best)
	}
}

// TestGroupedRowsObjective checks that merging the independent start's
// identical rows keeps the objective and its gradient: against the sum of
// −log P(truth) over the rows one by one.
func TestGroupedRowsObjective(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 4
	var rows []startRow
	for i := range 200 {
		row := startRow{ex: r.IntN(2), atom: int32(i), off: float64(r.IntN(2)) - 0.5, truth: r.IntN(3) == 0}
		for c := range int32(n) {
			if r.IntN(2) == 0 {
				row.cols = append(row.cols, c)
				row.vals = append(row.vals, 1.5)
			}
		}
		rows = append(rows, row)
	}
	groups := groupRows(rows)
	if len(groups) >= len(rows)/2 {
		t.Fatalf("%d groups of %d rows: the case has too few repeats", len(groups), len(rows))
	}
	x := []float64{0.3, -1.2, 2.5, -0.1}
	const prec = 0.5
	g := make([]float64, n)
	f := rowsObjective(groups, x, g, prec)
	wantF := 0.0
	wantG := make([]float64, n)
	for k := range x {
		wantF += prec * x[k] * x[k] / 2
		wantG[k] = prec * x[k]
	}
	for _, row := range rows {
		z := row.off
		for k, c := range row.cols {
			z += row.vals[k] * x[c]
		}
		p := 1 / (1 + math.Exp(-z))
		t := 0.0
		if row.truth {
			t = 1
			wantF -= math.Log(p)
		} else {
			wantF -= math.Log(1 - p)
		}
		for k, c := range row.cols {
			wantG[c] += (p - t) * row.vals[k]
		}
	}
	if math.Abs(f-wantF) > 1e-9*math.Abs(wantF) {
		t.Errorf("objective %v, row by row %v", f, wantF)
	}
	for k := range g {
		if math.Abs(g[k]-wantG[k]) > 1e-9*(1+math.Abs(wantG[k])) {
			t.Errorf("gradient %d: %v, row by row %v", k, g[k], wantG[k])
		}
	}
}
