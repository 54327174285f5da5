package hybrid

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/marple-mln/marple/mln"
)

// learnFiles loads testdata/model and its training data: testdata/db with
// every real value times factor (a power of two: exact).
func learnFiles(t *testing.T, model, db string, factor float64) (*mln.Model, *mln.Database) {
	t.Helper()
	m, err := mln.LoadModel("testdata/" + model)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/" + db)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				t.Fatal(err)
			}
			line = fmt.Sprintf("%s %v", f[0], v*factor)
		}
		text.WriteString(line + "\n")
	}
	train, err := mln.ParseDatabase(m, db, text.String())
	if err != nil {
		t.Fatal(err)
	}
	return m, train
}

// Readings near 1e154, whose squares' sums overflow float64: both
// learners rescale the feature by a power of two and learn finite
// weights (main wrote NaN, and +Inf with slack NaN for max-margin), the
// same, up to that power, as on the readings times 2^-40.
func TestLearnLargeValues(t *testing.T) {
	ctx := context.Background()
	run := func(factor float64) ([]float64, *MaxMarginResult) {
		m, train := learnFiles(t, "large-values.mln", "large-values.db", factor)
		q, _ := m.PredIDs("C")
		w, err := Learn(ctx, m, []*mln.Database{train}, LearnOptions{Query: q, Iterations: 20, Samples: 20, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		mm, err := LearnMaxMargin(ctx, m, []*mln.Database{train}, MaxMarginOptions{Query: q, C: 100, MAP: MAPOptions{Seed: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return w, mm
	}
	w, mm := run(1)
	ws, mms := run(0x1p-40)
	t.Logf("CLL %v, max-margin %v (slack %v)", w, mm.Weights, mm.Slack)
	for _, v := range append(append([]float64{mm.Slack}, w...), mm.Weights...) {
		if !finite(v) {
			t.Fatalf("CLL weights %v, max-margin weights %v, slack %v", w, mm.Weights, mm.Slack)
		}
	}
	if !(w[0] < 0 && w[1] > 0 && mm.Weights[0] < 0 && mm.Weights[1] > 0 && mm.Converged) {
		t.Fatalf("CLL weights %v, max-margin weights %v (converged %v)", w, mm.Weights, mm.Converged)
	}
	same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(a) }
	if !same(w[0], ws[0]) || !same(w[1], ws[1]*0x1p-80) || !same(mm.Weights[0], mms.Weights[0]) || !same(mm.Weights[1], mms.Weights[1]*0x1p-80) || !same(mm.Slack, mms.Slack) {
		t.Fatalf("readings times 2^-40: CLL %v (want %v), max-margin %v slack %v (want %v, %v)", ws, w, mms.Weights, mms.Slack, mm.Weights, mm.Slack)
	}
}

// A Gaussian about 1e150 with readings 1e150 ± 1e149: the CLL learner
// learns the weight 1/(2·1e298) (main wrote NaN).
func TestLearnLargeGaussian(t *testing.T) {
	m, train := learnFiles(t, "large-gaussian.mln", "large-gaussian.db", 1)
	q, _ := m.PredIDs("R")
	w, err := Learn(context.Background(), m, []*mln.Database{train}, LearnOptions{Query: q, Iterations: 20, Samples: 50, Sigma: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := 5e-299; !(math.Abs(w[0]-want) <= 0.1*want) {
		t.Fatalf("learned weight %v, want %v ± 10%%", w[0], want)
	}
}
