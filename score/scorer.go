package score

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/marple-mln/marple/mln"
)

// colRef is a clause's counts with the parameter they multiply.
type colRef struct {
	cc    *ClauseCounts
	param int32 // -1: hard
	coef  float64
	// bindParam, for a clause with "+" variables, gives the parameter of
	// each binding (ClauseCounts.bindings); param is then ignored.
	bindParam []int32
}

// hard reports whether the column is a hard clause's.
func (c *colRef) hard() bool { return c.param < 0 && c.bindParam == nil }

// buildRows returns the pseudo-log-likelihood of database db for the
// given columns over np parameters: one row per scored atom some column
// touches (the others, Δ = 0, go to the constant), merged. With keep, the
// per-atom rows are kept (for overlays); otherwise they are dropped once
// merged. With canonical the rows are merged in the order of their
// contents (WPLL.compress), whatever the constants' numbers.
func (d *PLLData) buildRows(db int, cols []colRef, np int, keep, canonical bool) *WPLL {
	p := &WPLL{opt: d.opt.PLLOptions, np: np}
	// Columns in parameter order (hard ones last), so that each atom's
	// entries come out sorted and equal parameters adjacent.
	cols = slices.Clone(cols)
	slices.SortStableFunc(cols, func(a, b colRef) int {
		ka, kb := int64(a.param), int64(b.param)
		if ka < 0 {
			ka = math.MaxInt64
		}
		if kb < 0 {
			kb = math.MaxInt64
		}
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
	// Touched rows.
	total := 0
	for _, c := range cols {
		total += len(c.cc.cols[db].idx)
	}
	touched := make([]int32, 0, total)
	for _, c := range cols {
		touched = append(touched, c.cc.cols[db].idx...)
	}
	slices.Sort(touched)
	touched = slices.Compact(touched)
	touched = slices.Clip(touched)
	n := len(touched)
	// local returns the position of row r in touched, searching forward
	// from i (a column's rows increase, and each is in touched).
	local := func(i int, r int32) int {
		if touched[i] == r {
			return i
		}
		if touched[i+1] == r {
			return i + 1
		}
		j, _ := slices.BinarySearch(touched[i+2:], r)
		return i + 2 + j
	}
	// Entries per atom (upper bound), then fill.
	start := make([]int, n+1)
	for _, c := range cols {
		if c.hard() {
			continue
		}
		i := 0
		for _, r := range c.cc.cols[db].idx {
			i = local(i, r)
			start[i+1]++
		}
	}
	for i := 0; i < n; i++ {
		start[i+1] += start[i]
	}
	idx := make([]int32, start[n])
	val := make([]float64, start[n])
	off := make([]float64, n)
	pos := slices.Clone(start[:n])
	unsorted := false
	for _, c := range cols {
		col := c.cc.cols[db]
		i := 0
		if c.hard() {
			for k, r := range col.idx {
				i = local(i, r)
				off[i] += float64(col.val[k]) * d.opt.HardWeight
			}
			continue
		}
		for k, r := range col.idx {
			i = local(i, r)
			v := float64(col.val[k]) * c.coef * c.cc.Scale(db)
			q := c.param
			if c.bindParam != nil {
				q = c.bindParam[col.bind[k]]
				unsorted = true
			}
			if e := pos[i]; e > start[i] && idx[e-1] == q {
				val[e-1] += v
				continue
			}
			idx[pos[i]], val[pos[i]] = q, v
			pos[i]++
		}
	}
	// Compact: drop the gaps and the entries that cancel (sorting and
	// merging each atom's entries first when "+" clauses mixed them).
	w := 0
	for i := 0; i < n; i++ {
		lo := start[i]
		if unsorted {
			lo = sortMerge(idx, val, lo, pos[i])
		}
		start[i] = w
		for q := lo; q < pos[i]; q++ {
			if math.Abs(val[q]) > diffEps {
				idx[w], val[w] = idx[q], val[q]
				w++
			}
		}
	}
	start[n] = w
	p.aStart, p.aIdx, p.aVal, p.aOff = start, idx[:w:w], val[:w:w], off
	// Atom weights, and the untouched atoms' constant.
	p.aMul = make([]float64, n)
	mul := d.mul[db]
	left := make([]int64, len(d.m.Preds)) // untouched scored atoms per predicate
	pr := 0
	for q := range d.m.Preds {
		if d.scored[q] {
			left[q] = d.kept(db, mln.PredID(q))
			p.atoms += int(left[q])
		}
	}
	for i, r := range touched {
		for !(d.rowOff[pr] >= 0 && int64(r) >= d.rowOff[pr] && int64(r) < d.rowOff[pr]+d.sp.size[pr]) {
			pr++
		}
		p.aMul[i] = mul[pr]
		left[pr]--
	}
	p.compress(canonical)
	for q := range d.m.Preds {
		p.constant += float64(left[q]) * mul[q] * logSigmoid(0)
	}
	if keep {
		p.aGlobal = touched
	} else {
		p.aStart, p.aIdx, p.aVal, p.aOff, p.aMul, p.aRow = nil, nil, nil, nil, nil, nil
	}
	return p
}

// sortMerge sorts the entries idx/val[lo:hi] by index (insertion sort:
// rows are short), sums equal indices, and moves the result to the end of
// the range, returning its new start.
func sortMerge(idx []int32, val []float64, lo, hi int) int {
	for i := lo + 1; i < hi; i++ {
		for j := i; j > lo && idx[j-1] > idx[j]; j-- {
			idx[j-1], idx[j] = idx[j], idx[j-1]
			val[j-1], val[j] = val[j], val[j-1]
		}
	}
	w := hi
	for i := hi - 1; i >= lo; i-- {
		if w < hi && idx[w] == idx[i] {
			val[w] += val[i]
			continue
		}
		w--
		idx[w], val[w] = idx[i], val[i]
	}
	return w
}

// kept returns the number of scored (sampled) atoms of predicate q in
// database db.
func (d *PLLData) kept(db int, q mln.PredID) int64 {
	if d.mul[db][q] == 0 {
		return 0
	}
	if d.opt.Unweighted {
		if d.sampled[db] == nil {
			return d.size[db][q]
		}
		var k int64
		lo := d.rowOff[q]
		for r := lo; r < lo+d.sp.size[q]; r++ {
			if d.sampled[db][r>>6]&(1<<(r&63)) != 0 {
				k++
			}
		}
		return k
	}
	return int64(math.Round(1 / d.mul[db][q]))
}

// keptTrue returns the number of kept (scored, sampled) atoms of q in
// database db that are true.
func (d *PLLData) keptTrue(db int, q mln.PredID) int64 {
	if d.mul[db][q] == 0 {
		return 0
	}
	wp := &d.worlds[db].preds[q]
	bits := d.sampled[db]
	var k int64
	for a := 0; a < wp.numTrue(); a++ {
		id := d.sp.id(q, wp.args[a*wp.arity:(a+1)*wp.arity])
		if r := d.rowOff[q] + id; id >= 0 && (bits == nil || bits[r>>6]&(1<<(r&63)) != 0) {
			k++
		}
	}
	return k
}

// rowTrue reports whether the atom at row (of predicate q) of database db
// is true.
func (d *PLLData) rowTrue(db int, q mln.PredID, row int32) bool {
	return d.worlds[db].preds[q].has(int64(row) - d.rowOff[q])
}

// Scorer scores a set of first-order clauses, each with its own weight, by
// the weighted pseudo-log-likelihood of PLLData's databases, and the same
// set extended by candidate clauses without changing it. A Scorer is
// immutable: Add and Remove return new ones. It is safe for concurrent
// use.
type Scorer struct {
	d       *PLLData
	clauses []*mln.Clause
	counts  []*ClauseCounts
	base    []*WPLL // per database, per-atom rows kept
}

// NewScorer returns the scorer of clauses: clause i has weight i (its
// Coef is ignored); hard clauses (Clause.Hard) keep the fixed weight
// CountOptions.HardWeight and their weight stays 0.
func (d *PLLData) NewScorer(clauses []*mln.Clause) (*Scorer, error) {
	if err := noPlus(clauses); err != nil {
		return nil, err
	}
	counts, err := d.countAll(context.Background(), clauses)
	if err != nil {
		return nil, err
	}
	return d.newScorer(slices.Clone(clauses), counts), nil
}

func (d *PLLData) newScorer(clauses []*mln.Clause, counts []*ClauseCounts) *Scorer {
	s := &Scorer{d: d, clauses: clauses, counts: counts}
	cols := make([]colRef, len(clauses))
	for i, c := range clauses {
		cols[i] = colRef{cc: counts[i], param: int32(i), coef: 1}
		if c.Hard {
			cols[i].param = -1
		}
	}
	for db := range d.worlds {
		s.base = append(s.base, d.buildRows(db, cols, len(clauses), true, false))
	}
	return s
}

// noPlus refuses clauses with "+" variables (one weight per binding),
// which a Scorer does not handle.
func noPlus(cs []*mln.Clause) error {
	for _, c := range cs {
		if len(c.Plus) > 0 {
			return errors.New("score: Scorer: clauses with \"+\" variables are not supported")
		}
	}
	return nil
}

// Clauses returns the scorer's clauses (not to be modified).
func (s *Scorer) Clauses() []*mln.Clause { return s.clauses }

// Data returns the training data.
func (s *Scorer) Data() *PLLData { return s.d }

// Add returns the scorer of s's clauses followed by cs.
func (s *Scorer) Add(cs ...*mln.Clause) (*Scorer, error) {
	if err := noPlus(cs); err != nil {
		return nil, err
	}
	counts, err := s.d.countAll(context.Background(), cs)
	if err != nil {
		return nil, err
	}
	return s.d.newScorer(append(slices.Clone(s.clauses), cs...), append(slices.Clone(s.counts), counts...)), nil
}

// Remove returns the scorer of s's clauses without those at the given
// indices.
func (s *Scorer) Remove(idx ...int) (*Scorer, error) {
	drop := make([]bool, len(s.clauses))
	for _, i := range idx {
		if i < 0 || i >= len(s.clauses) {
			return nil, fmt.Errorf("score: Scorer.Remove: no clause %d", i)
		}
		drop[i] = true
	}
	var cs []*mln.Clause
	var counts []*ClauseCounts
	for i, c := range s.clauses {
		if !drop[i] {
			cs = append(cs, c)
			counts = append(counts, s.counts[i])
		}
	}
	return s.d.newScorer(cs, counts), nil
}

// FitOptions configure fitting the weights of a scorer's clauses.
type FitOptions struct {
	// PriorStdDev is σ of the Gaussian prior N(0, σ²) on each weight (0:
	// DefaultPLLPriorStdDev); NoPrior drops it.
	PriorStdDev float64
	NoPrior     bool
	// MaxIter and ConvThresh stop L-BFGS (0: DefaultPLLMaxIter,
	// DefaultPLLConvThresh): ConvThresh when an iteration improves the
	// objective by less than this fraction of its magnitude.
	MaxIter    int
	ConvThresh float64
	// GradTol, when positive, also stops L-BFGS when the largest gradient
	// entry of the objective is below it (always when below 1e-12).
	GradTol float64
	// Warm holds starting weights: the base clauses' then the candidates'
	// (missing entries start at 0).
	Warm []float64
	// Workers is the number of goroutines one evaluation uses (0: the
	// data's CountOptions.Workers). Use 1 when scoring candidates in
	// parallel.
	Workers int
	// Progress, when set, is called after every L-BFGS iteration with
	// the iteration's number and the maximised objective (WPLL minus the
	// prior) at its point. It must return quickly.
	Progress func(iter int, objective float64)
	// PriorMeans holds the mean of each parameter's Gaussian prior (nil or
	// missing entries: 0). Alchemy's learnwts takes the weights written in
	// the .mln file as the means.
	PriorMeans []float64
	// Shared lists groups of parameters fitted as one weight: each group's
	// parameters weigh the same clause (Alchemy keeps one clause, with one
	// weight, when several formulas give it). The group's weight v has one
	// prior N(Σ of its parameters' means, σ²), and each of its parameters
	// gets v divided by the group's size. A parameter is in at most one
	// group.
	Shared [][]int
	// AlchemySchedule runs L-BFGS as Alchemy's learnwts -g runs its
	// L-BFGS-B (lbfgs.MinimizeAlchemy: 5 corrections, its line search,
	// its stop on ConvThresh and MaxIter; GradTol is not used) instead of
	// gonum's L-BFGS.
	AlchemySchedule bool
}

// Defaults of structure search's weight fits (Alchemy's learnstruct).
const (
	// LooseMaxIter and LooseConvThresh fit candidates while searching
	// (-looseMaxIter, -looseConvThresh).
	LooseMaxIter    = 10
	LooseConvThresh = 1e-3
	// TightMaxIter and TightConvThresh fit the final model
	// (-tightMaxIter, -tightConvThresh).
	TightMaxIter    = 10000
	TightConvThresh = 1e-5
)

// LooseFit returns the options for scoring candidates during search,
// warm-started at warm.
func LooseFit(warm []float64) FitOptions {
	return FitOptions{MaxIter: LooseMaxIter, ConvThresh: LooseConvThresh, Warm: warm}
}

// TightFit returns the options for the final weights, warm-started at
// warm.
func TightFit(warm []float64) FitOptions {
	return FitOptions{MaxIter: TightMaxIter, ConvThresh: TightConvThresh, Warm: warm}
}

// Fit is the result of fitting weights.
type Fit struct {
	// Weights has one weight per clause: the base clauses in order, then
	// the candidates (0 for hard clauses).
	Weights []float64
	// WPLL is Σ over databases and scored atoms of c_a·log P(x_a | MB);
	// Objective is WPLL − Σ w²/(2σ²) (the score to maximise).
	WPLL, Objective float64
	// GradNorm is the largest entry of the objective's gradient at
	// Weights.
	GradNorm float64
	// Iterations and Evaluations count L-BFGS iterations and function
	// evaluations; Status is L-BFGS's reason to stop.
	Iterations  int
	Evaluations int
	Status      string
	Elapsed     time.Duration
}

// Fit fits the weights of the scorer's clauses.
func (s *Scorer) Fit(ctx context.Context, opt FitOptions) (*Fit, error) {
	return s.Score(ctx, nil, opt)
}

// Score fits the weights of the scorer's clauses followed by the
// candidates and returns the result; s is not changed. Candidates' counts
// come from (and go to) the data's cache. Hard candidates are refused.
func (s *Scorer) Score(ctx context.Context, cands []*mln.Clause, opt FitOptions) (*Fit, error) {
	return s.ScoreReplace(ctx, nil, cands, opt)
}

// ScoreReplace is Score with the base clauses at the indices remove taken
// out (a refined clause replacing its original, say): their weights are
// 0 in the result, which still has one weight per base clause, then the
// candidates'. s is not changed.
func (s *Scorer) ScoreReplace(ctx context.Context, remove []int, cands []*mln.Clause, opt FitOptions) (*Fit, error) {
	start := time.Now()
	if err := noPlus(cands); err != nil {
		return nil, err
	}
	nb := len(s.clauses)
	removed := make([]bool, nb)
	for _, i := range remove {
		if i < 0 || i >= nb {
			return nil, fmt.Errorf("score: Scorer.ScoreReplace: no clause %d", i)
		}
		removed[i] = true
	}
	var cc []*ClauseCounts
	for _, c := range cands {
		if c.Hard {
			return nil, errors.New("score: Scorer.Score: hard candidate clause")
		}
		x, err := s.d.Counts(c)
		if err != nil {
			return nil, err
		}
		cc = append(cc, x)
	}
	np := nb + len(cands)
	var ps []*WPLL
	for db, b := range s.base {
		base, extra := s.overlay(db, b, removed, cc, np)
		if opt.Workers > 0 {
			base.opt.Workers = opt.Workers
			if extra != nil {
				extra.opt.Workers = opt.Workers
			}
		}
		ps = append(ps, base)
		if extra != nil {
			ps = append(ps, extra)
		}
	}
	opt.Warm = slices.Clone(opt.Warm)
	for i, c := range s.clauses {
		if i < len(opt.Warm) && (c.Hard || removed[i]) {
			opt.Warm[i] = 0 // no rows: the prior keeps it at 0
		}
	}
	fit, err := Maximize(ctx, ps, np, opt)
	if fit != nil {
		fit.Elapsed = time.Since(start)
	}
	return fit, err
}

// ScoreEach scores each candidate on its own against s (s plus that one
// candidate), workers candidates at a time (0: GOMAXPROCS), each fit using
// one goroutine; results are in the candidates' order and do not depend
// on workers. A candidate that cannot be scored (unsupported, too many
// groundings) gets a nil Fit and its error in errs.
func (s *Scorer) ScoreEach(ctx context.Context, cands []*mln.Clause, opt FitOptions, workers int) (fits []*Fit, errs []error) {
	fits = make([]*Fit, len(cands))
	errs = make([]error, len(cands))
	opt.Workers = 1
	parallelChunks(len(cands), 1, workers, func() func(lo, hi int) {
		return func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if err := ctx.Err(); err != nil {
					errs[i] = err
					continue
				}
				fits[i], errs[i] = s.Score(ctx, cands[i:i+1], opt)
			}
		}
	})
	return fits, errs
}

// overlay returns base's rows of database db with the atoms that the
// candidates or the removed clauses touch taken out (a view: base itself
// is not changed), and the rows of those atoms without the removed
// clauses and with the candidates' entries (parameters nb, nb+1, ...), nil
// when there are none.
func (s *Scorer) overlay(db int, b *WPLL, removed []bool, cc []*ClauseCounts, np int) (*WPLL, *WPLL) {
	nb := len(s.clauses)
	var gone []int // removed clauses
	nc, ncc := 0, 0
	for k, r := range removed {
		if r {
			gone = append(gone, k)
			nc += len(s.counts[k].cols[db].idx)
		}
	}
	for _, c := range cc {
		ncc += len(c.cols[db].idx)
	}
	changed := make([]int32, 0, nc+ncc)
	for _, k := range gone {
		changed = append(changed, s.counts[k].cols[db].idx...)
	}
	for _, c := range cc {
		changed = append(changed, c.cols[db].idx...)
	}
	slices.Sort(changed)
	changed = slices.Compact(changed)
	view := *b
	if len(changed) == 0 {
		return &view, nil
	}
	// The base atoms of the changed rows (-1: none), and the entries the
	// rows will hold at most.
	at := make([]int, len(changed))
	entries := ncc
	lo := 0 // the rows increase: each search starts after the last
	for i, r := range changed {
		a, found := slices.BinarySearch(b.aGlobal[lo:], r)
		a += lo
		lo = a
		if !found {
			a = -1
		} else {
			entries += b.aStart[a+1] - b.aStart[a]
		}
		at[i] = a
	}
	view.rMul = slices.Clone(b.rMul)
	x := &WPLL{opt: b.opt, np: np}
	x.aStart = make([]int, 1, len(changed)+1)
	x.aOff = make([]float64, len(changed))
	x.aMul = make([]float64, len(changed))
	x.aIdx = make([]int32, 0, entries)
	x.aVal = make([]float64, 0, entries)
	pos := make([]int, len(cc))
	gpos := make([]int, len(gone))
	mul := s.d.mul[db]
	for i, r := range changed {
		if a := at[i]; a >= 0 {
			lo, hi := b.aStart[a], b.aStart[a+1]
			for q := lo; q < hi; q++ {
				if !removed[b.aIdx[q]] {
					x.aIdx = append(x.aIdx, b.aIdx[q])
					x.aVal = append(x.aVal, b.aVal[q])
				}
			}
			x.aOff[i], x.aMul[i] = b.aOff[a], b.aMul[a]
			if row := b.aRow[a]; row >= 0 {
				view.rMul[row] -= b.aMul[a]
			} else {
				view.constant -= b.aMul[a] * logSigmoid(b.aOff[a])
			}
		} else {
			x.aMul[i] = mul[s.d.predOfRow(r)]
			view.constant -= x.aMul[i] * logSigmoid(0)
		}
		// A removed hard clause takes its share of the offset with it.
		for k, g := range gone {
			col := s.counts[g].cols[db]
			for gpos[k] < len(col.idx) && col.idx[gpos[k]] < r {
				gpos[k]++
			}
			if s.clauses[g].Hard && gpos[k] < len(col.idx) && col.idx[gpos[k]] == r {
				x.aOff[i] -= float64(col.val[gpos[k]]) * s.d.opt.HardWeight
			}
		}
		for k, c := range cc {
			col := c.cols[db]
			for pos[k] < len(col.idx) && col.idx[pos[k]] < r {
				pos[k]++
			}
			if pos[k] < len(col.idx) && col.idx[pos[k]] == r {
				x.aIdx = append(x.aIdx, int32(nb+k))
				x.aVal = append(x.aVal, float64(col.val[pos[k]])*c.Scale(db))
			}
		}
		x.aStart = append(x.aStart, len(x.aIdx))
		x.atoms++
	}
	x.compress(false)
	x.aStart, x.aIdx, x.aVal, x.aOff, x.aMul, x.aRow = nil, nil, nil, nil, nil, nil
	return &view, x
}

// inPred reports whether global row r is one of predicate q's.
func (d *PLLData) inPred(r int32, q mln.PredID) bool {
	lo := d.rowOff[q]
	return lo >= 0 && int64(r) >= lo && int64(r) < lo+d.sp.size[q]
}

// predOfRow returns the predicate of a global row.
func (d *PLLData) predOfRow(r int32) mln.PredID {
	for q := range d.m.Preds {
		if d.inPred(r, mln.PredID(q)) {
			return mln.PredID(q)
		}
	}
	return -1
}

// ModelRows counts the model's clauses and returns each database's
// pseudo-log-likelihood over the model's parameters (a clause's weight is
// w_Param·Coef; hard clauses keep CountOptions.HardWeight; a clause with
// "+" variables gets one parameter per binding met, allocated with
// Model.Param as the grounder does, so Model.Weights may grow). Maximize
// fits the weights.
func (d *PLLData) ModelRows(ctx context.Context) ([]*WPLL, error) {
	model := d.m
	counts, err := d.countAll(ctx, model.Clauses)
	if err != nil {
		return nil, err
	}
	cols := make([]colRef, len(model.Clauses))
	for i, c := range model.Clauses {
		cols[i] = colRef{cc: counts[i], param: -1, coef: c.Coef}
		switch {
		case c.Hard:
		case len(c.Plus) > 0:
			// One parameter per binding met, allocated as the grounder
			// does (Model.Param).
			for _, b := range counts[i].bindings {
				cols[i].bindParam = append(cols[i].bindParam, int32(model.Param(c.Formula, b)))
			}
			if cols[i].bindParam == nil {
				cols[i].bindParam = []int32{}
			}
		default:
			q, ok := model.Formulas[c.Formula].Params[""]
			if !ok {
				return nil, fmt.Errorf("score: clause %s has no parameter", clauseString(model, c))
			}
			cols[i].param = int32(q)
		}
	}
	var ps []*WPLL
	for db := range d.worlds {
		ps = append(ps, d.buildRows(db, cols, len(model.Weights), false, true))
	}
	return ps, nil
}
