package score

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// TestModelRowsLineOrder checks that the pseudo-log-likelihood built from
// clause counts does not depend on the order of the database's lines
// (which numbers the constants): the value and the gradient are the same
// bits at any weights, so a learner's path through them is the same.
func TestModelRowsLineOrder(t *testing.T) {
	for _, c := range [][2]string{
		{"../examples/smokers/smoking.mln", "../examples/smokers/smoking-train.db"},
		{"../cmd/marple/testdata/alchemy/uw-bp.mln", "../cmd/marple/testdata/alchemy/uw-lang.db"},
	} {
		t.Run(filepath.Base(c[1]), func(t *testing.T) { checkLineOrder(t, c[0], c[1]) })
	}
}

func checkLineOrder(t *testing.T, model, data string) {
	dir := t.TempDir()
	src, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(src)), "\n")
	r := rand.New(rand.NewPCG(3, 4))
	eval := func(db string, w []float64) (float64, []float64) {
		t.Helper()
		m, d, err := mln.Load(context.Background(), []string{model}, []string{db})
		if err != nil {
			t.Fatal(err)
		}
		pd, err := NewPLLData(m, []*mln.Database{d}, nil, CountOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ps, err := pd.ModelRows(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		g := make([]float64, len(w))
		return ps[0].Eval(w, g), g
	}
	for trial := 0; trial < 8; trial++ {
		perm := permuted(r, lines)
		path := filepath.Join(dir, "perm.db")
		if err := os.WriteFile(path, []byte(strings.Join(perm, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		m, _, err := mln.Load(context.Background(), []string{model}, []string{data})
		if err != nil {
			t.Fatal(err)
		}
		w := make([]float64, len(m.Weights))
		for i := range w {
			w[i] = 4*r.Float64() - 2
		}
		v0, g0 := eval(data, w)
		v1, g1 := eval(path, w)
		if v0 != v1 {
			t.Errorf("trial %d: value %v in file order, %v with the lines permuted", trial, v0, v1)
		}
		for i := range g0 {
			if g0[i] != g1[i] {
				t.Errorf("trial %d: gradient %d: %v in file order, %v with the lines permuted", trial, i, g0[i], g1[i])
			}
		}
	}
}

func permuted(r *rand.Rand, s []string) []string {
	out := append([]string(nil), s...)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
