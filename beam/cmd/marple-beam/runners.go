package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"google.golang.org/grpc"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	fnpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/fnexecution_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners" // the --runner flag
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal/extworker"

	// The reflection-optimized runtime, and the filesystems data and
	// outputs are read and written through: local paths, gs:// (which
	// Dataflow needs) and s3:// (AWS's default credential chain; it adds
	// 11 MB to the binary, see results/beam.md).
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/exec/optimized"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"

	// The runners marple-beam documents, registered by these imports:
	// prism (in-process, the default), universal (any portable job server:
	// Flink's, Spark's, a stand-alone prism) and dataflow. Linking only
	// these, rather than every runner as beamx does, keeps the binary
	// smaller (docs/cluster.md).
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"
)

// runnerNames are the runners --runner accepts: the linked runners and
// the other names they register under.
var runnerNames = []string{"prism", "universal", "dataflow", "PrismRunner", "portable", "PortableRunner", "DataflowRunner"}

// runnerName returns the runner --runner names (default prism).
func runnerName() string {
	if *runners.Runner == "" {
		return "prism"
	}
	return *runners.Runner
}

// checkRunner returns a usage error unless --runner names a linked runner.
func checkRunner() error {
	if r := runnerName(); !slices.Contains(runnerNames, r) {
		return usagef("--runner must be prism, universal or dataflow, not %q (Flink and Spark: --runner=universal with their job server's --endpoint)", r)
	}
	return nil
}

// checkEnvironment refuses a portable runner (universal, or prism with
// --endpoint) whose workers would need a worker binary that Beam compiles
// from source (go build, which fails outside a source tree): one given
// neither a LOOPBACK or EXTERNAL --environment_type nor --worker_binary.
func checkEnvironment() error {
	r := runnerName()
	switch {
	case r == "universal" || r == "portable" || r == "PortableRunner":
	case (r == "prism" || r == "PrismRunner") && flagValue("endpoint") != "":
	default:
		return nil
	}
	env := strings.ToLower(flagValue("environment_type"))
	if env == "loopback" || env == "external" || flagValue("worker_binary") != "" {
		return nil
	}
	const how = "LOOPBACK (workers in this process), EXTERNAL with --environment_config=HOST:PORT (a marple-beam --worker_pool), or DOCKER or PROCESS with --worker_binary (a marple-beam binary built for the workers' machines)"
	if env == "" {
		return usagef("--runner=%s needs --environment_type: %s", r, how)
	}
	return usagef("--environment_type=%s needs --worker_binary (a marple-beam binary built for the workers' machines); or use %s", flagValue("environment_type"), how)
}

// runPipeline runs p on the runner --runner names.
func runPipeline(ctx context.Context, p *beam.Pipeline) error {
	if err := checkRunner(); err != nil {
		return err
	}
	if err := checkEnvironment(); err != nil {
		return err
	}
	defer removeLoopbackFiles(loopbackFiles())
	_, err := beam.Run(ctx, runnerName(), p)
	return err
}

// loopbackPattern matches the empty files Beam's portable runner creates
// (and leaves) in the temporary directory for a LOOPBACK run, which prism
// uses by default, as the unused worker binary's name.
var loopbackPattern = filepath.Join(os.TempDir(), "beamloopbackworker-*")

// loopbackFiles returns the loopback files that exist now.
func loopbackFiles() map[string]bool {
	names, _ := filepath.Glob(loopbackPattern)
	old := make(map[string]bool, len(names))
	for _, n := range names {
		old[n] = true
	}
	return old
}

// removeLoopbackFiles removes the empty loopback files created since
// old was taken.
func removeLoopbackFiles(old map[string]bool) {
	names, _ := filepath.Glob(loopbackPattern)
	for _, n := range names {
		if fi, err := os.Stat(n); !old[n] && err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
			os.Remove(n)
		}
	}
}

// workerPool serves Beam's worker pool service on host:port (host: the
// interface to listen on, localhost or an address of this machine; empty:
// every interface) until an interrupt or SIGTERM: a runner given
// --environment_type=EXTERNAL --environment_config=HOST:PORT asks it for
// workers, which run in this process (outside the launcher's). It reports
// its address, and each worker it starts, on stderr.
func workerPool(host string, port int, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	lis, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return err
	}
	// The SDK's pool runs the workers (Beam's harness, in this process);
	// its own listener on a free port goes unused.
	lb, err := extworker.StartLoopback(ctx, 0)
	if err != nil {
		lis.Close()
		return err
	}
	srv := grpc.NewServer()
	fnpb.RegisterBeamFnExternalWorkerPoolServer(srv, &loggingPool{Loopback: lb, log: stderr})
	go srv.Serve(lis)
	fmt.Fprintf(stderr, "marple-beam: worker pool at %s\n", net.JoinHostPort(host, strconv.Itoa(lis.Addr().(*net.TCPAddr).Port)))
	<-ctx.Done()
	srv.Stop()
	return lb.Stop(context.Background())
}

// loggingPool is the SDK's worker pool, reporting the workers it starts.
type loggingPool struct {
	*extworker.Loopback
	log io.Writer
}

func (p *loggingPool) StartWorker(ctx context.Context, req *fnpb.StartWorkerRequest) (*fnpb.StartWorkerResponse, error) {
	resp, err := p.Loopback.StartWorker(ctx, req)
	if err == nil && resp.GetError() == "" {
		fmt.Fprintf(p.log, "marple-beam: worker pool: started worker %s\n", req.GetWorkerId())
	}
	return resp, err
}
