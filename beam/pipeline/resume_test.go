package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

// TestResume: a job that fails in its third epoch leaves the state of
// its second in the state file; TrainFrom continues from it to the
// weights, loss and model of an uninterrupted run (one shard and three).
func TestResume(t *testing.T) {
	d := srlData(t, 30, 12)
	for _, shards := range []int{1, 3} {
		cfg := TrainConfig{Data: d, Learner: Learner{Method: "cda-ml", Sigma: 0.1}, Passes: 3, Shards: shards, Seed: 5}
		want, wantOut := runTrain(t, cfg)

		dir := t.TempDir()
		out := Outputs{Model: filepath.Join(dir, "learned.mln"), State: filepath.Join(dir, "state.json")}
		failEpoch = 2
		p, s := beam.NewPipelineWithRoot()
		Train(s, cfg, out)
		err := ptest.Run(p)
		failEpoch = -1
		if err == nil {
			t.Fatalf("%d shards: the job did not fail", shards)
		}
		saved, err := ReadState(out.State)
		if err != nil {
			t.Fatalf("%d shards: %v", shards, err)
		}
		if saved.Epoch != 2 {
			t.Fatalf("%d shards: the state file holds epoch %d, want 2", shards, saved.Epoch)
		}
		if _, err := os.Stat(out.Model); err == nil {
			t.Errorf("%d shards: the failed job wrote the model", shards)
		}

		p, s = beam.NewPipelineWithRoot()
		TrainFrom(s, cfg, out, saved)
		if err := ptest.Run(p); err != nil {
			t.Fatal(err)
		}
		got, err := ReadState(out.State)
		if err != nil {
			t.Fatal(err)
		}
		if got.Epoch != 3 || got.Steps != want.Steps || !slices.Equal(got.Loss, want.Loss) || !slices.Equal(got.Mistakes, want.Mistakes) {
			t.Errorf("%d shards: resumed epoch %d, %d steps, loss %v, mistakes %v; uninterrupted %d, %d, %v, %v",
				shards, got.Epoch, got.Steps, got.Loss, got.Mistakes, want.Epoch, want.Steps, want.Loss, want.Mistakes)
		}
		if err := sameWeights(got.Weights, want.Weights); err != nil {
			t.Errorf("%d shards: last weights: %v", shards, err)
		}
		if err := sameWeights(got.Final(false), want.Final(false)); err != nil {
			t.Errorf("%d shards: averaged weights: %v", shards, err)
		}
		a, _ := os.ReadFile(out.Model)
		b, _ := os.ReadFile(wantOut.Model)
		if len(a) == 0 || string(a) != string(b) {
			t.Errorf("%d shards: the resumed model differs from the uninterrupted one", shards)
		}
	}
}
