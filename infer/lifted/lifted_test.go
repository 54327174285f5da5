package lifted

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/marple-mln/marple/internal/testkit/brute"
	"github.com/marple-mln/marple/mln"
)

// fo2Case is a random model in the lifted fragment: at most two variables
// per formula, nullary, unary and binary predicates, one or two types,
// hard formulas, weights of both signs, constants in formulas, = and !=,
// and evidence with true, false and "?" atoms.
type fo2Case struct {
	mln, db          string
	query, openWorld []string
}

func genFO2(seed uint64, evidence bool) fo2Case { return genFO2Size(seed, evidence, 0) }

// genFO2Size is genFO2 with size constants per type (0: one to three).
func genFO2Size(seed uint64, evidence bool, size int) fo2Case {
	r := rand.New(rand.NewPCG(seed, 7))
	ntypes := 1 + r.IntN(2)
	var b strings.Builder
	type typ struct {
		name   string
		consts []string
	}
	types := make([]typ, ntypes)
	for t := range types {
		types[t].name = fmt.Sprintf("t%d", t)
		n := 1 + r.IntN(3)
		if ntypes == 2 {
			n = 1 + r.IntN(2)
		}
		if size > 0 {
			n = size
		}
		for i := range n {
			types[t].consts = append(types[t].consts, fmt.Sprintf("C%d_%d", t, i))
		}
		fmt.Fprintf(&b, "%s = {%s}\n", types[t].name, strings.Join(types[t].consts, ", "))
	}
	type pred struct {
		name string
		args []int
	}
	var preds []pred
	for i := range 1 + r.IntN(3) {
		preds = append(preds, pred{name: fmt.Sprintf("U%d", i), args: []int{r.IntN(ntypes)}})
	}
	for i := range 1 + r.IntN(2) {
		preds = append(preds, pred{name: fmt.Sprintf("B%d", i), args: []int{r.IntN(ntypes), r.IntN(ntypes)}})
	}
	for _, p := range preds {
		var a []string
		for _, t := range p.args {
			a = append(a, types[t].name)
		}
		if len(a) == 0 {
			fmt.Fprintf(&b, "%s\n", p.name)
		} else {
			fmt.Fprintf(&b, "%s(%s)\n", p.name, strings.Join(a, ", "))
		}
	}
	nf := 2 + r.IntN(3)
	for range nf {
		vt := []int{r.IntN(ntypes), r.IntN(ntypes)}
		vars := []string{"x", "y"}
		nl := 1 + r.IntN(3)
		var lits []string
		used := [2]bool{}
		for range nl {
			p := preds[r.IntN(len(preds))]
			var args []string
			for _, t := range p.args {
				var opts []string
				for v := range 2 {
					if vt[v] == t {
						opts = append(opts, vars[v])
					}
				}
				if len(opts) == 0 || r.IntN(10) == 0 {
					opts = types[t].consts
				}
				a := opts[r.IntN(len(opts))]
				used[0] = used[0] || a == "x"
				used[1] = used[1] || a == "y"
				args = append(args, a)
			}
			s := p.name
			if len(args) > 0 {
				s += "(" + strings.Join(args, ", ") + ")"
			}
			if r.IntN(2) == 0 {
				s = "!" + s
			}
			lits = append(lits, s)
		}
		if used[0] && used[1] && vt[0] == vt[1] && r.IntN(4) == 0 {
			op := "="
			if r.IntN(2) == 0 {
				op = "!="
			}
			lits = append(lits, "x "+op+" y")
		}
		body := strings.Join(lits, " v ")
		if len(lits) >= 2 && r.IntN(3) == 0 {
			body = "(" + lits[0] + ") => (" + strings.Join(lits[1:], " ^ ") + ")"
		}
		if r.IntN(6) == 0 {
			fmt.Fprintf(&b, "%s.\n", body)
		} else {
			fmt.Fprintf(&b, "%.3f %s\n", r.Float64()*4-2, body)
		}
	}
	c := fo2Case{mln: b.String()}
	var db strings.Builder
	for _, p := range preds {
		switch r.IntN(3) {
		case 0:
			c.query = append(c.query, p.name)
		case 1:
			c.openWorld = append(c.openWorld, p.name)
		}
		if !evidence {
			continue
		}
		var rec func(i int, args []string)
		rec = func(i int, args []string) {
			if i == len(p.args) {
				atom := p.name
				if len(args) > 0 {
					atom += "(" + strings.Join(args, ",") + ")"
				}
				switch r.IntN(6) {
				case 0:
					fmt.Fprintf(&db, "%s\n", atom)
				case 1:
					fmt.Fprintf(&db, "!%s\n", atom)
				case 2:
					fmt.Fprintf(&db, "?%s\n", atom)
				}
				return
			}
			for _, k := range types[p.args[i]].consts {
				rec(i+1, append(args, k))
			}
		}
		rec(0, nil)
	}
	if len(c.query) == 0 {
		c.query = []string{preds[len(preds)-1].name}
	}
	c.db = db.String()
	return c
}

func (c fo2Case) load(t *testing.T) (*mln.Model, *mln.Database, Options, []mln.PredID) {
	t.Helper()
	m, err := mln.ParseModel("case.mln", c.mln)
	if err != nil {
		t.Fatalf("%v\n%s", err, c.mln)
	}
	db, err := mln.ParseDatabase(m, "case.db", c.db)
	if err != nil {
		t.Fatalf("%v\n%s", err, c.db)
	}
	if err := m.Compile(); err != nil {
		t.Fatal(err)
	}
	q, err := m.PredIDs(c.query...)
	if err != nil {
		t.Fatal(err)
	}
	ow, err := m.PredIDs(c.openWorld...)
	if err != nil {
		t.Fatal(err)
	}
	return m, db, Options{Query: q, OpenWorld: ow, NoFallback: true}, append(append([]mln.PredID{}, q...), ow...)
}

// enumerate returns log Z and the marginal of every unknown atom by brute
// force, or ok false when there are too many atoms.
func enumerate(m *mln.Model, db *mln.Database, open []mln.PredID, maxAtoms int) (lz float64, p *brute.Problem, marg []float64, ok bool) {
	p = brute.NewProblem(m, db, open)
	n := len(p.Atoms)
	if n > maxAtoms {
		return 0, nil, nil, false
	}
	world := make([]bool, n)
	acc := newLSE()
	accs := make([]lse, n)
	for i := range accs {
		accs[i] = newLSE()
	}
	for a := uint64(0); a < 1<<n; a++ {
		for i := range world {
			world[i] = a>>i&1 == 1
		}
		res := p.Eval(world)
		if res.HardViolated > 0 {
			continue
		}
		acc.add(res.Score)
		for i, v := range world {
			if v {
				accs[i].add(res.Score)
			}
		}
	}
	lz = acc.log()
	marg = make([]float64, n)
	for i := range marg {
		marg[i] = math.Exp(accs[i].log() - lz)
	}
	return lz, p, marg, true
}

func relErr(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / max(1, math.Abs(b))
}

// TestExactBrute compares log Z and the marginals with enumeration on
// random small models in the fragment, without and with evidence.
func TestExactBrute(t *testing.T) {
	ctx := context.Background()
	checked := 0
	for seed := range uint64(300) {
		c := genFO2(seed, seed%2 == 1)
		m, db, opt, open := c.load(t)
		lz, bp, marg, ok := enumerate(m, db, open, 14)
		if !ok {
			continue
		}
		r, err := Exact(ctx, m, db, opt)
		if math.IsInf(lz, -1) {
			if !errors.Is(err, ErrInfeasible) {
				t.Fatalf("seed %d: Z = 0 by enumeration, lifted gives %v, %v\n%s\n%s", seed, r, err, c.mln, c.db)
			}
			continue
		}
		if err != nil {
			var nl *NotLiftableError
			if errors.As(err, &nl) {
				t.Logf("seed %d: %v", seed, err)
				continue
			}
			t.Fatalf("seed %d: %v\n%s\n%s", seed, err, c.mln, c.db)
		}
		checked++
		if e := relErr(r.LogZ, lz); e > 1e-9 {
			t.Fatalf("seed %d: log Z %.12g, enumeration %.12g\n%s\n%s", seed, r.LogZ, lz, c.mln, c.db)
		}
		isQuery := map[mln.PredID]bool{}
		for _, q := range opt.Query {
			isQuery[q] = true
		}
		nq := 0
		for i, a := range bp.Atoms {
			if !isQuery[a.Pred] {
				continue
			}
			nq++
			got, ok := r.Prob(a.Pred, a.Args)
			if !ok {
				t.Fatalf("seed %d: no marginal for %s\n%s\n%s", seed, a.String(m), c.mln, c.db)
			}
			if math.Abs(got-marg[i]) > 1e-9 {
				t.Fatalf("seed %d: P(%s) = %.12g, enumeration %.12g\n%s\n%s", seed, a.String(m), got, marg[i], c.mln, c.db)
			}
		}
		n := 0
		r.Each(func(mln.PredID, []mln.ConstID, float64, float64) bool { n++; return true })
		if n != nq {
			t.Fatalf("seed %d: %d query atoms listed, enumeration has %d\n%s\n%s", seed, n, nq, c.mln, c.db)
		}
	}
	if checked < 150 {
		t.Fatalf("only %d cases checked", checked)
	}
	t.Logf("%d cases checked", checked)
}

// TestSampleAgrees checks that lifted importance sampling agrees with the
// exact answers within four of its standard errors on 20 random models,
// with each proposal.
func TestSampleAgrees(t *testing.T) {
	ctx := context.Background()
	done := 0
	for seed := uint64(1000); done < 20 && seed < 1200; seed++ {
		c := genFO2(seed, seed%2 == 1)
		m, db, opt, _ := c.load(t)
		ex, err := Exact(ctx, m, db, opt)
		if err != nil {
			continue
		}
		done++
		for _, prop := range []Proposal{Binomial, Uniform, Informed} {
			s, err := Sample(ctx, m, db, opt, Sampling{Samples: 2000, Proposal: prop, Seed: seed, LearningRate: 0.05, UpdateInterval: 50})
			if err != nil {
				t.Fatalf("seed %d %v: %v", seed, prop, err)
			}
			if d := math.Abs(s.LogZ - ex.LogZ); math.IsNaN(s.LogZErr) || d > 4*s.LogZErr+1e-9 {
				t.Errorf("seed %d %v: log Z %.6f ± %.6f, exact %.6f\n%s\n%s", seed, prop, s.LogZ, s.LogZErr, ex.LogZ, c.mln, c.db)
			}
			for _, cl := range ex.Classes {
				p, ok := s.Prob(cl.Pred, cl.Args)
				if !ok {
					t.Fatalf("seed %d: no sampled marginal", seed)
				}
				e := s.Err(cl.Pred, cl.Args)
				if math.IsNaN(e) {
					t.Errorf("seed %d %v: no standard error for P = %v (exact %v), ESS %v", seed, prop, p, cl.Prob, s.ESS)
				}
				if d := math.Abs(p - cl.Prob); d > 4*e+1e-9 {
					t.Errorf("seed %d %v: P = %.6f ± %.6f, exact %.6f\n%s\n%s", seed, prop, p, e, cl.Prob, c.mln, c.db)
				}
			}
		}
	}
	if done < 20 {
		t.Fatalf("only %d models", done)
	}
}

// TestSampleDeterministic checks that a seed fixes the estimates.
func TestSampleDeterministic(t *testing.T) {
	m, db, opt := smokersModel(t, 12, randomEvidence(12, 2, 2))
	s := Sampling{Samples: 200, Proposal: Informed, Seed: 9, LearningRate: 0.1, UpdateInterval: 20}
	a, err := Sample(context.Background(), m, db, opt, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Sample(context.Background(), m, db, opt, s)
	if err != nil {
		t.Fatal(err)
	}
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	if !same(a.LogZ, b.LogZ) || !same(a.LogZErr, b.LogZErr) || len(a.Classes) != len(b.Classes) {
		t.Fatalf("log Z %v ± %v, then %v ± %v", a.LogZ, a.LogZErr, b.LogZ, b.LogZErr)
	}
	for i := range a.Classes {
		if !same(a.Classes[i].Prob, b.Classes[i].Prob) || !same(a.Classes[i].Err, b.Classes[i].Err) {
			t.Fatalf("class %d: %v, then %v", i, a.Classes[i], b.Classes[i])
		}
	}
}
