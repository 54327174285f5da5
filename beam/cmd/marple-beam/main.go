// Command marple-beam runs Marple's online weight learning (iterative
// parameter mixing), inference and evaluation as Apache Beam pipelines:
// in-process on Beam's prism runner by default, or on Flink, Spark or
// Dataflow through Beam's portable job server (--runner, --endpoint).
//
// Usage:
//
//	marple-beam learn -i model.mln -t a.db,b.db -ne Pred -o learned.mln [-shards 4 -passes 5 -method cda-ml ...]
//	marple-beam infer -i learned.mln -e test.db -q Pred -r out.result [-metrics m.json] [-ms]
//	marple-beam generate -o dir -n 100000 [-perFile 1000 -seed 1]
//	marple-beam replicate -i model.mln -t data.db -type bib -k 16 -o big.db
//	marple-beam --worker_pool [--worker_pool_port 50000 --worker_pool_addr localhost]
//
// learn chooses σ as marple learn does (-sigma auto, by default), writes
// its -state after every epoch, and -resume continues a failed job from
// it. --worker_pool serves Beam's worker pool: a job server given
// --environment_type=EXTERNAL --environment_config=HOST:PORT runs the
// workers in that process (it listens on localhost unless
// --worker_pool_addr names another address). The runners linked are
// prism, universal (any portable job server) and dataflow.
//
// Flags follow marple's (single dash); Beam's own flags (--runner,
// --endpoint, --environment_type, --worker_binary, ...) go with them.
// -i, -t and -e take comma-separated paths and glob patterns, local, gs://
// or s3:// (replicate's: local ones): the launcher expands each pattern
// (its matches sorted; a pattern that matches nothing is an error naming
// it) and reads every file once to check it; the model's text goes with
// the pipeline, and the workers read the data files through Beam's
// filesystems: on a cluster, give paths that the launcher and
// every worker can read (a shared file system, gs:// or s3://).
//
// Flag values and inputs are checked before a pipeline starts: a flag
// value out of range (NaN, infinite, negative) or an output that cannot be
// written is a usage error naming the flag; the data files are read and
// parsed once (binary data, syntax errors and files without any atom are
// refused at their position); a job server given by --endpoint must accept
// a connection and answer a first request within -endpointTimeout (30
// seconds by default); a portable runner needs --environment_type (or
// --worker_binary) rather than compiling a worker from source. An interrupt (Ctrl-C) cancels the
// pipeline and ends with "interrupted".
//
// Exit status: 0 on success, 1 on bad input (or an interrupt), 2 on bad
// usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/marple-mln/marple/atomicfile"
	"github.com/marple-mln/marple/beam/pipeline"
	"github.com/marple-mln/marple/beam/synth"
	"github.com/marple-mln/marple/flagcheck"
	"github.com/marple-mln/marple/infer/engines"
	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

const usage = `usage: marple-beam <command> [flags] [Beam flags]

Commands:
  learn      distributed online weight learning (iterative parameter mixing)
  infer      distributed MAP or MC-SAT inference, with evaluation
  generate   write synthetic semantic-role-labelling data (one example per proposition)
  replicate  write a database k times with renamed example constants
  experiment the scale experiment (CiteSeer through parameter mixing; the scaling table on synthetic data against marple learn)

Beam flags: --runner (prism, the default, in-process; universal; dataflow),
--endpoint (a job server, e.g. Flink's or prism's), --environment_type,
--worker_binary, ...
"marple-beam <command> -h" lists a command's flags.
"marple-beam --worker_pool [--worker_pool_port 50000 --worker_pool_addr localhost]"
serves workers for --environment_type=EXTERNAL --environment_config=HOST:PORT.
`

type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// checkFlags returns the first error of the flag checks errs as a usage
// error, after checking that every floating-point flag given is a finite
// number.
func checkFlags(errs ...error) error {
	for _, err := range append([]error{flagcheck.Floats(flag.CommandLine)}, errs...) {
		if err != nil {
			return &usageError{err.Error()}
		}
	}
	return nil
}

// defaultEndpointTimeout is -endpointTimeout's default.
const defaultEndpointTimeout = 30 * time.Second

// checkEndpoint refuses a --runner that is not linked, or a portable
// runner that would compile a worker binary from source (checkEnvironment),
// and fails fast, with one line, when the job server that --endpoint names
// for a portable runner (universal, prism) does not accept a connection,
// or does not answer a request, within timeout: the runner itself would
// wait without end.
func checkEndpoint(ctx context.Context, timeout time.Duration) error {
	if err := checkRunner(); err != nil {
		return err
	}
	if err := checkEnvironment(); err != nil {
		return err
	}
	ep, runner := flagValue("endpoint"), flagValue("runner")
	switch runner {
	case "", "universal", "portable", "PortableRunner", "prism", "PrismRunner":
	default:
		return nil
	}
	if ep == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(ep); err != nil {
		return usagef("--endpoint %q is not host:port", ep)
	}
	if timeout <= 0 {
		return usagef("-endpointTimeout must be positive, not %s", timeout)
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(tctx, "tcp", ep)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no connection within %s (-endpointTimeout)", timeout)
		}
		return fmt.Errorf("cannot reach the job server at --endpoint %s: %v", ep, err)
	}
	conn.Close()
	return probeJobServer(ctx, ep, timeout)
}

// probeJobServer sends the job server at ep a request (a list of its jobs)
// and fails when no answer comes within timeout: a server that accepts
// connections but never answers would hold the runner without end. Any
// answer, an error status included, shows a server that speaks.
func probeJobServer(ctx context.Context, ep string, timeout time.Duration) error {
	cc, err := grpc.NewClient(ep, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("cannot reach the job server at --endpoint %s: %v", ep, err)
	}
	defer cc.Close()
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err = jobpb.NewJobServiceClient(cc).GetJobs(tctx, &jobpb.GetJobsRequest{})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case tctx.Err() != nil:
		return fmt.Errorf("the job server at --endpoint %s accepted a connection but did not answer within %s (-endpointTimeout): is it a Beam job server?", ep, timeout)
	}
	if st, ok := status.FromError(err); ok && st.Code() != codes.Unavailable {
		return nil // an answer
	}
	return fmt.Errorf("the job server at --endpoint %s does not answer: %v", ep, err)
}

// parseFlags parses the command's flags and Beam's (flag.CommandLine):
// -h prints them once and returns flag.ErrHelp; a bad flag is a usage
// error of one line, without the list of flags.
func parseFlags(cmd string) error {
	fs := flag.CommandLine
	fs.Init(fs.Name(), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(os.Args[1:])
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(os.Stdout, "usage: marple-beam %s [flags] [Beam flags]\n\nflags:\n", cmd)
		fs.SetOutput(os.Stdout)
		fs.PrintDefaults()
		return err
	case err != nil:
		return usagef("%v", err)
	case fs.NArg() > 0:
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// flagValue returns the value of the command-line flag name, or "".
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cmd := os.Args[1]
	if strings.HasPrefix(cmd, "-") {
		// A Beam worker started with flags only, or -h.
		if cmd == "-h" || cmd == "-help" || cmd == "--help" {
			fmt.Fprint(os.Stdout, usage)
			return
		}
		pool := flag.Bool("worker_pool", false, "serve as a Beam worker pool: run workers for a runner given --environment_type=EXTERNAL --environment_config=HOST:PORT")
		port := flag.Int("worker_pool_port", 50000, "with --worker_pool: the port to listen on (0: any free port)")
		addr := flag.String("worker_pool_addr", "localhost", "with --worker_pool: the host or address to listen on (localhost: this machine only; an address of this machine, or empty for every interface, lets a job server on another machine reach it)")
		flag.Parse()
		beam.Init()
		if *pool {
			if err := workerPool(*addr, *port, os.Stderr); err != nil {
				fmt.Fprintf(os.Stderr, "marple-beam: worker pool: %v\n", err)
				os.Exit(1)
			}
		}
		return
	}
	os.Args = append(os.Args[:1], os.Args[2:]...)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	mln.SetInputContext(ctx) // an interrupt also stops a wait for a pipe
	err := run(ctx, cmd, os.Stdout, os.Stderr)
	interrupted := ctx.Err() != nil
	stop()
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.As(err, &ue):
		fmt.Fprintf(os.Stderr, "marple-beam %s: %v (see marple-beam %s -h)\n", cmd, err, cmd)
		os.Exit(2)
	case interrupted:
		fmt.Fprintf(os.Stderr, "marple-beam %s: interrupted\n", cmd)
		os.Exit(1)
	default:
		fmt.Fprintf(os.Stderr, "marple-beam %s: %v\n", cmd, err)
		os.Exit(1)
	}
}

// inputFiles returns the data files that the comma-separated paths and
// glob patterns of flag name give (pipeline.ExpandGlobs: each pattern's
// matches sorted; a pattern that matches nothing is an error naming it).
func inputFiles(ctx context.Context, name, value string) ([]string, error) {
	files, err := pipeline.ExpandGlobs(ctx, list(value))
	if err != nil {
		return nil, fmt.Errorf("-%s: %v", name, err)
	}
	return files, nil
}

// localFiles returns the files of flag name, its local glob patterns
// expanded: files read from local paths only (replicate's model and
// databases), so that a path with a scheme (gs://, ...) is a usage error.
func localFiles(ctx context.Context, name, value string) ([]string, error) {
	for _, f := range list(value) {
		if strings.Contains(f, "://") {
			return nil, usagef("-%s %s: these files are read from local paths, not through a remote filesystem", name, f)
		}
	}
	return inputFiles(ctx, name, value)
}

func list(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// run parses the command's flags (on flag.CommandLine, which holds
// Beam's too) and runs it.
func run(ctx context.Context, cmd string, stdout, stderr io.Writer) error {
	fs := flag.CommandLine
	var (
		model = fs.String("i", "", "model file(s) (.mln), comma-separated local, gs:// or s3:// paths or glob patterns (read by the launcher; replicate: local ones)")
		exTyp = fs.String("exampleType", "auto", "one example per constant of this type (auto: the query predicates' argument type with the most constants)")
		multi = fs.Bool("multipleDatabases", false, "each data file is one example")
		seed  = fs.Int64("seed", 1, "random seed")
		sol   = fs.String("solver", engines.DefaultMAP, "MAP engine: "+engines.List(engines.MAPNames()))
		epTO  = fs.Duration("endpointTimeout", defaultEndpointTimeout, "learn, infer: how long to wait for the job server that --endpoint names to accept a connection and answer a first request")
	)
	switch cmd {
	case "learn":
		train := fs.String("t", "", "training database file(s) (.db), comma-separated paths or glob patterns (local, gs:// or s3://)")
		ne := fs.String("ne", "", "non-evidence (query) predicates, comma-separated")
		out := fs.String("o", "", "output model file")
		state := fs.String("state", "", "also write the final weights and per-epoch loss as JSON here")
		method := fs.String("method", "cda-ml", strings.Join(learn.MethodNames(), ", "))
		sigmaFlag := fs.String("sigma", "auto", fmt.Sprintf("CDA, subgradient: the strong-convexity constant σ; auto: chosen from %v by F1 on the training examples, as marple learn does (one training and one inference pipeline per value)", learn.SigmaGrid))
		c := fs.Float64("C", 0, "mira: clip the step at C (0: unclipped)")
		ada := learn.DefaultAdaGradFB()
		lambda := fs.Float64("lambda", ada.Lambda, "adagrad: λ")
		eta := fs.Float64("eta", ada.Eta, "adagrad: η")
		delta := fs.Float64("delta", ada.Delta, "adagrad: δ")
		loss := fs.String("loss", "hamming", "hamming or f1")
		passes := fs.Int("passes", 1, "epochs")
		shards := fs.Int("shards", 2, "shards the examples are split into")
		mix := fs.String("mix", "uniform", "mixing: uniform or mistakes (weighted by each shard's mistakes)")
		shuffle := fs.Bool("shuffle", false, "visit each shard's examples in an order drawn from -seed and the epoch")
		noAvg := fs.Bool("noAverage", false, "output the last mixed weights instead of the average")
		resume := fs.Bool("resume", false, "continue from the epochs -state holds (it is written after each epoch): after a failed job, run the same command with -resume")
		if err := parseFlags(cmd); err != nil {
			return err
		}
		if *out == "" || *model == "" || *train == "" || *ne == "" {
			return usagef("give -i model.mln -t a.db -ne Pred -o learned.mln")
		}
		if *passes < 1 || *shards < 1 {
			return usagef("-passes and -shards must be at least 1")
		}
		sigma, sigmaAuto := float64(learn.DefaultSigma), *sigmaFlag == "auto"
		if !sigmaAuto {
			v, err := strconv.ParseFloat(*sigmaFlag, 64)
			if err != nil {
				return usagef("-sigma must be a number or auto, not %q", *sigmaFlag)
			}
			sigma = v
		}
		if err := checkFlags(flagcheck.Positive("sigma", sigma), flagcheck.NonNegative("C", *c), flagcheck.NonNegative("lambda", *lambda),
			flagcheck.Positive("eta", *eta), flagcheck.NonNegative("delta", *delta), flagcheck.Output("o", *out), flagcheck.Output("state", *state)); err != nil {
			return err
		}
		models, err := inputFiles(ctx, "i", *model)
		if err != nil {
			return err
		}
		files, err := inputFiles(ctx, "t", *train)
		if err != nil {
			return err
		}
		cfg := pipeline.TrainConfig{
			Data: pipeline.Data{Model: models, Files: files, Query: list(*ne), MultipleDatabases: *multi, ExampleType: *exTyp},
			Learner: pipeline.Learner{Method: *method, Sigma: sigma, C: *c, Lambda: *lambda, Eta: *eta, Delta: *delta,
				Loss: *loss, Solver: *sol, Seed: *seed},
			Passes: *passes, Shards: *shards, Mix: *mix, Shuffle: *shuffle, Seed: *seed, NoAverage: *noAvg,
		}
		if err := cfg.Check(); err != nil {
			return usagef("%v", err)
		}
		sigmaAuto = sigmaAuto && cfg.Learner.UsesSigma()
		var start pipeline.State
		if *resume {
			if *state == "" {
				return usagef("-resume needs -state, the file the epochs were saved to")
			}
			if sigmaAuto {
				return usagef("-resume needs a number for -sigma (-sigma auto learns once per value)")
			}
			if _, err := os.Stat(*state); !strings.Contains(*state, "://") && errors.Is(err, os.ErrNotExist) {
				fmt.Fprintf(stderr, "marple-beam learn: -resume: no state saved in %s yet; starting from the first epoch\n", *state)
			} else if start, err = pipeline.ReadState(*state); err != nil {
				return fmt.Errorf("-resume: %v", err)
			}
			if start.Epoch > *passes {
				return usagef("-resume: %s holds %d epochs, more than -passes %d", *state, start.Epoch, *passes)
			}
		}
		if err := cfg.Data.ReadModel(ctx); err != nil {
			return err
		}
		if _, err := cfg.Data.LoadModel(); err != nil {
			return err
		}
		if err := cfg.Data.CheckFiles(ctx); err != nil {
			return err
		}
		if err := checkEndpoint(ctx, *epTO); err != nil {
			return err
		}
		beam.Init()
		stateFile := *state
		if stateFile == "" {
			f, err := os.CreateTemp("", "marple-beam-state-*.json")
			if err != nil {
				return err
			}
			f.Close()
			stateFile = f.Name()
			defer os.Remove(stateFile)
		}
		t0 := time.Now()
		if sigmaAuto {
			res, err := pipeline.TuneSigma(ctx, runPipeline, cfg, pipeline.Outputs{Model: *out, State: stateFile}, nil)
			if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "marple-beam learn: %s\n", res.Describe("σ", learn.Tuning{Grid: learn.SigmaGrid, Holdout: learn.DefaultTuneHoldout}))
		} else {
			p, s := beam.NewPipelineWithRoot()
			pipeline.TrainFrom(s, cfg, pipeline.Outputs{Model: *out, State: stateFile}, start)
			if err := runPipeline(ctx, p); err != nil {
				return err
			}
		}
		el := time.Since(t0)
		st, err := pipeline.ReadState(stateFile)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "marple-beam learn: %d updates over %d epochs on %d shards in %s (%.0f examples/s); loss per epoch %v, mistakes %v\n",
			st.Steps, st.Epoch, *shards, el.Round(time.Millisecond), float64(st.Steps)/el.Seconds(), round(st.Loss), st.Mistakes)
		return nil
	case "infer":
		ev := fs.String("e", "", "test database file(s) (.db), comma-separated paths or glob patterns (local, gs:// or s3://); their query atoms are the truth the metrics use")
		q := fs.String("q", "", "query predicates, comma-separated")
		res := fs.String("r", "", "output result file")
		metrics := fs.String("metrics", "", "write the metrics as JSON here")
		ms := fs.Bool("ms", false, "MC-SAT marginals instead of MAP")
		samples := fs.Int("numSamples", 0, "MC-SAT samples per component (0: 1000)")
		if err := parseFlags(cmd); err != nil {
			return err
		}
		if *model == "" || *ev == "" || *q == "" || *res == "" {
			return usagef("give -i model.mln -e test.db -q Pred -r out.result")
		}
		if *samples < 0 {
			return usagef("-numSamples must not be negative, not %d", *samples)
		}
		if err := checkFlags(flagcheck.Output("r", *res), flagcheck.Output("metrics", *metrics)); err != nil {
			return err
		}
		models, err := inputFiles(ctx, "i", *model)
		if err != nil {
			return err
		}
		files, err := inputFiles(ctx, "e", *ev)
		if err != nil {
			return err
		}
		cfg := pipeline.InferConfig{
			Data:      pipeline.Data{Model: models, Files: files, Query: list(*q), MultipleDatabases: *multi, ExampleType: *exTyp},
			Solver:    pipeline.Learner{Solver: *sol, Seed: *seed},
			Marginals: *ms, Samples: *samples,
		}
		if err := cfg.Data.ReadModel(ctx); err != nil {
			return err
		}
		if _, err := cfg.Data.LoadModel(); err != nil {
			return err
		}
		if err := cfg.Data.CheckFiles(ctx); err != nil {
			return err
		}
		if err := checkEndpoint(ctx, *epTO); err != nil {
			return err
		}
		beam.Init()
		p, s := beam.NewPipelineWithRoot()
		mfile := *metrics
		if mfile == "" {
			f, err := os.CreateTemp("", "marple-beam-metrics-*.json")
			if err != nil {
				return err
			}
			f.Close()
			mfile = f.Name()
			defer os.Remove(mfile)
		}
		pipeline.Infer(s, cfg, pipeline.InferOutputs{Result: *res, Metrics: mfile})
		t0 := time.Now()
		if err := runPipeline(ctx, p); err != nil {
			return err
		}
		b, err := pipeline.ReadPath(ctx, mfile)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "marple-beam infer: done in %s\n", time.Since(t0).Round(time.Millisecond))
		_, err = stdout.Write(b)
		return err
	case "generate":
		out := fs.String("o", "", "output directory")
		n := fs.Int("n", 10000, "number of examples (propositions)")
		per := fs.Int("perFile", 1000, "examples per file")
		vocab := fs.Int("vocab", 300, "distinct words")
		noise := fs.Float64("noise", 0.03, "fraction of roles replaced at random")
		if err := parseFlags(cmd); err != nil {
			return err
		}
		if *out == "" || *n < 1 || *per < 1 {
			return usagef("give -o dir and positive -n and -perFile")
		}
		if *vocab < 1 {
			return usagef("-vocab must be at least 1, not %d", *vocab)
		}
		if err := checkFlags(flagcheck.NonNegative("noise", *noise)); err != nil {
			return err
		}
		if *noise > 1 {
			return usagef("-noise must be at most 1, not %v", *noise)
		}
		if *noise == 0 {
			*noise = -1
		}
		g := synth.SRL{Examples: *n, Vocab: *vocab, Noise: *noise, Seed: *seed}
		modelFile, files, err := g.Write(*out, *per)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "marple-beam generate: %s and %d data files (%d examples) in %s\n", modelFile, len(files), *n, *out)
		return nil
	case "replicate":
		train := fs.String("t", "", "database file(s) (.db), comma-separated local paths or glob patterns")
		typ := fs.String("type", "", "the example type whose constants are renamed in each copy")
		k := fs.Int("k", 2, "copies")
		out := fs.String("o", "", "output database file")
		if err := parseFlags(cmd); err != nil {
			return err
		}
		if *model == "" || *train == "" || *typ == "" || *out == "" || *k < 1 {
			return usagef("give -i model.mln -t data.db -type T -k K -o out.db")
		}
		if err := checkFlags(flagcheck.Output("o", *out)); err != nil {
			return err
		}
		models, err := localFiles(ctx, "i", *model)
		if err != nil {
			return err
		}
		files, err := localFiles(ctx, "t", *train)
		if err != nil {
			return err
		}
		m, err := mln.LoadModel(models...)
		if err != nil {
			return err
		}
		db, err := mln.LoadDatabase(m, files...)
		if err != nil {
			return err
		}
		t, ok := m.Type(*typ)
		if !ok {
			return usagef("unknown type %q", *typ)
		}
		return atomicfile.Write(*out, func(w io.Writer) error {
			_, err := io.WriteString(w, synth.Replicate(m, db, t.ID, *k))
			return err
		})
	case "experiment":
		return experiment(ctx, stdout, stderr)
	case "experiment-run":
		return experimentRun(ctx)
	}
	return usagef("unknown command %q (learn, infer, generate, replicate, experiment)", cmd)
}

func round(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(int64(x*1e4+0.5)) / 1e4
	}
	return out
}
