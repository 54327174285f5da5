package learn

import (
	"errors"
	"fmt"
	"github.com/marple-mln/marple/internal/gobfile"
	"io"
	"slices"

	"github.com/marple-mln/marple/mln"
)

// Checkpoint is the state of an Online run after some examples: enough to
// continue it (Settings.Resume) to the weights the uninterrupted run
// reaches. Settings.Checkpoint receives one every Settings.CheckpointEvery
// examples; Write and ReadCheckpoint store it (gob).
type Checkpoint struct {
	// Method is the update rule's name; Examples, Passes, Shuffle and Seed
	// the run's shape. Resume refuses a checkpoint that does not match.
	Method   string
	Examples int
	Passes   int
	Shuffle  bool
	Seed     int64
	// Steps is the number of examples processed: the position in the
	// example order is pass Steps/Examples, example Steps%Examples of it.
	Steps        int
	Hinge        float64
	PassLoss     []float64
	PassMistakes []int
	// Params names the model's parameters in order, by formula and the
	// constants of their "+" binding, so that a fresh model can allocate
	// them in the same order before resuming.
	Params []CheckpointParam
	// State is the learner's state.
	State LearnerState
	// Revision is the state of the reviser (Settings.Revise) of a run that
	// adds clauses to the model, nil for a run that does not.
	Revision *Revision
	// Meta describes the run for the caller (e.g. its flags and the
	// digests of its input files) so that a resuming caller can refuse a
	// checkpoint of another run. Online carries it and does not read it.
	Meta map[string]string
}

// Revision is the state of a reviser (Settings.Revise, Settings.ReviseState):
// the clauses it added to the model, in order, each as the formula
// &mln.Formula{AST: m.ClauseFormula(c)} (mln.Model.AddFormula), and its own
// counters. Resume adds the clauses back to the model in their places
// among the parameters.
type Revision struct {
	Clauses []*mln.Clause
	Counts  map[string]int
}

// clone returns a copy of r (the clauses are shared: they are not changed).
func (r *Revision) clone() *Revision {
	if r == nil {
		return nil
	}
	out := &Revision{Clauses: slices.Clone(r.Clauses), Counts: make(map[string]int, len(r.Counts))}
	for k, v := range r.Counts {
		out.Counts[k] = v
	}
	return out
}

// CheckpointParam names a parameter: its formula and "+" binding.
type CheckpointParam struct {
	Formula int
	Binding []string
}

// LearnerState is the state of a Learner: named vectors and scalars.
type LearnerState struct {
	Steps   int
	Vectors map[string][]float64
	Ints    map[string][]int
	Scalars map[string]float64
}

// clone returns a deep copy of st.
func (st LearnerState) clone() LearnerState {
	out := LearnerState{Steps: st.Steps, Vectors: map[string][]float64{}, Ints: map[string][]int{}, Scalars: map[string]float64{}}
	for k, v := range st.Vectors {
		out.Vectors[k] = slices.Clone(v)
	}
	for k, v := range st.Ints {
		out.Ints[k] = slices.Clone(v)
	}
	for k, v := range st.Scalars {
		out.Scalars[k] = v
	}
	return out
}

// Permute returns st with its per-parameter vectors reordered: entry i
// moves to position to[i] (a permutation of 0..n-1, n the vectors' length).
func (st LearnerState) Permute(to []int) (LearnerState, error) {
	out := st.clone()
	for _, v := range out.Vectors {
		if len(v) != len(to) {
			return st, fmt.Errorf("learn: permuting a state of %d parameters by %d positions", len(v), len(to))
		}
	}
	for k, v := range st.Vectors {
		for i, x := range v {
			out.Vectors[k][to[i]] = x
		}
	}
	for k, v := range st.Ints {
		if len(v) != len(to) {
			return st, fmt.Errorf("learn: permuting a state of %d parameters by %d positions", len(v), len(to))
		}
		for i, x := range v {
			out.Ints[k][to[i]] = x
		}
	}
	return out, nil
}

// stateful is implemented by the learners whose state a Checkpoint holds.
type stateful interface {
	state() LearnerState
	restore(LearnerState) error
}

// checkpointVersion tags the gob stream.
const checkpointVersion = "marple-learn-checkpoint-1"

// Write writes c to w.
func (c *Checkpoint) Write(w io.Writer) error {
	return gobfile.Write(w, checkpointVersion, c)
}

// ReadCheckpoint reads a checkpoint written by Write.
func ReadCheckpoint(r io.Reader) (*Checkpoint, error) {
	c := &Checkpoint{}
	if err := gobfile.ReadKind(r, checkpointVersion, "learning checkpoint", c); err != nil {
		return nil, err
	}
	return c, nil
}

// ReadCheckpointFile reads the checkpoint in file path.
func ReadCheckpointFile(path string) (*Checkpoint, error) {
	c := &Checkpoint{}
	if err := gobfile.ReadKindFile(path, checkpointVersion, "learning checkpoint", c); err != nil {
		return nil, err
	}
	return c, nil
}

// params names the model's parameters.
func checkpointParams(m *mln.Model) []CheckpointParam {
	out := make([]CheckpointParam, len(m.Weights))
	for p := range out {
		out[p].Formula = m.ParamFormula[p]
		for _, c := range m.ParamBinding[p] {
			out[p].Binding = append(out[p].Binding, m.ConstName(c))
		}
	}
	return out
}

// allocate gives m the checkpoint's parameters, in order, adding the
// revised run's clauses as formulas where their parameters come.
func (c *Checkpoint) allocate(m *mln.Model) error {
	var added []*mln.Clause
	if c.Revision != nil {
		added = c.Revision.Clauses
	}
	next := 0
	add := func() error {
		cl := added[next]
		next++
		for _, l := range cl.Lits {
			if l.Pred >= mln.PredID(len(m.Preds)) {
				return fmt.Errorf("learn: checkpoint clause %d does not fit the model: not this model", next)
			}
		}
		if _, err := m.AddFormula(&mln.Formula{AST: m.ClauseFormula(cl)}); err != nil {
			return fmt.Errorf("learn: checkpoint clause %d: %w", next, err)
		}
		return nil
	}
	for p, cp := range c.Params {
		for cp.Formula >= len(m.Formulas) && next < len(added) {
			if err := add(); err != nil {
				return err
			}
		}
		if cp.Formula < 0 || cp.Formula >= len(m.Formulas) {
			return fmt.Errorf("learn: checkpoint parameter %d: formula %d out of range: not this model", p, cp.Formula)
		}
		ids := make([]mln.ConstID, len(cp.Binding))
		for i, name := range cp.Binding {
			id, ok := m.Const(name)
			if !ok {
				return fmt.Errorf("learn: checkpoint parameter %d: unknown constant %s: not this training set", p, name)
			}
			ids[i] = id
		}
		if got := m.Param(cp.Formula, ids); got != p {
			return fmt.Errorf("learn: checkpoint parameter %d is parameter %d of the model: not this model", p, got)
		}
	}
	for next < len(added) {
		if err := add(); err != nil {
			return err
		}
	}
	if len(m.Weights) != len(c.Params) {
		return fmt.Errorf("learn: the checkpoint has %d parameters, the model %d: not this model", len(c.Params), len(m.Weights))
	}
	return nil
}

// check verifies that c continues a run of this shape.
func (c *Checkpoint) check(method string, n, passes int, s Settings) error {
	switch {
	case c.Method != method:
		return fmt.Errorf("learn: the checkpoint is of %s, not %s", c.Method, method)
	case c.Examples != n:
		return fmt.Errorf("learn: the checkpoint has %d examples, the training set %d", c.Examples, n)
	case c.Passes != passes || c.Shuffle != s.Shuffle || (s.Shuffle && c.Seed != s.Seed):
		return fmt.Errorf("learn: the checkpoint's run had %d passes, shuffle %v, seed %d: resume with the same", c.Passes, c.Shuffle, c.Seed)
	case c.Steps < 0 || c.Steps > n*passes:
		return fmt.Errorf("learn: the checkpoint's position %d is out of range", c.Steps)
	}
	return nil
}

func (s *scaled) state() LearnerState {
	return LearnerState{Steps: s.steps, Vectors: map[string][]float64{"init": slices.Clone(s.init), "W": slices.Clone(s.W), "A": slices.Clone(s.A)},
		Scalars: map[string]float64{"harm": s.harm, "t0": float64(s.t0)}}
}

func (s *scaled) restore(st LearnerState) error {
	s.steps, s.harm, s.t0 = st.Steps, st.Scalars["harm"], int(st.Scalars["t0"])
	s.init, s.W, s.A = st.Vectors["init"], st.Vectors["W"], st.Vectors["A"]
	return sameLen(len(s.init), len(s.W), len(s.A))
}

func (s *additive) state() LearnerState {
	return LearnerState{Steps: s.steps, Vectors: map[string][]float64{"w": slices.Clone(s.w), "U": slices.Clone(s.U)}}
}

func (s *additive) restore(st LearnerState) error {
	s.steps, s.w, s.U = st.Steps, st.Vectors["w"], st.Vectors["U"]
	return sameLen(len(s.w), len(s.U))
}

func (s *adagrad) state() LearnerState {
	return LearnerState{Steps: s.steps, Vectors: map[string][]float64{"w": slices.Clone(s.w), "G": slices.Clone(s.G), "sum": slices.Clone(s.sum)},
		Ints: map[string][]int{"last": slices.Clone(s.last)}}
}

func (s *adagrad) restore(st LearnerState) error {
	s.steps, s.w, s.G, s.sum, s.last = st.Steps, st.Vectors["w"], st.Vectors["G"], st.Vectors["sum"], st.Ints["last"]
	return sameLen(len(s.w), len(s.G), len(s.sum), len(s.last))
}

func sameLen(n ...int) error {
	for _, k := range n {
		if k != n[0] {
			return errors.New("learn: damaged learner state in the checkpoint")
		}
	}
	return nil
}
