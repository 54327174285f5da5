package wmc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer"
	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// enumerate returns log Z and the marginals of net with the linear terms
// bias by enumerating every world (ok false when no world satisfies the
// network's hard clauses).
func enumerate(net *ground.Network, bias []float64) (logZ float64, marg []float64, ok bool) {
	var ls []float64
	var worlds [][]bool
	brute.Worlds(net.NumAtoms(), func(y []bool) {
		s, h := net.Score(y)
		if h > net.HardFalse {
			return
		}
		for a, b := range bias {
			if y[a] {
				s += b
			}
		}
		ls = append(ls, s)
		worlds = append(worlds, append([]bool(nil), y...))
	})
	if len(ls) == 0 {
		return math.Inf(-1), nil, false
	}
	mx := math.Inf(-1)
	for _, l := range ls {
		mx = math.Max(mx, l)
	}
	sum := 0.0
	for _, l := range ls {
		sum += math.Exp(l - mx)
	}
	logZ = mx + math.Log(sum)
	marg = make([]float64, net.NumAtoms())
	for i, y := range worlds {
		p := math.Exp(ls[i] - logZ)
		for a, v := range y {
			if v {
				marg[a] += p
			}
		}
	}
	return logZ, marg, true
}

// check compares Solve with enumeration on net.
func check(t *testing.T, name string, net *ground.Network, bias []float64) bool {
	t.Helper()
	wantZ, wantM, feasible := enumerate(net, bias)
	for k := range 5 {
		workers, method := 1+k%2, []Method{MethodSearch, MethodVE, MethodAuto, MethodAuto, MethodAuto}[k]
		name := name + " (" + method.String() + ")"
		res, err := Solve(context.Background(), net, Options{Bias: bias, Workers: workers, AllowHardFalse: true, Method: method, noTopVE: k == 4})
		if !feasible {
			if !errors.Is(err, infer.ErrInfeasible) {
				t.Fatalf("%s: infeasible network: got %v, want an error wrapping ErrInfeasible", name, err)
			}
			return false
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := math.Abs(res.LogZ - wantZ); d > 1e-9*math.Max(1, math.Abs(wantZ)) {
			t.Fatalf("%s: log Z %v, enumeration %v", name, res.LogZ, wantZ)
		}
		for a := range wantM {
			if d := math.Abs(res.Marginals[a] - wantM[a]); d > 1e-9 {
				t.Fatalf("%s: P(atom %d) = %v, enumeration %v", name, a, res.Marginals[a], wantM[a])
			}
		}
		z, err := LogZ(context.Background(), net, Options{Bias: bias, Workers: workers, AllowHardFalse: true, Method: method, noTopVE: k == 4})
		if err != nil || math.Abs(z-res.LogZ) > 1e-12*math.Max(1, math.Abs(res.LogZ)) {
			t.Fatalf("%s: LogZ %v (%v), with marginals %v", name, z, err, res.LogZ)
		}
	}
	return true
}

// randomNetwork is a network of up to 12 atoms with clauses of one to four
// literals (repeats and complementary pairs included), weights of both
// signs, hard clauses and sometimes linear terms.
func randomNetwork(rng *rand.Rand) (*ground.Network, []float64) {
	n := 1 + rng.IntN(12)
	net := ground.NewNetwork(n)
	m := rng.IntN(3 * n)
	for range m {
		k := 1 + rng.IntN(4)
		var ls []ground.Lit
		for range k {
			ls = append(ls, ground.MakeLit(int32(rng.IntN(n)), rng.IntN(2) == 0))
		}
		w := 6*rng.Float64() - 3
		switch rng.IntN(8) {
		case 0:
			w = math.Inf(1)
		case 1:
			w = 0
		}
		net.AddClause(ls, w, -1, -1, 1)
	}
	net.ConstScore = rng.Float64()
	var bias []float64
	if rng.IntN(4) == 0 {
		bias = make([]float64, n)
		for a := range bias {
			bias[a] = 2*rng.Float64() - 1
		}
	}
	return net, bias
}

// TestRandomNetworks checks log Z and the marginals against enumeration.
func TestRandomNetworks(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	infeasible := 0
	for i := range 600 {
		net, bias := randomNetwork(rng)
		if !check(t, "network "+itoa(i), net, bias) {
			infeasible++
		}
	}
	if infeasible == 0 || infeasible > 300 {
		t.Errorf("%d of 600 networks infeasible", infeasible)
	}
}

// TestRandomMLNs checks random MLNs with their evidence.
func TestRandomMLNs(t *testing.T) {
	ctx := context.Background()
	tested := 0
	for seed := int64(0); seed < 80; seed++ {
		c := randmln.Generate(seed)
		m, err := mln.ParseModel("r.mln", c.MLN)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		db, err := mln.ParseDatabase(m, "r.db", c.DB)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := m.Compile(); err != nil {
			continue
		}
		q, _ := m.PredIDs(c.Query...)
		ow, _ := m.PredIDs(c.OpenWorld...)
		net, err := ground.Ground(ctx, m, db, ground.Options{Query: q, OpenWorld: ow})
		if err != nil || net.NumAtoms() > 16 {
			continue
		}
		if net.HardFalse > 0 {
			if _, err := Solve(ctx, net, Options{}); !errors.Is(err, infer.ErrInfeasible) {
				t.Fatalf("seed %d: %d hard groundings falsified by the evidence: got %v, want ErrInfeasible", seed, net.HardFalse, err)
			}
		}
		check(t, "seed "+itoa(int(seed)), net, nil)
		tested++
	}
	if tested < 40 {
		t.Errorf("only %d of 80 random MLNs tested", tested)
	}
}

// TestInfeasible: hard clauses no world satisfies give an error, never
// log Z = -Inf.
func TestInfeasible(t *testing.T) {
	net := ground.NewNetwork(3)
	net.AddClause([]ground.Lit{ground.MakeLit(0, false), ground.MakeLit(1, false)}, math.Inf(1), -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, true), ground.MakeLit(1, false)}, math.Inf(1), -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, false), ground.MakeLit(1, true)}, math.Inf(1), -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(0, true), ground.MakeLit(1, true)}, math.Inf(1), -1, -1, 1)
	net.AddClause([]ground.Lit{ground.MakeLit(2, true)}, 1, -1, -1, 1)
	res, err := Solve(context.Background(), net, Options{})
	if !errors.Is(err, infer.ErrInfeasible) || res != nil {
		t.Fatalf("got %v, %v; want ErrInfeasible", res, err)
	}
}

// TestLimit: a network beyond the node bound gives a *LimitError that
// suggests MC-SAT; a cancelled context stops the search.
func TestLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 60
	net := ground.NewNetwork(n)
	for range 4 * n {
		ls := []ground.Lit{ground.MakeLit(int32(rng.IntN(n)), rng.IntN(2) == 0), ground.MakeLit(int32(rng.IntN(n)), rng.IntN(2) == 0), ground.MakeLit(int32(rng.IntN(n)), rng.IntN(2) == 0)}
		net.AddClause(ls, rng.Float64(), -1, -1, 1)
	}
	_, err := Solve(context.Background(), net, Options{MaxNodes: 1000})
	var le *LimitError
	if !errors.As(err, &le) || !errors.Is(err, ErrOutOfReach) {
		t.Fatalf("got %v, want a LimitError", err)
	}
	if msg := err.Error(); !contains(msg, "MC-SAT") {
		t.Errorf("message %q does not suggest MC-SAT", msg)
	}
	// The work bound holds for variable elimination too: a chain of 30
	// atoms is counted by VE, and a bound of 10 units stops it.
	chain := ground.NewNetwork(30)
	for a := range int32(29) {
		chain.AddClause([]ground.Lit{ground.MakeLit(a, true), ground.MakeLit(a+1, false)}, 1, -1, -1, 1)
	}
	if _, err := Solve(context.Background(), chain, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Solve(context.Background(), chain, Options{MaxWork: 10}); !errors.As(err, &le) {
		t.Fatalf("a chain under a work bound of 10: got %v, want a LimitError", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Solve(ctx, net, Options{MaxNodes: -1}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: got %v", err)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// TestWideClause: a hard clause over 22 atoms, too wide for variable
// elimination, with soft clauses along a chain: the search (with its
// leaves counted by variable elimination) against the chain's dynamic
// programming less the one world the wide clause excludes.
func TestWideClause(t *testing.T) {
	const n = 22
	rng := rand.New(rand.NewPCG(11, 12))
	chain := ground.NewNetwork(n)
	var wide []ground.Lit
	excluded := make([]bool, n) // the world that falsifies the wide clause
	for a := range int32(n) {
		l := ground.MakeLit(a, rng.IntN(3) == 0)
		wide = append(wide, l)
		excluded[a] = l.Neg()
		chain.AddClause([]ground.Lit{ground.MakeLit(a, false)}, rng.Float64()-0.5, -1, -1, 1)
		if a > 0 {
			chain.AddClause([]ground.Lit{ground.MakeLit(a-1, true), ground.MakeLit(a, false)}, 2*rng.Float64()-1, -1, -1, 1)
		}
	}
	net := ground.NewNetwork(n)
	for c := range chain.NumClauses() {
		net.AddClause(chain.Clause(c), chain.Weight(c), -1, -1, 1)
	}
	net.AddClause(wide, math.Inf(1), -1, -1, 1)
	zero := make([]float64, n)
	sx, _ := chain.Score(excluded)
	minus := func(z float64) float64 { return z + math.Log1p(-math.Exp(sx-z)) }
	zc := windowLogZ(chain, zero, 2, nil)
	want := minus(zc)
	for _, method := range []Method{MethodAuto, MethodSearch} {
		res, err := Solve(context.Background(), net, Options{Method: method})
		if err != nil {
			t.Fatalf("%v: %v", method, err)
		}
		if d := math.Abs(res.LogZ - want); d > 1e-9*math.Abs(want) {
			t.Fatalf("%v: log Z %v, want %v", method, res.LogZ, want)
		}
		for a := range n {
			z1 := windowLogZ(chain, zero, 2, []int{a, 1})
			if excluded[a] {
				z1 = minus(z1)
			}
			if p := math.Exp(z1 - want); math.Abs(res.Marginals[a]-p) > 1e-9 {
				t.Fatalf("%v: P(atom %d) = %v, want %v", method, a, res.Marginals[a], p)
			}
		}
		if res.Stats.VEComponents != 0 {
			t.Errorf("%v: a component of width 21 counted by variable elimination", method)
		}
		t.Logf("%v: %+v", method, res.Stats)
	}
	if _, err := Solve(context.Background(), net, Options{Method: MethodVE}); !errors.Is(err, ErrOutOfReach) {
		t.Errorf("MethodVE on a clause of 22 atoms: %v", err)
	}
}
