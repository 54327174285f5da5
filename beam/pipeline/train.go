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
	register.DoFn2x0[State, func(int, Broadcast)](&broadcastFn{})
	register.DoFn5x1[context.Context, int, func(*Example) bool, func(*Broadcast) bool, func(ShardResult), error](&trainFn{})
	register.Combiner3[ShardResults, ShardResult, Mixture](&mixFn{})
	register.DoFn2x1[Mixture, State, State](&nextFn{})
	register.DoFn2x2[context.Context, State, State, error](&writeFn{})
	register.Emitter1[Example]()
	register.Emitter2[int, Example]()
	register.Emitter2[int, Broadcast]()
	register.Iter1[Broadcast]()
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

// broadcastFn sends the broadcast of a state to every shard (keyed by
// shard index), to be joined with the shard's examples.
type broadcastFn struct {
	Shards int
}

func (f *broadcastFn) ProcessElement(st State, emit func(int, Broadcast)) {
	b := BroadcastOf(st)
	for i := 0; i < f.Shards; i++ {
		emit(i, b)
	}
}

// trainFn runs one epoch of the shards (TrainShard). Its input is, for
// each shard, the shard's examples (each its own element) joined with the
// previous epoch's broadcast (a CoGroupByKey by shard index, rather than
// a side input: prism's scheduler spins for as long as a stage that reads
// a side input runs). The examples' parts are merged (MergeParts) and put
// in key order, as Beam does not order the elements of a group. The
// shards of a bundle are trained side by side in FinishBundle, up to
// GOMAXPROCS at once, and their results emitted in order of shard index,
// so that a runner that puts several keys in one bundle does not train
// them one after the other.
type trainFn struct {
	Config TrainConfig
	Epoch  int

	pending []shardJob
}

// shardJob is a shard and the state its epoch starts from.
type shardJob struct {
	Shard Shard
	Prev  State
}

// failEpoch, when at least 0, makes that epoch (0-based) fail: the tests
// use it to stop a job part way.
var failEpoch = -1

func (f *trainFn) ProcessElement(ctx context.Context, shard int, exIter func(*Example) bool, bcIter func(*Broadcast) bool, emit func(ShardResult)) error {
	if f.Epoch == failEpoch {
		return fmt.Errorf("epoch %d, shard %d: failed by the test", f.Epoch+1, shard)
	}
	var b Broadcast
	n := 0
	for bcIter(&b) {
		n++
	}
	if n != 1 {
		return fmt.Errorf("epoch %d, shard %d: %d broadcasts of the weights, not 1", f.Epoch+1, shard, n)
	}
	var exs []Example
	var ex Example
	for exIter(&ex) {
		exs = append(exs, ex)
	}
	f.pending = append(f.pending, shardJob{Shard: Shard{Index: shard, Examples: MergeParts(exs)}, Prev: b.state()})
	return nil
}

func (f *trainFn) FinishBundle(ctx context.Context, emit func(ShardResult)) error {
	jobs := f.pending
	f.pending = nil
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].Shard.Index < jobs[j].Shard.Index })
	rs, err := trainShards(ctx, f.Config, f.Epoch, jobs, runtime.GOMAXPROCS(0))
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
func trainShards(ctx context.Context, cfg TrainConfig, epoch int, jobs []shardJob, workers int) ([]ShardResult, error) {
	rs := make([]ShardResult, len(jobs))
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, max(workers, 1))
	var wg sync.WaitGroup
	for i, job := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r, err := TrainShard(ctx, cfg, epoch, job.Shard, job.Prev)
			if err != nil {
				err = fmt.Errorf("epoch %d, shard %d: %w", epoch+1, job.Shard.Index, err)
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
	state := beam.Create(s, start)
	for e := start.Epoch; e < cfg.passes(); e++ {
		es := s.Scope(fmt.Sprintf("epoch%d", e+1))
		// Every shard gets only the weights (and a single shard's learner
		// state), joined with its examples, which stay one element each.
		bc := beam.ParDo(es, &broadcastFn{Shards: cfg.shards()}, state)
		shards := beam.CoGroupByKey(es, keyed, bc)
		results := beam.ParDo(es, &trainFn{Config: cfg, Epoch: e}, shards)
		mixed := beam.Combine(es, mixFn{}, results)
		state = beam.ParDo(es, &nextFn{Mix: cfg.Mix}, mixed, beam.SideInput{Input: state})
		if out.State != "" && e+1 < cfg.passes() {
			state = beam.ParDo(es, &writeFn{Data: cfg.Data, Out: Outputs{State: out.State}}, state)
		}
	}
	return beam.ParDo(s, &writeFn{Data: cfg.Data, Out: out, NoAverage: cfg.NoAverage}, state)
}
