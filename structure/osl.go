package structure

import (
	"context"
	"errors"
	"slices"

	"github.com/marple-mln/marple/learn"
	"github.com/marple-mln/marple/mln"
)

// OSL is the online max-margin structure learner of Huynh & Mooney (ECML
// 2011, Algorithm 1). For each example it predicts with the current
// weights; from every query atom that is true in the truth and false in
// the prediction it runs mode-guided relational pathfinding over the true
// atoms of the example, turns every path into two clauses (all literals
// negated, and the Horn variant whose first literal is the mispredicted
// atom), and adds the new ones whose number of true groundings is at least
// MinCountDiff higher in the truth than in the prediction. All weights, old
// and new, are then updated by AdaGrad forward-backward with l1 (new ones
// from zero: line 33 of the paper's algorithm is that update), and the
// model receives the averaged weights.
type OSL struct {
	// Modes guide pathfinding and clause creation. Required.
	Modes *Modes
	// MaxLen is the maximum number of atoms in a path (paper: 4).
	MaxLen int
	// MinCountDiff is the least Δn = n(x,y) − n(x,ŷ) a new clause needs
	// (the paper's OSL-M1 uses 1, OSL-M2 2).
	MinCountDiff float64
	// Weights is the weight learner (default λ = 0.001, η = 1, δ = 1, the
	// paper's); it must use the prediction-based label.
	Weights *learn.AdaGradFB
}

// Defaults of OSL.
const (
	DefaultMaxLen       = 4
	DefaultMinCountDiff = 1
)

// OSLStats summarise a run of OSL.
type OSLStats struct {
	learn.Stats
	// Candidates counts the distinct new clauses evaluated, Added those
	// added to the model (their formulas are the model's last Added ones).
	Candidates, Added int
	// NonZero counts the model's parameters with a non-zero final weight.
	NonZero int
}

// Learn runs OSL over the examples of src, adding the clauses it finds to
// src.Model (as formulas without a written weight) and writing the learned
// weights into Model.Weights. Settings are those of learn.Online (Solver,
// Loss, Passes, Shuffle, Seed, NoAverage, KeepInitial, Progress,
// Checkpoint, Resume); OSL is learn.Online with AdaGrad-FB and a
// Settings.Revise that searches clauses. Its checkpoints carry the clauses
// added so far (learn.Revision), so that Settings.Resume, given the model
// the run started from, continues to the uninterrupted run's model.
//
// If ctx is cancelled it stops between examples, keeping the clauses added
// so far and the weights learned so far, and returns ctx's error.
func (o *OSL) Learn(ctx context.Context, src *learn.PartitionSource, settings learn.Settings) (*OSLStats, error) {
	if o.Modes == nil {
		return nil, errors.New("structure: OSL needs mode declarations")
	}
	if src == nil || src.Model == nil {
		return nil, errors.New("structure: OSL needs examples")
	}
	m := src.Model
	if len(o.Modes.Path) != len(m.Preds) {
		return nil, errors.New("structure: the mode declarations belong to another model")
	}
	maxLen := o.MaxLen
	if maxLen == 0 {
		maxLen = DefaultMaxLen
	}
	minDiff := o.MinCountDiff
	if minDiff == 0 {
		minDiff = DefaultMinCountDiff
	}
	method := o.Weights
	if method == nil {
		method = learn.DefaultAdaGradFB()
	}
	if method.Label() != learn.Prediction {
		return nil, errors.New("structure: OSL learns weights with the prediction-based label")
	}
	known := make(map[string]bool, len(m.Clauses))
	for _, c := range m.Clauses {
		known[CanonicalKey(c)] = true
	}
	st := &OSLStats{}
	r := &oslRun{o: o, m: m, src: src, maxLen: maxLen, minDiff: minDiff, known: known, st: st}
	if res := settings.Resume; res != nil {
		if res.Revision == nil {
			return nil, errors.New("structure: the checkpoint is not one of OSL")
		}
		// learn.Online adds the clauses back to the model.
		for _, c := range res.Revision.Clauses {
			r.known[CanonicalKey(c)] = true
		}
		r.added = slices.Clone(res.Revision.Clauses)
		st.Candidates, st.Added = res.Revision.Counts["candidates"], len(r.added)
	}
	settings.Revise = func(_ context.Context, i int, ex *learn.Example, yhat []bool) (learn.Sparse, error) {
		return r.revise(i, ex, yhat)
	}
	settings.ReviseState = func() learn.Revision {
		return learn.Revision{Clauses: r.added, Counts: map[string]int{"candidates": st.Candidates}}
	}
	ls, err := learn.Online(ctx, m, src, method, settings)
	if ls != nil {
		st.Stats = *ls
		st.Stats.Method = "OSL"
		for _, w := range m.Weights {
			if w != 0 {
				st.NonZero++
			}
		}
	}
	return st, err
}

// oslRun is the state of one OSL run.
type oslRun struct {
	o       *OSL
	m       *mln.Model
	src     *learn.PartitionSource
	maxLen  int
	minDiff float64
	known   map[string]bool // canonical keys of the model's clauses
	st      *OSLStats
	counter Counter
	added   []*mln.Clause // the clauses added, in order
}

// revise finds the new clauses of example i (lines 6–20 and 28–35 of
// Algorithm 1), adds those with Δn >= MinCountDiff to the model and
// returns their Δn over their new parameters.
func (r *oslRun) revise(i int, ex *learn.Example, yhat []bool) (learn.Sparse, error) {
	net := ex.Net
	var missed []int32 // Δy: true in the truth, false in the prediction
	for a := range yhat {
		if ex.Query[a] && ex.Truth[a] && !yhat[a] {
			missed = append(missed, int32(a))
		}
	}
	if len(missed) == 0 {
		return learn.Sparse{}, nil
	}
	ev, err := r.src.Evidence(i)
	if err != nil {
		return learn.Sparse{}, err
	}
	wy, wp := NewWorld(r.m), NewWorld(r.m)
	if err := wy.AddTrue(ev); err != nil {
		return learn.Sparse{}, err
	}
	if err := wp.AddTrue(ev); err != nil {
		return learn.Sparse{}, err
	}
	inY := make(map[int32]int32) // network atom -> world atom (truth)
	for a := range yhat {
		if !ex.Query[a] {
			continue
		}
		p, args := net.AtomPred[a], net.AtomArgs[a]
		if ex.Truth[a] {
			wa, err := wy.Add(p, args)
			if err != nil {
				return learn.Sparse{}, err
			}
			inY[int32(a)] = wa
		}
		if yhat[a] {
			if _, err := wp.Add(p, args); err != nil {
				return learn.Sparse{}, err
			}
		}
	}
	doms := r.src.Domains(i)
	r.counter.Domain = func(t mln.TypeID) []mln.ConstID {
		if d, ok := doms[t]; ok {
			return d
		}
		return r.m.Types[t].Consts
	}
	h := NewHypergraph(wy, r.o.Modes)
	var out learn.Sparse
	tried := make(map[string]bool)
	var firstErr error
	consider := func(c *mln.Clause) {
		if firstErr != nil || !r.fitsExamples(c) {
			return
		}
		key := CanonicalKey(c)
		if r.known[key] || tried[key] {
			return
		}
		tried[key] = true
		r.st.Candidates++
		fy, err := r.counter.CountFalse(c, wy)
		if err != nil {
			firstErr = err
			return
		}
		fp, err := r.counter.CountFalse(c, wp)
		if err != nil {
			firstErr = err
			return
		}
		dn := float64(fp - fy) // n(y) − n(ŷ): the groundings false in ŷ but not in y
		if dn < r.minDiff {
			return
		}
		f := &mln.Formula{AST: r.m.ClauseFormula(c)}
		if _, err := r.m.AddFormula(f); err != nil {
			firstErr = err
			return
		}
		r.known[key] = true
		r.added = append(r.added, c)
		r.st.Added++
		out.Idx = append(out.Idx, int32(f.Params[""]))
		out.Val = append(out.Val, dn)
	}
	for _, a := range missed {
		h.FindPaths(inY[a], r.maxLen, func(p Path) {
			allNeg, horn := Clauses(r.m, wy, r.o.Modes, p)
			consider(allNeg)
			consider(horn)
		})
		if firstErr != nil {
			return learn.Sparse{}, firstErr
		}
	}
	return out, nil
}

// fitsExamples reports whether clause c keeps the examples independent:
// at most one variable of the example type and no constant of it.
func (r *oslRun) fitsExamples(c *mln.Clause) bool {
	T := r.src.Type
	n := 0
	for _, v := range c.Vars {
		if v.Type == T {
			n++
		}
	}
	if n > 1 {
		return false
	}
	for _, l := range c.Lits {
		for j, t := range l.Args {
			if !t.IsVar() && r.m.Preds[l.Pred].Args[j] == T {
				return false
			}
		}
	}
	return true
}
