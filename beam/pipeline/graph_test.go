package pipeline

import (
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph"
)

// TestFusionBreaks inspects the pipeline graphs: the file list reaches the
// reading, and the read examples reach the sharding, only through a
// Reshuffle (training), and in inference the file list reaches the
// reading through a Reshuffle and the examples are grouped before they
// are inferred, so that runners that fuse (Flink, Spark, Dataflow) spread
// reading, training and inference over their workers.
func TestFusionBreaks(t *testing.T) {
	d := Data{Model: []string{"m.mln"}, Files: []string{"a.db", "b.db"}, Query: []string{"Q"}}
	build := func(add func(beam.Scope)) (producer func(*graph.MultiEdge) *graph.MultiEdge, find func(string) *graph.MultiEdge) {
		p, s := beam.NewPipelineWithRoot()
		add(s)
		edges, _, err := p.Build()
		if err != nil {
			t.Fatal(err)
		}
		producer = func(e *graph.MultiEdge) *graph.MultiEdge {
			for _, x := range edges {
				for _, out := range x.Output {
					if out.To == e.Input[0].From {
						return x
					}
				}
			}
			t.Fatalf("no edge produces the input of %s", e.Name())
			return nil
		}
		find = func(fn string) *graph.MultiEdge {
			for _, x := range edges {
				if x.Op == graph.ParDo && strings.Contains(x.DoFn.Name(), fn) {
					return x
				}
			}
			t.Fatalf("no ParDo of %s", fn)
			return nil
		}
		return producer, find
	}
	producer, find := build(func(s beam.Scope) { Train(s, TrainConfig{Data: d, Passes: 1, Shards: 2}, Outputs{}) })
	for _, fn := range []string{"readFn", "shardFn"} {
		if e := producer(find(fn)); e.Op != graph.Reshuffle {
			t.Errorf("train: the input of %s comes from %s, not a Reshuffle", fn, e.Op)
		}
	}
	train := find("trainFn")
	if e := producer(train); e.Op != graph.CoGBK {
		t.Errorf("train: the shards come from %s, not a GroupByKey", e.Op)
	}
	// The weights reach the shards through the join, not as a side input
	// (prism's scheduler spins while a stage with a side input runs).
	if len(train.Input) != 1 {
		t.Errorf("train: trainFn has %d inputs, want 1 (no side input)", len(train.Input))
	}
	producer, find = build(func(s beam.Scope) { Infer(s, InferConfig{Data: d}, InferOutputs{}) })
	if e := producer(find("readFn")); e.Op != graph.Reshuffle {
		t.Errorf("infer: the input of readFn comes from %s, not a Reshuffle", e.Op)
	}
	if e := producer(find("mergeGroup")); e.Op != graph.CoGBK {
		t.Errorf("infer: the examples come from %s, not a GroupByKey", e.Op)
	}
}
