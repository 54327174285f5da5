package ground

import (
	"cmp"
	"context"
	"slices"

	"github.com/marple-mln/marple/mln"
)

// worker enumerates the surviving groundings of a clause's plan.
type worker struct {
	g   *grounder
	ctx context.Context
	pl  *plan

	vals      []int32 // value of each variable: index in its type's domain
	litTruth  []mln.Truth
	litKey    []uint64
	varConsts [][]mln.ConstID // domain of each variable
	buf       []wlit
	lits      []Lit
	out       *unitOut
	pages     litWriter // the pages this worker fills
	binds     u64map    // "+" binding -> slot in the unit (unitOut.keys)
	// Scratch for the unit's per-clause arrays, reused from unit to unit;
	// a finished unit gets exact-size copies (see finish).
	addrs  []uint32
	sizes  []uint8
	params []int32
	err    error // the pages are full
	visits int
	stop   bool
}

// Truth of a literal (not of its atom).
const (
	litFalse = iota
	litTrue
	litUnknown
)

// ground enumerates rows lo..hi of the plan's first step; hint is the
// expected number of ground clauses. It returns nil when the context is
// cancelled.
func (w *worker) ground(pl *plan, lo, hi, hint int) *unitOut {
	w.pl = pl
	w.stop = false
	n := len(pl.clause.Vars)
	w.vals = slices.Grow(w.vals[:0], n)[:n]
	w.varConsts = w.varConsts[:0]
	for _, v := range pl.clause.Vars {
		w.varConsts = append(w.varConsts, w.g.consts(v.Type))
	}
	nl := len(pl.lits)
	w.litTruth = slices.Grow(w.litTruth[:0], nl)[:nl]
	w.litKey = slices.Grow(w.litKey[:0], nl)[:nl]
	w.out = &unitOut{
		addr: slices.Grow(w.addrs[:0], hint),
		size: slices.Grow(w.sizes[:0], hint),
	}
	w.binds.reset()
	if len(pl.plus) > 0 && !pl.hard {
		w.out.params = slices.Grow(w.params[:0], hint)
	}
	for _, li := range pl.ground {
		if w.eval(li) == litTrue {
			return w.finish()
		}
	}
	if len(pl.steps) == 0 {
		if lo < hi {
			w.leaf()
		}
	} else {
		w.step(0, lo, hi)
	}
	if w.stop {
		w.finish()
		return nil
	}
	return w.finish()
}

// finish keeps the unit's per-clause arrays as the worker's scratch for
// the next unit and gives the unit exact-size copies: the units' arrays
// wait for assembly, so their spare capacity (and the garbage of their
// growth) would count in the grounding's peak.
func (w *worker) finish() *unitOut {
	out := w.out
	w.addrs, w.sizes = out.addr, out.size
	out.addr, out.size = exact(out.addr), exact(out.size)
	if out.params != nil {
		w.params = out.params
		out.params = exact(out.params)
	}
	return out
}

// exact returns a copy of s with no spare capacity (non-nil).
func exact[T any](s []T) []T {
	c := make([]T, len(s))
	copy(c, s)
	return c
}

// step runs binding step si (restricted to rows lo..hi for the first).
func (w *worker) step(si int, lo, hi int) {
	pl := w.pl
	if si == len(pl.steps) {
		w.leaf()
		return
	}
	s := &pl.steps[si]
	switch s.kind {
	case stepDomain:
		if si > 0 {
			lo, hi = 0, int(s.size)
		}
		for x := lo; x < hi && !w.stop; x++ {
			w.vals[s.v] = int32(x)
			if w.check(s) {
				w.step(si+1, 0, 0)
			}
		}
	case stepEq:
		if si == 0 && lo >= hi {
			return
		}
		var x int32
		switch {
		case s.arith > 0:
			l := &pl.lits[s.arith-1]
			var buf [2]mln.ConstID
			args := buf[:0]
			for _, t := range l.terms[1:] {
				args = append(args, w.constOf(t))
			}
			c, ok := w.g.m.ArithValue(l.builtin, args)
			if !ok {
				return // no value: "!(v = f(args))" holds for every v
			}
			i, ok := w.g.index(pl.clause.Vars[s.v].Type, c)
			if !ok {
				return
			}
			x = i
		case s.eqFrom < 0:
			x = s.eqConst
		case !s.eqMap:
			x = w.vals[s.eqFrom]
		default:
			c := w.varConsts[s.eqFrom][w.vals[s.eqFrom]]
			i, ok := w.g.index(pl.clause.Vars[s.v].Type, c)
			if !ok {
				return
			}
			x = i
		}
		if x < 0 {
			return
		}
		w.vals[s.v] = x
		if w.check(s) {
			w.step(si+1, 0, 0)
		}
	case stepGen:
		pt := pl.lits[s.lit].pred
		key := s.keyConst
		for _, pv := range s.keyVars {
			key += uint64(w.vals[pv.v]) * pt.strides[pv.pos]
		}
		rows := s.ix.lookup(key)
		if si == 0 {
			rows = rows[lo:hi]
		}
		k := pt.arity()
	rowLoop:
		for _, r := range rows {
			if w.stop {
				return
			}
			args := pt.rowArgs[int(r)*k : int(r)*k+k]
			for _, pv := range s.binds {
				w.vals[pv.v] = args[pv.pos]
			}
			for _, pv := range s.same {
				if w.vals[pv.v] != args[pv.pos] {
					continue rowLoop
				}
			}
			w.litTruth[s.lit] = pt.rowTruth[r]
			w.litKey[s.lit] = pt.rowKey[r]
			if w.check(s) {
				w.step(si+1, 0, 0)
			}
		}
	}
}

// check evaluates the literals step s completes; it reports false when
// one of them is true (the grounding is satisfied and pruned).
func (w *worker) check(s *step) bool {
	w.visits++
	if w.visits&(1<<16-1) == 0 && w.ctx.Err() != nil {
		w.stop = true
		return false
	}
	for _, li := range s.checks {
		if w.eval(li) == litTrue {
			return false
		}
	}
	return true
}

// eval evaluates literal li under the current binding, caching the atom's
// key and truth for the leaf.
func (w *worker) eval(li int) int {
	l := &w.pl.lits[li]
	if l.pred == nil {
		if w.builtin(l) {
			return litTrue
		}
		return litFalse
	}
	pt := l.pred
	var key uint64
	for j, t := range l.terms {
		if t.IsVar() {
			key += uint64(w.vals[t.Var()]) * pt.strides[j]
		} else {
			key += uint64(l.local[j]) * pt.strides[j]
		}
	}
	v := pt.truth(key)
	w.litTruth[li] = v
	w.litKey[li] = key
	return litValue(v, l.neg)
}

func litValue(v mln.Truth, neg bool) int {
	switch v {
	case mln.Unknown:
		return litUnknown
	case mln.True:
		if neg {
			return litFalse
		}
		return litTrue
	}
	if neg {
		return litTrue
	}
	return litFalse
}

// builtin evaluates a comparison literal.
func (w *worker) builtin(l *litInfo) bool {
	if l.builtin.IsArith() {
		var buf [3]mln.ConstID
		args := buf[:0]
		for _, t := range l.terms {
			args = append(args, w.constOf(t))
		}
		return w.g.m.EvalLiteral(l.builtin, args) != l.neg
	}
	a, b := w.constOf(l.terms[0]), w.constOf(l.terms[1])
	var r bool
	switch l.builtin {
	case mln.Eq:
		r = a == b
	case mln.Neq:
		r = a != b
	default:
		c := w.g.compare(a, b)
		switch l.builtin {
		case mln.Lt:
			r = c < 0
		case mln.Le:
			r = c <= 0
		case mln.Gt:
			r = c > 0
		case mln.Ge:
			r = c >= 0
		}
	}
	return r != l.neg
}

func (w *worker) constOf(t mln.Term) mln.ConstID {
	if t.IsVar() {
		v := t.Var()
		return w.varConsts[v][w.vals[v]]
	}
	return t.Const()
}

// leaf handles a full binding of the universal variables that no literal
// has satisfied so far: it expands the existential variables, builds the
// ground clause and records it unless it is satisfied.
func (w *worker) leaf() {
	pl := w.pl
	buf := w.buf[:0]
	if pl.allFalse {
		w.emit(buf)
		return
	}
	for li := range pl.lits {
		l := &pl.lits[li]
		if l.pred == nil || l.exist {
			continue
		}
		if w.litTruth[li] == mln.Unknown {
			buf = append(buf, wlit{pred: int32(l.pred.id), neg: l.neg, key: w.litKey[li]})
		}
	}
	if len(pl.exist) > 0 {
		var ok bool
		buf, ok = w.expandExist(buf)
		if !ok {
			w.buf = buf
			return
		}
	}
	// Merge duplicate literals; an atom with both signs is a tautology.
	if len(buf) > 32 {
		var taut bool
		buf, taut = dedupSorted(buf)
		w.buf = buf
		if !taut {
			w.emit(buf)
		}
		return
	}
	for i := 0; i < len(buf); i++ {
		for j := i + 1; j < len(buf); {
			if buf[j].pred == buf[i].pred && buf[j].key == buf[i].key {
				if buf[j].neg != buf[i].neg {
					w.buf = buf
					return
				}
				buf = append(buf[:j], buf[j+1:]...)
				continue
			}
			j++
		}
	}
	w.buf = buf
	w.emit(buf)
}

// emit records a surviving grounding: its final literals go straight to
// the worker's pages (an atom without an ID yet, of a predicate whose
// unknown atoms are numbered on first occurrence, gets a placeholder that
// the merge fills in), and the unit records their address and number. An
// empty clause (a grounding the evidence falsifies) is only counted.
func (w *worker) emit(buf []wlit) {
	pl, out := w.pl, w.out
	slot := int32(-1)
	if len(pl.plus) > 0 {
		var b uint64
		for k, v := range pl.plus {
			b += uint64(w.vals[v]) * pl.pstride[k]
		}
		var ok bool
		if slot, ok = w.binds.get(b); !ok {
			slot = int32(len(out.keys))
			w.binds.put(b, slot)
			out.keys = append(out.keys, b)
			out.surv = append(out.surv, 0)
			out.used = append(out.used, false)
		}
		out.surv[slot]++
	}
	if len(buf) == 0 {
		out.nfalse++
		return
	}
	if slot >= 0 && !pl.hard {
		if !out.used[slot] {
			out.used[slot] = true
			out.order = append(out.order, slot)
		}
		out.params = append(out.params, slot)
	}
	lits := w.lits[:0]
	nfix := len(out.fix)
	for i, l := range buf {
		a := int32(0)
		if dense := w.g.atoms[l.pred].dense; dense != nil {
			a = dense[l.key]
		} else {
			out.fix = append(out.fix, fixup{pos: int32(i), pred: l.pred, neg: l.neg, key: l.key})
		}
		lits = append(lits, MakeLit(a, l.neg))
	}
	w.lits = lits
	a, err := w.pages.put(w.g.net, lits)
	if err != nil {
		w.err, w.stop = err, true
		return
	}
	for i := nfix; i < len(out.fix); i++ {
		out.fix[i].addr = a
	}
	out.addr = append(out.addr, a)
	out.size = append(out.size, sizeByte(len(lits)))
	out.nlits += len(lits)
	if len(lits) >= longSize {
		out.long = append(out.long, [2]int32{int32(len(out.addr) - 1), int32(len(lits))})
	}
}

// expandExist appends the literals of every value of the existential
// variables; ok is false when one of them is true.
func (w *worker) expandExist(buf []wlit) (_ []wlit, ok bool) {
	pl := w.pl
	for _, v := range pl.exist {
		w.vals[v] = 0
	}
	for {
		for _, li := range pl.exLits {
			switch w.eval(li) {
			case litTrue:
				return buf, false
			case litUnknown:
				l := &pl.lits[li]
				buf = append(buf, wlit{pred: int32(l.pred.id), neg: l.neg, key: w.litKey[li]})
			}
		}
		// Next combination (odometer, last variable fastest).
		k := len(pl.exist) - 1
		for ; k >= 0; k-- {
			v := pl.exist[k]
			w.vals[v]++
			if w.vals[v] < pl.existSz[k] {
				break
			}
			w.vals[v] = 0
		}
		if k < 0 {
			return buf, true
		}
	}
}

// dedupSorted sorts a long clause's literals by atom and merges
// duplicates; taut reports an atom with both signs.
func dedupSorted(buf []wlit) (_ []wlit, taut bool) {
	slices.SortFunc(buf, func(a, b wlit) int {
		if a.pred != b.pred {
			return cmp.Compare(a.pred, b.pred)
		}
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		switch {
		case a.neg == b.neg:
			return 0
		case a.neg:
			return 1
		}
		return -1
	})
	out := buf[:0]
	for _, l := range buf {
		if k := len(out) - 1; k >= 0 && l.pred == out[k].pred && l.key == out[k].key {
			if l.neg != out[k].neg {
				return out, true
			}
			continue
		}
		out = append(out, l)
	}
	return out, false
}
