package main

import (
	"context"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners" // the --runner flag

	// The reflection-optimized runtime, and the filesystems data and
	// outputs are read and written through: local paths, and gs:// (which
	// Dataflow needs).
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/exec/optimized"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"

	// The runners marple-beam documents, registered by these imports:
	// prism (in-process, the default), universal (any portable job server:
	// Flink's, Spark's, a stand-alone prism) and dataflow. Linking only
	// these, rather than every runner as beamx does, keeps the binary
	// smaller (docs/cluster.md).
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"
)

// runnerNames are the runners --runner accepts.
var runnerNames = []string{"prism", "universal", "dataflow"}

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

// runPipeline runs p on the runner --runner names.
func runPipeline(ctx context.Context, p *beam.Pipeline) error {
	if err := checkRunner(); err != nil {
		return err
	}
	_, err := beam.Run(ctx, runnerName(), p)
	return err
}
