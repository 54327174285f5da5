package pipeline

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/marple-mln/marple/learn"
)

// TestTuneSigmaIsSequential: with one shard, TuneSigma scores every value
// of learn.SigmaGrid as learn.TuneOnline (marple learn -sigma auto) does,
// chooses the same σ, and writes the model and state learned with it; its
// temporary files are gone.
func TestTuneSigmaIsSequential(t *testing.T) {
	d := srlData(t, 30, 12)
	cfg := TrainConfig{Data: d, Learner: Learner{Method: "cda-ml"}, Passes: 1, Shards: 1}
	dir := t.TempDir()
	out := Outputs{Model: filepath.Join(dir, "learned.mln"), State: filepath.Join(dir, "state.json")}
	run := func(ctx context.Context, p *beam.Pipeline) error { return ptest.Run(p) }
	res, err := TuneSigma(context.Background(), run, cfg, out, nil)
	if err != nil {
		t.Fatal(err)
	}

	g, err := NewGrounder(d)
	if err != nil {
		t.Fatal(err)
	}
	engine, _ := cfg.Learner.engine()
	seq, err := learn.TuneOnline(context.Background(), g.Model, &Source{G: g, Examples: readAll(t, d)},
		func(v float64) learn.Method { return &learn.CDA{Sigma: v, Inference: learn.MaxLoss} },
		learn.Settings{Solver: engine, Passes: 1}, learn.Tuning{Grid: learn.SigmaGrid, Holdout: learn.DefaultTuneHoldout, Solver: engine})
	if err != nil {
		t.Fatal(err)
	}
	if res.Value != seq.Value || len(res.F1) != len(seq.F1) || res.Scored != seq.Scored {
		t.Fatalf("chose σ %g (F1 %v, %d examples), sequential %g (F1 %v, %d examples)", res.Value, res.F1, res.Scored, seq.Value, seq.F1, seq.Scored)
	}
	for i := range res.F1 {
		if math.Abs(res.F1[i]-seq.F1[i]) > 1e-9 {
			t.Errorf("σ %g: F1 %v, sequential %v", learn.SigmaGrid[i], res.F1[i], seq.F1[i])
		}
	}

	got, err := ReadState(out.State)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Learner.Sigma = res.Value
	want, wantOut := runTrain(t, cfg)
	if err := sameWeights(got.Final(false), want.Final(false)); err != nil {
		t.Errorf("the tuned state is not the one learned with σ %g: %v", res.Value, err)
	}
	a, _ := os.ReadFile(out.Model)
	b, _ := os.ReadFile(wantOut.Model)
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("the tuned model differs from the one learned with σ %g", res.Value)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 2 {
		var names []string
		for _, f := range files {
			names = append(names, f.Name())
		}
		t.Errorf("files left in the output directory: %v", names)
	}
}
