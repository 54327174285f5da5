package lp

import (
	"context"
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
		if w := net.Weight[c]; w > 0 && !net.IsHard(c) {
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
		w := net.Weight[c]
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

func TestRandomVersusSimplexAndBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	g := genOpts{maxAtoms: 12, maxClauses: 30, maxLen: 4, hardFrac: 0.15}
	var nInst, nFeas, nRoundOK, nOpt int
	for inst := range 300 {
		net, bias := randNet(rng, g)
		exactCost, exactScore := bruteForce(net, bias)
		lpScore, feasible := simplexLP(t, net, bias)
		res, st, err := Solve(context.Background(), net, Options{
			Options: infer.Options{Bias: bias}, Tol: 1e-8, MaxIter: 200000,
		})
		if err != nil {
			t.Fatal(err)
		}
		nInst++
		off := scoreOffset(net)
		if d := st.LPValue - (off - st.LPBound); math.Abs(d) > 1e-9 {
			t.Fatalf("inst %d: LPValue %v inconsistent with LPBound %v", inst, st.LPValue, st.LPBound)
		}
		if res.Bound != st.LPBound {
			t.Fatalf("inst %d: Result.Bound %v != LPBound %v", inst, res.Bound, st.LPBound)
		}
		if c, h := infer.BiasedCost(net, bias, res.Assign); c != res.Cost || h != res.HardViolated {
			t.Fatalf("inst %d: result cost %v/%d, recomputed %v/%d", inst, res.Cost, res.HardViolated, c, h)
		}
		if !math.IsInf(exactCost, 1) {
			nFeas++
			if res.Bound > exactCost+1e-7 {
				t.Fatalf("inst %d: bound %v above exact optimum cost %v", inst, res.Bound, exactCost)
			}
			if st.LPValue < exactScore-1e-7 {
				t.Fatalf("inst %d: LP value %v below exact optimum score %v", inst, st.LPValue, exactScore)
			}
			if math.Abs((off-exactCost)-exactScore) > 1e-9 {
				t.Fatalf("inst %d: score/cost conversion: %v vs %v", inst, off-exactCost, exactScore)
			}
			if res.HardViolated == 0 {
				nRoundOK++
				if res.Cost < exactCost-1e-9 {
					t.Fatalf("inst %d: rounded cost %v below optimum %v", inst, res.Cost, exactCost)
				}
			}
			if res.Optimal {
				nOpt++
				if math.Abs(res.Cost-exactCost) > 1e-9 {
					t.Fatalf("inst %d: Optimal but cost %v != optimum %v", inst, res.Cost, exactCost)
				}
			}
		}
		if !feasible {
			if !math.IsInf(exactCost, 1) {
				t.Fatalf("inst %d: simplex infeasible but a feasible assignment exists", inst)
			}
			continue
		}
		if !st.Converged {
			t.Errorf("inst %d: not converged after %d iterations (gap %v, viol %v)",
				inst, st.Iterations, st.PrimalCost-st.LPBound, st.HardViolation)
		}
		if math.Abs(st.LPValue-lpScore) > 1e-4 {
			t.Errorf("inst %d: LP value %v, simplex %v (iters %d)", inst, st.LPValue, lpScore, st.Iterations)
		}
	}
	t.Logf("%d instances, %d feasible, %d rounded feasible, %d proved optimal", nInst, nFeas, nRoundOK, nOpt)
}
