package lifted

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/infer/wmc"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
)

// TestExactGround compares the lifted answers with exact ground model
// counting (package wmc) on random models with more constants than
// enumeration reaches.
func TestExactGround(t *testing.T) {
	ctx := context.Background()
	checked := 0
	for seed := uint64(5000); seed < 5080; seed++ {
		c := genFO2Size(seed, seed%2 == 0, 4)
		m, db, opt, _ := c.load(t)
		r, err := Exact(ctx, m, db, opt)
		var nl *NotLiftableError
		if errors.As(err, &nl) {
			continue
		}
		net, gerr := ground.Ground(ctx, m, db, ground.Options{Query: opt.Query, OpenWorld: opt.OpenWorld})
		if gerr != nil {
			t.Fatal(gerr)
		}
		if net.NumAtoms() < 20 {
			continue
		}
		g, werr := wmc.Solve(ctx, net, wmc.Options{MaxNodes: 200000})
		if werr != nil {
			if errors.Is(werr, ErrInfeasible) && errors.Is(err, ErrInfeasible) {
				continue
			}
			if errors.Is(werr, wmc.ErrOutOfReach) {
				continue
			}
			t.Fatalf("seed %d: wmc %v, lifted %v", seed, werr, err)
		}
		if err != nil {
			t.Fatalf("seed %d: %v\n%s\n%s", seed, err, c.mln, c.db)
		}
		checked++
		g.LogZ += (unknownAtoms(m, db, opt) - float64(net.NumAtoms())) * math.Ln2 // atoms in no clause
		if e := relErr(r.LogZ, g.LogZ); e > 1e-9 {
			t.Fatalf("seed %d: log Z %.12g, wmc %.12g\n%s\n%s", seed, r.LogZ, g.LogZ, c.mln, c.db)
		}
		for a := range net.NumAtoms() {
			p, ok := r.Prob(net.AtomPred[a], net.AtomArgs[a])
			if !ok {
				if r.query[net.AtomPred[a]] {
					t.Fatalf("seed %d: no marginal for %s", seed, net.AtomName(int32(a)))
				}
				continue
			}
			if math.Abs(p-g.Marginals[a]) > 1e-9 {
				t.Fatalf("seed %d: P(%s) = %.12g, wmc %.12g", seed, net.AtomName(int32(a)), p, g.Marginals[a])
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d models checked", checked)
	}
	t.Logf("%d models checked", checked)
}

// TestFallback checks that a model outside the fragment is counted on
// the ground network, and says so.
func TestFallback(t *testing.T) {
	m, err := mln.ParseModel("f.mln", "p = {A, B}\nR(p, p, p)\nS(p)\n1.2 R(x, y, z) => S(z)\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	db := mln.NewDatabase(m)
	q, _ := m.PredIDs("S,R")
	r, err := Exact(context.Background(), m, db, Options{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != MethodGround || !strings.Contains(r.Reason, "arguments") || len(r.Warnings) == 0 {
		t.Fatalf("method %q, reason %q, warnings %q", r.Method, r.Reason, r.Warnings)
	}
	lz, bp, marg, _ := enumerate(m, db, q, 14)
	if relErr(r.LogZ, lz) > 1e-9 {
		t.Fatalf("log Z %v, enumeration %v", r.LogZ, lz)
	}
	for i, a := range bp.Atoms {
		if p, _ := r.Prob(a.Pred, a.Args); math.Abs(p-marg[i]) > 1e-9 {
			t.Fatalf("P(%s) = %v, enumeration %v", a.String(m), p, marg[i])
		}
	}
	if _, err := Exact(context.Background(), m, db, Options{Query: q, NoFallback: true}); err == nil {
		t.Fatal("no error with NoFallback")
	}
}

// TestClosedForm checks log Z and a marginal at sizes no enumeration
// reaches against sums derived by hand. With w1 S(x) v S(y) over n
// constants (n² groundings, x = y included) and w2 S(x) ^ C(x) ... a world
// with K smokers has (n-K)² false groundings of the first clause; C(x)
// appears only in "w2 S(x) => C(x)", which sums out to 1+e^w2 for a smoker
// and 2e^w2 for a non-smoker. So
//
//	Z = Σ_K C(n,K) e^{w1(n²-(n-K)²)} (1+e^w2)^K (2e^w2)^(n-K)
//
// and P(S(a)) = E[K]/n.
func TestClosedForm(t *testing.T) {
	const w1, w2 = -0.003, 1.5
	for _, n := range []int{1, 7, 100, 2000} {
		var b strings.Builder
		b.WriteString("p = {")
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "A%d", i)
		}
		fmt.Fprintf(&b, "}\nS(p)\nC(p)\n%v S(x) v S(y)\n%v S(x) => C(x)\n", w1, w2)
		m, err := mln.ParseModel("c.mln", b.String())
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(); err != nil {
			t.Fatal(err)
		}
		q, _ := m.PredIDs("S,C")
		r, err := Exact(context.Background(), m, mln.NewDatabase(m), Options{Query: q, NoFallback: true})
		if err != nil {
			t.Fatal(err)
		}
		acc, accK := newLSE(), newLSE()
		for K := 0; K <= n; K++ {
			lc, _ := math.Lgamma(float64(n + 1))
			l1, _ := math.Lgamma(float64(K + 1))
			l2, _ := math.Lgamma(float64(n - K + 1))
			fn, fk := float64(n), float64(K)
			v := lc - l1 - l2 + w1*(fn*fn-(fn-fk)*(fn-fk)) + fk*math.Log1p(math.Exp(w2)) + (fn-fk)*(math.Ln2+w2)
			acc.add(v)
			if K > 0 {
				accK.add(v + math.Log(fk/fn))
			}
		}
		lz := acc.log()
		if relErr(r.LogZ, lz) > 1e-9 {
			t.Fatalf("n=%d: log Z %.15g, closed form %.15g", n, r.LogZ, lz)
		}
		ps := math.Exp(accK.log() - lz)
		s, _ := m.Pred("S")
		a0, _ := m.Const("A0")
		if p, _ := r.Prob(s.ID, []mln.ConstID{a0}); math.Abs(p-ps) > 1e-9 {
			t.Fatalf("n=%d: P(S) = %.12g, closed form %.12g", n, p, ps)
		}
	}
}

// TestRandMLN runs Exact, with its ground fallback, on the repository's
// random models (existential quantifiers, "+" weights, comparisons, "!"
// arguments) and compares it with enumeration.
func TestRandMLN(t *testing.T) {
	ctx := context.Background()
	methods := map[string]int{}
	for seed := range int64(80) {
		c := randmln.Generate(seed)
		m, db, query, ow, err := c.Load()
		if err != nil {
			t.Fatal(err)
		}
		open := append(append([]mln.PredID{}, query...), ow...)
		lz, bp, marg, ok := enumerate(m, db, open, 12)
		if !ok {
			continue
		}
		r, err := Exact(ctx, m, db, Options{Query: query, OpenWorld: ow})
		if math.IsInf(lz, -1) {
			if !errors.Is(err, ErrInfeasible) {
				t.Fatalf("seed %d: Z = 0 by enumeration, Exact gives %v", seed, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: %v\n%v", seed, err, c)
		}
		methods[r.Method]++
		if relErr(r.LogZ, lz) > 1e-9 {
			t.Fatalf("seed %d (%s): log Z %.12g, enumeration %.12g\n%v", seed, r.Method, r.LogZ, lz, c)
		}
		isQuery := map[mln.PredID]bool{}
		for _, q := range query {
			isQuery[q] = true
		}
		for i, a := range bp.Atoms {
			if !isQuery[a.Pred] {
				continue
			}
			if p, ok := r.Prob(a.Pred, a.Args); !ok || math.Abs(p-marg[i]) > 1e-9 {
				t.Fatalf("seed %d (%s): P(%s) = %v (%v), enumeration %v\n%v", seed, r.Method, a.String(m), p, ok, marg[i], c)
			}
		}
	}
	t.Logf("methods: %v", methods)
}

// TestWorkBound checks that the work bound stops the lifted computation
// with an error that says so, and that Exact then falls back to the
// ground count.
func TestWorkBound(t *testing.T) {
	m, db, opt := smokersModel(t, 5, "")
	opt.MaxWork = 10
	_, err := Exact(context.Background(), m, db, opt)
	var nl *NotLiftableError
	if !errors.As(err, &nl) || !nl.OutOfReach || !strings.Contains(err.Error(), "work bound") {
		t.Fatalf("error %v", err)
	}
	opt.NoFallback = false
	r, err := Exact(context.Background(), m, db, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.MaxWork = 0
	l, err := Exact(context.Background(), m, db, opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != MethodGround || l.Method != MethodLifted || relErr(r.LogZ, l.LogZ) > 1e-9 {
		t.Fatalf("%s %v, %s %v", r.Method, r.LogZ, l.Method, l.LogZ)
	}
}
