package lp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"gonum.org/v1/gonum/mat"
	gonumlp "gonum.org/v1/gonum/optimize/convex/lp"
)

// genOpts shape a random network.
type genOpts struct {
	maxAtoms, maxClauses, maxLen int
	hardFrac                     float64
	dupes                        bool // allow repeated atoms in a clause
}

// randNet returns a random network (distinct atoms per clause unless
// g.dupes) and a random bias (nil half of the time).
func randNet(rng *rand.Rand, g genOpts) (*ground.Network, []float64) {
	n := 1 + rng.IntN(g.maxAtoms)
	net := ground.NewNetwork(n)
	net.ConstScore = math.Round(rng.NormFloat64()*10) / 4
	m := 1 + rng.IntN(g.maxClauses)
	for c := 0; c < m; c++ {
		k := 1 + rng.IntN(min(g.maxLen, n))
		var lits []ground.Lit
		if g.dupes {
			for range k {
				lits = append(lits, ground.MakeLit(int32(rng.IntN(n)), rng.IntN(2) == 0))
			}
		} else {
			for _, a := range rng.Perm(n)[:k] {
				lits = append(lits, ground.MakeLit(int32(a), rng.IntN(2) == 0))
			}
		}
		w := math.Inf(1)
		if rng.Float64() >= g.hardFrac {
			w = math.Round(rng.NormFloat64()*150) / 100
			if w == 0 {
				w = 0.5
			}
		}
		net.AddClause(lits, w, -1, -1, 1)
	}
	var bias []float64
	if rng.IntN(2) == 0 {
		bias = make([]float64, n)
		for a := range bias {
			if rng.IntN(2) == 0 {
				bias[a] = math.Round(rng.NormFloat64()*100) / 100
			}
		}
	}
	return net, bias
}

// bruteForce returns the least biased cost of an assignment satisfying the
// hard clauses (+Inf if none) and the largest biased score.
func bruteForce(net *ground.Network, bias []float64) (cost, score float64) {
	n := net.NumAtoms()
	y := make([]bool, n)
	cost, score = math.Inf(1), math.Inf(-1)
	for mask := 0; mask < 1<<n; mask++ {
		for a := range y {
			y[a] = mask>>a&1 == 1
		}
		c, h := infer.BiasedCost(net, bias, y)
		if h > 0 {
			continue
		}
		s, _ := net.Score(y)
		for a, b := range bias {
			if y[a] {
				s += b
			}
		}
		cost = math.Min(cost, c)
		score = math.Max(score, s)
	}
	return cost, score
}

// scoreOffset is ConstScore plus the positive soft weights: biased score =
// scoreOffset − biased cost.
func scoreOffset(net *ground.Network) float64 {
	o := net.ConstScore
	for c := range net.NumClauses() {
		if w := net.Weight(c); w > 0 && !net.IsHard(c) {
			o += w
		}
	}
	return o
}

// simplexLP builds the ILP of Huynh & Mooney literally (y per atom, z per
// non-unit soft clause, unit clauses and bias as linear terms in y),
// relaxes it and solves it with gonum's dense simplex. It returns the LP
// maximum in score units (ConstScore and constants included) and ok=false
// if the LP is infeasible. Clauses must not repeat an atom.
func simplexLP(t *testing.T, net *ground.Network, bias []float64) (float64, bool) {
	n := net.NumAtoms()
	type row struct {
		coef map[int]float64
		rhs  float64
	}
	var rows []row // coef·x ≥ rhs
	nv := n
	obj := map[int]float64{} // maximise
	constant := net.ConstScore
	for a, b := range bias {
		obj[a] += b
	}
	lit := func(r *row, l ground.Lit, sign float64) { // add sign·u(l)
		if l.Neg() {
			r.rhs -= sign
			r.coef[int(l.Atom())] -= sign
		} else {
			r.coef[int(l.Atom())] += sign
		}
	}
	for c := range net.NumClauses() {
		lits := net.Clause(c)
		w := net.Weight(c)
		switch {
		case net.IsHard(c):
			r := row{coef: map[int]float64{}, rhs: 1}
			for _, l := range lits {
				lit(&r, l, 1)
			}
			rows = append(rows, r)
		case len(lits) == 1:
			l := lits[0]
			a := int(l.Atom())
			// w>0: w·u; w<0: w·(1 − (1−u))... score w·[sat] = w·u.
			if l.Neg() {
				constant += w
				obj[a] -= w
			} else {
				obj[a] += w
			}
		case w > 0:
			zj := nv
			nv++
			obj[zj] = w
			r := row{coef: map[int]float64{zj: -1}}
			for _, l := range lits {
				lit(&r, l, 1)
			}
			rows = append(rows, r)
		default: // w < 0: score w + |w|·z, z ≤ 1 − u(l)
			zj := nv
			nv++
			constant += w
			obj[zj] = -w
			for _, l := range lits {
				r := row{coef: map[int]float64{zj: -1}, rhs: -1}
				lit(&r, l, -1)
				rows = append(rows, r)
			}
		}
	}
	// Standard form: variables x (nv), slack per ≥ row, slack per bound.
	nr := len(rows) + nv
	nc := nv + len(rows) + nv
	A := mat.NewDense(nr, nc, nil)
	b := make([]float64, nr)
	cvec := make([]float64, nc)
	for v, w := range obj {
		cvec[v] = -w
	}
	for i, r := range rows {
		for v, w := range r.coef {
			A.Set(i, v, w)
		}
		A.Set(i, nv+i, -1)
		b[i] = r.rhs
	}
	for v := range nv {
		i := len(rows) + v
		A.Set(i, v, 1)
		A.Set(i, nv+len(rows)+v, 1)
		b[i] = 1
	}
	for i := range nr { // non-negative right-hand sides
		if b[i] < 0 {
			b[i] = -b[i]
			for j := range nc {
				A.Set(i, j, -A.At(i, j))
			}
		}
	}
	opt, _, err := gonumlp.Simplex(cvec, A, b, 1e-10, nil)
	if err == gonumlp.ErrInfeasible {
		return 0, false
	}
	if err != nil {
		t.Fatalf("simplex: %v", err)
	}
	return constant - opt, true
}

// checkResult checks what must hold for any instance: bound and score
// conversions, the result's cost, and the bound against brute force. It
// returns the exact optimum cost (+Inf if no assignment meets the hard
// clauses).
func checkResult(t *testing.T, name string, net *ground.Network, bias []float64, res *infer.Result, st *Stats) float64 {
	t.Helper()
	exactCost, exactScore := bruteForce(net, bias)
	off := scoreOffset(net)
	if d := st.LPValue - (off - st.LPBound); math.Abs(d) > 1e-9*math.Max(1, math.Abs(off)) {
		t.Fatalf("%s: LPValue %v inconsistent with LPBound %v", name, st.LPValue, st.LPBound)
	}
	if st.Infeasible != math.IsInf(res.Bound, 1) || (!st.Infeasible && res.Bound != st.LPBound) || res.Cost != st.RoundedCost {
		t.Fatalf("%s: Result (%v, %v) and Stats (%v, %v) disagree", name, res.Bound, res.Cost, st.LPBound, st.RoundedCost)
	}
	if c, h := infer.BiasedCost(net, bias, res.Assign); c != res.Cost || h != res.HardViolated {
		t.Fatalf("%s: result cost %v/%d, recomputed %v/%d", name, res.Cost, res.HardViolated, c, h)
	}
	if math.IsInf(exactCost, 1) {
		if res.Optimal || res.HardViolated == 0 {
			t.Fatalf("%s: no feasible assignment, yet result %+v", name, res)
		}
		return exactCost
	}
	if math.Abs((off-exactCost)-exactScore) > 1e-9 {
		t.Fatalf("%s: score/cost conversion: %v vs %v", name, off-exactCost, exactScore)
	}
	// LP value >= exact optimum >= rounded value, in score terms.
	if res.Bound > exactCost+1e-7 || st.LPValue < exactScore-1e-7 {
		t.Fatalf("%s: bound %v (score %v) beats exact optimum %v (score %v)",
			name, res.Bound, st.LPValue, exactCost, exactScore)
	}
	if res.HardViolated == 0 && res.Cost < exactCost-1e-9 {
		t.Fatalf("%s: rounded cost %v below optimum %v", name, res.Cost, exactCost)
	}
	if res.Optimal && (res.HardViolated != 0 || math.Abs(res.Cost-exactCost) > 1e-9) {
		t.Fatalf("%s: Optimal but cost %v, optimum %v", name, res.Cost, exactCost)
	}
	return exactCost
}

// TestRandomVersusSimplexAndBruteForce: on random small networks (mixed
// signs, hard clauses, bias) the LP value equals gonum's dense simplex on
// the literal ILP relaxation within 1e-4, bounds the brute-force optimum,
// and the rounded assignment is consistent.
func TestRandomVersusSimplexAndBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var nFeas, nRoundOK, nOpt int
	gens := []genOpts{
		{maxAtoms: 12, maxClauses: 30, maxLen: 4, hardFrac: 0.15},
		{maxAtoms: 12, maxClauses: 50, maxLen: 2, hardFrac: 0.25},
		{maxAtoms: 8, maxClauses: 40, maxLen: 5, hardFrac: 0},
	}
	const perGen = 150
	for inst := range perGen * len(gens) {
		net, bias := randNet(rng, gens[inst/perGen])
		lpScore, feasible := simplexLP(t, net, bias)
		res, st, err := Solve(context.Background(), net, Options{
			Options: infer.Options{Bias: bias}, Tol: 1e-8, MaxIter: 200000,
		})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("inst %d", inst)
		exact := checkResult(t, name, net, bias, res, st)
		if !math.IsInf(exact, 1) {
			nFeas++
			if res.HardViolated == 0 {
				nRoundOK++
			}
			if res.Optimal {
				nOpt++
			}
		}
		if st.Infeasible && !math.IsInf(exact, 1) {
			t.Fatalf("%s: reported infeasible, but optimum %v", name, exact)
		}
		if !feasible {
			if !math.IsInf(exact, 1) {
				t.Fatalf("%s: simplex infeasible but a feasible assignment exists", name)
			}
			continue
		}
		if !st.Converged {
			t.Errorf("%s: not converged after %d iterations (gap %v, viol %v)",
				name, st.Iterations, st.PrimalCost-st.LPBound, st.HardViolation)
		}
		if math.Abs(st.LPValue-lpScore) > 1e-4 {
			t.Errorf("%s: LP value %v, simplex %v (iters %d)", name, st.LPValue, lpScore, st.Iterations)
		}
	}
	t.Logf("%d instances, %d feasible, %d rounded feasible, %d proved optimal",
		perGen*len(gens), nFeas, nRoundOK, nOpt)
}

// TestDuplicatesAndTautologies: repeated literals, tautologies, empty
// clauses and conflicting hard units keep the bound valid.
func TestDuplicatesAndTautologies(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for inst := range 200 {
		net, bias := randNet(rng, genOpts{maxAtoms: 8, maxClauses: 25, maxLen: 4, hardFrac: 0.1, dupes: true})
		if inst%5 == 0 {
			net.AddClause(nil, rng.NormFloat64(), -1, -1, 1) // empty soft clause
		}
		if inst%7 == 0 {
			a := int32(rng.IntN(net.NumAtoms()))
			net.AddClause([]ground.Lit{ground.MakeLit(a, false)}, math.Inf(1), -1, -1, 1)
			net.AddClause([]ground.Lit{ground.MakeLit(a, true)}, math.Inf(1), -1, -1, 1)
		}
		res, st, err := Solve(context.Background(), net, Options{Options: infer.Options{Bias: bias}, Tol: 1e-7})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, fmt.Sprintf("inst %d", inst), net, bias, res, st)
	}
}

// exactlyOne returns a random network over groups of three atoms of which
// exactly one must be true (hard), with random soft clauses across groups.
func exactlyOne(rng *rand.Rand, groups int) *ground.Network {
	n := 3 * groups
	net := ground.NewNetwork(n)
	for g := range groups {
		a := int32(3 * g)
		lit := func(i int32, neg bool) ground.Lit { return ground.MakeLit(a+i, neg) }
		net.AddClause([]ground.Lit{lit(0, false), lit(1, false), lit(2, false)}, math.Inf(1), -1, -1, 1)
		net.AddClause([]ground.Lit{lit(0, true), lit(1, true)}, math.Inf(1), -1, -1, 1)
		net.AddClause([]ground.Lit{lit(0, true), lit(2, true)}, math.Inf(1), -1, -1, 1)
		net.AddClause([]ground.Lit{lit(1, true), lit(2, true)}, math.Inf(1), -1, -1, 1)
	}
	for range 4 * groups {
		k := 1 + rng.IntN(3)
		var lits []ground.Lit
		for _, a := range rng.Perm(n)[:k] {
			lits = append(lits, ground.MakeLit(int32(a), rng.IntN(2) == 0))
		}
		net.AddClause(lits, rng.NormFloat64(), -1, -1, 1)
	}
	return net
}

// TestExactlyOneRoundingFeasible: when the hard clauses are
// exactly-one-of-three constraints, rounding always satisfies them, with
// or without the exact completion and the local search.
func TestExactlyOneRoundingFeasible(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for inst := range 100 {
		net := exactlyOne(rng, 1+rng.IntN(4))
		for _, plain := range []bool{false, true} {
			opt := Options{Tol: 1e-6}
			if plain {
				opt.NoLocalSearch, opt.ExactComponent = true, -1
			}
			res, st, err := Solve(context.Background(), net, opt)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("inst %d plain %v", inst, plain)
			checkResult(t, name, net, nil, res, st)
			if res.HardViolated != 0 {
				t.Fatalf("%s: rounded assignment violates %d hard clauses", name, res.HardViolated)
			}
		}
	}
}

// multilinear returns the expected soft cost of the problem when each atom
// is true with probability y_a independently.
func multilinear(p *problem, y []float64) float64 {
	e := p.k
	for a, c := range p.c {
		e += c * y[a]
	}
	for j := range p.fKind {
		q := 1.0
		for t := p.fStart[j]; t < p.fStart[j+1]; t++ {
			q *= 1 - litVal(y[p.fAtom[t]], p.fNeg[t])
		}
		switch p.fKind[j] {
		case kindPos:
			e += p.fW[j] * q
		case kindNeg:
			e += p.fW[j] * (1 - q)
		}
	}
	return e
}

// TestRoundupMonotone: without hard clauses ROUNDUP never raises the
// expected cost, from any fractional point.
func TestRoundupMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for inst := range 300 {
		net, bias := randNet(rng, genOpts{maxAtoms: 12, maxClauses: 40, maxLen: 4})
		p := newProblem(net, bias)
		y := make([]float64, p.n)
		for a := range y {
			switch rng.IntN(4) {
			case 0:
				y[a] = float64(rng.IntN(2))
			default:
				y[a] = rng.Float64()
			}
		}
		before := multilinear(p, y)
		if err := roundup(context.Background(), p, y); err != nil {
			t.Fatal(err)
		}
		for a, v := range y {
			if v != 0 && v != 1 {
				t.Fatalf("inst %d: atom %d left at %v", inst, a, v)
			}
		}
		if after := multilinear(p, y); after > before+1e-9 {
			t.Fatalf("inst %d: ROUNDUP raised the expected cost from %v to %v", inst, before, after)
		}
	}
}

// TestBiasEqualsUnitClauses: Bias[a] = b gives the same LP value (score
// units) and rounded score as a unit clause (a) of weight b.
func TestBiasEqualsUnitClauses(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for inst := range 100 {
		net, _ := randNet(rng, genOpts{maxAtoms: 10, maxClauses: 30, maxLen: 3, hardFrac: 0.1})
		n := net.NumAtoms()
		bias := make([]float64, n)
		withUnits := ground.NewNetwork(n)
		withUnits.ConstScore = net.ConstScore
		for c := range net.NumClauses() {
			withUnits.AddClause(net.Clause(c), net.Weight(c), -1, -1, 1)
		}
		for a := range bias {
			bias[a] = math.Round(rng.NormFloat64()*100) / 100
			if bias[a] != 0 {
				withUnits.AddClause([]ground.Lit{ground.MakeLit(int32(a), false)}, bias[a], -1, -1, 1)
			}
		}
		_, st1, err1 := Solve(context.Background(), net, Options{Options: infer.Options{Bias: bias}, Tol: 1e-9, MaxIter: 100000})
		_, st2, err2 := Solve(context.Background(), withUnits, Options{Tol: 1e-9, MaxIter: 100000})
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if math.Abs(st1.LPValue-st2.LPValue) > 1e-5 {
			t.Fatalf("inst %d: LP value with bias %v, with unit clauses %v", inst, st1.LPValue, st2.LPValue)
		}
	}
}

// TestWorkersDeterministic: the result does not depend on the number of
// goroutines.
func TestWorkersDeterministic(t *testing.T) {
	net := citeseerLike(2000, 3)
	var ref *Stats
	var refRes *infer.Result
	for _, w := range []int{1, 2, 3} {
		res, st, err := Solve(context.Background(), net, Options{Tol: 1e-3, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref, refRes = st, res
			continue
		}
		if st.LPBound != ref.LPBound || st.Iterations != ref.Iterations || res.Cost != refRes.Cost {
			t.Fatalf("workers %d: bound %v iters %d cost %v; workers 1: %v %d %v",
				w, st.LPBound, st.Iterations, res.Cost, ref.LPBound, ref.Iterations, refRes.Cost)
		}
		for a := range st.Y {
			if st.Y[a] != ref.Y[a] || res.Assign[a] != refRes.Assign[a] {
				t.Fatalf("workers %d: atom %d differs", w, a)
			}
		}
	}
}

// TestCiteseerLikeQuality: on a synthetic segmentation network the bound
// is below the exact optimum (by dynamic programming) and the rounded cost
// within 1% above it.
func TestCiteseerLikeQuality(t *testing.T) {
	net := citeseerLike(3000, 1)
	opt := chainOptimum(net, 3)
	res, st, err := Solve(context.Background(), net, Options{Tol: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Converged || res.HardViolated != 0 {
		t.Fatalf("converged %v, hard violated %d", st.Converged, res.HardViolated)
	}
	if res.Bound > opt+1e-6 || res.Cost < opt-1e-6 {
		t.Fatalf("bound %v, optimum %v, rounded %v", res.Bound, opt, res.Cost)
	}
	if res.Cost > opt*1.01 {
		t.Errorf("rounded cost %v more than 1%% above optimum %v", res.Cost, opt)
	}
	t.Logf("atoms %d clauses %d: bound %.3f optimum %.3f rounded %.3f (ROUNDUP %.3f), %d iterations, %.1f%% integral, %d exact atoms",
		net.NumAtoms(), net.NumClauses(), res.Bound, opt, res.Cost, st.RoundupCost, st.Iterations, 100*st.FracIntegral, st.ExactAtoms)
}

// TestEdgeCases covers empty networks, networks without clauses, an LP
// with contradictory hard clauses, cancellation and a bad bias length.
func TestEdgeCases(t *testing.T) {
	ctx := context.Background()
	res, st, err := Solve(ctx, ground.NewNetwork(0), Options{})
	if err != nil || !res.Optimal || res.Cost != 0 || st.LPValue != 0 {
		t.Fatalf("empty network: %+v %+v %v", res, st, err)
	}
	bias := []float64{1, -2, 0}
	res, _, err = Solve(ctx, ground.NewNetwork(3), Options{Options: infer.Options{Bias: bias}})
	if err != nil || !res.Optimal || res.Cost != -1 || !res.Assign[0] || res.Assign[1] {
		t.Fatalf("bias only: %+v %v", res, err)
	}
	// x forced; then y and ¬y forced through two-literal hard clauses: the
	// LP itself is infeasible.
	net := ground.NewNetwork(2)
	net.AddClause([]ground.Lit{ground.MakeLit(0, false)}, math.Inf(1), -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, true), ground.MakeLit(1, false)}, math.Inf(1), -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, true), ground.MakeLit(1, true)}, math.Inf(1), -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(1, false)}, 1, -1, -1, 1)
	res, st, err = Solve(ctx, net, Options{MaxIter: 5000})
	if err != nil || res.HardViolated == 0 || res.Optimal || !st.Infeasible {
		t.Fatalf("infeasible: %+v %+v %v", res, st, err)
	}
	if st.LPBound < 0 || math.IsNaN(st.LPBound) {
		t.Fatalf("infeasible: bound %v", st.LPBound)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := Solve(cctx, citeseerLike(10, 1), Options{}); err == nil {
		t.Fatal("cancelled context: no error")
	}
	if _, _, err := Solve(ctx, ground.NewNetwork(2), Options{Options: infer.Options{Bias: []float64{1}}}); err == nil {
		t.Fatal("short bias: no error")
	}
}

// TestLongClauses exercises clauses longer than the solver's inline
// buffers against the simplex and brute force.
func TestLongClauses(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for inst := range 5 {
		const n = 18
		net := ground.NewNetwork(n)
		for _, w := range []float64{2, -1.5, 0.7} {
			var lits []ground.Lit
			for _, a := range rng.Perm(n)[:n-rng.IntN(3)] {
				lits = append(lits, ground.MakeLit(int32(a), rng.IntN(2) == 0))
			}
			net.AddClause(lits, w, -1, -1, 1)
		}
		for range 12 {
			a, b := rng.IntN(n), rng.IntN(n)
			if a == b {
				net.AddClause([]ground.Lit{ground.MakeLit(int32(a), rng.IntN(2) == 0)}, rng.NormFloat64(), -1, -1, 1)
				continue
			}
			w := rng.NormFloat64()
			if rng.IntN(4) == 0 {
				w = math.Inf(1)
			}
			net.AddClause([]ground.Lit{ground.MakeLit(int32(a), rng.IntN(2) == 0), ground.MakeLit(int32(b), rng.IntN(2) == 0)}, w, -1, -1, 1)
		}
		res, st, err := Solve(context.Background(), net, Options{Tol: 1e-8, MaxIter: 200000})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("inst %d", inst)
		checkResult(t, name, net, nil, res, st)
		if lpScore, ok := simplexLP(t, net, nil); ok && math.Abs(st.LPValue-lpScore) > 1e-4 {
			t.Errorf("%s: LP value %v, simplex %v", name, st.LPValue, lpScore)
		}
	}
}

// TestCostFormAtVertices: the normalised cost form equals
// infer.BiasedCost at every 0/1 point, and flags hard violations.
func TestCostFormAtVertices(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for inst := range 200 {
		net, bias := randNet(rng, genOpts{maxAtoms: 10, maxClauses: 30, maxLen: 4, hardFrac: 0.15, dupes: inst%2 == 0})
		p := newProblem(net, bias)
		y := make([]float64, p.n)
		yb := make([]bool, p.n)
		for range 20 {
			for a := range y {
				yb[a] = rng.IntN(2) == 0
				y[a] = 0
				if yb[a] {
					y[a] = 1
				}
			}
			want, hard := infer.BiasedCost(net, bias, yb)
			inBox := true
			for a := range y {
				inBox = inBox && y[a] >= p.lo[a] && y[a] <= p.hi[a]
			}
			got, viol := p.objective(y)
			if math.Abs(got-want) > 1e-9 {
				t.Fatalf("inst %d: cost form %v, BiasedCost %v", inst, got, want)
			}
			if p.droppedHard == 0 && (hard == 0) != (viol == 0 && inBox) {
				t.Fatalf("inst %d: %d hard violations, cost form violation %v, in box %v", inst, hard, viol, inBox)
			}
		}
	}
}
