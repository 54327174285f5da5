package hybrid

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// A formula with "+" variables is one feature per constant, each with its
// own weight: the log-weight of every state equals that of the model
// written out per constant with the same weights.
func TestPlusExpansion(t *testing.T) {
	plus := "o = {A, B}\nlab = {W, D}\nL(o, lab)\nX(o)\n0 L(x, +l)\n0 L(x, +l) * X(x) = 2\n"
	ws := []float64{0.4, -0.7, 1.5, 0.25}
	written := fmt.Sprintf("o = {A, B}\nlab = {W, D}\nL(o, lab)\nX(o)\n%g L(x, W)\n%g L(x, D)\n%g L(x, W) * X(x) = 2\n%g L(x, D) * X(x) = 2\n", ws[0], ws[1], ws[2], ws[3])
	p := problem(t, plus, "", "L")
	q := problem(t, written, "", "L")
	if len(p.Weights) != 4 {
		t.Fatalf("%d features, want 4", len(p.Weights))
	}
	copy(p.Weights, ws)
	if len(p.Bools) != len(q.Bools) || len(p.Reals) != len(q.Reals) {
		t.Fatalf("variables: %d/%d and %d/%d", len(p.Bools), len(p.Reals), len(q.Bools), len(q.Reals))
	}
	rng := rand.New(rand.NewPCG(1, 1))
	b, x := make([]bool, len(p.Bools)), make([]float64, len(p.Reals))
	bq, xq := make([]bool, len(q.Bools)), make([]float64, len(q.Reals))
	for range 200 {
		for i, a := range p.Bools {
			b[i] = rng.IntN(2) == 1
			j, _ := q.BoolIndex(a.Pred, a.Args)
			bq[j] = b[i]
		}
		for i, a := range p.Reals {
			x[i] = rng.NormFloat64() * 3
			j, _ := q.RealIndex(a.Pred, a.Args)
			xq[j] = x[i]
		}
		if u, v := p.LogWeight(b, x), q.LogWeight(bq, xq); math.Abs(u-v) > 1e-9 {
			t.Fatalf("log-weight %v, written out %v", u, v)
		}
	}
	// WriteModel writes one formula per constant, which read back give
	// the same features and weights.
	var out strings.Builder
	if err := WriteModel(&out, p.Model, ws); err != nil {
		t.Fatal(err)
	}
	m, err := mln.ParseModel("w.mln", out.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	fs, err := m.Features()
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, f := range fs {
		got = append(got, f.Weight)
	}
	if fmt.Sprint(got) != fmt.Sprint(ws) {
		t.Fatalf("read back: weights %v, want %v\n%s", got, ws, out.String())
	}
	t.Logf("written:\n%s", out.String())
}

// Per-label Gaussian weights: readings of W objects vary by 0.5 around 2,
// those of D objects by 1, so the likelihood is maximal at weights
// 1/(2·0.25) = 2 and 1/(2·1) = 0.5; the learned model is written with one
// formula per label.
func TestLearnPlus(t *testing.T) {
	var db strings.Builder
	for i := range 40 {
		lab, d := "W", 0.5
		if i%2 == 1 {
			lab, d = "D", 1
		}
		fmt.Fprintf(&db, "L(O%d, %s)\nX(O%d) %g\n", i, lab, i, 2+d*float64(1-2*(i/2%2)))
	}
	m, err := mln.ParseModel("p.mln", "lab = {W, D}\nL(obj, lab)\nX(obj)\n0 L(o, +l) * X(o) = 2\n")
	if err != nil {
		t.Fatal(err)
	}
	train, err := mln.ParseDatabase(m, "p.db", db.String())
	if err != nil {
		t.Fatal(err)
	}
	q, _ := m.PredIDs("X")
	w, err := Learn(context.Background(), m, []*mln.Database{train}, LearnOptions{Query: q, Iterations: 40, Samples: 50, Sigma: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("learned weights %v", w)
	if len(w) != 2 || math.Abs(w[0]-2) > 0.2 || math.Abs(w[1]-0.5) > 0.05 {
		t.Fatalf("learned weights %v, want [2 0.5] ± 10%%", w)
	}
	var out strings.Builder
	if err := WriteModel(&out, m, w); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{" L(o,W) * X(o) = 2\n", " L(o,D) * X(o) = 2\n"} {
		if !strings.Contains(strings.ReplaceAll(out.String(), ", ", ","), want) {
			t.Fatalf("written model lacks %q:\n%s", want, out.String())
		}
	}
}
