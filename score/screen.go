package score

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/marple-mln/marple/mln"
)

// Screen ranks candidate clauses cheaply against a scorer's clauses at
// fixed weights: for a candidate it maximises the objective over the
// candidate's own weight alone, every base weight staying where it is (a
// one-dimensional concave problem over the atoms the candidate touches,
// solved by Newton's method from the base's cached log-odds). The gain
// it returns is a lower bound on the gain of refitting every weight, and
// costs a pass over the candidate's counts instead of an L-BFGS fit over
// every row of every database. Structure search ranks all candidates by
// it and refits only the best (Alchemy's -numClausesReEval idea; Kok &
// Domingos 2005 rank candidates by their gain with the other weights
// fixed for the same reason). A Screen is safe for concurrent use.
type Screen struct {
	s    *Scorer
	w    []float64
	prec float64     // 1/σ² (0: no prior)
	odds [][]float64 // per database, per base atom (base.aGlobal order): s_a
	obj  float64
	rem  sync.Map // clause index -> *removed

	argOnce  sync.Once
	arg      [][][][][2]float64 // argLoss
	lossOnce sync.Once
	loss     [][][2]float64 // per database and predicate: Σ c_a (−log σ(s_a)) over its scored false and true atoms
}

// Screen returns the screen of s's clauses at weights w (one per clause;
// hard clauses' are ignored), with opt's prior (PriorStdDev, NoPrior).
func (s *Scorer) Screen(w []float64, opt FitOptions) (*Screen, error) {
	if len(w) != len(s.clauses) {
		return nil, fmt.Errorf("score: Scorer.Screen: %d weights for %d clauses", len(w), len(s.clauses))
	}
	set := FitOptions{PriorStdDev: opt.PriorStdDev, NoPrior: opt.NoPrior}
	if err := checkFit(&set); err != nil {
		return nil, err
	}
	sc := &Screen{s: s, w: slices.Clone(w)}
	for i, c := range s.clauses {
		if c.Hard {
			sc.w[i] = 0
		}
	}
	if !set.NoPrior {
		sc.prec = 1 / (set.PriorStdDev * set.PriorStdDev)
	}
	for _, b := range s.base {
		odds := make([]float64, len(b.aGlobal))
		for a := range odds {
			x := b.aOff[a]
			for q := b.aStart[a]; q < b.aStart[a+1]; q++ {
				x += sc.w[b.aIdx[q]] * b.aVal[q]
			}
			odds[a] = x
		}
		sc.odds = append(sc.odds, odds)
		sc.obj += b.Eval(sc.w, nil)
	}
	for _, x := range sc.w {
		sc.obj -= sc.prec * x * x / 2
	}
	return sc, nil
}

// Objective returns the base's objective (WPLL minus the prior) at the
// screen's weights.
func (sc *Screen) Objective() float64 { return sc.obj }

// ScreenMaxIter bounds the Newton iterations of Screen.Gain.
const ScreenMaxIter = 50

// Gain returns the change of the objective when the base clauses at the
// indices remove are dropped (their weights set to 0) and cand (nil:
// none) is added with its weight optimised alone, every other weight
// fixed, and that weight. Candidates' counts come from (and go to) the
// data's cache; one whose counting would examine too many groundings
// returns an error wrapping ErrTooManyGroundings.
func (sc *Screen) Gain(ctx context.Context, remove []int, cand *mln.Clause) (gain, weight float64, err error) {
	s := sc.s
	for _, i := range remove {
		if i < 0 || i >= len(s.clauses) {
			return 0, 0, fmt.Errorf("score: Screen.Gain: no clause %d", i)
		}
	}
	var cc *ClauseCounts
	if cand != nil {
		if cand.Hard || len(cand.Plus) > 0 {
			return 0, 0, errors.New("score: Screen.Gain: hard candidate or \"+\" variables")
		}
		if cc, err = s.d.Counts(cand); err != nil {
			return 0, 0, err
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	rm := sc.removal(remove)
	if cc == nil {
		return rm.gain, 0, nil
	}
	gt, mul, r, delta := sc.groups(rm, cc)
	defer groupTables.Put(gt)
	w, f := newton1D(mul, r, delta, sc.prec)
	return rm.gain + f, w, nil
}

// groups returns the candidate's atoms grouped by their log-odds without
// the removed clauses and their Δ: per group its mass Σ c_a, log-odds and
// Δ. The objective's change is the removals' plus Σ_a c_a (log σ(r_a +
// w·Δ_a) − log σ(r_a)) over the atoms the candidate touches, r_a the
// log-odds without the removed clauses: atoms with equal (r_a, Δ_a) are
// merged. The group table goes back to groupTables when done.
func (sc *Screen) groups(rm *removed, cc *ClauseCounts) (gt *groupTable, mul, r, delta []float64) {
	s := sc.s
	nnz := 0
	for db := range s.base {
		nnz += len(cc.cols[db].idx)
	}
	gt, _ = groupTables.Get().(*groupTable)
	if gt == nil {
		gt = &groupTable{}
	}
	gt.reset(nnz)
	for db := range s.base {
		col := cc.cols[db]
		rr := &rm.dbs[db]
		k := 0
		lk := sc.lookup(db)
		for i, row := range col.idx {
			for k < len(rr.rows) && rr.rows[k] < row {
				k++
			}
			var c, y float64
			if k < len(rr.rows) && rr.rows[k] == row {
				c, y = rr.c[k], rr.y[k]
			} else {
				c, y = lk.at(row)
			}
			if c == 0 {
				continue
			}
			dv := float64(col.val[i]) * cc.Scale(db)
			g, ok := gt.find(math.Float64bits(y), math.Float64bits(dv), int32(len(mul)))
			if !ok {
				mul, r, delta = append(mul, 0), append(r, y), append(delta, dv)
			}
			mul[g] += c
		}
	}
	return gt, mul, r, delta
}

// Bound returns an upper bound on the gain Gain returns for candidate
// cand with the base clauses at the indices remove dropped, without
// counting the candidate.
//
// A candidate's term at an atom, c_a (log σ(r_a + w·Δ_a) − log σ(r_a)) at
// the log-odds r_a without the removed clauses, is at most the atom's
// loss −c_a log σ(r_a) where w·Δ_a > 0 and at most 0 elsewhere (the prior
// only lowers the gain). A ground clause's Δ at an atom is +1 only when
// the atom's value satisfies a literal of it on the atom (a true atom in a
// positive literal, a false one in a negative literal) and -1 only when
// it satisfies none, so for w > 0 only the true atoms of the predicates of
// positive literals and the false atoms of those of negative literals can
// gain, for w < 0 the others. Each side's loss is bounded twice, and the
// smaller taken: over those atoms of every predicate, and over those an
// argument restricts (argBound); the bound is the removals' change plus
// the larger side.
func (sc *Screen) Bound(remove []int, cand *mln.Clause) (float64, error) {
	gain, up, err := sc.dbBounds(remove, cand)
	if err != nil {
		return 0, err
	}
	var tot [2]float64
	for _, u := range up {
		tot[0] += u[0]
		tot[1] += u[1]
	}
	return gain + max(tot[0], tot[1]), nil
}

// dbBounds returns the removals' change and, per database, the bounds of
// each side's loss (Bound).
func (sc *Screen) dbBounds(remove []int, cand *mln.Clause) (float64, [][2]float64, error) {
	var pos, neg []mln.PredID
	for _, l := range cand.Lits {
		switch {
		case l.Pred < 0:
		case l.Neg && !slices.Contains(neg, l.Pred):
			neg = append(neg, l.Pred)
		case !l.Neg && !slices.Contains(pos, l.Pred):
			pos = append(pos, l.Pred)
		}
	}
	gain, up, err := sc.signedBound(remove, pos, neg)
	if err != nil {
		return 0, nil, err
	}
	var rm *removed // none: no row changes
	if len(remove) > 0 {
		rm = sc.removal(remove)
	}
	arg := sc.argBound(rm, cand)
	for db := range up {
		up[db][0] = min(up[db][0], arg[db][0])
		up[db][1] = min(up[db][1], arg[db][1])
	}
	return gain, up, nil
}

// signedBound returns the removals' change and, per database, the losses
// of each side (w > 0, w < 0) over every atom of the predicates pos of
// positive literals and neg of negative ones (Bound). Over every
// predicate in both, each side's sum over the databases is minus the WPLL
// without the removed clauses.
func (sc *Screen) signedBound(remove []int, pos, neg []mln.PredID) (float64, [][2]float64, error) {
	s := sc.s
	for _, i := range remove {
		if i < 0 || i >= len(s.clauses) {
			return 0, nil, fmt.Errorf("score: Screen.Bound: no clause %d", i)
		}
	}
	sc.lossOnce.Do(sc.predLoss)
	rm := sc.removal(remove)
	in := func(ps []mln.PredID, p mln.PredID) bool { return p >= 0 && slices.Contains(ps, p) }
	// up[db][0] bounds the gain at w > 0, up[db][1] at w < 0; a true atom
	// of a positive literal's predicate gains at w > 0, and so on.
	up := make([][2]float64, len(s.base))
	side := func(u *[2]float64, p mln.PredID, truth bool, x float64) {
		if in(pos, p) {
			if truth {
				u[0] += x
			} else {
				u[1] += x
			}
		}
		if in(neg, p) {
			if truth {
				u[1] += x
			} else {
				u[0] += x
			}
		}
	}
	for db := range s.base {
		u := &up[db]
		for p, l := range sc.loss[db] {
			side(u, mln.PredID(p), true, l[1])
			side(u, mln.PredID(p), false, l[0])
		}
		if len(remove) == 0 {
			continue
		}
		// The removals change the log-odds of the atoms they touch.
		inc, _ := sc.removalLoss(rm)
		for p, x := range inc[db] {
			side(u, mln.PredID(p), true, x[1])
			side(u, mln.PredID(p), false, x[0])
		}
	}
	return rm.gain, up, nil
}

// predLoss computes sc.loss: per database and predicate, the loss of its
// scored false and true atoms at the screen's weights (an atom no base
// clause touches has log-odds 0).
func (sc *Screen) predLoss() {
	s, d := sc.s, sc.s.d
	sc.loss = make([][][2]float64, len(s.base))
	for db, b := range s.base {
		loss := make([][2]float64, len(d.m.Preds))
		mass := make([][2]float64, len(d.m.Preds)) // c_a of the false and true atoms in the base's rows
		pr := mln.PredID(-1)
		for a, row := range b.aGlobal {
			if pr < 0 || !d.inPred(row, pr) {
				pr = d.predOfRow(row)
			}
			if pr < 0 || b.aMul[a] == 0 {
				continue
			}
			t := 0
			if d.rowTrue(db, pr, row) {
				t = 1
			}
			mass[pr][t] += b.aMul[a]
			loss[pr][t] -= b.aMul[a] * logSigmoid(sc.odds[db][a])
		}
		for q := range d.m.Preds {
			if d.rowOff[q] < 0 || d.mul[db][q] == 0 {
				continue
			}
			mul := d.mul[db][q]
			rest := float64(d.kept(db, mln.PredID(q)))*mul - mass[q][0] - mass[q][1]
			restTrue := min(max(float64(d.keptTrue(db, mln.PredID(q)))*mul-mass[q][1], 0), max(rest, 0))
			if restTrue > 0 {
				loss[q][1] += restTrue * math.Ln2
			}
			if restFalse := rest - restTrue; restFalse > 0 {
				loss[q][0] += restFalse * math.Ln2
			}
		}
		sc.loss[db] = loss
	}
}

// removed is the effect of dropping some base clauses: per database the
// rows they touch (sorted), each one's c_a and log-odds without them, and
// the objective's change.
type removed struct {
	dbs []struct {
		rows []int32
		c, y []float64
	}
	gain float64
	// inc[db][p][t] sums the loss's change at the rows of predicate p
	// with truth value t, pos its positive parts (removalLoss).
	incOnce  sync.Once
	inc, pos [][][2]float64
}

// removalLoss returns rm's inc and pos, built once.
func (sc *Screen) removalLoss(rm *removed) (inc, pos [][][2]float64) {
	rm.incOnce.Do(func() {
		d := sc.s.d
		rm.inc = make([][][2]float64, len(rm.dbs))
		rm.pos = make([][][2]float64, len(rm.dbs))
		for db := range rm.dbs {
			rr := &rm.dbs[db]
			inc := make([][2]float64, len(d.m.Preds))
			pos := make([][2]float64, len(d.m.Preds))
			lk := sc.lookup(db)
			pr := mln.PredID(-1)
			for i, row := range rr.rows {
				if pr < 0 || !d.inPred(row, pr) {
					pr = d.predOfRow(row)
				}
				c, x := lk.at(row)
				if c == 0 || pr < 0 {
					continue
				}
				t := 0
				if d.rowTrue(db, pr, row) {
					t = 1
				}
				x = c * (logSigmoid(x) - logSigmoid(rr.y[i]))
				inc[pr][t] += x
				pos[pr][t] += max(x, 0)
			}
			rm.inc[db], rm.pos[db] = inc, pos
		}
	})
	return rm.inc, rm.pos
}

// removal returns the effect of dropping the clauses remove (cached for a
// single clause: the refinements of a clause all drop it).
func (sc *Screen) removal(remove []int) *removed {
	if len(remove) == 1 {
		if r, ok := sc.rem.Load(remove[0]); ok {
			return r.(*removed)
		}
	}
	s := sc.s
	rm := &removed{}
	rm.dbs = make([]struct {
		rows []int32
		c, y []float64
	}, len(s.base))
	for db := range s.base {
		var rows []int32
		for _, g := range remove {
			rows = append(rows, s.counts[g].cols[db].idx...)
		}
		slices.Sort(rows)
		rows = slices.Compact(rows)
		d := &rm.dbs[db]
		d.rows = rows
		d.c, d.y = make([]float64, len(rows)), make([]float64, len(rows))
		gpos := make([]int, len(remove))
		lk := sc.lookup(db)
		for i, row := range rows {
			c, x := lk.at(row)
			y := x
			for k, g := range remove {
				col := s.counts[g].cols[db]
				for gpos[k] < len(col.idx) && col.idx[gpos[k]] < row {
					gpos[k]++
				}
				if gpos[k] < len(col.idx) && col.idx[gpos[k]] == row {
					wt := sc.w[g]
					if s.clauses[g].Hard {
						wt = s.d.opt.HardWeight
					}
					y -= wt * float64(col.val[gpos[k]]) * s.counts[g].Scale(db)
				}
			}
			d.c[i], d.y[i] = c, y
			if c != 0 && y != x {
				rm.gain += c * (logSigmoid(y) - logSigmoid(x))
			}
		}
	}
	for _, g := range remove {
		rm.gain += sc.prec * sc.w[g] * sc.w[g] / 2
	}
	if len(remove) == 1 {
		r, _ := sc.rem.LoadOrStore(remove[0], rm)
		return r.(*removed)
	}
	return rm
}

// rowLookup finds the base's c_a and log-odds of rows of one database,
// given in increasing order.
type rowLookup struct {
	sc *Screen
	db int
	a  int        // position in the base's atoms
	pr mln.PredID // predicate of the last row outside them
}

func (sc *Screen) lookup(db int) *rowLookup { return &rowLookup{sc: sc, db: db, pr: -1} }

// at returns row's c_a and log-odds; rows must come in increasing order.
func (lk *rowLookup) at(row int32) (c, odds float64) {
	b, d := lk.sc.s.base[lk.db], lk.sc.s.d
	lk.a = seek(b.aGlobal, lk.a, row)
	if lk.a < len(b.aGlobal) && b.aGlobal[lk.a] == row {
		return b.aMul[lk.a], lk.sc.odds[lk.db][lk.a]
	}
	if lk.pr < 0 || !d.inPred(row, lk.pr) {
		lk.pr = d.predOfRow(row)
	}
	return d.mul[lk.db][lk.pr], 0
}

// seek returns the first index i >= from with xs[i] >= x (xs sorted), by
// galloping: the rows a candidate touches are a sparse subset of the
// base's.
func seek(xs []int32, from int, x int32) int {
	step := 1
	hi := from
	for hi < len(xs) && xs[hi] < x {
		from = hi + 1
		hi += step
		step *= 2
	}
	hi = min(hi, len(xs))
	i, _ := slices.BinarySearch(xs[from:hi], x)
	return from + i
}

// newton1D maximises f(w) = Σ_i c_i (log σ(r_i + w·δ_i) − log σ(r_i)) −
// prec·w²/2 (concave) by Newton's method with step halving, from w = 0,
// and returns the maximiser and f there.
func newton1D(c, r, delta []float64, prec float64) (w, f float64) {
	lr := make([]float64, len(r)) // log σ(r_i), the same at every w
	for i, x := range r {
		if delta[i] != 0 {
			lr[i] = logSigmoid(x)
		}
	}
	eval := func(w float64) (f, g, h float64) { return screenEval(c, r, lr, delta, prec, w) }
	f, g, h := eval(0)
	for it := 0; it < ScreenMaxIter; it++ {
		if math.Abs(g) < 1e-10 {
			break
		}
		step := -g / h
		if h >= 0 || math.IsInf(step, 0) || math.IsNaN(step) {
			step = math.Copysign(1, g) // flat: move uphill by a unit
		}
		step = math.Max(-10, math.Min(10, step))
		var nf, ng, nh float64
		ok := false
		for k := 0; k < 30; k++ {
			nf, ng, nh = eval(w + step)
			if nf >= f {
				ok = true
				break
			}
			step /= 2
		}
		if !ok {
			break
		}
		w += step
		done := math.Abs(step) < 1e-6 || nf-f <= 1e-12*math.Max(1, math.Abs(nf))
		f, g, h = nf, ng, nh
		if done {
			break
		}
	}
	return w, f
}

// screenEval returns the one-dimensional objective Σ_i c_i (log σ(r_i +
// w·Δ_i) − log σ(r_i)) − prec·w²/2 and its first and second derivatives,
// given lr_i = log σ(r_i).
func screenEval(c, r, lr, delta []float64, prec, w float64) (f, g, h float64) {
	for i, d := range delta {
		if d == 0 {
			continue
		}
		z := r[i] + w*d
		// log σ(z) and σ(−z) = ∂ log σ(z)/∂z from one exponential, as
		// logSigmoid and sigmoid compute them.
		var ls, p float64
		if z >= 0 {
			e := math.Exp(-z)
			ls, p = -math.Log1p(e), e/(1+e)
		} else {
			e := math.Exp(z)
			ls, p = z-math.Log1p(e), 1/(1+e)
		}
		f += c[i] * (ls - lr[i])
		g += c[i] * d * p
		h -= c[i] * d * d * p * (1 - p)
	}
	return f - prec*w*w/2, g - prec*w, h - prec
}

// groupTable numbers distinct (log-odds, Δ) pairs in order of first
// appearance (Screen.Gain): an open-addressing hash table reused across
// calls, its slots emptied by advancing a generation.
type groupTable struct {
	keys [][2]uint64
	vals []int32
	gen  []uint32
	cur  uint32
	mask uint64
}

var groupTables sync.Pool // *groupTable

// reset empties the table for up to n keys.
func (t *groupTable) reset(n int) {
	size := 16
	for size < 2*n {
		size *= 2
	}
	if len(t.keys) < size {
		t.keys, t.vals, t.gen, t.cur = make([][2]uint64, size), make([]int32, size), make([]uint32, size), 0
	}
	t.mask = uint64(size - 1)
	t.cur++
	if t.cur == 0 {
		clear(t.gen)
		t.cur = 1
	}
}

// find returns the number of key (a, b), giving it next when it is new
// (ok false).
func (t *groupTable) find(a, b uint64, next int32) (int32, bool) {
	h := a*0x9e3779b97f4a7c15 ^ b*0xc2b2ae3d27d4eb4f
	h ^= h >> 29
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		if t.gen[i] != t.cur {
			t.gen[i], t.keys[i], t.vals[i] = t.cur, [2]uint64{a, b}, next
			return next, false
		}
		if t.keys[i] == [2]uint64{a, b} {
			return t.vals[i], true
		}
	}
}
