package learn_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"testing"

	"github.com/marple-mln/marple/ground"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

// TestCheckpointResume interrupts online learning at every checkpoint and
// resumes it in a fresh model (as after kill -9 and a restart): the final
// weights equal the uninterrupted run's bit for bit, for each update rule,
// with shuffled passes and "+" formulas whose parameters are allocated as
// examples are ground.
func TestCheckpointResume(t *testing.T) {
	text := syntheticCiteSeer(7, 16)
	ctx := context.Background()
	source := func() (*mln.Model, learn.ExampleSource) {
		m, db, q, bib := citeSeerProblem(t, text)
		src, _, err := learn.NewExamples(ctx, m, []*mln.Database{db}, learn.ExampleOptions{
			Query: []mln.PredID{q}, Split: learn.SplitType, Type: bib, Ground: ground.Options{Workers: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return m, src
	}
	for _, meth := range []func() learn.Method{
		func() learn.Method { return &learn.CDA{Sigma: 0.1, Inference: learn.MaxLoss} },
		func() learn.Method { return &learn.MIRA{Inference: learn.Prediction} },
		func() learn.Method { return learn.DefaultAdaGradFB() },
		func() learn.Method { return &learn.Subgradient{Sigma: 1} },
	} {
		name := meth().Name()
		settings := learn.Settings{Solver: exactSolver, Passes: 2, Shuffle: true, Seed: 3, CheckpointEvery: 5}
		var saved [][]byte
		settings.Checkpoint = func(c *learn.Checkpoint) error {
			var b bytes.Buffer
			if err := c.Write(&b); err != nil {
				return err
			}
			saved = append(saved, b.Bytes())
			return nil
		}
		m, src := source()
		if _, err := learn.Online(ctx, m, src, meth(), settings); err != nil {
			t.Fatal(err)
		}
		want := append([]float64(nil), m.Weights...)
		if len(saved) != (2*16-1)/5 {
			t.Fatalf("%s: %d checkpoints, want %d", name, len(saved), (2*16-1)/5)
		}
		for k, b := range saved {
			c, err := learn.ReadCheckpoint(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if c.Steps != 5*(k+1) {
				t.Fatalf("%s: checkpoint %d at %d examples", name, k, c.Steps)
			}
			m2, src2 := source()
			s2 := settings
			s2.Checkpoint, s2.Resume = nil, c
			st, err := learn.Online(ctx, m2, src2, meth(), s2)
			if err != nil {
				t.Fatalf("%s: resume from %d: %v", name, c.Steps, err)
			}
			if st.Steps != 32 {
				t.Fatalf("%s: resumed run ends after %d examples", name, st.Steps)
			}
			if len(m2.Weights) != len(want) {
				t.Fatalf("%s: resumed from %d: %d parameters, want %d", name, c.Steps, len(m2.Weights), len(want))
			}
			for p := range want {
				if m2.Weights[p] != want[p] && !(math.IsNaN(want[p]) && math.IsNaN(m2.Weights[p])) {
					t.Fatalf("%s: resumed from %d: weight %d is %v, want %v", name, c.Steps, p, m2.Weights[p], want[p])
				}
			}
		}
	}

	// A checkpoint of another run is refused.
	m, src := source()
	var last *learn.Checkpoint
	s := learn.Settings{Solver: exactSolver, CheckpointEvery: 10, Checkpoint: func(c *learn.Checkpoint) error { last = c; return nil }}
	if _, err := learn.Online(ctx, m, src, learn.DefaultAdaGradFB(), s); err != nil {
		t.Fatal(err)
	}
	m, src = source()
	if _, err := learn.Online(ctx, m, src, &learn.CDA{Sigma: 1}, learn.Settings{Solver: exactSolver, Resume: last}); err == nil {
		t.Error("a checkpoint of AdaGrad resumed CDA")
	}
	m, src = source()
	if _, err := learn.Online(ctx, m, src, learn.DefaultAdaGradFB(), learn.Settings{Solver: exactSolver, Resume: last, Shuffle: true}); err == nil {
		t.Error("a checkpoint of an unshuffled run resumed a shuffled one")
	}
	// A failing checkpoint stops learning.
	m, src = source()
	boom := errors.New("disk full")
	_, err := learn.Online(ctx, m, src, learn.DefaultAdaGradFB(), learn.Settings{Solver: exactSolver, CheckpointEvery: 5,
		Checkpoint: func(*learn.Checkpoint) error { return boom }})
	if !errors.Is(err, boom) {
		t.Errorf("failing checkpoint: %v", err)
	}
	if _, err := learn.ReadCheckpoint(bytes.NewReader([]byte("not a checkpoint"))); err == nil {
		t.Error("garbage read as a checkpoint")
	}
}
