package invent

import (
	"sync"
	"time"
)

// Journal records the completed steps of a search (Tune, then Learn) so
// that an interrupted run can continue to the model the uninterrupted run
// gives. The search is deterministic: every restart draws from a random
// state derived from its problem's seed and its number, so the sequence of
// bottom-level searches is the same on every run, and the journal holds
// their answers in order (and the restarts completed of the one under way).
// A run given a journal whose state came from an earlier run with the same
// data and options replays those answers instead of searching again.
//
// Set Options.Journal to use one; it covers one Tune (if any) followed by
// one Learn with the options Tune chose.
type Journal struct {
	mu    sync.Mutex
	st    JournalState
	pos   int
	save  func(*JournalState) error
	every time.Duration
	last  time.Time
	err   error
}

// JournalState is what a Journal saves: enough to continue the search.
type JournalState struct {
	// Tuned is the scores of the tuning runs completed: per held-out
	// slice, every grid point in grid order.
	Tuned []TuneRecord
	// Steps is the answers of the bottom-level searches of the Learn under
	// way (the Learn of tuning run len(Tuned), or the final Learn once
	// tuning is done), in the order they were made.
	Steps []StepRecord
	// Restarts is the restarts of the next step completed so far, by
	// number.
	Restarts map[int]RestartRecord
}

// StepRecord is one bottom-level search's answer: the assignment of the
// problem's symbols to clusters per set (nil: no refinement) and its gain.
type StepRecord struct {
	Assign [][]int32
	Gain   float64
}

// RestartRecord is one restart's assignment and score.
type RestartRecord struct {
	Assign [][]int32
	Score  float64
}

// NewJournal returns a journal continuing from the state resume (nil: from
// the start) that calls save with its state after completed work, at most
// once per every (a tiny duration, a nanosecond: after every step and
// restart; 0: never, only when Save is called, on an interrupt say). The
// state passed to save must not be kept past the call.
func NewJournal(resume *JournalState, save func(*JournalState) error, every time.Duration) *Journal {
	j := &Journal{save: save, every: every, last: time.Now()}
	if resume != nil {
		j.st = *resume
	}
	if j.st.Restarts == nil {
		j.st.Restarts = map[int]RestartRecord{}
	}
	return j
}

// Save saves the journal's state now; Err returns the first error a save
// gave.
func (j *Journal) Save() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.saveLocked(true)
	return j.err
}

// Err returns the first error a save gave.
func (j *Journal) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

func (j *Journal) saveLocked(force bool) {
	if j.save == nil || j.err != nil {
		return
	}
	if !force && (j.every <= 0 || time.Since(j.last) < j.every) {
		return
	}
	j.err = j.save(&j.st)
	j.last = time.Now()
}

// beginLearn starts the replay of a Learn's steps.
func (j *Journal) beginLearn() {
	j.mu.Lock()
	j.pos = 0
	j.mu.Unlock()
}

// tuned returns the score of tuning run i if it is recorded.
func (j *Journal) tuned(i int) (TuneRecord, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if i < len(j.st.Tuned) {
		return j.st.Tuned[i], true
	}
	return TuneRecord{}, false
}

// addTuned records the score of the next tuning run; the steps recorded
// belonged to its Learn.
func (j *Journal) addTuned(r TuneRecord) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.st.Tuned = append(j.st.Tuned, r)
	j.st.Steps = nil
	j.st.Restarts = map[int]RestartRecord{}
	j.pos = 0
	j.saveLocked(false)
}

// replay returns the next step's recorded answer, if any.
func (j *Journal) replay() (refinement, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.pos >= len(j.st.Steps) {
		return refinement{}, false
	}
	s := j.st.Steps[j.pos]
	j.pos++
	return refinement{assign: s.Assign, gain: s.Gain}, true
}

// addStep records the next step's answer.
func (j *Journal) addStep(r refinement) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.st.Steps = append(j.st.Steps, StepRecord{Assign: r.assign, Gain: r.gain})
	j.st.Restarts = map[int]RestartRecord{}
	j.pos++
	j.saveLocked(false)
	return j.err
}

// restart returns restart r of the step under way if it is recorded.
func (j *Journal) restart(r int) (RestartRecord, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	rec, ok := j.st.Restarts[r]
	return rec, ok
}

// addRestart records restart r of the step under way.
func (j *Journal) addRestart(r int, a [][]int32, score float64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.st.Restarts[r] = RestartRecord{Assign: a, Score: score}
	j.saveLocked(false)
}
