package learn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/internal/testkit/plant"
	"github.com/marple-mln/marple/internal/testkit/randmln"
	"github.com/marple-mln/marple/mln"
	"github.com/marple-mln/marple/score"
)

// groundedCase is a random MLN ground with its query and open-world atoms
// unknown.
type groundedCase struct {
	m   *mln.Model
	net *ground.Network
}

func groundCase(t *testing.T, seed int64) *groundedCase {
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
	return &groundedCase{m: m, net: net}
}

// randomDatabase draws a closed world over m's atoms: each atom is true
// with probability pTrue.
func randomDatabase(m *mln.Model, r *rand.Rand, pTrue float64) *mln.Database {
	db := mln.NewDatabase(m)
	for p, pr := range m.Preds {
		args := make([]mln.ConstID, len(pr.Args))
		var rec func(j int)
		rec = func(j int) {
			if j == len(args) {
				if r.Float64() < pTrue {
					db.Set(mln.PredID(p), args, mln.True)
				}
				return
			}
			for _, c := range m.Types[pr.Args[j]].Consts {
				args[j] = c
				rec(j + 1)
			}
		}
		rec(0)
	}
	return db
}

// TestGenerativeOptimum learns random MLNs by WPLL with L-BFGS and checks
// that the gradient of the objective vanishes at the result and that the
// reported WPLL is the one of the written weights.
func TestGenerativeOptimum(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 6))
	done := 0
	for seed := int64(200); seed < 260 && done < 25; seed++ {
		pc := groundCase(t, seed)
		n := pc.net.NumAtoms()
		if n == 0 || len(pc.m.Weights) == 0 {
			continue
		}
		truth := randomBools(r, n)
		ex := Examples{{Net: pc.net, Truth: truth}}
		set := GenerativeSettings{PLLOptions: score.PLLOptions{Workers: 2}, PriorStdDev: 1 + 3*r.Float64(),
			ConvThresh: 1e-15, GradTol: 1e-9}
		st, err := Generative(ctx, pc.m, ex, set)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if st.GradNorm > 1e-6 {
			t.Fatalf("seed %d: gradient %g at the optimum (%s, %d iterations)", seed, st.GradNorm, st.Status, st.Iterations)
		}
		p, _ := score.NewWPLL(pc.net, truth, nil, score.PLLOptions{})
		if v := p.Eval(pc.m.Weights, nil); math.Abs(v-st.WPLL) > 1e-12 {
			t.Fatalf("seed %d: reported WPLL %v, weights give %v", seed, st.WPLL, v)
		}
		done++
	}
	if done < 20 {
		t.Fatalf("only %d cases", done)
	}
}

// TestGenerativeDeterministic checks that weights do not depend on the
// number of workers.
func TestGenerativeDeterministic(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(11, 12))
	net := randomNetwork(r, 3000, 9000, 12, true)
	truth := randomBools(r, 3000)
	var ws [][]float64
	for _, workers := range []int{1, 2, 3} {
		m := &mln.Model{Weights: make([]float64, 12)}
		st, err := Generative(ctx, m, Examples{{Net: net, Truth: truth}},
			GenerativeSettings{PLLOptions: score.PLLOptions{Workers: workers}})
		if err != nil {
			t.Fatal(err)
		}
		if st.Iterations == 0 || st.Rows == 0 {
			t.Fatalf("stats %+v", st)
		}
		ws = append(ws, m.Weights)
	}
	if !slices.Equal(ws[0], ws[1]) || !slices.Equal(ws[0], ws[2]) {
		t.Fatalf("weights depend on workers: %v %v %v", ws[0], ws[1], ws[2])
	}
}

// TestGenerativeCountsMatchesGround learns random MLNs' weights both from
// counts and from ground clauses (tight tolerances) and compares them.
func TestGenerativeCountsMatchesGround(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(21, 22))
	done := 0
	for seed := int64(300); seed < 400 && done < 25; seed++ {
		c := randmln.Generate(seed)
		m, _, _, _, err := c.Load()
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Weights) == 0 {
			continue
		}
		// One database, or two (each its own example, weighed apart).
		var dbs []*mln.Database
		for k := 0; k <= int(seed%2); k++ {
			db := randomDatabase(m, r, 0.3+0.4*r.Float64())
			dbs = append(dbs, db)
		}
		set := GenerativeSettings{PriorStdDev: 1 + 2*r.Float64(), ConvThresh: 1e-14, GradTol: 1e-10}
		clear(m.Weights)
		if _, err := GenerativeCounts(ctx, m, dbs, nil, set); err != nil {
			if strings.Contains(err.Error(), "not supported") {
				continue
			}
			t.Fatalf("seed %d: %v", seed, err)
		}
		wc := slices.Clone(m.Weights)
		var all []mln.PredID
		for p := range m.Preds {
			all = append(all, mln.PredID(p))
		}
		net, err := ground.Ground(ctx, m, mln.NewDatabase(m), ground.Options{Query: all, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		var exs Examples
		for _, db := range dbs {
			exs = append(exs, &Example{Net: net, Truth: net.Assignment(db)})
		}
		clear(m.Weights)
		if _, err := Generative(ctx, m, exs, set); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for i := range wc {
			if math.Abs(wc[i]-m.Weights[i]) > 1e-6 {
				t.Fatalf("seed %d: weight %d from counts %.9g, from ground clauses %.9g\n%s", seed, i, wc[i], m.Weights[i], c)
			}
		}
		done++
	}
	if done < 20 {
		t.Fatalf("only %d cases", done)
	}
}

// TestGenerativeCountsDeterministic checks that the learned weights do
// not depend on the number of workers.
func TestGenerativeCountsDeterministic(t *testing.T) {
	ctx := context.Background()
	m, dbs, _, err := plant.Planted(ctx, 2, 25, 2)
	if err != nil {
		t.Fatal(err)
	}
	var ws [][]float64
	for _, workers := range []int{1, 2, 3} {
		clear(m.Weights)
		if _, err := GenerativeCounts(ctx, m, dbs, nil, GenerativeSettings{PLLOptions: score.PLLOptions{Workers: workers}}); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, slices.Clone(m.Weights))
	}
	if !slices.Equal(ws[0], ws[1]) || !slices.Equal(ws[0], ws[2]) {
		t.Fatalf("weights depend on workers: %v %v %v", ws[0], ws[1], ws[2])
	}
}

// TestGenerativeCountsCancelled checks that a cancelled context stops
// learning with its error.
func TestGenerativeCountsCancelled(t *testing.T) {
	m, dbs, _, err := plant.Planted(context.Background(), 2, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := GenerativeCounts(ctx, m, dbs, nil, GenerativeSettings{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

// TestGenerativeCountsPlanted learns the planted model's weights from its
// sample: the planted clauses get positive weights.
func TestGenerativeCountsPlanted(t *testing.T) {
	ctx := context.Background()
	m, dbs, planted, err := plant.Planted(ctx, 3, 30, 3)
	if err != nil {
		t.Fatal(err)
	}
	clear(m.Weights)
	st, err := GenerativeCounts(ctx, m, dbs, nil, GenerativeSettings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range planted {
		if w := m.Weights[m.Formulas[c.Formula].Params[""]]; w < 0.5 {
			t.Fatalf("planted clause of formula %d: weight %g (%+v)", c.Formula, w, st)
		}
	}
}
