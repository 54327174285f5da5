package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/beam/pipeline"
	"github.com/marple-mln/marple/beam/synth"
	"github.com/marple-mln/marple/eval"
)

// experiment runs the scale experiment (docs/cluster.md): CiteSeer
// leave-one-topic-out through parameter mixing against the sequential
// run, and the scaling table on synthetic data (synthetic), each training
// run of which is a child process ("marple-beam experiment-run",
// experimentRun) measured by its rusage.
func experiment(ctx context.Context, stdout, stderr io.Writer) error {
	fs := flag.CommandLine
	data := fs.String("data", "../shared/data", "the shared data folder (CiteSeer)")
	repo := fs.String("repo", ".", "the repository root (for examples/citeseer/ism.mln)")
	sizeList := fs.String("n", "5000,20000", "synthetic training examples: the sizes of the scaling table, comma-separated")
	shardList := fs.String("shards", "1,2,4", "shard counts to measure on synthetic data")
	repeat := fs.Int("repeat", 1, "run each training of the scaling table this many times (the median wall and CPU are reported)")
	marple := fs.String("marple", "marple", "the marple binary whose single-process `marple learn` is the baseline of the scaling table (looked up in PATH; empty: the sequential learner without Beam, in a child process)")
	sigma := fs.Float64("sigma", 0.001, "σ of CDA-ML (CiteSeer)")
	passes := fs.Int("passes", 1, "epochs")
	out := fs.String("out", "results/beam.md", "write the tables here")
	skipCiteSeer := fs.Bool("noCiteSeer", false, "skip the CiteSeer part")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the experiment process here, and of each training run of the scaling table to this path with \".nSIZE-SHARDS\" added")
	if err := parseFlags("experiment"); err != nil {
		return err
	}
	stop, err := startProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stop()
	var sizes []int
	for _, f := range list(*sizeList) {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil || n < 1 {
			return usagef("-n: bad size %q", f)
		}
		sizes = append(sizes, n)
	}
	if *repeat < 1 {
		return usagef("-repeat must be at least 1")
	}
	if *marple != "" {
		p, err := exec.LookPath(*marple)
		if err != nil {
			return usagef("-marple: %v", err)
		}
		*marple = p
	}
	beam.Init()
	var report strings.Builder
	fmt.Fprintf(&report, "# Marple on Apache Beam (prism runner, in-process)\n\nCommand: `marple-beam experiment %s`\n\n", strings.Join(os.Args[1:], " "))
	fmt.Fprintf(&report, "Commit %s, %s, %d cores (GOMAXPROCS %d), %s/%s, %s.\n\n", commit(*repo), time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())

	if !*skipCiteSeer {
		if _, err := os.Stat(filepath.Join(*data, "citeseer")); err != nil {
			fmt.Fprintf(stderr, "marple-beam experiment: no CiteSeer data under %s: skipping that part\n", *data)
		} else if err := citeseer(ctx, *data, *repo, *sigma, *passes, &report, stderr); err != nil {
			return err
		}
	}
	if err := synthetic(ctx, sizes, *shardList, *passes, *repeat, *marple, *cpuProfile, &report, stderr); err != nil {
		return err
	}
	fmt.Fprint(stdout, report.String())
	if *out != "" {
		return atomicfile.Write(*out, func(w io.Writer) error { _, err := io.WriteString(w, report.String()); return err })
	}
	return nil
}

// commit returns the short commit of the repository at repo, with
// "+changes" when its work tree differs ("unknown" without git).
func commit(repo string) string {
	out, err := exec.Command("git", "-C", repo, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", repo, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += "+changes"
	}
	return c
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

// run is one training run of the scaling table.
type runSpec struct {
	label  string
	shards int    // pipeline shards; 0: the baseline
	marple string // the baseline: the marple binary (empty: TrainLocal in a child)
}

// measured is what a child process used.
type measured struct {
	wall, cpu time.Duration // cpu: user + sys
	rssKB     int64         // peak resident set size
}

// runChild runs a command as a child process and returns its wall time,
// user+sys CPU and peak resident memory (from its rusage).
func runChild(ctx context.Context, name string, args ...string) (measured, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var errBuf strings.Builder
	cmd.Stderr = &errBuf
	t0 := time.Now()
	err := cmd.Run()
	m := measured{wall: time.Since(t0)}
	if err != nil {
		tail := errBuf.String()
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return m, fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		m.rssKB = ru.Maxrss
	}
	return m, nil
}

// startProfile starts a CPU profile written to path (none if empty) and
// returns the function that stops it.
func startProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, usagef("-cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// loadAvg returns the first three fields of /proc/loadavg ("" elsewhere).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// experimentRun is the child process of one run of the scaling table
// ("marple-beam experiment-run"): it trains CDA-ML-HM on the synthetic
// files with -shards shards through the pipeline (on the runner the Beam
// flags name, prism by default), or with -shards 0 with TrainLocal (the
// sequential learner, no Beam), and writes the learned model to -o.
func experimentRun(ctx context.Context) error {
	fs := flag.CommandLine
	train := fs.String("t", "", "training files, comma-separated")
	out := fs.String("o", "", "output model")
	shards := fs.Int("shards", 1, "shards (0: the sequential learner without Beam)")
	passes := fs.Int("passes", 1, "epochs")
	sigma := fs.Float64("sigma", 0.01, "σ of CDA-ML")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile here")
	if err := parseFlags("experiment-run"); err != nil {
		return err
	}
	stop, err := startProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stop()
	beam.Init()
	d := pipeline.Data{Model: list(flagValue("i")), Files: list(*train), Query: []string{"Role"}, ExampleType: flagValue("exampleType")}
	cfg := pipeline.TrainConfig{Data: d, Learner: pipeline.Learner{Method: "cda-ml", Sigma: *sigma}, Passes: *passes, Shards: *shards, Seed: 1}
	if *shards == 0 {
		cfg.Shards = 1
		st, err := pipeline.TrainLocal(ctx, cfg)
		if err != nil {
			return err
		}
		return pipeline.WriteModel(d, st.Final(false), *out)
	}
	p, s := beam.NewPipelineWithRoot()
	pipeline.Train(s, cfg, pipeline.Outputs{Model: *out})
	return runPipeline(ctx, p)
}

// synthetic measures the scaling table on generated data, for each size
// in sizes: single-process marple learn (or, without a marple binary, the
// sequential learner without Beam) against the pipeline on each number of
// shards, every training run a child process whose wall time, CPU (user +
// sys) and peak memory are measured, repeated `repeat` times (the median
// wall and CPU are reported), and the F1 of each learned model on 2,000
// held-out propositions.
func synthetic(ctx context.Context, sizes []int, shardList string, passes, repeat int, marple, profile string, report *strings.Builder, stderr io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	runs := []runSpec{{label: "sequential learner, no Beam (one process)"}}
	if marple != "" {
		runs[0] = runSpec{label: "`marple learn` (one process)", marple: marple}
	}
	for _, sh := range list(shardList) {
		var shards int
		if _, err := fmt.Sscan(sh, &shards); err != nil || shards < 1 {
			return usagef("-shards: bad count %q", sh)
		}
		runs = append(runs, runSpec{label: fmt.Sprintf("prism, %d shard(s)", shards), shards: shards})
	}
	for _, n := range sizes {
		if err := syntheticSize(ctx, self, n, runs, passes, repeat, profile, report, stderr); err != nil {
			return err
		}
	}
	return nil
}

func syntheticSize(ctx context.Context, self string, n int, runs []runSpec, passes, repeat int, profile string, report *strings.Builder, stderr io.Writer) error {
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
	const sigma = 0.01
	fmt.Fprintf(report, "## Synthetic semantic role labelling: %d training propositions, CDA-ML-HM (σ = %g, fixed: no tuning in any run), %d epoch(s)\n\n", n, sigma, passes)
	fmt.Fprintf(report, "Each training run is a child process: wall time, CPU (user + sys) and peak resident memory are its own (median of %d interleaved run(s) for wall and CPU, the largest peak memory), and include loading the model, reading and splitting the files, grounding each example and the MAP inside training. F1 of the Role atoms on 2,000 held-out propositions. Load average (1, 5, 15 min) before: %s.\n\n", repeat, loadAvg())
	fmt.Fprintf(report, "| run | wall s | wall / first row | CPU s (user+sys) | peak RSS MB | examples/s (wall) | test F1 |\n|---|---:|---:|---:|---:|---:|---:|\n")
	score := func(learned string) (float64, error) {
		r := filepath.Join(dir, "test.result")
		p, s := beam.NewPipelineWithRoot()
		pipeline.Infer(s, pipeline.InferConfig{Data: pipeline.Data{Model: []string{learned}, Files: []string{test}, Query: []string{"Role"}, ExampleType: "prop"}},
			pipeline.InferOutputs{Result: r})
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
	// The repetitions are interleaved (every run once, then again), so
	// that a change of the machine's load weighs on every run alike.
	type result struct {
		walls, cpus []time.Duration
		rss         int64
		learned     string
	}
	res := make([]result, len(runs))
	for k := 0; k < repeat; k++ {
		for ri, r := range runs {
			learned := filepath.Join(dir, fmt.Sprintf("run%d.mln", ri))
			var name string
			var args []string
			switch {
			case r.marple != "":
				name = r.marple
				args = []string{"learn", "-i", model, "-t", strings.Join(files, ","), "-ne", "Role", "-exampleType", "prop",
					"-method", "cda-ml", "-sigma", fmt.Sprint(sigma), "-passes", fmt.Sprint(passes), "-o", learned}
			default:
				name = self
				args = []string{"experiment-run", "-i", model, "-t", strings.Join(files, ","), "-exampleType", "prop",
					"-shards", fmt.Sprint(r.shards), "-passes", fmt.Sprint(passes), "-sigma", fmt.Sprint(sigma), "-o", learned}
				if profile != "" {
					args = append(args, "-cpuprofile", fmt.Sprintf("%s.n%d-%d", profile, n, r.shards))
				}
			}
			m, err := runChild(ctx, name, args...)
			if err != nil {
				return err
			}
			x := &res[ri]
			x.walls, x.cpus = append(x.walls, m.wall), append(x.cpus, m.cpu)
			x.rss, x.learned = max(x.rss, m.rssKB), learned
			fmt.Fprintf(stderr, "marple-beam experiment: n=%d, %s: %.1f s wall, %.1f s CPU, %.0f MB (load %s)\n", n, r.label, m.wall.Seconds(), m.cpu.Seconds(), float64(m.rssKB)/1024, loadAvg())
		}
	}
	base := median(res[0].walls)
	for ri, r := range runs {
		x := res[ri]
		wall, cpu := median(x.walls), median(x.cpus)
		f1, err := score(x.learned)
		if err != nil {
			return err
		}
		fmt.Fprintf(report, "| %s | %.1f | %.2f | %.1f | %.0f | %.0f | %.2f |\n", r.label, wall.Seconds(), wall.Seconds()/base.Seconds(), cpu.Seconds(), float64(x.rss)/1024, float64(n)/wall.Seconds(), f1)
	}
	fmt.Fprintf(report, "\nLoad average after: %s.\n\n", loadAvg())
	return nil
}

// median returns the median of ds (the lower middle of an even count).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}
