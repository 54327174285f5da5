package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"

	"github.com/marple-mln/marple/mln"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	register.DoFn3x1[context.Context, int, func(Example), error](&readFn{})
	register.DoFn2x0[Example, func(int, Example)](&shardFn{})
	register.Function2x0(broadcastOf)
	register.DoFn5x1[context.Context, int, func(*Example) bool, Broadcast, func(ShardResult), error](&trainFn{})
	register.Combiner3[ShardResults, ShardResult, Mixture](&mixFn{})
	register.DoFn2x1[Mixture, State, State](&nextFn{})
	register.DoFn2x2[context.Context, State, State, error](&writeFn{})
	register.Emitter1[Example]()
	register.Emitter2[int, Example]()
	register.Emitter1[Broadcast]()
	register.Emitter1[ShardResult]()
	register.Iter1[Example]()
}

// readFn reads one data file and emits its examples.
type readFn struct {
	Data Data
}

func (f *readFn) ProcessElement(ctx context.Context, fi int, emit func(Example)) error {
	src, err := ReadPath(ctx, f.Data.Files[fi])
	if err != nil {
		return err
	}
	exs, err := f.Data.Examples(fi, f.Data.Files[fi], src)
	if err != nil {
		return err
	}
	for _, ex := range exs {
		emit(ex)
	}
	return nil
}

// shardFn keys each example by its shard.
type shardFn struct {
	Seed   int64
	Shards int
}

func (f *shardFn) ProcessElement(ex Example, emit func(int, Example)) {
	emit(ShardOf(ex.ID, f.Seed, f.Shards), ex)
}

// Broadcast is what every shard of an epoch needs of the previous one,
// the side input each epoch sends to the shards: the mixed weights and,
// while every epoch had one shard, the learner's state (State.Learner).
// The sums of the averaged model, the losses and the mistakes stay with
// the state, which only the mixing reads.
type Broadcast struct {
	Weights Weights
	Learner *NamedState `json:",omitempty"`
}

// BroadcastOf returns the part of st that the next epoch's shards need.
func BroadcastOf(st State) Broadcast { return Broadcast{Weights: st.Weights, Learner: st.Learner} }

// state is the broadcast as the State that TrainShard starts from.
func (b Broadcast) state() State { return State{Weights: b.Weights, Learner: b.Learner} }

func broadcastOf(st State, emit func(Broadcast)) { emit(BroadcastOf(st)) }

// trainFn runs one epoch of the shards (TrainShard) from the previous
// epoch's weights, a singleton side input. Its input is the examples
// grouped by shard (each example its own element, not a shard in one
// element); their parts are merged (MergeParts) and put in key order, as
// Beam does not order the elements of a group. The shards of a bundle are
// trained side by side in FinishBundle, up to GOMAXPROCS at once, and
// their results emitted in order of shard index: runners that put every
// key of a stage in one bundle (prism) would otherwise train the shards
// one after the other.
type trainFn struct {
	Config TrainConfig
	Epoch  int

	pending []Shard
}

// failEpoch, when at least 0, makes that epoch (0-based) fail: the tests
// use it to stop a job part way.
var failEpoch = -1

func (f *trainFn) ProcessElement(ctx context.Context, shard int, iter func(*Example) bool, prev Broadcast, emit func(ShardResult)) error {
	if f.Epoch == failEpoch {
		return fmt.Errorf("epoch %d, shard %d: failed by the test", f.Epoch+1, shard)
	}
	var exs []Example
	var ex Example
	for iter(&ex) {
		exs = append(exs, ex)
	}
	f.pending = append(f.pending, Shard{Index: shard, Examples: MergeParts(exs)})
	return nil
}

func (f *trainFn) FinishBundle(ctx context.Context, prev Broadcast, emit func(ShardResult)) error {
	shards := f.pending
	f.pending = nil
	sort.Slice(shards, func(i, j int) bool { return shards[i].Index < shards[j].Index })
	rs, err := trainShards(ctx, f.Config, f.Epoch, shards, prev.state(), runtime.GOMAXPROCS(0))
	if err != nil {
		return err
	}
	for _, r := range rs {
		emit(r)
	}
	return nil
}

// trainShards runs TrainShard on each shard, up to workers at once, and
// returns the results in the order of shards; the error is the first
// shard's (in that order) that failed.
func trainShards(ctx context.Context, cfg TrainConfig, epoch int, shards []Shard, prev State, workers int) ([]ShardResult, error) {
	rs := make([]ShardResult, len(shards))
	errs := make([]error, len(shards))
	sem := make(chan struct{}, max(workers, 1))
	var wg sync.WaitGroup
	for i := range shards {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r, err := TrainShard(ctx, cfg, epoch, shards[i], prev)
			if err != nil {
				err = fmt.Errorf("epoch %d, shard %d: %w", epoch+1, shards[i].Index, err)
			}
			rs[i], errs[i] = r, err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// ShardResults are the results of some of an epoch's shards, in order of
// shard index: the accumulator that mixes them (Mix) once all are in.
type ShardResults struct {
	Results []ShardResult
}

// mixFn collects the shards' results of an epoch and sums them in order
// of shard index.
type mixFn struct{}

func (mixFn) CreateAccumulator() ShardResults { return ShardResults{} }
func (mixFn) AddInput(x ShardResults, r ShardResult) ShardResults {
	return mixFn{}.MergeAccumulators(x, ShardResults{Results: []ShardResult{r}})
}
func (mixFn) MergeAccumulators(x, y ShardResults) ShardResults {
	rs := append(append([]ShardResult(nil), x.Results...), y.Results...)
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Shard < rs[j].Shard })
	return ShardResults{Results: rs}
}
func (mixFn) ExtractOutput(x ShardResults) Mixture { return Mix(x.Results) }

// nextFn turns an epoch's mixture into the next state.
type nextFn struct {
	Mix string
}

func (f *nextFn) ProcessElement(x Mixture, prev State) State { return x.Next(prev, f.Mix) }

// Outputs names the files Train writes (empty: not written).
type Outputs struct {
	// Model receives the model with the learned weights (.mln).
	Model string
	// State receives the final State as JSON: the weights by name, the
	// loss and mistakes of every epoch.
	State string
}

// writeFn writes the learned model and the final state.
type writeFn struct {
	Data      Data
	Out       Outputs
	NoAverage bool
}

func (f *writeFn) ProcessElement(ctx context.Context, st State) (State, error) {
	if f.Out.Model != "" {
		m, err := f.Data.LoadModel()
		if err != nil {
			return st, err
		}
		if err := st.Final(f.NoAverage).Allocate(m); err != nil {
			return st, err
		}
		if err := WritePath(ctx, f.Out.Model, func(w io.Writer) error { return mln.WriteModel(w, m) }); err != nil {
			return st, err
		}
	}
	if f.Out.State != "" {
		err := WritePath(ctx, f.Out.State, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", " ")
			return enc.Encode(st)
		})
		if err != nil {
			return st, err
		}
	}
	return st, nil
}

// ReadState reads a state written by Train (through Beam's filesystems).
func ReadState(path string) (State, error) {
	var st State
	b, err := ReadPath(context.Background(), path)
	if err != nil {
		return st, err
	}
	err = json.Unmarshal(b, &st)
	return st, err
}

// Train adds iterative parameter mixing to the pipeline: the examples of
// cfg.Data are read (one file per element, by the workers), split into
// cfg.Shards shards once, and for each of cfg.Passes epochs every shard
// runs one pass of the online learner from the previous epoch's mixed
// weights (a side input) and the shards' weights are mixed. The state is
// written to out.State after each epoch (so that a failed job can be
// resumed: TrainFrom), and the learned model and the final state at the
// end. It returns the final State (one element).
func Train(s beam.Scope, cfg TrainConfig, out Outputs) beam.PCollection {
	return TrainFrom(s, cfg, out, State{})
}

// TrainFrom is Train continuing from start, a state written by Train
// after start.Epoch epochs with the same cfg (ReadState): it runs epochs
// start.Epoch+1 to cfg.Passes and gives the weights, model and state that
// an uninterrupted run gives. The shards are drawn again as in the first
// run (from cfg.Seed and the examples' keys).
func TrainFrom(s beam.Scope, cfg TrainConfig, out Outputs, start State) beam.PCollection {
	s = s.Scope("marple.Train")
	idx := make([]int, len(cfg.Data.Files))
	for i := range idx {
		idx[i] = i
	}
	// The Reshuffles break fusion on runners that fuse (Flink, Spark,
	// Dataflow): without them the one-element-per-file list, the reading
	// and the sharding would run as one stage in one bundle on one worker.
	files := beam.Reshuffle(s, beam.CreateList(s, idx))
	exs := beam.Reshuffle(s, beam.ParDo(s, &readFn{Data: cfg.Data}, files))
	keyed := beam.ParDo(s, &shardFn{Seed: cfg.Seed, Shards: cfg.shards()}, exs)
	// The examples stay one element each, grouped by shard: every epoch
	// reads the groups again.
	shards := beam.GroupByKey(s, keyed)
	state := beam.Create(s, start)
	for e := start.Epoch; e < cfg.passes(); e++ {
		es := s.Scope(fmt.Sprintf("epoch%d", e+1))
		// Only the weights (and a single shard's learner state) go to
		// every shard.
		bc := beam.ParDo(es, broadcastOf, state)
		results := beam.ParDo(es, &trainFn{Config: cfg, Epoch: e}, shards, beam.SideInput{Input: bc})
		mixed := beam.Combine(es, mixFn{}, results)
		state = beam.ParDo(es, &nextFn{Mix: cfg.Mix}, mixed, beam.SideInput{Input: state})
		if out.State != "" && e+1 < cfg.passes() {
			state = beam.ParDo(es, &writeFn{Data: cfg.Data, Out: Outputs{State: out.State}}, state)
		}
	}
	return beam.ParDo(s, &writeFn{Data: cfg.Data, Out: out, NoAverage: cfg.NoAverage}, state)
}
