package experiment

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/marple-mln/marple/structure"
)

// TestRunMSLSmall runs the experiment end to end on a tiny IMDB-shaped data
// set (testdata/msl/imdb: five synthetic folds).
func TestRunMSLSmall(t *testing.T) {
	s := structure.DefaultSettings()
	s.MaxNumPredicates, s.MaxVars, s.MaxSteps = 2, 2, 2
	res, err := RunMSL(context.Background(), MSLConfig{
		Dir: "testdata/msl", Datasets: []string{"imdb"}, Folds: []string{"imdb.1"}, Rows: []string{"weights-unit", "beam-unit"},
		Search: s, Scoring: structure.DefaultScoring(), Samples: 50, Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || len(res[0].Rows) != 2 || len(res[0].Preds) != 6 {
		t.Fatalf("result %+v", res)
	}
	var b bytes.Buffer
	if err := res[0].WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Unit clauses (weights learned)", "MSL beam, from unit clauses", "| workedUnder |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if _, err := RunMSL(context.Background(), MSLConfig{Dir: "testdata/none"}); err == nil {
		t.Error("no error without the data")
	}
}
