package hybrid

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// Learning the weight of -(X(o) - 3)^2 from readings with sample variance
// s² about 3 maximises the likelihood at w = 1/(2 s²) (the prior, σ = 100,
// moves it by less than 1e-4).
func TestLearnGaussianWeight(t *testing.T) {
	var db strings.Builder
	const n = 40
	for i := range n {
		// Readings 3 ± 0.5, alternately: variance about 3 is 0.25.
		fmt.Fprintf(&db, "X(O%d) %g\n", i, 3+0.5*float64(1-2*(i%2)))
	}
	m, err := mln.ParseModel("g.mln", "X(obj)\n0 X(o) = 3\n")
	if err != nil {
		t.Fatal(err)
	}
	train, err := mln.ParseDatabase(m, "g.db", db.String())
	if err != nil {
		t.Fatal(err)
	}
	q, _ := m.PredIDs("X")
	w, err := Learn(context.Background(), m, []*mln.Database{train}, LearnOptions{Query: q, Iterations: 40, Samples: 50, Sigma: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("learned weight %v", w[0])
	// The expected count has sampling noise: 40 variables, 50 samples per
	// step, the last steps averaging it; 10% covers it.
	if want := 2.0; math.Abs(w[0]-want) > 0.1*want {
		t.Fatalf("learned weight %v, want %v ± 10%%", w[0], want)
	}
	var out strings.Builder
	if err := WriteModel(&out, m, w); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), " X(o) = 3\n") {
		t.Fatalf("written model:\n%s", out.String())
	}
}
