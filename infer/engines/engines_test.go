package engines_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/infer/lazy"
	"github.com/marple-mln/marple/infer/mcsat"
	"github.com/marple-mln/marple/internal/testenv"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/internal/testkit/randmln"
)

func TestEveryNameBuilds(t *testing.T) {
	s := engines.DefaultSettings()
	if got := engines.MAPNames()[0]; got != engines.DefaultMAP {
		t.Errorf("first MAP engine %q, want the default %q", got, engines.DefaultMAP)
	}
	if got := engines.MarginalNames()[0]; got != engines.DefaultMarginal {
		t.Errorf("first marginal engine %q, want the default %q", got, engines.DefaultMarginal)
	}
	for _, name := range engines.MAPNames() {
		for _, cpi := range []bool{false, true} {
			s.CPI = cpi
			m, err := engines.NewMAP(name, s)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want := name
			if cpi {
				want = "cpi(" + name + ")"
			}
			if m.Name() != want {
				t.Errorf("NewMAP(%q) with CPI %v is called %q, want %q", name, cpi, m.Name(), want)
			}
		}
		if _, err := engines.Memory(name); err != nil {
			t.Errorf("Memory(%q): %v", name, err)
		}
		if engines.Doc(name) == "" {
			t.Errorf("%s has no description", name)
		}
	}
	for _, name := range engines.MarginalNames() {
		m, err := engines.NewMarginal(name, s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.Name() != name {
			t.Errorf("NewMarginal(%q) is called %q", name, m.Name())
		}
		if _, err := engines.Memory(name); err != nil {
			t.Errorf("Memory(%q): %v", name, err)
		}
	}
	if engines.Default().Name() != engines.DefaultMAP {
		t.Errorf("Default() is %q", engines.Default().Name())
	}
}

func TestUnknownNames(t *testing.T) {
	s := engines.DefaultSettings()
	if _, err := engines.NewMAP("bogus", s); err == nil || !strings.Contains(err.Error(), "exact, lp or mws") {
		t.Errorf("NewMAP(bogus): error %v does not list the MAP engines", err)
	}
	if _, err := engines.NewMAP("mcsat", s); err == nil {
		t.Errorf("NewMAP(mcsat): a marginal engine is not a MAP engine")
	}
	if _, err := engines.NewMarginal("exact", s); err == nil || !strings.Contains(err.Error(), engines.List(engines.MarginalNames())) {
		t.Errorf("NewMarginal(exact): error %v does not list the marginal engines", err)
	}
	if _, err := engines.Memory("bogus"); err == nil {
		t.Errorf("Memory(bogus): no error")
	}
	s.Workers = -1
	if _, err := engines.NewMAP("exact", s); err == nil {
		t.Errorf("negative Workers accepted")
	}
}

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

// TestMAPEnginesMatchBruteForce solves random small MLNs, with and without
// Hamming-loss terms, through the registry with and without cutting-plane
// inference: exact and mws reach the enumerated optimum; lp's bound is at
// most the optimum and its state costs at least it, exactly it when lp
// claims optimality.
func TestMAPEnginesMatchBruteForce(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(11))
	s := engines.DefaultSettings()
	s.Workers, s.MaxSteps, s.Tries = 1, 20000, 2
	checked := 0
	for seed := int64(0); seed < 80; seed++ {
		net := groundCase(t, seed)
		if net.NumAtoms() == 0 {
			continue
		}
		var bias []float64
		if seed%2 == 1 {
			bias = make([]float64, net.NumAtoms())
			for a := range bias {
				bias[a] = float64(2*r.Intn(2) - 1)
			}
		}
		yb, _, hardB := brute.MAPBias(net, bias)
		hardB -= net.HardFalse
		best, _ := infer.BiasedCost(net, bias, yb)
		tol := 1e-7 * math.Max(1, math.Abs(best))
		for _, name := range engines.MAPNames() {
			for _, cpi := range []bool{false, true} {
				s.CPI = cpi
				m, err := engines.NewMAP(name, s)
				if err != nil {
					t.Fatal(err)
				}
				res, err := m.Solve(ctx, net, infer.Options{Bias: bias, Seed: seed})
				if err != nil {
					t.Fatalf("seed %d %s: %v", seed, m.Name(), err)
				}
				cost, hard := infer.BiasedCost(net, bias, res.Assign)
				if res.Cost != cost || res.HardViolated != hard {
					t.Errorf("seed %d %s: reported cost %v (%d hard), actual %v (%d hard)", seed, m.Name(), res.Cost, res.HardViolated, cost, hard)
				}
				if name == "lp" {
					if hardB > 0 {
						continue
					}
					if !cpi && res.Bound > best+1e-6*math.Max(1, math.Abs(best)) {
						t.Errorf("seed %d %s: bound %v above the optimum %v", seed, m.Name(), res.Bound, best)
					}
					if hard == 0 && cost < best-tol || res.Optimal && (hard > 0 || math.Abs(cost-best) > tol) {
						t.Errorf("seed %d %s: cost %v (%d hard, optimal %v), optimum %v", seed, m.Name(), cost, hard, res.Optimal, best)
					}
					continue
				}
				if hard != hardB || (hardB == 0 && math.Abs(cost-best) > tol) {
					t.Errorf("seed %d %s: cost %v (%d hard), optimum %v (%d hard)", seed, m.Name(), cost, hard, best, hardB)
				}
			}
		}
		checked++
	}
	if checked < 50 {
		t.Errorf("only %d networks checked", checked)
	}
}

// TestMarginalEnginesMatchBruteForce samples small random MLNs without hard
// clauses through the registry and compares with enumeration.
func TestMarginalEnginesMatchBruteForce(t *testing.T) {
	if testenv.Short() {
		t.Skip("sampling")
	}
	ctx := context.Background()
	s := engines.DefaultSettings()
	s.Workers, s.Samples, s.BurnIn = 2, 20000, 500
	models := 0
	for seed := int64(0); models < 5 && seed < 300; seed++ {
		net := groundCase(t, 7000+seed)
		if net.NumAtoms() == 0 || net.NumAtoms() > 10 || net.HardFalse > 0 {
			continue
		}
		ok := true
		for c := 0; c < net.NumClauses(); c++ {
			if w := net.Weight(c); math.IsInf(w, 1) || math.Abs(w) > 3 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		models++
		want := brute.Marginals(net)
		for _, name := range engines.MarginalNames() {
			m, err := engines.NewMarginal(name, s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.Marginals(ctx, net, infer.Options{Seed: seed})
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, name, err)
			}
			for a := range want {
				if math.Abs(got[a]-want[a]) > 0.04 {
					t.Errorf("seed %d atom %d: %s %.3f, exact %.3f", 7000+seed, a, name, got[a], want[a])
				}
			}
		}
	}
	if models < 5 {
		t.Errorf("only %d models", models)
	}
}

// frustrated returns a network no assignment satisfies fully: a and ¬a.
func frustrated() *ground.Network {
	net := ground.NewNetwork(1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, false)}, 1, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, true)}, 1, -1, -1, 1)
	return net
}

func TestMWSTimeLimit(t *testing.T) {
	s := engines.DefaultSettings()
	s.MaxSteps, s.Tries, s.TimeLimit = math.MaxInt32, 1000, 20*time.Millisecond
	m, err := engines.NewMAP("mws", s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Solve(context.Background(), frustrated(), infer.Options{})
	if err != nil || res == nil {
		t.Fatalf("a time limit that expires is not an error: %v, %v", res, err)
	}
	if res.Cost != 1 {
		t.Errorf("cost %v, want 1", res.Cost)
	}
}

func TestReport(t *testing.T) {
	var buf bytes.Buffer
	s := engines.DefaultSettings()
	s.Workers, s.CPI, s.Report = 1, true, &buf
	m, err := engines.NewMAP("lp", s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Solve(context.Background(), frustrated(), infer.Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "LP relaxation: lower bound on the cost 1 ") || !strings.Contains(out, "cutting-plane inference: ") {
		t.Errorf("report:\n%s", out)
	}
}

// TestSamplerIsTheCommands: the registry's mcsat and gibbs are the
// multi-chain sampler of marple infer (mcsat.Run with the defaults:
// mcsat.DefaultChains() chains, block moves), bit for bit, whatever the
// number of workers; the report gives the chains' diagnostics; and
// SplitSamples shares one chain's budget among mcsat.LearnChains chains.
func TestSamplerIsTheCommands(t *testing.T) {
	ctx := context.Background()
	var net *ground.Network
	for seed := int64(0); seed < 300; seed++ {
		if n := groundCase(t, 7100+seed); n.NumAtoms() >= 5 && n.NumClauses() >= 4 && n.HardFalse == 0 {
			net = n
			break
		}
	}
	if net == nil {
		t.Fatal("no network")
	}
	for _, method := range []mcsat.Method{mcsat.MethodMCSAT, mcsat.MethodGibbs} {
		var outs [][]float64
		for _, workers := range []int{1, 3} {
			s := engines.DefaultSettings()
			s.Workers, s.Samples = workers, 300
			var buf bytes.Buffer
			s.Report = &buf
			name := "mcsat"
			if method == mcsat.MethodGibbs {
				name = "gibbs"
			}
			m, err := engines.NewMarginal(name, s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.Marginals(ctx, net, infer.Options{Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(buf.String(), fmt.Sprintf("%s: %d chains x 300 samples, max R-hat ", name, mcsat.DefaultChains())) {
				t.Errorf("%s report %q", name, buf.String())
			}
			outs = append(outs, got)
		}
		want, _, err := mcsat.Run(ctx, net, 2, mcsat.Options{Options: infer.Options{Seed: 5}, Samples: 300}, method)
		if err != nil {
			t.Fatal(err)
		}
		for a := range want {
			if outs[0][a] != want[a] || outs[1][a] != want[a] {
				t.Fatalf("method %d atom %d: registry %v (1 worker), %v (3 workers), mcsat.Run %v", method, a, outs[0][a], outs[1][a], want[a])
			}
		}
	}
	s := engines.DefaultSettings()
	s.Samples = 1000
	for _, chains := range []int{0, 3} {
		s.Chains = chains
		if got := s.SplitSamples(); got.Chains != mcsat.LearnChains || got.Samples != (1000+mcsat.LearnChains-1)/mcsat.LearnChains {
			t.Errorf("SplitSamples from %d chains: %d chains of %d samples", chains, got.Chains, got.Samples)
		}
	}
}

// TestLazyEngines: the lazy engines build by name, run on a first-order
// problem, and lazy-mws finds the MAP cost of the eager engines.
func TestLazyEngines(t *testing.T) {
	s := engines.DefaultSettings()
	s.MaxSteps = 5000
	if _, err := engines.NewLazy("nope", s); err == nil {
		t.Error("NewLazy accepted an unknown name")
	}
	for _, name := range engines.LazyNames() {
		e, err := engines.NewLazy(name, s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if e.Name() != name || engines.Doc(name) == "" || e.IsMAP() != (name == "lazy-mws") {
			t.Errorf("%s: name %q, doc %q, IsMAP %v", name, e.Name(), engines.Doc(name), e.IsMAP())
		}
	}
	ctx := context.Background()
	mws, _ := engines.NewLazy("lazy-mws", s)
	s.Samples = 100
	mc, _ := engines.NewLazy("lazy-mcsat", s)
	runs := 0
	for seed := int64(0); seed < 40; seed++ {
		c := randmln.Generate(seed)
		m, db, query, ow, err := c.Load()
		if err != nil {
			t.Fatal(err)
		}
		net, err := ground.Ground(ctx, m, db, ground.Options{Query: query, OpenWorld: ow, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		pr := lazy.Problem{Model: m, DB: db, Query: query, OpenWorld: ow}
		res, err := mws.Run(ctx, pr, seed)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		yb, _, _ := brute.MAP(net)
		best, bestHard := net.Cost(yb)
		if res.HardViolated != bestHard || math.Abs(res.Cost-best) > 1e-6*math.Max(1, math.Abs(best)) {
			t.Errorf("seed %d: lazy-mws cost %v (%d hard), optimum %v (%d hard)", seed, res.Cost, res.HardViolated, best, bestHard)
		}
		if _, err := mc.Run(ctx, pr, seed); err != nil && !errors.Is(err, mcsat.ErrHard) {
			t.Errorf("seed %d: lazy-mcsat: %v", seed, err)
		}
		runs++
	}
	if runs < 10 {
		t.Errorf("only %d runs", runs)
	}
}

// TestWMC: the exact engine's marginals and log Z are enumeration's, its
// report says they are exact, and a network beyond its node bound is
// refused with a message that suggests MC-SAT.
func TestWMC(t *testing.T) {
	net := ground.NewNetwork(3)
	net.AddClause([]ground.Lit{ground.MakeLit(0, true), ground.MakeLit(1, false)}, 1.5, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(1, true), ground.MakeLit(2, false)}, -0.7, -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, false), ground.MakeLit(2, false)}, math.Inf(1), -1, -1, 1)
	s := engines.DefaultSettings()
	var report strings.Builder
	var logZ float64
	s.Report = &report
	s.LogZ = func(z float64) { logZ = z }
	m, err := engines.NewMarginal("wmc", s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Marginals(context.Background(), net, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := brute.Marginals(net)
	for a := range want {
		if math.Abs(got[a]-want[a]) > 1e-12 {
			t.Errorf("atom %d: %v, enumeration %v", a, got[a], want[a])
		}
	}
	if z := brute.LogZ(net); math.Abs(logZ-z) > 1e-12 {
		t.Errorf("log Z %v, enumeration %v", logZ, z)
	}
	if !strings.Contains(report.String(), "exact marginals") {
		t.Errorf("report %q does not say the marginals are exact", report.String())
	}
	// A clause of 30 atoms is too wide for variable elimination: the
	// search counts it.
	wide := ground.NewNetwork(30)
	var ls []ground.Lit
	for a := range int32(30) {
		ls = append(ls, ground.MakeLit(a, false))
		wide.AddClause([]ground.Lit{ground.MakeLit(a, true)}, 0.5, -1, -1, 1)
	}
	wide.AddClause(ls, math.Inf(1), -1, -1, 1)
	s.WMCMaxNodes = 1
	m, _ = engines.NewMarginal("wmc", s)
	if _, err := m.Marginals(context.Background(), wide, infer.Options{}); err == nil || !strings.Contains(err.Error(), "MC-SAT") {
		t.Errorf("beyond the node bound: %v", err)
	}
}
