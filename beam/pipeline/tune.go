package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/marple-mln/marple/learn"
)

// UsesSigma reports whether the update rule named by l.Method (default
// cda-ml) has a σ: CDA and subgradient.
func (l Learner) UsesSigma() bool {
	m, err := l.method()
	if err != nil {
		return false
	}
	switch m.(type) {
	case *learn.CDA, *learn.Subgradient:
		return true
	}
	return false
}

// Runner runs a pipeline (beamx.Run, ptest.Run, ...).
type Runner func(ctx context.Context, p *beam.Pipeline) error

// TuneSigma chooses σ as marple learn -sigma auto does, with the
// library's grid and scoring convention (learn.SigmaGrid,
// learn.DefaultTuneHoldout = 0): for each value of the grid it runs
// Train with that σ, then Infer with the learned model on the training
// files, and scores the value by the pooled F1 (in percent) of the MAP
// predictions over the query atoms; the first value with the best F1 wins.
// The model and state learned with it are written to out. Each value's
// model, state and metrics go to files next to out.Model (".sigma-N"
// suffixes, through Beam's filesystems, so that the workers reach them
// where they reach out.Model), removed at the end. progress, when set, is
// called after each value is scored.
func TuneSigma(ctx context.Context, run Runner, cfg TrainConfig, out Outputs, progress func(sigma, f1 float64)) (*learn.TuneResult, error) {
	if out.Model == "" {
		return nil, fmt.Errorf("pipeline: tuning σ needs an output model")
	}
	grid := learn.SigmaGrid
	res := &learn.TuneResult{}
	best := -1
	var temps []string
	defer func() {
		for _, p := range temps {
			removePath(context.Background(), p)
		}
	}()
	tmp := func(i int, what string) string {
		p := fmt.Sprintf("%s.sigma-%d.%s", out.Model, i, what)
		temps = append(temps, p)
		return p
	}
	var models, states []string
	for i, sigma := range grid {
		c := cfg
		c.Learner.Sigma = sigma
		to := Outputs{Model: tmp(i, "mln"), State: tmp(i, "json")}
		models, states = append(models, to.Model), append(states, to.State)
		p, s := beam.NewPipelineWithRoot()
		Train(s, c, to)
		if err := run(ctx, p); err != nil {
			return nil, err
		}
		icfg := InferConfig{Data: cfg.Data, Solver: Learner{Solver: cfg.Learner.Solver, Seed: cfg.Learner.Seed}}
		icfg.Data.Model = []string{to.Model}
		metrics := tmp(i, "metrics.json")
		p, s = beam.NewPipelineWithRoot()
		Infer(s, icfg, InferOutputs{Metrics: metrics})
		if err := run(ctx, p); err != nil {
			return nil, err
		}
		f1, n, err := readMicroF1(ctx, metrics)
		if err != nil {
			return nil, err
		}
		res.F1, res.Scored = append(res.F1, f1), n
		if progress != nil {
			progress(sigma, f1)
		}
		if f1 > bestF1(res, best) {
			best, res.Value = i, sigma
		}
	}
	if err := copyPath(ctx, models[best], out.Model); err != nil {
		return nil, err
	}
	if out.State != "" {
		if err := copyPath(ctx, states[best], out.State); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func bestF1(res *learn.TuneResult, best int) float64 {
	if best < 0 {
		return -1
	}
	return res.F1[best]
}

// readMicroF1 returns the pooled F1 (in percent) and the number of
// examples of a metrics file written by Infer.
func readMicroF1(ctx context.Context, path string) (float64, int, error) {
	b, err := ReadPath(ctx, path)
	if err != nil {
		return 0, 0, err
	}
	var m struct {
		Examples int
		Metrics  []Metrics
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return 0, 0, fmt.Errorf("%s: %v", path, err)
	}
	for _, x := range m.Metrics {
		if x.Name == "micro" {
			return 100 * x.F1, m.Examples, nil
		}
	}
	return 0, m.Examples, fmt.Errorf("%s: no pooled metrics", path)
}

// copyPath copies a text file through Beam's filesystems.
func copyPath(ctx context.Context, from, to string) error {
	b, err := ReadPath(ctx, from)
	if err != nil {
		return err
	}
	return WritePath(ctx, to, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// removePath removes a file through Beam's filesystems, when the
// filesystem can remove files; errors are ignored (a file already gone).
func removePath(ctx context.Context, path string) {
	if !strings.Contains(path, "://") {
		os.Remove(path)
		return
	}
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return
	}
	defer fs.Close()
	if r, ok := fs.(filesystem.Remover); ok {
		r.Remove(ctx, path)
	}
}
