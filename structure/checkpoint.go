package structure

import (
	"errors"
	"fmt"
	"github.com/marple-mln/marple/internal/gobfile"
	"io"
	"slices"

	"github.com/marple-mln/marple/mln"
)

// SearchState is the state of a beam or shortest-first search between two
// of its steps: enough to continue it (Settings.Resume) to the model the
// uninterrupted search learns. Settings.Checkpoint receives one after each
// beam-search iteration (a clause added, changed or removed) and at the
// start of each shortest-first round.
type SearchState struct {
	// Method is the search's name (beam or sfs).
	Method string
	// Iter is the number of beam-search iterations done, or the clause
	// length shortest-first search is at.
	Iter int
	// The current model: its clauses, their keys, which are fixed or kept
	// unit clauses, their weights and its score.
	Clauses []*mln.Clause
	Keys    []string
	Fixed   []bool
	Unit    []bool
	Weights []float64
	Score   float64
	// Steps counts the clauses added or changed, Scored the candidates
	// scored.
	Steps, Scored int
	// Pool holds shortest-first search's best scored clauses by length.
	Pool map[int][]*mln.Clause
}

// ValidatedState is the state of LearnValidated: the first phase not done
// (f and n+f, for n databases: the validation searches without and with
// repeated predicates with database f held out; 2n: the final search), the
// held-out score (NaN for a search not needed) and why it stopped early
// ("": it did not) of each validation search before it, by phase, and the
// state of that phase's search (nil: none saved yet). Bounded says that
// one of those scores is an upper bound (Choice.Bounded).
type ValidatedState struct {
	Phase   int
	CLL     []float64
	Stopped []string
	Search  *SearchState
	Bounded bool
}

// checkpointVersion tags the gob stream of WriteState.
const checkpointVersion = "marple-structure-checkpoint-3"

// WriteState writes v (gob) to w, after a version tag.
func WriteState(w io.Writer, v any) error {
	return gobfile.Write(w, checkpointVersion, v)
}

// ReadState reads into v a state written by WriteState.
func ReadState(r io.Reader, v any) error {
	return gobfile.ReadKind(r, checkpointVersion, "structure-learning checkpoint", v)
}

// saveState passes the search's state to Settings.Checkpoint, if set.
func (sr *searcher) saveState(method string, iter int, pool map[int][]*mln.Clause) error {
	if sr.s.Checkpoint == nil {
		return nil
	}
	st := sr.cur
	ss := &SearchState{Method: method, Iter: iter, Clauses: slices.Clone(st.clauses), Keys: slices.Clone(st.keys),
		Fixed: slices.Clone(st.fixed), Unit: slices.Clone(st.unit), Weights: slices.Clone(st.w), Score: st.score,
		Steps: sr.steps, Scored: int(sr.scored.Load())}
	if pool != nil {
		ss.Pool = map[int][]*mln.Clause{}
		for l, cs := range pool {
			ss.Pool[l] = slices.Clone(cs)
		}
	}
	return sr.s.Checkpoint(ss)
}

// restore makes Settings.Resume the search's state, checking that it is
// one of method's. It returns the iteration (or length) to continue at.
func (sr *searcher) restore(method string) (int, map[int][]*mln.Clause, error) {
	ss := sr.s.Resume
	n := len(ss.Clauses)
	if ss.Method != method || len(ss.Keys) != n || len(ss.Fixed) != n || len(ss.Unit) != n || len(ss.Weights) != n {
		return 0, nil, fmt.Errorf("structure: the saved state is not one of a %s search", method)
	}
	for _, c := range ss.Clauses {
		for _, l := range c.Lits {
			if int(l.Pred) >= len(sr.s.Model.Preds) {
				return 0, nil, errors.New("structure: the saved state's clauses do not fit the model")
			}
		}
	}
	sr.cur = &state{clauses: slices.Clone(ss.Clauses), keys: slices.Clone(ss.Keys), fixed: slices.Clone(ss.Fixed),
		unit: slices.Clone(ss.Unit), w: slices.Clone(ss.Weights), score: ss.Score}
	sr.steps = ss.Steps
	sr.scored.Store(int64(ss.Scored))
	pool := map[int][]*mln.Clause{}
	for l, cs := range ss.Pool {
		pool[l] = slices.Clone(cs)
	}
	return ss.Iter, pool, nil
}
