package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/beam/pipeline"
	"github.com/marple-mln/marple/beam/synth"
	"github.com/marple-mln/marple/eval"
)

// experiment runs the scale experiment of the README's "Running on a
// cluster" section: CiteSeer leave-one-topic-out through parameter mixing
// against the sequential run, and throughput on synthetic data.
func experiment(ctx context.Context, stdout, stderr io.Writer) error {
	fs := flag.CommandLine
	data := fs.String("data", "../shared/data", "the shared data folder (CiteSeer)")
	repo := fs.String("repo", ".", "the repository root (for examples/citeseer/ism.mln)")
	n := fs.Int("n", 100000, "synthetic training examples")
	shardList := fs.String("shards", "1,2,4", "shard counts to measure on synthetic data")
	sigma := fs.Float64("sigma", 0.001, "σ of CDA-ML (CiteSeer)")
	passes := fs.Int("passes", 1, "epochs")
	out := fs.String("out", "results/beam.md", "write the tables here")
	skipCiteSeer := fs.Bool("noCiteSeer", false, "skip the CiteSeer part")
	if err := parseFlags("experiment"); err != nil {
		return err
	}
	beam.Init()
	var report strings.Builder
	fmt.Fprintf(&report, "# Marple on Apache Beam (prism runner, in-process)\n\nCommand: `marple-beam experiment -data %s -n %d -shards %s -passes %d`\n\n", *data, *n, *shardList, *passes)

	if !*skipCiteSeer {
		if _, err := os.Stat(filepath.Join(*data, "citeseer")); err != nil {
			fmt.Fprintf(stderr, "marple-beam experiment: no CiteSeer data under %s: skipping that part\n", *data)
		} else if err := citeseer(ctx, *data, *repo, *sigma, *passes, &report, stderr); err != nil {
			return err
		}
	}
	if err := synthetic(ctx, *n, *shardList, *passes, &report, stderr); err != nil {
		return err
	}
	fmt.Fprint(stdout, report.String())
	if *out != "" {
		return atomicfile.Write(*out, func(w io.Writer) error { _, err := io.WriteString(w, report.String()); return err })
	}
	return nil
}

var topics = []string{"constraint", "face", "reasoning", "reinforcement"}

// citeseer trains CDA-ML-HM on three topics and tests on the fourth, with
// one shard (the sequential learner) and with two.
func citeseer(ctx context.Context, data, repo string, sigma float64, passes int, report *strings.Builder, stderr io.Writer) error {
	model := filepath.Join(repo, "examples", "citeseer", "ism.mln")
	fmt.Fprintf(report, "## CiteSeer, leave one topic out: CDA-ML-HM (σ = %g, %d epoch(s)) through parameter mixing\n\n", sigma, passes)
	fmt.Fprintf(report, "Token-level F1 on the test topic (as `marple eval -tokens`); 1 shard is the sequential learner.\n\n")
	fmt.Fprintf(report, "| shards | constraint | face | reasoning | reinforcement | average | train s (all folds) |\n|---:|---:|---:|---:|---:|---:|---:|\n")
	dir, err := os.MkdirTemp("", "marple-beam-citeseer")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, shards := range []int{1, 2} {
		var f1s []float64
		var trainTime time.Duration
		for _, test := range topics {
			var train []string
			for _, tp := range topics {
				if tp != test {
					train = append(train, filepath.Join(data, "citeseer", tp+".evidence.db"), filepath.Join(data, "citeseer", tp+".infield.db"))
				}
			}
			// One file per topic: evidence and truth together.
			var files []string
			for i := 0; i < len(train); i += 2 {
				f := filepath.Join(dir, fmt.Sprintf("train-%s-%d.db", test, i/2))
				if err := concat(f, train[i], train[i+1]); err != nil {
					return err
				}
				files = append(files, f)
			}
			cfg := pipeline.TrainConfig{
				Data:    pipeline.Data{Model: []string{model}, Files: files, Query: []string{"InField"}, ExampleType: "bib"},
				Learner: pipeline.Learner{Method: "cda-ml", Sigma: sigma},
				Passes:  passes, Shards: shards, Seed: 1,
			}
			learned := filepath.Join(dir, "learned.mln")
			p, s := beam.NewPipelineWithRoot()
			pipeline.Train(s, cfg, pipeline.Outputs{Model: learned})
			t0 := time.Now()
			if err := runPipeline(ctx, p); err != nil {
				return err
			}
			trainTime += time.Since(t0)
			testFile := filepath.Join(dir, "test.db")
			ev := filepath.Join(data, "citeseer", test+".evidence.db")
			truth := filepath.Join(data, "citeseer", test+".infield.db")
			if err := concat(testFile, ev, truth); err != nil {
				return err
			}
			result := filepath.Join(dir, "out.result")
			icfg := pipeline.InferConfig{Data: pipeline.Data{Model: []string{learned}, Files: []string{testFile}, Query: []string{"InField"}, ExampleType: "bib"}}
			p, s = beam.NewPipelineWithRoot()
			pipeline.Infer(s, icfg, pipeline.InferOutputs{Result: result})
			if err := runPipeline(ctx, p); err != nil {
				return err
			}
			f1, err := tokenF1(result, truth, ev)
			if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "marple-beam experiment: citeseer %s, %d shard(s): F1 %.2f\n", test, shards, f1)
			f1s = append(f1s, f1)
		}
		mean, _ := eval.MeanStd(f1s)
		fmt.Fprintf(report, "| %d | %.2f | %.2f | %.2f | %.2f | **%.2f** | %.1f |\n", shards, f1s[0], f1s[1], f1s[2], f1s[3], mean, trainTime.Seconds())
	}
	report.WriteString("\n")
	return nil
}

// tokenF1 scores a result file as marple eval -tokens does.
func tokenF1(result, truthFile, evFile string) (float64, error) {
	pred, err := eval.LoadAtoms(result)
	if err != nil {
		return 0, err
	}
	truth, err := eval.LoadAtoms(truthFile)
	if err != nil {
		return 0, err
	}
	ev, err := eval.LoadAtoms(evFile)
	if err != nil {
		return 0, err
	}
	r, err := eval.Evaluate(pred, truth, eval.Options{Query: []string{"InField"}, Filter: eval.TokenFilter(ev)})
	if err != nil {
		return 0, err
	}
	return 100 * r.Micro.F1, nil
}

func concat(out string, files ...string) error {
	return atomicfile.Write(out, func(w io.Writer) error {
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		return nil
	})
}

// synthetic measures throughput and F1 on generated data: the in-process
// sequential learner without Beam, then the pipeline on 1, 2, 4 shards.
func synthetic(ctx context.Context, n int, shardList string, passes int, report *strings.Builder, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "marple-beam-synth")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	g := synth.SRL{Examples: n, Seed: 1}
	model, files, err := g.Write(filepath.Join(dir, "train"), 1000)
	if err != nil {
		return err
	}
	// Test propositions: the same planted model, other examples.
	test := filepath.Join(dir, "test.db")
	err = atomicfile.Write(test, func(w io.Writer) error {
		for i := n; i < n+2000; i++ {
			if _, err := io.WriteString(w, g.Example(i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(report, "## Synthetic semantic role labelling: %d training propositions, CDA-ML-HM, %d epoch(s)\n\n", n, passes)
	fmt.Fprintf(report, "F1 of the Role atoms on 2,000 held-out propositions. Wall time on this machine (2 cores) includes reading, splitting, grounding each example and the MAP inside training.\n\n")
	fmt.Fprintf(report, "| run | wall s | examples/s | test F1 |\n|---|---:|---:|---:|\n")
	d := pipeline.Data{Model: []string{model}, Files: files, Query: []string{"Role"}, ExampleType: "prop"}
	cfgFor := func(shards int) pipeline.TrainConfig {
		return pipeline.TrainConfig{Data: d, Learner: pipeline.Learner{Method: "cda-ml", Sigma: 0.01}, Passes: passes, Shards: shards, Seed: 1}
	}
	score := func(learned string) (float64, error) {
		r := filepath.Join(dir, "test.result")
		m := filepath.Join(dir, "test-metrics.json")
		p, s := beam.NewPipelineWithRoot()
		pipeline.Infer(s, pipeline.InferConfig{Data: pipeline.Data{Model: []string{learned}, Files: []string{test}, Query: []string{"Role"}, ExampleType: "prop"}},
			pipeline.InferOutputs{Result: r, Metrics: m})
		if err := runPipeline(ctx, p); err != nil {
			return 0, err
		}
		pred, err := eval.LoadAtoms(r)
		if err != nil {
			return 0, err
		}
		truth, err := eval.LoadAtoms(test)
		if err != nil {
			return 0, err
		}
		rep, err := eval.Evaluate(pred, truth, eval.Options{Query: []string{"Role"}})
		if err != nil {
			return 0, err
		}
		return 100 * rep.Micro.F1, nil
	}
	// The sequential learner in this process, no Beam.
	t0 := time.Now()
	st, err := pipeline.TrainLocal(ctx, cfgFor(1))
	if err != nil {
		return err
	}
	el := time.Since(t0)
	learned := filepath.Join(dir, "seq.mln")
	if err := pipeline.WriteModel(d, st.Final(false), learned); err != nil {
		return err
	}
	f1, err := score(learned)
	if err != nil {
		return err
	}
	fmt.Fprintf(report, "| sequential (no Beam) | %.1f | %.0f | %.2f |\n", el.Seconds(), float64(st.Steps)/el.Seconds(), f1)
	fmt.Fprintf(stderr, "marple-beam experiment: sequential: %.1f s, F1 %.2f\n", el.Seconds(), f1)
	for _, sh := range list(shardList) {
		var shards int
		if _, err := fmt.Sscan(sh, &shards); err != nil || shards < 1 {
			return usagef("-shards: bad count %q", sh)
		}
		learned := filepath.Join(dir, fmt.Sprintf("mix%d.mln", shards))
		stFile := filepath.Join(dir, fmt.Sprintf("mix%d.json", shards))
		p, s := beam.NewPipelineWithRoot()
		pipeline.Train(s, cfgFor(shards), pipeline.Outputs{Model: learned, State: stFile})
		t0 := time.Now()
		if err := runPipeline(ctx, p); err != nil {
			return err
		}
		el := time.Since(t0)
		st, err := pipeline.ReadState(stFile)
		if err != nil {
			return err
		}
		f1, err := score(learned)
		if err != nil {
			return err
		}
		fmt.Fprintf(report, "| prism, %d shard(s) | %.1f | %.0f | %.2f |\n", shards, el.Seconds(), float64(st.Steps)/el.Seconds(), f1)
		fmt.Fprintf(stderr, "marple-beam experiment: %d shard(s): %.1f s, F1 %.2f\n", shards, el.Seconds(), f1)
	}
	report.WriteString("\n")
	return nil
}
