package transfer

import (
	"errors"
	"fmt"
	"github.com/marple-mln/marple/internal/gobfile"
	"io"
	"sort"
	"time"
)

// Checkpoint is the work of a Discover run so far: the scores of the
// chunks of cliques finished, in the run's deterministic work order.
// Every clique's score is a pure function of the source, the options and
// the clique's position (its sampling stream is derived from Seed and
// the position), so a run resumed from a Checkpoint (Options.Resume)
// scores the remaining chunks and ends with the result of the
// uninterrupted run, whatever the order of work or the number of
// workers. Write and ReadCheckpoint store it (gob).
type Checkpoint struct {
	// Run describes the run for the caller: lines "name: value" (flags,
	// data fingerprints) that a resume must match; Discover ignores it.
	Run []string
	// The run's shape; Discover refuses a checkpoint that does not match.
	MaxLiterals, MaxVars int
	Arities              []int
	K                    int
	Alpha                float64
	MaxOuter             int
	Seed                 uint64
	Templates            int   // templates enumerated
	Cliques              []int // cliques of each template
	// Chunks are the finished chunks, ordered by position.
	Chunks []CheckpointChunk
}

// CheckpointChunk is a finished chunk of cliques: Scores of cliques
// Lo..Lo+len(Scores)-1 of template Template, Sampled of which were
// sampled.
type CheckpointChunk struct {
	Template, Lo int
	Scores       []float32
	Sampled      int
}

// Scored returns the number of cliques c has scores for.
func (c *Checkpoint) Scored() int {
	n := 0
	for _, ch := range c.Chunks {
		n += len(ch.Scores)
	}
	return n
}

// Total returns the number of cliques of the run.
func (c *Checkpoint) Total() int {
	n := 0
	for _, x := range c.Cliques {
		n += x
	}
	return n
}

// checkpointVersion tags the gob stream.
const checkpointVersion = "marple-transfer-checkpoint-1"

// Write writes c to w.
func (c *Checkpoint) Write(w io.Writer) error {
	return gobfile.Write(w, checkpointVersion, c)
}

// ReadCheckpoint reads a checkpoint written by Write.
func ReadCheckpoint(r io.Reader) (*Checkpoint, error) {
	c := &Checkpoint{}
	if err := gobfile.ReadKind(r, checkpointVersion, "transfer-templates checkpoint", c); err != nil {
		return nil, err
	}
	return c, nil
}

// ReadCheckpointFile reads the checkpoint in file path.
func ReadCheckpointFile(path string) (*Checkpoint, error) {
	c := &Checkpoint{}
	if err := gobfile.ReadKindFile(path, checkpointVersion, "transfer-templates checkpoint", c); err != nil {
		return nil, err
	}
	return c, nil
}

// CheckRun reports the first line of want that c.Run does not hold, as
// an error naming it, or nil when the runs match.
func (c *Checkpoint) CheckRun(want []string) error {
	for i, w := range want {
		got := "(none)"
		if i < len(c.Run) {
			got = c.Run[i]
		}
		if got != w {
			return fmt.Errorf("the checkpoint is of another run: it has %q, this run %q", got, w)
		}
	}
	if len(c.Run) > len(want) {
		return fmt.Errorf("the checkpoint is of another run: it has %q, this run nothing", c.Run[len(want)])
	}
	return nil
}

// newCheckpoint returns the empty checkpoint of a run.
func newCheckpoint(o Options, temps []*Template, cliques []int) *Checkpoint {
	return &Checkpoint{
		MaxLiterals: o.Enum.MaxLiterals, MaxVars: o.Enum.MaxVars, Arities: o.Enum.Arities,
		K: o.K, Alpha: o.Alpha, MaxOuter: o.MaxOuter, Seed: o.Seed,
		Templates: len(temps), Cliques: cliques,
	}
}

// matches reports how resume differs from the run fresh describes.
func (fresh *Checkpoint) matches(resume *Checkpoint) error {
	diff := func(what string, a, b any) error {
		return fmt.Errorf("the checkpoint is of another run: its %s is %v, this run's %v", what, b, a)
	}
	switch {
	case fresh.MaxLiterals != resume.MaxLiterals:
		return diff("maximum number of literals", fresh.MaxLiterals, resume.MaxLiterals)
	case fresh.MaxVars != resume.MaxVars:
		return diff("maximum number of variables", fresh.MaxVars, resume.MaxVars)
	case fmt.Sprint(fresh.Arities) != fmt.Sprint(resume.Arities):
		return diff("arities", fresh.Arities, resume.Arities)
	case fresh.K != resume.K:
		return diff("K", fresh.K, resume.K)
	case fresh.Alpha != resume.Alpha:
		return diff("pseudo-count", fresh.Alpha, resume.Alpha)
	case fresh.MaxOuter != resume.MaxOuter:
		return diff("sampling bound (maxOuter)", fresh.MaxOuter, resume.MaxOuter)
	case fresh.Seed != resume.Seed:
		return diff("seed", fresh.Seed, resume.Seed)
	case fresh.Templates != resume.Templates:
		return diff("number of templates", fresh.Templates, resume.Templates)
	case fmt.Sprint(fresh.Cliques) != fmt.Sprint(resume.Cliques):
		return errors.New("the checkpoint is of another run: its cliques differ from this source's")
	}
	for _, ch := range resume.Chunks {
		if ch.Template < 0 || ch.Template >= len(fresh.Cliques) || ch.Lo < 0 || ch.Lo%chunkSize != 0 ||
			len(ch.Scores) != min(chunkSize, fresh.Cliques[ch.Template]-ch.Lo) {
			return errors.New("damaged transfer-templates checkpoint: a chunk of cliques out of range")
		}
	}
	return nil
}

// checkpointer collects finished chunks and hands a Checkpoint to
// Options.Checkpoint at most every Options.CheckpointEvery.
type checkpointer struct {
	o    Options
	c    *Checkpoint
	last time.Time
}

// add records a finished chunk and saves a checkpoint when it is due.
func (cp *checkpointer) add(ch CheckpointChunk) error {
	cp.c.Chunks = append(cp.c.Chunks, ch)
	if cp.o.Checkpoint == nil || time.Since(cp.last) < cp.o.CheckpointEvery {
		return nil
	}
	return cp.save()
}

// save hands the chunks finished so far, in position order, to
// Options.Checkpoint.
func (cp *checkpointer) save() error {
	if cp.o.Checkpoint == nil {
		return nil
	}
	sort.Slice(cp.c.Chunks, func(a, b int) bool {
		x, y := cp.c.Chunks[a], cp.c.Chunks[b]
		if x.Template != y.Template {
			return x.Template < y.Template
		}
		return x.Lo < y.Lo
	})
	err := cp.o.Checkpoint(cp.c)
	cp.last = time.Now()
	return err
}
