package infer_test

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/exact"
	"github.com/marple-mln/marple/infer/lp"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/infer/mws"
	"github.com/marple-mln/marple/internal/testenv"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/internal/testkit/randmln"
)

// groundCase parses, compiles and grounds random MLN number seed.
func groundCase(t *testing.T, seed int64) *ground.Network {
	t.Helper()
	c := randmln.Generate(seed)
	m, db, query, ow, err := c.Load()
	if err != nil {
		t.Fatalf("seed %d: %v\n%s", seed, err, c)
	}
	net, err := ground.Ground(context.Background(), m, db, ground.Options{Query: query, OpenWorld: ow, Workers: 1})
	if err != nil {
		t.Fatalf("seed %d: %v\n%s", seed, err, c)
	}
	return net
}

// hammingBias draws a random gold assignment and returns its Hamming-loss
// linear terms (as loss-augmented inference uses them).
func hammingBias(r *rand.Rand, n int) []float64 {
	b := make([]float64, n)
	for a := range b {
		if r.Intn(2) == 0 {
			b[a] = 1 // gold false: loss 1 when true
		} else {
			b[a] = -1 // gold true: loss 1 when false
		}
	}
	return b
}

const eps = 1e-7

func near(a, b float64) bool { return math.Abs(a-b) <= eps*math.Max(1, math.Abs(a)+math.Abs(b)) }

// TestMAPEnginesAgainstBruteForce checks every MAP engine on 300 random
// small MLNs (mixed weight signs, hard clauses, existentials, "+"
// variables), grounded by the real grounder, with and without Hamming-loss
// augmentation: exact MPE (both its variable-elimination and its search
// path) equals the enumerated optimum; MaxWalkSAT reaches it; the LP bound
// is at most the optimum cost and ROUNDUP's cost at least it.
func TestMAPEnginesAgainstBruteForce(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(7))
	checked := 0
	for seed := int64(0); seed < 300; seed++ {
		net := groundCase(t, seed)
		if net.NumAtoms() == 0 {
			continue
		}
		for _, augment := range []bool{false, true} {
			var bias []float64
			if augment {
				bias = hammingBias(r, net.NumAtoms())
			}
			yb, _, hardB := brute.MAPBias(net, bias)
			hardB -= net.HardFalse // brute counts the hard groundings the evidence falsifies; Cost does not
			best, _ := infer.BiasedCost(net, bias, yb)

			for _, method := range []exact.Method{exact.VE, exact.Search} {
				res, err := exact.Solve(ctx, net, exact.Options{Options: infer.Options{Bias: bias}, Method: method, Workers: 1})
				if err != nil {
					t.Fatalf("seed %d %v: exact: %v", seed, method, err)
				}
				cost, hard := infer.BiasedCost(net, bias, res.Assign)
				if hard != hardB || (hardB == 0 && !near(cost, best)) {
					t.Errorf("seed %d aug %v %v: exact cost %v (%d hard), brute %v (%d hard)", seed, augment, method, cost, hard, best, hardB)
				}
				if hardB == 0 && !res.Optimal {
					t.Errorf("seed %d %v: exact did not prove optimality", seed, method)
				}
			}

			mres, err := mws.Solve(ctx, net, mws.Options{Options: infer.Options{Bias: bias, Seed: seed}, MaxSteps: 20000, Tries: 2})
			if err != nil {
				t.Fatalf("seed %d: mws: %v", seed, err)
			}
			if cost, hard := infer.BiasedCost(net, bias, mres.Assign); hard != hardB || (hardB == 0 && !near(cost, best)) {
				t.Errorf("seed %d aug %v: MaxWalkSAT cost %v (%d hard), optimum %v (%d hard)", seed, augment, cost, hard, best, hardB)
			}

			if hardB == 0 {
				lres, st, err := lp.Solve(ctx, net, lp.Options{Options: infer.Options{Bias: bias}, Tol: 1e-6, Workers: 1})
				if err != nil {
					t.Fatalf("seed %d: lp: %v", seed, err)
				}
				if lres.Bound > best+1e-6*math.Max(1, math.Abs(best)) {
					t.Errorf("seed %d aug %v: LP bound %v above the optimum %v", seed, augment, lres.Bound, best)
				}
				if cost, hard := infer.BiasedCost(net, bias, lres.Assign); hard == 0 && cost < best-1e-9 {
					t.Errorf("seed %d aug %v: ROUNDUP cost %v below the optimum %v", seed, augment, cost, best)
				}
				_ = st
			}
			checked++
		}
	}
	if checked < 400 {
		t.Errorf("only %d instances checked", checked)
	}
}

// TestMarginalsAgainstBruteForce checks MC-SAT and Gibbs marginals against
// exact enumeration on random MLNs whose hard clauses can be satisfied.
func TestMarginalsAgainstBruteForce(t *testing.T) {
	if testenv.Short() {
		t.Skip("sampling")
	}
	ctx := context.Background()
	models := 0
	for seed := int64(0); models < 20 && seed < 200; seed++ {
		net := groundCase(t, 5000+seed)
		if net.NumAtoms() == 0 || net.NumAtoms() > 10 || net.HardFalse > 0 {
			continue
		}
		if _, _, hard := brute.MAP(net); hard-net.HardFalse > 0 {
			continue
		}
		// Keep the weights moderate so that the chains mix.
		heavy := false
		for c := 0; c < net.NumClauses(); c++ {
			if w := net.Weight(c); !math.IsInf(w, 1) && math.Abs(w) > 4 {
				heavy = true
			}
		}
		if heavy {
			continue
		}
		models++
		exactP := brute.Marginals(net)
		opt := mcsat.Options{Samples: 20000, BurnIn: 500}
		opt.Seed = seed
		ms, err := mcsat.MCSAT(ctx, net, opt)
		if err != nil {
			t.Fatalf("seed %d: MC-SAT: %v", seed, err)
		}
		gopt := opt
		gopt.Chains = 4
		gs, err := mcsat.Gibbs(ctx, net, gopt)
		if err != nil {
			t.Fatalf("seed %d: Gibbs: %v", seed, err)
		}
		for a := range exactP {
			if math.Abs(ms[a]-exactP[a]) > 0.03 {
				t.Errorf("seed %d atom %d: MC-SAT %.3f, exact %.3f", 5000+seed, a, ms[a], exactP[a])
			}
			if math.Abs(gs[a]-exactP[a]) > 0.03 {
				t.Errorf("seed %d atom %d: Gibbs %.3f, exact %.3f", 5000+seed, a, gs[a], exactP[a])
			}
		}
	}
	if models < 20 {
		t.Errorf("only %d models", models)
	}
}
