package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

// TrainConfig configures distributed online learning by iterative
// parameter mixing.
type TrainConfig struct {
	Data    Data
	Learner Learner
	// Passes is the number of epochs (0: 1).
	Passes int
	// Shards is the number of shards the examples are split into (0: 1).
	Shards int
	// Mix is how shard weights are averaged: "uniform" (default) or
	// "mistakes" (weighted by each shard's mistakes in the epoch).
	Mix string
	// Shuffle visits each shard's examples in an order drawn from Seed and
	// the epoch; otherwise in key order.
	Shuffle bool
	Seed    int64
	// NoAverage outputs the last mixed weights instead of the average of
	// every shard's weights after each update.
	NoAverage bool
}

func (c TrainConfig) passes() int { return max(c.Passes, 1) }
func (c TrainConfig) shards() int { return max(c.Shards, 1) }

// Check validates the configuration.
func (c TrainConfig) Check() error {
	if err := c.Learner.check(); err != nil {
		return err
	}
	switch c.Mix {
	case "", "uniform", "mistakes":
	default:
		return fmt.Errorf("pipeline: unknown mixing %q (uniform or mistakes)", c.Mix)
	}
	if c.Passes < 0 || c.Shards < 0 {
		return fmt.Errorf("pipeline: negative passes or shards")
	}
	if len(c.Data.Files) == 0 {
		return fmt.Errorf("pipeline: no training files")
	}
	return nil
}

// Shard is the examples of one shard.
type Shard struct {
	Index    int
	Examples []Example
}

// State is what one epoch hands the next: the mixed weights, and the sums
// that make the averaged model.
type State struct {
	Epoch int // epochs done
	// Weights are the mixed weights the next epoch starts from.
	Weights Weights
	// AvgSum sums every shard's weights after each of its updates, over
	// all epochs; Steps counts those updates.
	AvgSum Weights
	Steps  int
	// Loss and Mistakes hold, per epoch, the mean label loss and the
	// number of examples whose label differed from the truth.
	Loss     []float64
	Mistakes []int
	// Learner, set while every epoch had one shard, is that shard's
	// learner state, which the next epoch continues bit for bit (so one
	// shard is exactly the sequential learner); Avg is then its averaged
	// weights over every update so far.
	Learner *NamedState `json:",omitempty"`
	Avg     Weights
}

// NamedState is a learner's state with its parameters named (ParamName)
// in the learner's order.
type NamedState struct {
	Params []string
	State  learn.LearnerState
}

// Final returns the weights to predict with: the average AvgSum/Steps, or
// with noAverage the last mixed weights.
func (s State) Final(noAverage bool) Weights {
	if noAverage || s.Steps == 0 {
		return s.Weights
	}
	if s.Learner != nil {
		return s.Avg
	}
	a := accum{}
	a.add(s.AvgSum, 1)
	return a.weights(1 / float64(s.Steps))
}

// ShardResult is one shard's epoch.
type ShardResult struct {
	Shard    int
	Steps    int
	Mistakes int
	LossSum  float64
	// Last are the shard's weights after its last update; AvgSum the sum of
	// its weights after each update in the epoch.
	Last, AvgSum Weights
	// Learner is the shard's learner state at the end of the epoch, and
	// Avg its averaged weights (see State.Learner).
	Learner *NamedState `json:",omitempty"`
	Avg     Weights
}

// TrainShard runs epoch `epoch` of shard sh from the state prev: one pass
// of the online learner over the shard's examples, continuing (for the
// rules whose steps shrink as 1/t) as if the shard had already made
// epoch·len(sh.Examples) updates.
//
// Every call works on a fresh model (NewGrounder) that first meets the
// shard's constants in key order, as the sequential learner does, so the
// result depends only on the shard, the epoch and prev: not on which
// worker runs it nor on what that worker ran before.
func TrainShard(ctx context.Context, cfg TrainConfig, epoch int, sh Shard, prev State) (ShardResult, error) {
	res := ShardResult{Shard: sh.Index}
	if len(sh.Examples) == 0 {
		return res, nil
	}
	g, err := NewGrounder(cfg.Data)
	if err != nil {
		return res, err
	}
	if err := g.Intern(sh.Examples); err != nil {
		return res, err
	}
	method, err := cfg.Learner.method()
	if err != nil {
		return res, err
	}
	loss, err := cfg.Learner.loss()
	if err != nil {
		return res, err
	}
	engine, err := cfg.Learner.engine()
	if err != nil {
		return res, err
	}
	m := g.Model
	var cont *learn.LearnerState
	if prev.Learner != nil {
		if cont, err = prev.Learner.restore(m); err != nil {
			return res, err
		}
	}
	if err := prev.Weights.Allocate(m); err != nil {
		return res, err
	}
	exs := append([]Example(nil), sh.Examples...)
	EpochOrder(exs, cfg.Seed, epoch, cfg.Shuffle)
	st, err := learn.Online(ctx, m, &Source{G: g, Examples: exs}, method, learn.Settings{
		Solver:      engine,
		Seed:        cfg.Learner.Seed,
		Loss:        loss,
		Passes:      1,
		KeepInitial: true,
		StartStep:   epoch * len(exs),
		Continue:    cont,
	})
	if err != nil {
		return res, err
	}
	if st.State != nil && (epoch == 0 || cont != nil) {
		ns := &NamedState{State: *st.State, Params: make([]string, len(st.Last))}
		for p := range ns.Params {
			ns.Params[p] = ParamName(m, p)
		}
		res.Learner, res.Avg = ns, Of(m, m.Weights)
	}
	res.Steps = st.Steps
	res.Mistakes = st.PassMistakes[0]
	res.LossSum = st.PassLoss[0] * float64(st.Steps)
	res.Last = Of(m, st.Last)
	avg := accum{}
	avg.add(Of(m, m.Weights), float64(st.Steps))
	res.AvgSum = avg.weights(1)
	return res, nil
}

// Mixture is the sum of an epoch's shard results, added in order of shard
// index (Mix), so that the floating-point sums, and with them the mixed
// weights, do not depend on the order in which the shards finished.
type Mixture struct {
	LastSum, LastMistakes Weights // Σ last and Σ mistakes·last
	AvgSum                Weights
	// Learner and Avg are the shard's when exactly one shard was added.
	Learner       *NamedState `json:",omitempty"`
	Avg           Weights
	Shards, Steps int
	Mistakes      int
	LossSum       float64
}

// Mix sums the shard results in order of shard index.
func Mix(rs []ShardResult) Mixture {
	rs = slices.Clone(rs)
	slices.SortStableFunc(rs, func(a, b ShardResult) int { return cmp.Compare(a.Shard, b.Shard) })
	var x Mixture
	for _, r := range rs {
		x = x.Add(r)
	}
	return x
}

// Add adds a shard's result. A shard without examples does not count (a
// pipeline never sees it).
func (x Mixture) Add(r ShardResult) Mixture {
	if r.Steps == 0 {
		return x
	}
	x.LastSum = addWeights(x.LastSum, r.Last, 1)
	x.LastMistakes = addWeights(x.LastMistakes, r.Last, float64(r.Mistakes))
	x.AvgSum = addWeights(x.AvgSum, r.AvgSum, 1)
	x.Learner, x.Avg = nil, Weights{}
	if x.Shards == 0 {
		x.Learner, x.Avg = r.Learner, r.Avg
	}
	x.Shards++
	x.Steps += r.Steps
	x.Mistakes += r.Mistakes
	x.LossSum += r.LossSum
	return x
}

// Next returns the state after an epoch whose shards mixed into x.
func (x Mixture) Next(prev State, mix string) State {
	next := State{
		Epoch:    prev.Epoch + 1,
		AvgSum:   addWeights(prev.AvgSum, x.AvgSum, 1),
		Steps:    prev.Steps + x.Steps,
		Loss:     append(append([]float64(nil), prev.Loss...), 0),
		Mistakes: append(append([]int(nil), prev.Mistakes...), x.Mistakes),
	}
	if x.Steps > 0 {
		next.Loss[len(next.Loss)-1] = x.LossSum / float64(x.Steps)
	}
	if x.Shards == 1 && x.Learner != nil && (prev.Epoch == 0 || prev.Learner != nil) {
		next.Learner, next.Avg = x.Learner, x.Avg
	}
	a := accum{}
	switch {
	case mix == "mistakes" && x.Mistakes > 0:
		a.add(x.LastMistakes, 1/float64(x.Mistakes))
	case x.Shards > 0:
		a.add(x.LastSum, 1/float64(x.Shards))
	default:
		a.add(prev.Weights, 1)
	}
	next.Weights = a.weights(1)
	return next
}

// addWeights returns a + scale·b over the union of names.
func addWeights(a, b Weights, scale float64) Weights {
	out := Weights{Names: make([]string, 0, len(a.Names)+len(b.Names)), Values: make([]float64, 0, len(a.Names)+len(b.Names))}
	i, j := 0, 0
	for i < len(a.Names) || j < len(b.Names) {
		switch {
		case j == len(b.Names) || i < len(a.Names) && a.Names[i] < b.Names[j]:
			out.Names = append(out.Names, a.Names[i])
			out.Values = append(out.Values, a.Values[i])
			i++
		case i == len(a.Names) || b.Names[j] < a.Names[i]:
			out.Names = append(out.Names, b.Names[j])
			out.Values = append(out.Values, scale*b.Values[j])
			j++
		default:
			out.Names = append(out.Names, a.Names[i])
			out.Values = append(out.Values, a.Values[i]+scale*b.Values[j])
			i++
			j++
		}
	}
	return out
}

// MakeShards merges the parts of each example (MergeParts) and splits the
// examples into shards by ShardOf.
func MakeShards(exs []Example, seed int64, shards int) []Shard {
	out := make([]Shard, max(shards, 1))
	for i := range out {
		out[i].Index = i
	}
	for _, ex := range MergeParts(exs) {
		s := ShardOf(ex.ID, seed, shards)
		out[s].Examples = append(out[s].Examples, ex)
	}
	for i := range out {
		sort.Slice(out[i].Examples, func(a, b int) bool { return out[i].Examples[a].Key < out[i].Examples[b].Key })
	}
	return out
}

// TrainLocal runs iterative parameter mixing in this process, shard after
// shard, without Beam: the reference the pipeline is tested against.
func TrainLocal(ctx context.Context, cfg TrainConfig) (State, error) {
	if err := cfg.Check(); err != nil {
		return State{}, err
	}
	var exs []Example
	for fi := range cfg.Data.Files {
		part, err := cfg.Data.ReadFile(fi)
		if err != nil {
			return State{}, err
		}
		exs = append(exs, part...)
	}
	shards := MakeShards(exs, cfg.Seed, cfg.shards())
	var st State
	for e := 0; e < cfg.passes(); e++ {
		rs := make([]ShardResult, len(shards))
		for i, sh := range shards {
			r, err := TrainShard(ctx, cfg, e, sh, st)
			if err != nil {
				return st, err
			}
			rs[i] = r
		}
		st = Mix(rs).Next(st, cfg.Mix)
	}
	return st, nil
}

// restore allocates the state's parameters in m (by name, as Allocate
// does) and returns the state with its vectors in m's parameter order; m
// must have no other parameters.
func (ns *NamedState) restore(m *mln.Model) (*learn.LearnerState, error) {
	w := Weights{Names: ns.Params}
	if err := w.allocate(m); err != nil {
		return nil, err
	}
	if len(m.Weights) != len(ns.Params) {
		return nil, fmt.Errorf("pipeline: the worker's model has %d parameters, the learner state %d", len(m.Weights), len(ns.Params))
	}
	index := make(map[string]int, len(m.Weights))
	for p := range m.Weights {
		index[ParamName(m, p)] = p
	}
	to := make([]int, len(ns.Params))
	for i, k := range ns.Params {
		to[i] = index[k]
	}
	st, err := ns.State.Permute(to)
	if err != nil {
		return nil, err
	}
	return &st, nil
}
