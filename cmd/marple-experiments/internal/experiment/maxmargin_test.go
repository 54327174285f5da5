package experiment

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadWebKB checks the rewriting of the shared WebKB files: the words
// every department lists are kept, the others dropped, and a fold has one
// training example per department.
func TestReadWebKB(t *testing.T) {
	depts, err := readWebKB(filepath.Join("testdata", "webkb"))
	if err != nil {
		t.Fatal(err)
	}
	words := WebKBWords(depts)
	if len(words) != 2 || !words["Assign"] || !words["Hour"] {
		t.Fatalf("common words %v, want Assign and Hour", words)
	}
	for _, l := range depts["dept1"].lines {
		if strings.Contains(l, "Word") || strings.Contains(l, "Other") {
			t.Errorf("kept %q", l)
		}
	}
	f, err := loadWebKBFold(context.Background(), depts, "dept1")
	if err != nil {
		t.Fatal(err)
	}
	if f.src.Len() != 3 {
		t.Errorf("%d training examples, want 3 (one per department)", f.src.Len())
	}
	// 3 classes × 3 pages, 3 of them true.
	q, tr := 0, 0
	for a, m := range f.testMask {
		if m {
			q++
			if f.testTruth[a] {
				tr++
			}
		}
	}
	if q != 9 || tr != 3 {
		t.Errorf("test: %d query atoms, %d true; want 9 and 3", q, tr)
	}
}

// TestRunMaxMarginTiny runs the whole experiment on the tiny WebKB files.
func TestRunMaxMarginTiny(t *testing.T) {
	table, err := RunMaxMargin(context.Background(), MaxMarginConfig{
		Data: "testdata", Datasets: []string{"webkb"}, Folds: []string{"dept1", "dept2"},
		Cs: []float64{1, 100}, PSCGIter: 3, PSCGSamples: 20, TestSamples: 50, Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	r := table.Results[0]
	if len(r.Folds) != 2 || len(r.ChosenC) != 2 {
		t.Fatalf("folds %v, chosen C %v", r.Folds, r.ChosenC)
	}
	for _, row := range MaxMarginRows {
		for _, v := range r.F1[row] {
			if math.IsNaN(v) || v < 0 || v > 100 {
				t.Errorf("%s: F1 %v", row, v)
			}
		}
	}
	var md, svg bytes.Buffer
	if err := table.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.SensitivityChart().WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), RowMMLP) || !strings.HasPrefix(svg.String(), "<svg") || !strings.HasSuffix(svg.String(), "</svg>\n") {
		t.Errorf("markdown or SVG incomplete:\n%s\n%s", md.String(), svg.String())
	}
}

// TestNoisyLabels checks the label noise: each token keeps exactly one
// field, and about a fraction p of them change.
func TestNoisyLabels(t *testing.T) {
	const tokens = 3000
	truth := make([]bool, 3*tokens)
	var groups [][]int32
	for k := 0; k < tokens; k++ {
		truth[3*k+k%3] = true
		groups = append(groups, []int32{int32(3 * k), int32(3*k + 1), int32(3*k + 2)})
	}
	for _, p := range []float64{0, 0.2, 0.5} {
		noisy := noisyLabels(truth, groups, p, rand.New(rand.NewPCG(3, 0)))
		changed := 0
		for _, g := range groups {
			n := 0
			for _, a := range g {
				if noisy[a] {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("p %g: a token has %d fields", p, n)
			}
			if noisy[g[0]] != truth[g[0]] || noisy[g[1]] != truth[g[1]] {
				changed++
			}
		}
		if got := float64(changed) / tokens; math.Abs(got-p) > 0.03 {
			t.Errorf("p %g: %.3f of the tokens changed", p, got)
		}
	}
}
