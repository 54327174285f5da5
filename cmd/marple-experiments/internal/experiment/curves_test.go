package experiment

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// TestCurvesTinyFold runs both figures' loops on a fold of the tiny
// CiteSeer files (trained and tested on the same two citations): every F1
// is a percentage, and the label noise leaves each example's clean truth
// in place afterwards.
func TestCurvesTinyFold(t *testing.T) {
	ctx := context.Background()
	files := []string{filepath.Join("testdata", "tiny.evidence.db"), filepath.Join("testdata", "tiny.infield.db")}
	f := &fold{}
	var err error
	if f.train, f.src, f.trainMask, err = trainExamples(ctx, "", files); err != nil {
		t.Fatal(err)
	}
	if f.test, f.testNet, f.testTruth, f.testMask, err = groundCiteSeer(ctx, "", files); err != nil {
		t.Fatal(err)
	}
	var clean [][]bool
	for _, ex := range f.src {
		clean = append(clean, slices.Clone(ex.Truth))
	}
	res, err := f.curves(ctx, CurvesConfig{Sizes: []int{1, 2}, Noise: []float64{0, 0.5}, Orders: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range CurveLearners {
		for _, v := range append(slices.Clone(res.Curve[l.Name]), res.Noisy[l.Name]...) {
			if v < 0 || v > 100 {
				t.Errorf("%s: F1 %v", l.Name, v)
			}
		}
	}
	for i, ex := range f.src {
		if !slices.Equal(ex.Truth, clean[i]) {
			t.Errorf("example %d: truth not restored after the noisy runs", i)
		}
		// With p = 1 every token of the example changes field.
		tokens := citeseerTokens(ex.Net, f.trainMask[i])
		noisy := noisyLabels(ex.Truth, tokens, 1, rand.New(rand.NewPCG(1, 0)))
		for _, tok := range tokens {
			if slices.Equal(pick(noisy, tok), pick(ex.Truth, tok)) {
				t.Errorf("example %d: token %v kept its field with p = 1", i, tok)
			}
		}
	}
}

// pick returns y at the atoms of tok.
func pick(y []bool, tok []int32) []bool {
	var out []bool
	for _, a := range tok {
		out = append(out, y[a])
	}
	return out
}
